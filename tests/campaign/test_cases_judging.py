"""Judging a case in one place (`campaign.judging.Judging.case`): a verdict from long-lived
processes is confirmed in fresh ones, then passes the doubt gate, and only what stands is
yielded for the recorder. A wrong construction (an expected sat on an unsat formula, as a
strategy with a bad rule would claim) is the verdict here: real solvers answer it."""

from __future__ import annotations

from pathlib import Path

from campaign_helpers import SEEDS, config_for

from sphinxfuzz.bugs.record import Origin
from sphinxfuzz.bugs.stats import Stats
from sphinxfuzz.campaign.judging import Judging
from sphinxfuzz.campaign.solver_calls import SolverCalls
from sphinxfuzz.mutate import Formula
from sphinxfuzz.mutate.mutant import ready_to_run
from sphinxfuzz.oracle import VerdictKind
from sphinxfuzz.smtlib import parse_script
from sphinxfuzz.solvers import Answer, Outcome, parse_specs
from sphinxfuzz.solvers.persistent import SCRIPTS_PER_PROCESS
from sphinxfuzz.strategies import TestCase
from sphinxfuzz.strategies.base import fresh

UNSAT = "(set-logic QF_LIA)\n(declare-const x Int)\n(assert (and (> x 0) (< x 0)))\n(check-sat)\n"


class _NoSignatures:
    """The store's part judging reads: no crash signature is stored yet."""

    def has_signature(self, signature: str) -> bool:
        return False


def _judged(tmp_path: Path, trusted: str, persistent: int) -> tuple[list, Stats, list[str]]:
    """The findings of one case claiming sat for an unsat formula, run on z3."""
    config = config_for([SEEDS], "z3", timeout=20)
    said: list[str] = []
    calls = SolverCalls(
        config, parse_specs("z3"), Stats(), tmp_path, persistent=persistent, deadline=None,
        stopping=lambda: False, say=said.append,
    )  # fmt: skip
    judging = Judging(calls, parse_specs(trusted) if trusted else [], lambda o, c: [], said.append)
    script = parse_script(UNSAT)
    case = TestCase(script, expected=Answer.SAT)
    formula = Formula(ready_to_run(script, lambda o, c: []))
    origin = Origin(1, "seed.smt2", 0, 0, "sae")
    try:
        results = calls.run_together(calls.specs, formula)
        assert [r.outcome for r in results] == [Outcome.UNSAT]
        found = list(
            judging.case(_NoSignatures(), case, formula, fresh("sae"), origin, calls.specs, results)  # type: ignore[arg-type]
        )
    finally:
        calls.close()
    return found, calls.stats, said


def formula_text(text: str) -> str:
    return Formula(ready_to_run(parse_script(text), lambda o, c: [])).text


def test_a_verdict_a_trusted_solver_doubts_is_confirmed_fresh_then_held_back(
    tmp_path: Path,
) -> None:
    found, stats, said = _judged(tmp_path, "cvc5", SCRIPTS_PER_PROCESS)
    # z3 answered in its long-lived process: the verdict was run again in a fresh one
    assert stats.fresh_confirmations == 1 and stats.fresh_unconfirmed == 0
    # ... and trusted cvc5 answers unsat too: the construction is doubted, nothing stored
    assert found == []
    assert dict(stats.doubts) == {"sae: soundness: trusted cvc5 says unsat, expected sat": 1}
    assert len(list((tmp_path / "doubts").glob("*.smt2"))) == 1
    assert any("construction doubt" in line for line in said)
    assert stats.strategy("sae").expected == 1


def test_a_verdict_without_doubt_is_yielded_with_its_formula_and_results(
    tmp_path: Path,
) -> None:
    found, stats, _ = _judged(tmp_path, "", 0)
    # fresh processes only: nothing to confirm
    assert stats.fresh_confirmations == 0 and not stats.doubts
    assert [(f.verdict.kind, f.verdict.solver) for f in found] == [(VerdictKind.SOUNDNESS, "z3")]
    (finding,) = found
    assert finding.formula == formula_text(UNSAT)  # the case as it ran: ready, models on
    assert [r.spec.name for r in finding.results] == ["z3"]
    assert finding.judgement.verdicts == [finding.verdict]
