"""`reduce` leaves out the options a bug does not need: z3 4.8.8's fp.fma crash
(docs/bugs-found.json) stored with options that have nothing to do with it, one of them
expert (`smt.core.validate`, "[internal] ... intended for debugging")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sphinxfuzz.bugs import Origin, Store
from sphinxfuzz.bugs.issue_text import issue_text, load_facts, solver_words
from sphinxfuzz.bugs.option_drop import bug_standing, option_words
from sphinxfuzz.bugs.record import load_record
from sphinxfuzz.bugs.reduce import reduce_bug
from sphinxfuzz.cli import app
from sphinxfuzz.oracle import VerdictKind
from sphinxfuzz.oracle.judge import judge
from sphinxfuzz.oracle.run import run_in_dialect
from sphinxfuzz.oracle.same_bug import CheckSpec, check
from sphinxfuzz.solvers import SolverResult, SolverSpec, parse_specs
from sphinxfuzz.solvers.options.standing import Standing

# z3 4.8.8 fails an assertion on fp.fma with a free rounding mode (bugs-found.json)
FMA = """(declare-const r RoundingMode)
(declare-const unused Int)
(assert (> unused 3))
(assert (= (_ bv0 1) (ite (fp.eq (fp (_ bv0 1) (_ bv0 8) (_ bv0 23)) (fp.fma r (_ +zero 8 24) (fp (_ bv0 1) (_ bv0 8) (_ bv0 23)) (fp (_ bv0 1) (_ bv0 8) (_ bv0 23)))) (_ bv1 1) (_ bv0 1))))
(check-sat)
"""
IRRELEVANT = "rewriter.flat=false smt.core.validate=true sat.phase=always_false"


def _run(spec: SolverSpec, text: str) -> SolverResult:
    return run_in_dialect(spec, text, timeout=10.0)


def _stored_crash(root: Path, solvers: str) -> Path:
    """The crash as a campaign stores it: judged on `solvers` (the options on their command
    lines, as `fuzz --options` puts them)."""
    specs = parse_specs(solvers)
    results = [_run(s, FMA) for s in specs]
    [verdict] = judge(FMA, results, _run).verdicts
    assert (verdict.kind, verdict.solver) == (VerdictKind.CRASH, "z3@4.8.8")
    with Store(root, create=True) as store:
        store.save_config({"timeout": 10.0, "memory_mb": 4096, "solvers": "z3@4.8.8;z3"})
        ident = store.record_bug(verdict, Origin(1, "seed.smt2", 0, 0, "opfuzz"), FMA, results)
    return root / "bugs" / str(ident)


@pytest.mark.usefixtures("z3_4_8_8")
def test_options_the_crash_does_not_need_are_left_out(tmp_path: Path) -> None:
    folder = _stored_crash(tmp_path, f"z3@4.8.8 {IRRELEVANT};z3 {IRRELEVANT}")
    assert bug_standing(load_record(folder)) == Standing.EXPERT  # before: as it ran
    result = reduce_bug(tmp_path, folder.name)
    assert result.dropped_options == (
        "z3@4.8.8: rewriter.flat=false", "z3@4.8.8: smt.core.validate=true",
        "z3@4.8.8: sat.phase=always_false",
    )  # fmt: skip
    meta = json.loads((folder / "reduce.json").read_text())
    assert meta["dropped_options"] == list(result.dropped_options)
    # the crash needs no option: a maintainer takes it as it is
    assert meta["standing"] == "default"
    assert bug_standing(load_record(folder)) == Standing.DEFAULT
    # `bugs list` shows the sizes and the standing
    listed = CliRunner().invoke(app, ["bugs", "list", "--campaign", str(tmp_path)])
    assert listed.exit_code == 0, listed.output
    [line] = [line for line in listed.output.splitlines() if line.startswith(folder.name)]
    sizes = f"{meta['before']['bytes']} -> {meta['after']['bytes']} B"
    assert sizes in line and " default " in line
    as_json = CliRunner().invoke(app, ["bugs", "list", "--campaign", str(tmp_path), "--json"])
    [bug] = json.loads(as_json.stdout)["bugs"]
    assert bug["standing"] == "default" and bug["reduced_size"] == meta["after"]
    shown = CliRunner().invoke(app, ["bugs", "show", folder.name, "-c", str(tmp_path)])
    assert "standing: default" in shown.output, shown.output
    shown = CliRunner().invoke(app, ["bugs", "show", folder.name, "-c", str(tmp_path), "--json"])
    assert json.loads(shown.stdout)["standing"] == "default"
    # only the blamed solver runs in a crash's check: the other keeps what it was given
    spec = CheckSpec.from_json(meta["check"])
    assert spec.solvers == ("z3@4.8.8", f"z3 {IRRELEVANT}")
    reduced = (folder / "reduced.smt2").read_text()
    assert "unused" not in reduced
    found, _ = check(spec, reduced)
    assert found is not None and found.kind == VerdictKind.CRASH
    assert [r["spec"] for r in meta["results"]] == ["z3@4.8.8"]
    # the issue names the command the bug needs: no options
    text = issue_text(load_facts(folder))
    assert "z3 bug.smt2" in text and "rewriter.flat" not in text and "sat.phase" not in text


def test_option_words_are_the_words_after_the_program() -> None:
    assert option_words("z3@4.8.8 rewriter.flat=false -T:5") == [1, 2]
    assert option_words("cvc5 --strings-exp --no-check-models") == [1, 2]
    # a stand-in run by an interpreter: its script is no option
    assert option_words("/usr/bin/python3 stand_in.py --x") == [2]


def test_a_second_command_line_of_a_solver_is_named_as_the_solver_in_issues() -> None:
    # `fuzz --options compare` runs z3 plain and, as z3#2, with options
    assert [solver_words(n, "z3") for n in ("z3#2", "z3@4.8.8#2", "z3@4.8.8")] == ["z3"] * 3
    assert solver_words("my-z3-wrapper", "z3") == "my-z3-wrapper"
