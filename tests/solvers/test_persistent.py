"""Persistent solver processes answer as fresh ones do, and forget what each script set."""

from __future__ import annotations

from pathlib import Path

import pytest

from sphinxfuzz.oracle.dialect import for_family
from sphinxfuzz.solvers import Outcome, parse_specs, run_solver
from sphinxfuzz.solvers.persistent import PersistentSolver, supports_persistence
from sphinxfuzz.solvers.spec import with_options

SKELETONS = sorted((Path(__file__).resolve().parents[2] / "skeletons").glob("*.smt2"))

SOLVERS = ["z3 model_validate=true", "cvc5 --check-models"]


@pytest.mark.parametrize("spec_text", SOLVERS)
def test_answers_match_fresh_processes_on_the_shipped_seeds(spec_text: str) -> None:
    spec = parse_specs(spec_text)[0]
    with PersistentSolver(spec) as solver:
        for path in SKELETONS[::3]:  # a third of them keeps the test short
            text = for_family(path.read_text(encoding="utf-8"), spec.family)
            kept = solver.run(text, timeout=20)
            fresh = run_solver(spec, text, timeout=20)
            if Outcome.TIMEOUT in (kept.outcome, fresh.outcome):
                continue
            assert (kept.outcome, kept.answers) == (fresh.outcome, fresh.answers), path
            assert (kept.model is None) == (fresh.model is None), path
        # most scripts were served by one process (datatype scripts end z3's, see module doc)
        assert solver.starts < len(SKELETONS[::3]) / 2


def test_z3_options_of_one_script_do_not_reach_the_next() -> None:
    third = "(declare-const x Real)\n(assert (= x (/ 1 3)))\n(check-sat)\n(get-model)\n"
    with PersistentSolver(parse_specs("z3")[0]) as solver:
        decimal = solver.run("(set-option :pp.decimal true)\n" + third, timeout=10)
        plain = solver.run(third, timeout=10)
    assert "0.3333333333?" in decimal.stdout
    assert "(/ 1.0 3.0)" in plain.stdout and "?" not in plain.stdout


def test_cvc5_options_of_one_script_do_not_reach_the_next() -> None:
    script = "(declare-const x Int)\n(assert (> x 2))\n(check-sat)\n(get-model)\n"
    with PersistentSolver(parse_specs("cvc5")[0]) as solver:
        with_models = solver.run("(set-option :produce-models true)\n" + script, timeout=20)
        without = solver.run(script, timeout=20)
        assert solver.starts == 1
    assert with_models.model is not None and "define-fun x" in with_models.model
    assert without.model is None and "cannot get model" in without.stdout
    assert without.outcome == Outcome.SAT  # that error is benign, as for a fresh run


def test_declarations_do_not_survive_between_scripts() -> None:
    for spec in parse_specs("z3;cvc5"):
        with PersistentSolver(spec) as solver:
            first = solver.run("(declare-const k Int)\n(assert (> k 0))\n(check-sat)\n", timeout=20)
            second = solver.run("(assert (> k 0))\n(check-sat)\n", timeout=20)
        assert first.outcome == Outcome.SAT
        assert second.outcome == Outcome.ERROR, (spec.name, second.stdout)


HARD = """(set-logic QF_NIA)
(declare-const x Int) (declare-const y Int) (declare-const z Int)
(assert (> x 1)) (assert (> y 1)) (assert (> z 1))
(assert (= (+ (* x x x) (* y y y)) (* z z z)))
(check-sat)
"""


def test_a_timeout_kills_the_process_and_the_next_script_gets_a_new_one() -> None:
    with PersistentSolver(parse_specs("z3")[0]) as solver:
        slow = solver.run(HARD, timeout=1.0)
        assert slow.outcome == Outcome.TIMEOUT and slow.elapsed < 3
        quick = solver.run("(check-sat)\n", timeout=10)
        assert quick.outcome == Outcome.SAT and solver.starts == 2


@pytest.mark.parametrize("spec_text", SOLVERS)
def test_starting_a_process_is_not_charged_to_the_scripts_limit(spec_text: str) -> None:
    # the shim imports cvc5 in a new Python (0.1 s idle, a second under load): a first
    # script with a 50 ms limit timed out before it was read; after a time-out likewise
    script = "(declare-const x Int)\n(assert (> x 2))\n(check-sat)\n"
    with PersistentSolver(parse_specs(spec_text)[0]) as solver:
        first = solver.run(script, timeout=0.05)
        assert first.outcome == Outcome.SAT, first.stdout
        assert 0 < first.starting < first.elapsed and first.solving < 0.05
        assert solver.run(HARD, timeout=0.5).outcome == Outcome.TIMEOUT
        again = solver.run(script, timeout=0.05)
        assert again.outcome == Outcome.SAT and solver.starts == 2 and again.starting > 0
        warm = solver.run(script, timeout=0.05)
        assert warm.starting == 0 and warm.solving == warm.elapsed


def test_a_crash_is_classified_and_the_process_replaced() -> None:
    standin = (
        Path(__file__).resolve().parents[1] / "fixtures" / "campaign" / "z3_persistent_standin.py"
    )
    spec = parse_specs(str(standin))[0]
    assert supports_persistence(spec)
    crashing = "(declare-const crash_marker Int)\n(check-sat)\n(get-model)\n"
    with PersistentSolver(spec) as solver:
        assert solver.run("(check-sat)\n", timeout=20).outcome == Outcome.SAT
        crashed = solver.run(crashing, timeout=20)
        assert crashed.outcome == Outcome.CRASH and "ASSERTION VIOLATION" in crashed.failure_line
        assert solver.run("(check-sat)\n", timeout=20).outcome == Outcome.SAT
        assert solver.starts == 2


def test_other_command_lines_run_fresh() -> None:
    assert not supports_persistence(parse_specs("yices")[0])
    with pytest.raises(ValueError, match="cannot run persistently"):
        PersistentSolver(parse_specs("yices")[0])


@pytest.mark.parametrize("spec_text", ["z3", "cvc5"])
def test_an_idle_process_exits_normally_and_a_busy_one_is_killed(spec_text: str) -> None:
    """A normal exit is what lets a solver built with coverage write its counters (the
    coverage bench measures persistent processes only so)."""
    solver = PersistentSolver(parse_specs(spec_text)[0])
    assert solver.run("(check-sat)\n", timeout=10).outcome == Outcome.SAT
    process = solver.process
    assert process is not None
    solver.close()
    assert process.returncode == 0
    assert solver.run(HARD, timeout=0.5).outcome == Outcome.TIMEOUT
    # killed at the time-out, not asked to exit (nothing retiring), and its successor is
    # started ahead of the next script
    solver.settle()
    assert solver.retiring == [] and solver.primed and solver.starts == 3
    assert solver.run("(check-sat)\n", timeout=10).outcome == Outcome.SAT
    assert solver.starts == 3 and not solver.primed
    solver.close()


def test_a_process_replaced_for_its_state_is_not_waited_for_and_still_exits_normally() -> None:
    """z3 keeps options across `(reset)`, so its process is replaced; the campaign does not
    wait for the old one to exit, which still exits normally (coverage counters)."""
    solver = PersistentSolver(parse_specs("z3")[0])
    assert solver.run("(check-sat)\n", timeout=10).outcome == Outcome.SAT
    first = solver.process
    assert solver.run("(set-option :pp.decimal true)\n(check-sat)\n", timeout=10).outcome == (
        Outcome.SAT
    )
    # its successor started ahead, after the answer; the first asked to exit, and reaped
    # once it did
    solver.settle()
    assert solver.primed and solver.process is not first and first is not None
    assert [p for p, _ in solver.retiring] in ([first], [])
    assert solver.run("(check-sat)\n", timeout=10).outcome == Outcome.SAT
    assert solver.starts == 2
    solver.close()
    assert first.returncode == 0 and solver.retiring == [] and solver.process is None


THIRD = "(declare-const x Real)\n(assert (= x (/ 1 3)))\n(check-sat)\n(get-value (x))\n"
# cvc5 decides x * x = 2 by its cylindrical algebraic coverings; without them and the
# incremental linearisation it gives up (unknown), so these options are observable
SQRT2 = "(set-logic QF_NRA)\n(declare-const x Real)\n(assert (= (* x x) 2.0))\n(check-sat)\n"
NO_NL = ["--nl-cov=false", "--nl-ext=none"]


@pytest.mark.parametrize(
    ("spec_text", "words", "script", "plain", "optioned", "starts"),
    [
        ("z3", ["pp.decimal=true"], THIRD, "(/ 1.0 3.0)", "0.3333333333?", 2),
        ("cvc5", NO_NL, SQRT2, "sat", "unknown", 1),
    ],
)
def test_command_line_options_reach_every_script_a_process_serves(
    spec_text: str, words: list[str], script: str, plain: str, optioned: str, starts: int
) -> None:
    """A process serves another command line (a campaign position's options): z3's options
    are its process's own and survive `(reset)`, so its last process is retired and a new
    one serves them; the shim takes the options with each script and sets them on each new
    solver, so its process stays. Either way they hold for every script, as in a fresh run."""
    spec = parse_specs(spec_text)[0]
    with_words = with_options(spec, words)
    solver = PersistentSolver(spec)
    assert plain in solver.run(script, timeout=20).stdout
    first = solver.process
    solver.serve(with_words)
    assert [r for r, _ in solver.retiring] == ([first] if starts == 2 else [])
    kept = [solver.run(script, timeout=20) for _ in range(3)]
    fresh = run_solver(with_words, script, timeout=20)
    assert optioned in fresh.stdout
    for result in kept:
        assert result.stdout == fresh.stdout and result.outcome == fresh.outcome
        assert result.spec == with_words  # stored bugs keep the command line that ran
    assert solver.starts == starts  # one process for the three scripts of the options
    solver.serve(with_words)  # the same command line keeps its process
    solver.run(script, timeout=20)
    solver.serve(spec)  # and the shim's serves the plain one again
    assert plain in solver.run(script, timeout=20).stdout
    assert solver.starts == starts + (starts == 2)
    solver.close()
    assert first is not None and first.returncode == 0 and solver.retiring == []
