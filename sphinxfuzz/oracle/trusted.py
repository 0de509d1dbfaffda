"""What a trusted solver's run may vouch for: a seed's label (fusion, sae, janus) or a model
(storm). A run that printed an error line, crashed, or answered more or less than once read
only part of the formula (z3 answering `sat` to what was left after `unknown sort 'String'`
under `(set-logic SLIA)`), so it vouches for nothing."""

from __future__ import annotations

from collections.abc import Sequence

from sphinxfuzz.solvers import Answer, Outcome, SolverResult


def clean_answer(result: SolverResult) -> Answer | None:
    """The run's answer when it exited normally, printed no error or failure line, and
    answered sat or unsat exactly once; else None."""
    if (
        result.exit_code != 0
        or result.outcome not in (Outcome.SAT, Outcome.UNSAT)
        or result.failure_line is not None
        or result.annotation_conflict
        or result.model_check_failed
        or len(result.answers) != 1
        or result.answers[0] != str(result.outcome)
    ):
        return None
    return result.answers[0]


def claimed_answer(claimed: Sequence[str]) -> Answer | None | bool:
    """The seed's own claim (`Seed.expected`) for its one query: sat/unsat, None when it
    claims nothing usable (no annotation, `unknown`), False when the claims contradict."""
    definite = {a for a in map(Answer.read, claimed) if a is not None and a.decided}
    if len(definite) > 1:
        return False
    return definite.pop() if definite else None


def agreed_label(results: Sequence[SolverResult], claimed: Sequence[str] = ()) -> Answer | None:
    """The label of a seed from every trusted solver's run of it: the trusted solvers that
    accept it (a rejection abstains) must all answer cleanly and alike, at least one must,
    and the answer must be the one the seed claims where it claims one."""
    claim = claimed_answer(claimed)
    if claim is False:
        return None
    accepting = [r for r in results if r.outcome != Outcome.ERROR]
    answers = {clean_answer(r) for r in accepting}
    if len(answers) != 1:
        return None
    (answer,) = answers
    if answer is None or (claim is not None and claim != answer):
        return None
    return answer
