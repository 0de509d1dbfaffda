"""Option tables: what each release declares, which options the rules choose, and which the
release accepts in the probe, with real z3 and cvc5 releases (a handful of options each, not
the whole table)."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from fnmatch import fnmatchcase
from pathlib import Path

import pytest
from typer.testing import CliRunner

import sphinxfuzz.solvers.options.declared as declared_module
from sphinxfuzz.cli import app
from sphinxfuzz.solvers import Family, Outcome, parse_specs
from sphinxfuzz.solvers.fresh_process import run_solver
from sphinxfuzz.solvers.options.choose import RULES, choose, load_rules
from sphinxfuzz.solvers.options.declared import (
    Declared,
    Kind,
    api_options,
    cvc5_help_experts,
    cvc5_safe_mode_experts,
    declared_options,
    newest_cvc5_standings,
    parse_cvc5_help,
    parse_z3_parameters,
)
from sphinxfuzz.solvers.options.probe import delivered, find_delivery, probe
from sphinxfuzz.solvers.options.relevance import RULES as RELEVANCE
from sphinxfuzz.solvers.options.relevance import load_relevance
from sphinxfuzz.solvers.options.standing import (
    Standing,
    command_standing,
    cvc5_category_standing,
    highest,
    load_notes,
    noted,
    standings_of,
    warned,
)
from sphinxfuzz.solvers.options.table import (
    build_table,
    load_table,
    option_table,
    release_standings,
    save_table,
)
from sphinxfuzz.solvers.spec import with_options

# as z3 5.4.1 prints them (`z3 -pm:sat`, `z3 -pm:smt`), one of each shape
Z3_TEXT = """[module] sat, description: propositional SAT solver
    restart (symbol) restart strategy: static, luby, ema or geometric (default: ema)
    drat.file (symbol) file to dump DRAT proofs
    phase (symbol) phase selection strategy: always_false, always_true, caching (default: caching)
    arith.solver (unsigned int) arithmetic solver: 0 - no solver, 1 - bellman-ford based solver (diff. logic only), 2 - simplex based solver (default: 2)
    cls_cutoff1 (unsigned int) limit1 - total number of problems clauses (default: 100000000)
    epsilon (double) initial value of epsilon (default: 1.0)
    core.minimize (bool) minimize unsat core (default: false)
"""


def _by_name(options: list[Declared]) -> dict[str, Declared]:
    return {o.name: o for o in options}


def test_z3_parameter_lines_give_kinds_and_choices() -> None:
    found = _by_name(parse_z3_parameters(Z3_TEXT, "sat"))
    assert found["sat.restart"].choices == ("static", "luby", "ema", "geometric")
    assert found["sat.restart"].kind == Kind.ENUM and found["sat.restart"].default == "ema"
    assert found["sat.phase"].choices == ("always_false", "always_true", "caching")
    assert found["sat.drat.file"].kind == Kind.OTHER  # a file name, no choices
    assert found["sat.arith.solver"].choices == ("0", "1", "2")
    assert found["sat.cls_cutoff1"].kind == Kind.INT  # "limit1 - ..." lists nothing
    assert found["sat.epsilon"].kind == Kind.OTHER
    assert found["sat.core.minimize"] == Declared(
        "sat.core.minimize", Kind.BOOL, "false", type_name="bool"
    )


def test_z3_wheel_declares_its_modules() -> None:
    found = _by_name(declared_options(parse_specs("z3")[0]))
    assert found["auto_config"].kind == Kind.BOOL and found["auto_config"].default == "true"
    assert {"0", "2", "6"} <= set(found["smt.arith.solver"].choices)
    assert "seq" in found["smt.string_solver"].choices
    assert len(found) > 500


def test_cvc5_wheel_declares_options_without_aliases() -> None:
    found = _by_name(declared_options(parse_specs("cvc5")[0]))
    assert found["nl-ext-tplanes"].kind == Kind.BOOL
    assert found["simplification"].choices == ("batch", "none")
    assert found["simplification"].default == "batch"
    assert "simplification-mode" not in found  # an alias of simplification
    assert found["dag-thresh"].minimum == 0 and found["dag-thresh"].maximum is None


def test_cvc5_help_lines() -> None:
    text = (
        "  --strings-exp          experimental features in the theory of strings [*]\n"
        "  --simplification=MODE | --simplification-mode=MODE\n"
        "                         choose simplification mode, see --simplification=help\n"
        "  --arith-brab           whether to use simple rounding, similar to a unit-cube\n"
        "                         test, for integers [*]\n"
        "  --dag-thresh=N         dagify common subexprs appearing > N times\n"
    )
    assert parse_cvc5_help(text) == [
        ("strings-exp", None, True),
        ("simplification", "MODE", False),
        ("arith-brab", None, True),
        ("dag-thresh", "N", False),
    ]


@pytest.mark.skipif(not shutil.which("/usr/bin/cvc5"), reason="Debian's cvc5 binary is absent")
def test_cvc5_binary_declares_modes_and_defaults() -> None:
    found = _by_name(declared_options(parse_specs("/usr/bin/cvc5")[0]))
    assert found["strings-exp"] == Declared("strings-exp", Kind.BOOL, "false", type_name="bool")
    assert found["simplification"].default == "batch"
    assert set(found["simplification"].choices) == {"batch", "none"}


def test_rules_choose_small_scalars_and_say_why_not() -> None:
    declared = [
        Declared("smt.arith.solver", Kind.ENUM, "2", ("0", "1", "2")),
        Declared("pp.decimal", Kind.BOOL, "false"),  # excluded for z3: printing
        Declared("smt.random_seed", Kind.INT, "0", minimum=0),
        Declared("lookahead", Kind.INT, "1", minimum=0, maximum=3),
        Declared("wide", Kind.ENUM, "a", tuple("abcdefghij")),
        Declared("mystery", Kind.BOOL, None),  # a release that did not say its default
        Declared("epsilon", Kind.OTHER, "1.0", type_name="double"),
    ]
    chosen, left_out = choose(Family.Z3, declared)
    assert {c.name: c.values for c in chosen} == {
        "smt.arith.solver": ("0", "1"),
        "lookahead": ("0", "2", "3"),
        "mystery": ("true", "false"),
    }
    assert left_out["pp.decimal"].startswith("excluded (pp.*)")
    assert "seed" in left_out["smt.random_seed"]
    assert "10 choices" in left_out["wide"]
    assert "double" in left_out["epsilon"]
    # the same name under another family: z3's exclusions do not apply
    assert [c.name for c in choose(Family.CVC5, declared[1:2])[0]] == ["pp.decimal"]


def test_rules_file_needs_a_reason_per_exclusion(tmp_path: Path) -> None:
    data = json.loads(RULES.read_text(encoding="utf-8"))
    data["excluded"].append({"pattern": "x*"})
    broken = tmp_path / "rules.json"
    broken.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="unusable option rules"):
        load_rules(broken)


def test_every_relevance_rule_names_options_of_the_newest_wheels() -> None:
    """A pattern no option matches is a typo that leaves an option drawn where it cannot
    act; the features of a few seeds of our own are those they use."""
    rules = load_relevance()
    for family in (Family.Z3, Family.CVC5):
        names = [o.name for o in declared_options(parse_specs(family.value)[0])]
        dead = [r.pattern for r in rules.rules[family]
                if not r.older and not any(fnmatchcase(n, r.pattern) for n in names)]  # fmt: skip
        assert not dead, f"{family.value}: no option matches {dead}"
    assert rules.seed_features("(declare-const s String)(assert (str.in_re s re.all))") == {
        "strings"
    }
    assert rules.seed_features("(assert (forall ((x Real)) (> (* x x) (- 1.0))))") == {
        "arith", "nonlinear", "quantifiers",
    }  # fmt: skip
    assert not rules.acts(Family.CVC5, "strings-exp", frozenset({"arith"}))
    assert rules.acts(Family.CVC5, "decision", frozenset())  # no rule: acts everywhere
    assert not rules.acts(Family.CVC5, "lfsc-flatten", frozenset(rules.features))


def test_a_value_that_turns_a_theory_off_is_left_out_and_its_option_stays() -> None:
    """z3's `smt.string_solver=none` leaves strings uninterpreted: a model gives a string
    variable an element of an abstract universe, which no string semantics accepts."""
    z3 = parse_specs("z3")[0]
    text = '(declare-const s String)\n(assert (str.prefixof "a" s))\n(check-sat)\n(get-model)\n'
    off = run_solver(with_options(z3, ("smt.string_solver=none",)), text, timeout=30)
    assert "universe for String" in off.stdout
    declared = [Declared("smt.string_solver", Kind.ENUM, "seq", ("seq", "auto", "none"))]
    chosen, left_out = choose(Family.Z3, declared)
    assert [(c.name, c.values) for c in chosen] == [("smt.string_solver", ("auto",))]
    assert "uninterpreted" in left_out["smt.string_solver=none"]


def test_an_option_refused_beside_a_seed_feature_is_not_drawn_for_that_seed() -> None:
    seed = "(set-option :produce-unsat-cores true)\n(declare-const x Int)\n(assert (> x 0))\n"
    refused = run_solver(with_options(parse_specs("cvc5")[0], ("--pb-rewrites",)),
                         seed + "(check-sat)\n", timeout=30)  # fmt: skip
    assert refused.outcome == Outcome.ERROR
    assert "not supported with unsat cores" in (refused.failure_line or "")
    rules = load_relevance()
    assert not rules.acts(Family.CVC5, "pb-rewrites", rules.seed_features(seed))
    plain = seed.replace(":produce-unsat-cores", ":produce-models")
    assert rules.acts(Family.CVC5, "pb-rewrites", rules.seed_features(plain))
    # learned rewrites too, which a regressions campaign drew beside a seed's unsat cores
    refused = run_solver(with_options(parse_specs("cvc5")[0], ("--learned-rewrite",)),
                         seed + "(check-sat)\n", timeout=30)  # fmt: skip
    assert "learned rewrites not supported with unsat cores" in (refused.failure_line or "")
    assert not rules.acts(Family.CVC5, "learned-rewrite", rules.seed_features(seed))
    assert rules.acts(Family.CVC5, "learned-rewrite", rules.seed_features(plain))
    # a second check-sat makes the script incremental, which deep restarts refuse
    twice = plain + "(check-sat)\n(assert (< x 5))\n(check-sat)\n"
    refused = run_solver(with_options(parse_specs("cvc5")[0], ("--deep-restart=all",)),
                         twice, timeout=30)  # fmt: skip
    assert "not supported with incremental solving" in (refused.failure_line or "")
    assert not rules.acts(Family.CVC5, "deep-restart", rules.seed_features(twice))
    assert rules.acts(Family.CVC5, "deep-restart", rules.seed_features(plain + "(check-sat)\n"))
    # bit-vectors as integers, beside a quantifier: refused (bitwise) or left undecided
    quantified = ("(declare-const x (_ BitVec 4))\n"
                  "(assert (forall ((y (_ BitVec 4))) (bvule y (bvor x y))))\n(check-sat)\n")  # fmt: skip
    refused = run_solver(with_options(parse_specs("cvc5")[0], ("--solve-bv-as-int=bitwise",)),
                         quantified, timeout=30)  # fmt: skip
    assert "does not support quantifiers" in (refused.failure_line or "")
    assert not rules.acts(Family.CVC5, "solve-bv-as-int", rules.seed_features(quantified))
    free = quantified.replace("(forall ((y (_ BitVec 4))) (bvule y (bvor x y)))", "(bvule x x)")
    assert rules.acts(Family.CVC5, "solve-bv-as-int", rules.seed_features(free))


def test_options_a_release_refuses_together_are_not_drawn_together() -> None:
    """`--unsat-cores-mode` turns unsat cores on, beside which cvc5 refuses deep restarts:
    the later of the two drawn is left out, whichever order they came in."""
    cvc5 = parse_specs("cvc5")[0]
    text = "(set-option :produce-models true)\n(declare-const x Int)\n(assert (> x 2))\n"
    pair = ("--unsat-cores-mode=assumptions", "--deep-restart=all")
    refused = run_solver(with_options(cvc5, pair), text + "(check-sat)\n", timeout=30)
    assert "deep restarts not supported with proofs or unsat cores" in (refused.failure_line or "")
    rules = load_relevance()
    assert rules.compatible(Family.CVC5, ["unsat-cores-mode", "deep-restart", "decision"]) == [
        "unsat-cores-mode", "decision",
    ]  # fmt: skip
    assert rules.compatible(Family.CVC5, ["deep-restart", "minimal-unsat-cores"]) == [
        "deep-restart"
    ]
    assert rules.compatible(Family.CVC5, ["pb-rewrites", "deep-restart"]) == [
        "pb-rewrites", "deep-restart",
    ]  # fmt: skip


def test_relevance_rules_name_known_features(tmp_path: Path) -> None:
    data = json.loads(RELEVANCE.read_text(encoding="utf-8"))
    data["options"]["z3"].append({"pattern": "smt.x", "needs": ["quantifier"]})
    broken = tmp_path / "relevance.json"
    broken.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="smt.x: no feature quantifier"):
        load_relevance(broken)


def test_delivery_words() -> None:
    z3, cvc5 = parse_specs("z3;cvc5")
    spec, script = delivered(z3, "(check-sat)\n", [("smt.arith.solver", "2")], "argv")
    assert spec.argv[-1] == "smt.arith.solver=2" and script == "(check-sat)\n"
    spec, script = delivered(cvc5, "(check-sat)\n", [("nl-ext-tplanes", "true")], "argv")
    assert spec.argv[-1] == "--nl-ext-tplanes"
    assert delivered(cvc5, "", [("strings-exp", "false")], "argv")[0].argv[-1] == "--no-strings-exp"
    assert (
        delivered(cvc5, "", [("simplification", "none")], "argv")[0].argv[-1]
        == "--simplification=none"
    )
    spec, script = delivered(cvc5, "(check-sat)\n", [("nl-ext-tplanes", "true")], "set-option")
    assert spec == cvc5 and script == "(set-option :nl-ext-tplanes true)\n(check-sat)\n"


def _z3_handful() -> list[Declared]:
    return [
        Declared("auto_config", Kind.BOOL, "true"),
        Declared("smt.string_solver", Kind.ENUM, "seq", ("seq", "auto", "no_such_solver")),
        Declared("smt.no_such_option", Kind.BOOL, "false"),
    ]


def test_probe_keeps_only_what_z3_accepts() -> None:
    z3 = parse_specs("z3")[0]
    table = build_table(z3, declared=_z3_handful())
    assert table.delivery == "argv"
    assert {o.name: o.values for o in table.options} == {
        "auto_config": ("false",),
        "smt.string_solver": ("auto",),
    }
    assert set(table.rejected) == {"smt.string_solver=no_such_solver", "smt.no_such_option=true"}
    assert "no_such_option" in table.rejected["smt.no_such_option=true"]
    assert table.rejected_options == 1 and table.candidates == 3
    # an accepted value costs one run (both scripts, the formula after a reset); a refused
    # one is tried again a script a run, up to the first that fails
    assert table.probe_runs == 2 * 1 + 2 * 2


def test_probe_of_cvc5_on_its_command_line_and_by_set_option() -> None:
    cvc5 = parse_specs("cvc5")[0]
    declared = [
        Declared("strings-exp", Kind.BOOL, "false"),
        Declared("bogus-option", Kind.BOOL, "false"),
    ]
    table = build_table(cvc5, declared=declared)
    assert table.delivery == "argv"  # the rules try the command line first
    assert [(o.name, o.values) for o in table.options] == [("strings-exp", ("true",))]
    assert set(table.rejected) == {"bogus-option=true"}
    # the shim is probed by set-option (the same setOption call as its command line, in one
    # process): cvc5 answers `unsupported` to a name it does not know, and goes on
    chosen, _ = choose(Family.CVC5, declared)
    accepted, rejected, _ = probe(cvc5, chosen, "set-option")
    assert accepted == {"strings-exp": ("true",)}
    assert "unsupported" in rejected["bogus-option=true"]


def test_delivery_follows_the_rules_order() -> None:
    z3 = parse_specs("z3")[0]
    chosen, _ = choose(Family.Z3, [Declared("smt.arith.solver", Kind.ENUM, "6", ("2", "6"))])
    assert find_delivery(z3, ("set-option", "argv"), chosen) == "set-option"
    assert find_delivery(z3, ("argv", "set-option"), chosen) == "argv"


def test_tables_are_cached_per_release(tmp_path: Path) -> None:
    z3 = parse_specs("z3")[0]
    small = build_table(z3, declared=_z3_handful())
    save_table(z3, small, tmp_path)
    assert load_table(z3, tmp_path) == small
    assert option_table(z3, folder=tmp_path) == small  # from the cache: nothing probed
    other = dataclasses.replace(small, rules="made-by-other-rules")
    save_table(z3, other, tmp_path)
    assert load_table(z3, tmp_path) is None


def test_cli_shows_a_cached_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path))
    z3 = parse_specs("z3")[0]
    expert = Declared("sat.smt", Kind.BOOL, "false", type_name="bool")  # standing.json
    save_table(z3, build_table(z3, declared=[*_z3_handful(), expert]))
    runner = CliRunner()
    shown = runner.invoke(app, ["solvers", "options", "z3", "--why"])
    assert shown.exit_code == 0, shown.output
    assert "smt.string_solver" in shown.output and "unknown parameter" in shown.output
    assert "4 declared, 4 chosen by the rules, 1 of those rejected" in shown.output
    assert "3 in the table, 1 of them expert" in shown.output
    [row] = [line for line in shown.output.splitlines() if "sat.smt" in line]
    assert "expert" in row
    listed = runner.invoke(app, ["solvers", "options", "z3", "--json"])
    data = json.loads(listed.stdout)
    assert data["schema"] == "sphinxfuzz/option-table/2" and data["delivery"] == "argv"
    assert [o["name"] for o in data["options"]] == ["auto_config", "smt.string_solver", "sat.smt"]
    assert data["standings"]["sat.smt"] == "expert"
    assert data["standings"]["auto_config"] == "regular"


# -- standings ---------------------------------------------------------------------------


def test_cvc5_wheel_categories_give_standings() -> None:
    found = _by_name(declared_options(parse_specs("cvc5")[0]))
    assert found["bv-rw-extend-eq"].standing == Standing.EXPERT  # EXPERT
    assert found["uf-ho-exp"].standing == Standing.EXPERT  # EXPERT
    assert found["sub-cbqi"].standing == Standing.REGULAR  # REGULAR
    assert found["sat-solver"].standing == Standing.REGULAR  # COMMON
    assert cvc5_category_standing("UNDOCUMENTED") == Standing.EXPERT
    assert cvc5_category_standing("expert") == Standing.EXPERT  # as the enum's name or word
    assert cvc5_category_standing(None) == Standing.REGULAR  # a release before categories
    with pytest.raises(ValueError, match="unknown cvc5 option category 'SECRET'"):
        cvc5_category_standing("SECRET")  # a new category is not guessed


def test_z3_descriptions_mark_expert_parameters() -> None:
    """z3 5.4.1's own `-pm` texts, before the data file has its say."""
    found = _by_name(declared_options(parse_specs("z3")[0]))
    # "[internal] ... intended for debugging"
    assert found["smt.core.validate"].standing == Standing.EXPERT
    assert found["fp.spacer.iuc.debug_proof"].standing == Standing.EXPERT  # "(debugging)"
    assert found["sat.local_search_dbg_flips"].standing == Standing.EXPERT  # "debug information"
    # "delay internalize expensive bit-vector operations": internalize is no mark
    assert found["smt.bv.delay"].standing == Standing.REGULAR
    assert found["smt.arith.solver"].standing == Standing.REGULAR
    assert found["sat.smt"].standing == Standing.REGULAR  # the description does not say
    for about in ("an experimental feature", "[internal] keep the trail"):
        line = f"    x (bool) {about} (default: false)"
        assert parse_z3_parameters(line, "m")[0].standing == Standing.EXPERT, about


# as z3 5.4.1 prints them (`z3 -pm:sat`, `z3 -pm:algebraic`, `z3 -pm:fp`, `z3 -pm:nlsat`)
Z3_MARKED = {
    "sat": """[module] sat, description: propositional SAT solver
    euf (bool) enable euf solver (this feature is preliminary and not ready for general consumption) (default: false)
    local_search_dbg_flips (bool) write debug information for number of flips (default: false)
    force_cleanup (bool) force cleanup to remove tautologies and simplify clauses (default: false)
    drat.check_unsat (bool) build up internal proof and check (default: false)
""",
    "algebraic": """[module] algebraic, description: real algebraic number package. Non-default parameter settings are not supported
    factor (bool) use polynomial factorization to simplify polynomials representing algebraic numbers (default: true)
""",
    "fp": """[module] fp, description: fixedpoint parameters
    spacer.keep_proxy (bool) keep proxy variables (internal parameter) (default: true)
""",
    "nlsat": """[module] nlsat, description: nonlinear solver
    inline_vars (bool) inline variables that can be isolated from equations (not supported in incremental mode) (default: false)
""",
}


def test_z3_marks_preliminary_internal_and_unsupported_modules_expert() -> None:
    """sat.euf, "preliminary and not ready for general consumption", stood regular, and a
    campaign stored a failed assertion needing it as a bug a maintainer would take."""
    found = {d.name: d.standing for m, text in Z3_MARKED.items()
             for d in parse_z3_parameters(text, m)}  # fmt: skip
    assert found == {
        "sat.euf": Standing.EXPERT,
        "sat.local_search_dbg_flips": Standing.EXPERT,
        "sat.force_cleanup": Standing.REGULAR,
        "sat.drat.check_unsat": Standing.REGULAR,  # "internal proof" is no mark (a note is)
        "algebraic.factor": Standing.EXPERT,  # its module's "not supported"
        "fp.spacer.keep_proxy": Standing.EXPERT,  # "(internal parameter)"
        "nlsat.inline_vars": Standing.REGULAR,  # not supported in one mode only
    }
    # the installed z3 says the same of itself
    standings = standings_of(Family.Z3, declared_options(parse_specs("z3")[0]))
    assert standings["sat.euf"] == standings["algebraic.factor"] == Standing.EXPERT
    assert command_standing(Family.Z3, ["sat.euf=true"], standings) == Standing.EXPERT


def test_a_table_made_by_older_standing_rules_is_restood_without_a_probe(
    tmp_path: Path,
) -> None:
    """A rule change reaches the tables users' machines already hold."""
    z3 = parse_specs("z3")[0]
    euf = Declared("sat.euf", Kind.BOOL, "false", type_name="bool", standing=Standing.REGULAR)
    made = build_table(z3, declared=[*_z3_handful(), euf])
    older = dataclasses.replace(
        made,
        rules=f"{load_rules().digest}-older0standing",
        standings={**made.standings, "sat.euf": Standing.REGULAR},
    )
    save_table(z3, older, tmp_path)
    loaded = load_table(z3, tmp_path)
    assert loaded is not None and loaded.standings["sat.euf"] == Standing.EXPERT
    assert loaded.rules == made.rules
    # the probe's findings are kept as they were
    assert (loaded.options, loaded.rejected, loaded.probe_runs) == (
        made.options, made.rejected, made.probe_runs,
    )  # fmt: skip
    assert load_table(z3, tmp_path) == loaded  # stored: read once


def test_cvc5_binary_help_marks_expert_options() -> None:
    # as cvc5's help generator prints them: the mark ends the text, wrapped or not
    text = (
        "From the Bitvector Theory module:\n"
        "  --bv-rw-extend-eq      enable additional rewrites over zero/sign extend over\n"
        "                         equalities with constants (useful on\n"
        "                         BV/QF_ABV/QF_BV/nonincremental/tacas2019/*.smt2) (EXPERTS\n"
        "                         only) [*]\n"
        "  --bv-sat-solver=MODE   choose which sat solver to use, see\n"
        "                         --bv-sat-solver=help (EXPERTS only)\n"
        "  --bitblast=MODE        choose bitblasting mode, see --bitblast=help\n"
    )
    assert cvc5_help_experts(text) == {"bv-rw-extend-eq", "bv-sat-solver"}


def test_the_data_file_says_what_the_solvers_do_not() -> None:
    z3 = _by_name(declared_options(parse_specs("z3")[0]))
    standings = standings_of(Family.Z3, z3.values())
    notes = noted(Family.Z3)
    assert set(notes) == {
        "sat.drat.check_unsat", "smt.core.validate", "sat.smt", "sat.ddfw_search",
    }  # fmt: skip
    for name, note in notes.items():
        assert name in z3, f"{name}: z3 5.4.1 declares no such parameter"
        assert standings[name] == note.standing == Standing.EXPERT
        assert note.reason and note.source
    assert "#3585" in notes["sat.ddfw_search"].source
    assert standings["smt.arith.solver"] == Standing.REGULAR
    assert noted(Family.CVC5) == {}  # z3's notes are z3's


def test_a_note_without_its_reason_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "standing.json"
    entry = {"family": "z3", "option": "sat.smt", "standing": "expert", "source": "z3#1"}
    path.write_text(json.dumps({"options": [{**entry, "reason": " "}]}))
    with pytest.raises(ValueError, match="reason and source"):
        load_notes(path)
    path.write_text(json.dumps({"options": [{**entry, "reason": "x", "standing": "high"}]}))
    with pytest.raises(ValueError, match="unusable option standings"):
        load_notes(path)


def test_a_table_holds_the_standing_of_every_declared_option(tmp_path: Path) -> None:
    z3 = parse_specs("z3")[0]
    declared = [*_z3_handful(), Declared("sat.smt", Kind.BOOL, "false", type_name="bool")]
    table = build_table(z3, declared=declared)
    assert table.standings["sat.smt"] == Standing.EXPERT  # noted in the data file
    assert table.standings["auto_config"] == Standing.REGULAR
    save_table(z3, table, tmp_path)
    assert load_table(z3, tmp_path) == table
    assert release_standings(z3, tmp_path) is not None
    assert release_standings(z3, tmp_path)["sat.smt"] == Standing.EXPERT


def test_a_command_line_stands_at_its_highest_option() -> None:
    z3, cvc5 = (release_standings(parse_specs(name)[0]) for name in ("z3", "cvc5"))
    assert command_standing(Family.Z3, [], z3) == Standing.DEFAULT
    assert command_standing(Family.Z3, ["smt.arith.solver=2"], z3) == Standing.REGULAR
    words = ["smt.arith.solver=2", "sat.drat.check_unsat=true"]
    assert command_standing(Family.Z3, words, z3) == Standing.EXPERT
    assert command_standing(Family.Z3, ["smt.no_such_thing=1"], z3) is None
    assert command_standing(Family.Z3, ["-T:5"], z3) is None  # a flag, no parameter
    assert command_standing(Family.Z3, ["-T:5", "sat.smt=true"], z3) == Standing.EXPERT
    assert command_standing(Family.Z3, ["smt.arith.solver"], z3) is None  # no value: no word
    assert command_standing(Family.YICES, ["--mcsat"], z3) is None  # a family we do not read
    # a campaign's own cvc5 flags: -i incremental, -m produce-models, -q quiet (all common)
    assert command_standing(Family.CVC5, ["-i", "-m", "-q"], cvc5) == Standing.REGULAR
    assert command_standing(Family.CVC5, ["-x"], cvc5) is None
    assert command_standing(Family.OTHER, ["--sat-solver=cadical"], cvc5) is None
    assert command_standing(Family.CVC5, ["--no-uf-ho-exp"], cvc5) == Standing.EXPERT
    assert command_standing(Family.CVC5, ["-q", "--sat-solver=cadical"], cvc5) == Standing.REGULAR
    assert command_standing(Family.CVC5, ["--check-models", "--bv-rw-extend-eq"], cvc5) == (
        Standing.EXPERT
    )
    # ordered by rank, not by the words ("default" < "expert" < "regular")
    assert sorted([Standing.EXPERT, Standing.REGULAR, Standing.DEFAULT]) == [
        Standing.DEFAULT, Standing.REGULAR, Standing.EXPERT,
    ]  # fmt: skip
    assert highest([Standing.REGULAR, Standing.EXPERT]) == Standing.EXPERT
    assert highest([]) == Standing.DEFAULT
    default, regular, expert = Standing.DEFAULT, Standing.REGULAR, Standing.EXPERT
    assert default < regular < expert and not regular < regular and not expert < default
    assert default <= default <= regular and not expert <= regular
    assert expert > regular > default and not regular > regular and not default > expert
    assert expert >= expert >= regular and not default >= regular
    with pytest.raises(TypeError):
        assert regular < "zzz"  # the word would compare by its letters


def test_a_parameter_z3_warns_against_is_expert() -> None:
    """z3 5.4.1 warns when an unsat core is validated: "Users should not set ..."."""
    script = (
        "(set-option :produce-unsat-cores true)\n(declare-const p Bool)\n"
        "(assert (! p :named a))\n(assert (! (not p) :named b))\n(check-sat)\n(get-unsat-core)\n"
    )
    z3 = with_options(parse_specs("z3")[0], ["smt.core.validate=true"])
    ran = run_solver(z3, script, timeout=10)
    said = warned(Family.Z3, ran.stderr)
    assert said == {"smt.core.validate"}, ran.stderr
    # were it not marked anywhere else, the warning alone makes it expert
    standings = {**release_standings(parse_specs("z3")[0]), "smt.core.validate": Standing.REGULAR}
    words = ["smt.core.validate=true"]
    assert command_standing(Family.Z3, words, standings) == Standing.REGULAR
    assert command_standing(Family.Z3, words, standings, said) == Standing.EXPERT
    assert warned(Family.CVC5, ran.stderr) == set()


def test_cvc5_stable_mode_refuses_the_expert_options() -> None:
    """For a binary whose help marks none: asked of the wheel through its shim, which takes
    the command line as the binary does."""
    cvc5 = parse_specs("cvc5")[0]
    found = _by_name(declared_options(cvc5))
    names = ("bv-rw-extend-eq", "uf-ho-exp", "sub-cbqi", "sat-solver", "dag-thresh")
    experts = cvc5_safe_mode_experts(cvc5.argv, [found[n] for n in names])
    assert experts == {"bv-rw-extend-eq", "uf-ho-exp"}
    # a program with no stable mode: nothing is read from its errors
    assert cvc5_safe_mode_experts(parse_specs("z3")[0].argv, [found["uf-ho-exp"]]) == set()


def test_a_cvc5_release_without_categories_takes_the_wheels_standings() -> None:
    """cvc5 1.1's `getOptionInfo` has no category and it has no safe mode: its options
    stand as this environment's wheel says (here its own listing, categories left out)."""
    info = Path(declared_module.__file__).with_name("cvc5_info.py")
    listed = json.loads(subprocess.run([sys.executable, str(info)], capture_output=True,
                                       text=True, check=True, timeout=60).stdout)  # fmt: skip
    assert any(row["category"] for row in listed)
    bare = [{**row, "category": None} for row in listed]
    found = _by_name(api_options(bare))
    assert found["bv-rw-extend-eq"].standing == Standing.EXPERT
    assert found["sub-cbqi"].standing == Standing.REGULAR
    assert newest_cvc5_standings()["uf-ho-exp"] == Standing.EXPERT
    # an option the wheel does not know stays regular
    unknown = [{**bare[0], "name": "option-of-an-old-release"}]
    assert api_options(unknown)[0].standing == Standing.REGULAR
