"""Solver dialects come from the family records: each family's own commands and set-option
keywords go to it alone."""

from __future__ import annotations

import json
from pathlib import Path

from sphinxfuzz.oracle.dialect import Dialects, command_family, for_family, option_family
from sphinxfuzz.smtlib import parse_script
from sphinxfuzz.solvers import Outcome, parse_specs, run_solver
from sphinxfuzz.solvers.families import DATA, Family, load_records


def test_set_option_keywords_and_commands_belong_to_the_family_whose_record_names_them() -> None:
    assert option_family(":produce-models") is None  # standard: every solver
    assert option_family(":smt.arith.solver") is Family.Z3  # a z3 module prefix
    assert option_family(":sat_ddfw") is Family.Z3  # z3's underscore
    assert option_family(":macro-finder") is Family.Z3  # one of z3's plain keywords
    assert option_family(":strings-exp") is Family.CVC5  # cvc5 owns the rest
    owners = {
        head: command_family(parse_script(f"({head} x)").commands[0])
        for head in ("check-sat-using", "get-abduct", "check-sat", "assert")
    }
    assert owners == {
        "check-sat-using": Family.Z3, "get-abduct": Family.CVC5, "check-sat": None, "assert": None,
    }  # fmt: skip


def test_a_new_familys_own_command_in_its_record_goes_to_it_alone(tmp_path: Path) -> None:
    # yices's `check-sat-assuming-model` (MCSAT), named by a yices record that reads its own
    # dialect: the data alone makes it yices's, with no code naming yices
    rows = json.loads(DATA.read_text(encoding="utf-8"))
    for row in rows["families"]:
        if row["name"] == "yices":
            row.update(dialect="yices", dialect_commands=["check-sat-assuming-model"])
    path = tmp_path / "families.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    dialects = Dialects.of(load_records(path))
    text = (
        "(set-logic QF_NRA)(declare-const x Real)(assert (> (* x x) 2.0))"
        "(check-sat-assuming-model (x) (1.0))"
    )
    yices_text = for_family(text, "yices", dialects=dialects)
    z3_text = for_family(text, "z3", dialects=dialects)
    assert "check-sat-assuming-model" in yices_text and "check-sat-assuming-model" not in z3_text
    # the shipped records name it nowhere: every family gets it
    assert "check-sat-assuming-model" in for_family(text, "z3")
    yices = run_solver(parse_specs("yices --mcsat")[0], yices_text, timeout=10.0)
    assert yices.outcome is Outcome.UNSAT, yices.stdout  # x = 1: 1 * 1 > 2 is false
    z3 = run_solver(parse_specs("z3")[0], z3_text, timeout=10.0)
    assert z3.stdout.strip() == "" and z3.outcome is not Outcome.CRASH, z3.stdout
