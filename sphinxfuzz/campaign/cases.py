"""Judging one test case of a strategy (`campaign/mix.py`): how, and on which formula.

A case without an expected answer is judged as a sphinx mutant (`oracle.judge`: crashes,
invalid models, solvers that disagree). A case with one is judged against it
(`oracle.judge_expected`), and when the strategy relates it to another formula with the same
answer (Janus: the seed it weakened or strengthened), the related formula runs too and an
`unknown` or time-out on one where the other was solved is an incompleteness
(`oracle.judge_related`). (A sat answer's model is also checked in the executable semantics:
`oracle.semantic_check`.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sphinxfuzz.oracle import (
    Expected,
    Judgement,
    ModelChecker,
    Verdict,
    VerdictKind,
    judge_expected,
    judge_related,
)
from sphinxfuzz.smtlib import Script, print_script
from sphinxfuzz.solvers import SolverResult, SolverSpec

# (solver, script, fresh process?, time limit) -> result
Run = Callable[[SolverSpec, Script | str, bool, float | None], SolverResult]
# (formula, results, fresh?) -> the judgement of a case without an expected answer
PlainJudge = Callable[[str, list[SolverResult], bool], Judgement]


@dataclass
class CaseJudge:
    """Judges one case in persistent processes (`fresh=False`) or fresh ones."""

    text: str
    specs: Sequence[SolverSpec]
    run: Run
    plain: PlainJudge
    expected: Expected | None = None
    related: Script | None = None  # ready to run
    related_timeout: float | None = None
    # the trusted solver: run when a target contradicts the expected answer and no other
    # target confirms it, so the verdict names a reference (replay and reduction need one)
    reference: SolverSpec | None = None
    last_reference: SolverResult | None = None  # its result in the latest judgement
    parsed: Script | None = None  # `text` parsed, when the caller has it (read only)
    _related_results: dict[bool, list[SolverResult]] = field(default_factory=dict)

    @property
    def related_text(self) -> str:
        return print_script(self.related) if self.related is not None else ""

    def __call__(self, results: list[SolverResult], fresh: bool) -> Judgement:
        if self.expected is None:
            return self.plain(self.text, results, fresh)
        checks = ModelChecker(
            self.text, lambda spec, check: self.run(spec, check, fresh, None), self.parsed
        )
        judged = list(results)
        self.last_reference = None
        if self._needs_reference(results, self.expected.answer):
            assert self.reference is not None
            self.last_reference = self.run(self.reference, self.text, True, None)
            judged.append(self.last_reference)
        referee = self.reference.name if self.last_reference and self.reference else None
        verdicts = [  # the reference is not a target: never blamed
            v for v in judge_expected(judged, self.expected, checks) if v.solver != referee
        ]
        if self.related is not None:
            related = self._run_related(fresh)
            verdicts += [
                v
                for v in judge_related(
                    results, related, self.expected, texts=(self.text, self.related_text)
                )
                if v.kind == VerdictKind.INCOMPLETENESS  # soundness: judge_expected's part
            ]
        return Judgement(verdicts)

    def _needs_reference(self, results: list[SolverResult], expected: str) -> bool:
        """A target contradicts the expected answer and no other target gave it: the
        reference answers too, and checks the model of a contrary sat with the others."""
        firsts = [r.answers[0] for r in results if r.answers]
        return (
            self.reference is not None
            and self.reference.name not in {r.spec.name for r in results}
            and any(a.decided and a != expected for a in firsts)
            and expected not in firsts
        )

    def stored_results(self, results: list[SolverResult]) -> list[SolverResult]:
        """What a bug folder keeps: the targets' results and the reference's, if it ran."""
        return [*results, self.last_reference] if self.last_reference else list(results)

    def formula_of(self, verdict: Verdict) -> str:
        """The formula a verdict is about: an incompleteness may be about the related one."""
        if verdict.evidence.get("unsolved") == "related":
            return self.related_text
        return self.text

    def _run_related(self, fresh: bool) -> list[SolverResult]:
        if fresh not in self._related_results:
            assert self.related is not None
            self._related_results[fresh] = [
                self.run(spec, self.related, fresh, self.related_timeout) for spec in self.specs
            ]
        return self._related_results[fresh]
