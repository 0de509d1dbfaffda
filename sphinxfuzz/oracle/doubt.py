"""Doubt before blame: a verdict against an answer known by construction blames the target
only while the construction holds. The trusted solvers run the verdict's formula itself; one
that answers against the construction (as the target did) puts the fault in the
construction (a wrong label, a wrong model, a wrong rule): a *construction doubt*, counted and
kept for the strategy's authors, never stored as a bug.

An incompleteness that rests on a time-out is re-run with ten times the limit: a solver that
then answers is *slow*, a performance finding kept apart from bugs (`slow_verdict`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from sphinxfuzz.oracle.verdict import Verdict, VerdictKind
from sphinxfuzz.solvers import Answer, Outcome, SolverResult

# verdicts that rest on a construction: an expected answer, or two related formulas
DOUBTED = (VerdictKind.SOUNDNESS, VerdictKind.INVALID_MODEL, VerdictKind.INCOMPLETENESS)
# an incompleteness resting on a time-out gets this many times the limit before it is blamed
SLOW_FACTOR = 10


@dataclass(frozen=True)
class Doubt:
    """A trusted solver that answered the verdict's formula against its construction."""

    solver: str  # the trusted solver's display name
    answer: Answer  # what it answered (the construction expected the other answer)
    expected: Answer

    def cause(self, verdict: Verdict) -> str:
        """The counter key: verdict kind, the trusted solver's family and answer."""
        family = self.solver.split("@")[0].split()[0]
        return f"{verdict.kind}: trusted {family} says {self.answer}, expected {self.expected}"


def doubtful(verdict: Verdict, trusted: Sequence[SolverResult]) -> Doubt | None:
    """The first trusted run (of the verdict's own formula) that contradicts the answer the
    verdict's construction claims; None when none does or the verdict rests on none. A run
    that also printed errors still counts: a false bug costs more than a missed one."""
    if verdict.kind not in DOUBTED or verdict.expected is None:
        return None
    for result in trusted:
        if result.spec.name == verdict.solver:
            continue  # the blamed solver never vouches against itself
        answer = result.answers[0] if result.answers else None
        if answer is not None and answer.decided and answer != verdict.expected.answer:
            return Doubt(result.spec.name, answer, verdict.expected.answer)
    return None


def needs_more_time(verdict: Verdict) -> bool:
    """An incompleteness whose unsolved run hit the time limit (not an `unknown`)."""
    return verdict.kind == VerdictKind.INCOMPLETENESS and verdict.evidence.get("outcome") == str(
        Outcome.TIMEOUT
    )


def slow_verdict(
    verdict: Verdict, longer: SolverResult, limit: float, reference: SolverResult | None
) -> Verdict | None:
    """The incompleteness `verdict` re-judged from the blamed solver's run with `limit`
    seconds (ten times the campaign's): answered as the construction implies -> a SLOW
    finding with both times; still unsolved -> None (the incompleteness stands). A contrary
    answer is also None here: soundness is judged elsewhere, never from a slow run."""
    assert verdict.expected is not None
    if not longer.answers or longer.answers[0] != verdict.expected.answer:
        return None
    seconds = f"{longer.answers[0]} in {longer.elapsed:.1f} s"
    if reference is not None and reference.answers:
        seconds += f"; {reference.spec.name} {reference.elapsed:.1f} s"
    family = longer.spec.family
    evidence = {
        **verdict.evidence,
        "slow": {
            "answer": longer.answers[0],
            "seconds": round(longer.elapsed, 3),
            "limit": limit,
            "reference": reference.spec.name if reference is not None else None,
            "reference_seconds": round(reference.elapsed, 3) if reference is not None else None,
            "summary": seconds,
        },
    }
    return replace(
        verdict,
        kind=VerdictKind.SLOW,
        signature=f"{family}: slow, {longer.answers[0]} only after the time limit",
        evidence=evidence,
    )
