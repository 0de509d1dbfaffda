"""Judging against an answer known by construction (issue #17's strategies).

- `judge_expected`: a formula whose answer a strategy knows (fusion of two sat seeds is sat,
  ...). A definite answer other than the expected one is a soundness bug of that solver; when
  it said sat, its model is checked too (a model that satisfies the formula refutes the
  expectation: no verdict). Crashes and own model checks are judged as `judge` does.
- `judge_related`: two formulas a strategy relates, both with the `implied` answer. A solver
  that answers it definitely on one and unknown (or times out) on the other is incomplete; a
  definite answer against it is a soundness bug.

The evidence names a `reference`: another solver that gave the expected answer on the
formula the verdict is about. Reduction keeps a candidate only while the reference (or the
strategy's witness model) still confirms the expected answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from sphinxfuzz.oracle.judge import CheckRunner, crash_verdicts, judge
from sphinxfuzz.oracle.model_check import ModelCheckError, build_model_check
from sphinxfuzz.oracle.semantic_check import SEMANTICS, model_holds
from sphinxfuzz.oracle.verdict import (
    Expected,
    Judgement,
    Related,
    Verdict,
    VerdictKind,
)
from sphinxfuzz.smtlib import Script
from sphinxfuzz.solvers import DECIDED, Answer, Outcome, SolverResult

UNSOLVED = (Outcome.UNKNOWN, Outcome.TIMEOUT)


@dataclass(frozen=True)
class ModelChecker:
    """How to check a solver's model on the formula judged: its text and a fresh runner."""

    script_text: str
    run: CheckRunner
    parsed: Script | None = None  # `script_text` parsed, when the caller has it (read only)

    def verdict_on(
        self, model: str, solvers: Sequence[SolverResult]
    ) -> tuple[str, Answer | Outcome | None]:
        """(the check script, "sat" when the model satisfies the formula, "unsat" when it
        does not, None when the solvers decide nothing). Every solver runs the check; those
        that took no part decide first (as in `judge`)."""
        try:
            formula = self.script_text if self.parsed is None else self.parsed
            script = build_model_check(formula, model)
        except ModelCheckError:
            return "", None
        first = [self.run(r.spec, script).first for r in solvers]
        decided = {a for a in first if a in DECIDED}
        return script, (decided.pop() if len(decided) == 1 else None)


def _answers(results: Sequence[SolverResult]) -> dict[str, list[str]]:
    return {r.spec.name: list(r.answers) for r in results}


def reference_for(results: Sequence[SolverResult], blamed: str, answer: Answer) -> str | None:
    """Another solver that gave `answer` first: it vouches for the expected answer."""
    return next((r.spec.name for r in results if r.spec.name != blamed and r.first == answer), None)


def expected_signature(family: str, answer: str, expected: Expected) -> str:
    return f"{family}: {answer} where {expected.strategy} expects {expected.answer}"


def judge_expected(
    results: Sequence[SolverResult],
    expected: Expected,
    model_checks: ModelChecker | None = None,
    *,
    witness_model: str | None = None,
) -> list[Verdict]:
    """Verdicts for one formula whose answer is `expected` (see the module docstring).
    `witness_model`: a model the strategy built the formula to satisfy (STORM), kept in the
    evidence so reduction can check candidates against it."""
    verdicts = crash_verdicts(results)
    if verdicts or any(r.outcome == Outcome.ERROR for r in results):
        return verdicts
    for result in results:
        answer = result.first
        if answer not in DECIDED or answer == expected.answer:
            continue
        evidence: dict[str, object] = {
            "answers": _answers(results),
            "reference": reference_for(results, result.spec.name, expected.answer),
        }
        if witness_model is not None:
            evidence["witness_model"] = witness_model
        script = None
        if answer == Answer.SAT and result.model and model_checks is not None:
            script, holds = model_checks.verdict_on(result.model, results)
            if holds == Answer.SAT:
                continue  # the model satisfies the formula: the expectation was wrong
            evidence.update(model_from=result.spec.name, model=result.model,
                            model_check="fails" if holds == Answer.UNSAT else "undecided")  # fmt: skip
        verdicts.append(
            Verdict(
                VerdictKind.SOUNDNESS,
                result.spec.name,
                expected_signature(result.spec.family, answer, expected),
                evidence,
                expected,
                check_script=script or None,
            )
        )
    if model_checks is not None and expected.answer == Answer.SAT:
        verdicts += _refuted_models(results, model_checks.script_text, expected)
    return verdicts


def _refuted_models(
    results: Sequence[SolverResult], text: str, expected: Expected
) -> list[Verdict]:
    """The expected sat, with a model the executable semantics refutes: an invalid model
    that needs no other solver (`semantic_check`; outside its fragment nothing is decided)."""
    found = []
    for result in results:
        if result.first != Answer.SAT or not result.model:
            continue
        if model_holds(text, result.model) is False:
            found.append(
                Verdict(
                    VerdictKind.INVALID_MODEL,
                    result.spec.name,
                    f"{result.spec.family}: model refuted by the executable semantics",
                    {"answers": _answers(results), "model": result.model,
                     "source": SEMANTICS},
                    expected,
                )
            )  # fmt: skip
    return found


def judge_related(
    original_results: Sequence[SolverResult],
    related_results: Sequence[SolverResult],
    implied: Expected,
    *,
    texts: tuple[str, str] | None = None,
) -> list[Verdict]:
    """Verdicts from every solver's result on two formulas that both have the answer
    `implied.answer` (`texts`: the original's and the related formula's text, kept with an
    incompleteness verdict). An incompleteness verdict is about the formula the solver left
    unsolved (`evidence["unsolved"]`: "original" or "related"); its `related` is the other."""
    text_of = dict(zip(("original", "related"), texts or ("", ""), strict=True))
    runs = {"original": list(original_results), "related": list(related_results)}
    verdicts: list[Verdict] = []
    for name in [r.spec.name for r in original_results]:
        mine = {
            side: next((r for r in rs if r.spec.name == name), None) for side, rs in runs.items()
        }
        if mine["original"] is None or mine["related"] is None:
            continue
        answers = {side: r.first for side, r in mine.items() if r is not None}
        evidence: dict[str, object] = {side: _answers(rs) for side, rs in runs.items()}
        family = mine["original"].spec.family
        wrong = [side for side, a in answers.items() if a in DECIDED and a != implied.answer]
        if wrong:
            evidence["wrong_on"] = wrong[0]
            evidence["reference"] = reference_for(runs[wrong[0]], name, implied.answer)
            verdicts.append(Verdict(VerdictKind.SOUNDNESS, name,
                                    expected_signature(family, answers[wrong[0]], implied),
                                    evidence, implied))  # fmt: skip
            continue
        for unsolved, solved in (("original", "related"), ("related", "original")):
            result = mine[unsolved]
            if (
                result is None
                or result.outcome not in UNSOLVED
                or answers[solved] != implied.answer
            ):
                continue
            evidence.update(unsolved=unsolved, outcome=str(result.outcome),
                            reference=reference_for(runs[unsolved], name, implied.answer))  # fmt: skip
            verdicts.append(
                Verdict(
                    VerdictKind.INCOMPLETENESS,
                    name,
                    f"{family}: unknown where a related formula is {implied.answer}",
                    evidence,
                    implied,
                    Related(text_of[solved], implied.answer),
                )
            )
    return verdicts


def judge_again(
    original: Verdict, text: str, results: Sequence[SolverResult], run: CheckRunner
) -> Judgement:
    """Judge `text` the way `original` was judged: against its expected answer (and, for an
    incompleteness, beside its related formula, run again on the same solvers), else as
    `judge` does. Replay uses it."""
    expected = original.expected
    if expected is None:
        return judge(text, results, run)
    related_kinds = (VerdictKind.INCOMPLETENESS, VerdictKind.SLOW)
    if original.kind in related_kinds and original.related is not None:
        related = original.related.text
        again = [run(r.spec, related) for r in results]
        verdicts = judge_related(results, again, expected, texts=(text, related))
        if original.kind == VerdictKind.SLOW:  # still unsolved within the campaign's limit
            verdicts = [
                replace(v, kind=VerdictKind.SLOW, signature=original.signature)
                for v in verdicts
                if v.kind == VerdictKind.INCOMPLETENESS
            ]
        return Judgement(verdicts)
    witness = original.evidence.get("witness_model")
    verdicts = judge_expected(
        results, expected, ModelChecker(text, run),
        witness_model=witness if isinstance(witness, str) else None,
    )  # fmt: skip
    return Judgement(verdicts)
