"""Judging in a campaign, in one place: a run's results in, the verdicts to store out.

The rules are `oracle`'s; this module runs the solvers they ask for and decides in which
processes. `Judging.formula` judges a formula without an expected answer (`oracle.judge`:
crashes, invalid models, solvers that disagree), its model checks run by this campaign's
calls, and tells a crash that printed nothing apart by its stack (`oracle.backtrace`); the
seed check judges seeds with it. `Judging.case` judges one test case of a strategy:

1. `CaseJudge` says how and on which formula. A case without an expected answer is judged
   as a sphinx mutant (`Judging.formula`). A case with one is judged against it
   (`oracle.judge_expected`), and when the strategy relates it to another formula with the
   same answer (Janus: the seed it weakened or strengthened), the related formula runs too
   and an `unknown` or time-out on one where the other was solved is an incompleteness
   (`oracle.judge_related`). (A sat answer's model is also checked in the executable
   semantics: `oracle.semantic_check`.)
2. A verdict from long-lived processes (`solvers.processes`) counts only once fresh
   processes reproduce it (`Judging._confirmed`).
3. The doubt gate (`oracle.doubt`): a verdict that rests on a construction is kept only when
   no trusted solver answers its formula against the construction (each doubt's cause is
   counted, its first formula kept in `doubts/`), and a timed-out incompleteness that ten
   times the limit solves becomes a SLOW finding.

What stands is a `Finding` for `recording.Recorder` to store.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.record import Origin
from sphinxfuzz.campaign.sink import Findings
from sphinxfuzz.campaign.solver_calls import SolverCalls, keep_example
from sphinxfuzz.mutate import Formula
from sphinxfuzz.mutate.mutant import NeededOptions, ready_to_run
from sphinxfuzz.oracle import (
    Expected,
    Judgement,
    ModelChecker,
    Verdict,
    VerdictKind,
    judge,
    judge_expected,
    judge_related,
)
from sphinxfuzz.oracle.backtrace import Backtrace, gdb_backtrace, identified
from sphinxfuzz.oracle.dialect import for_family
from sphinxfuzz.oracle.doubt import DOUBTED, SLOW_FACTOR, doubtful, needs_more_time, slow_verdict
from sphinxfuzz.smtlib import Script, print_script
from sphinxfuzz.solvers import Outcome, SolverResult, SolverSpec
from sphinxfuzz.strategies import Strategy, TestCase

# (solver, script, fresh process?, time limit) -> result
Run = Callable[[SolverSpec, Script | str, bool, float | None], SolverResult]
# (formula, results, fresh?) -> the judgement of a case without an expected answer
PlainJudge = Callable[[str, list[SolverResult], bool], Judgement]


@dataclass(frozen=True)
class Finding:
    """A verdict to store: confirmed, past the doubt gate, with the formula it is about and
    the results and judgement its bug folder keeps."""

    verdict: Verdict
    formula: str
    results: list[SolverResult]
    judgement: Judgement


class Judging:
    """One worker's judging: its solver calls, the trusted solvers (the first is the
    reference of an expected answer), and the options a ready formula needs."""

    def __init__(
        self,
        calls: SolverCalls,
        trusted: Sequence[SolverSpec],
        needed_options: NeededOptions,
        say: Callable[[str], None],
    ) -> None:
        self.calls, self.trusted, self.needed_options = calls, list(trusted), needed_options
        self.say, self.stats, self.root = say, calls.stats, calls.root

    def formula(
        self,
        text: str,
        results: list[SolverResult],
        *,
        fresh: bool = False,
        parsed: Script | None = None,
    ) -> Judgement:
        """`oracle.judge` with this campaign's solver calls for its model checks (`parsed`:
        the script whose text is `text`, when the caller has it)."""

        def run(spec: SolverSpec, check: str) -> SolverResult:
            return self.calls.run(spec, check, fresh=fresh)

        judgement = judge(text, results, run, parsed)
        self.stats.unconfirmed += judgement.unconfirmed
        # a crash that printed nothing is told apart by its stack (`oracle.backtrace`)
        script = text if parsed is None else parsed
        judgement.verdicts = identified(
            judgement.verdicts, results, lambda spec: for_family(script, spec.family), self._debug
        )
        return judgement

    def _debug(self, spec: SolverSpec, text: str) -> Backtrace | None:
        config, started = self.calls.config, time.perf_counter()
        try:
            return gdb_backtrace(spec, text, timeout=config.timeout, memory_mb=config.memory_mb)
        finally:
            self.calls.busy(started, time.perf_counter())

    def case(
        self,
        store: Findings,
        case: TestCase,
        formula: Formula,
        strategy: Strategy,
        origin: Origin,
        specs: Sequence[SolverSpec],  # the targets that ran (a partial seed's: not all)
        results: list[SolverResult],
    ) -> Iterator[Finding]:
        """The findings of one counted case's `results` on `specs`, each yielded once past
        the doubt gate (so each is stored before the next one's trusted runs)."""
        calls, script, related = self.calls, formula.script, case.related
        judge_case = CaseJudge(
            formula.text,
            specs,
            lambda spec, check, fresh, timeout: calls.run(spec, check, fresh=fresh, timeout=timeout),
            lambda text, rs, fresh: self.formula(text, rs, fresh=fresh, parsed=script),
            None if case.expected is None else Expected(case.expected, strategy.name, strategy.summary),
            None if related is None else ready_to_run(related.script, self.needed_options),
            calls.config.timeout,
            self.trusted[0] if self.trusted else None,
            parsed=script,
        )  # fmt: skip
        self.stats.strategy(origin.strategy).expected += case.expected is not None
        judgement = judge_case(results, False)
        results, judgement = self._confirmed(
            store, formula, results, judgement, lambda fresh: judge_case(fresh, True), specs
        )
        stored = judge_case.stored_results(results)
        for verdict in judgement.verdicts:
            text = judge_case.formula_of(verdict)
            kept = self._not_doubtful(verdict, text, origin, stored)
            if kept is not None:
                yield Finding(kept, text, stored, judgement)

    def _confirmed(
        self,
        store: Findings,
        formula: Formula,
        results: list[SolverResult],
        judgement: Judgement,
        rejudge: Callable[[list[SolverResult]], Judgement],
        specs: Sequence[SolverSpec],
    ) -> tuple[list[SolverResult], Judgement]:
        """A verdict from persistent processes counts only if fresh processes reproduce it:
        state an earlier script left in a solver must never become a bug report. A crash
        needs two fresh processes of its solver to crash: a segfault one fresh run showed did
        not come again from its folder (#28). Returns the fresh results and `rejudge`'s
        judgement of them (without the verdicts that did not reproduce). Crashes whose
        signatures are stored already (confirmed fresh then) are only counted: one root
        cause hit a thousand times must not cost a thousand fresh runs."""
        if not judgement.verdicts or not self.calls.processes.long_lived:
            return results, judgement
        if all(  # a coarse signature may hide another bug (`Store` keeps a few)
            v.kind == VerdictKind.CRASH
            and store.has_signature(v.signature)
            and not v.evidence.get("coarse")
            for v in judgement.verdicts
        ):
            return results, judgement
        self.stats.fresh_confirmations += 1
        fresh = [self.calls.run(spec, formula, fresh=True) for spec in specs]
        again = rejudge(fresh)
        if not again.verdicts:
            self.stats.fresh_unconfirmed += 1
            kinds = ", ".join(f"{v.kind} ({v.solver})" for v in judgement.verdicts)
            self.say(f"not reproduced in fresh processes, not stored: {kinds}")
            return fresh, again
        return fresh, self._crashed_twice(formula, again, specs)

    def _crashed_twice(
        self, formula: Formula, judgement: Judgement, specs: Sequence[SolverSpec]
    ) -> Judgement:
        """`judgement` without the crashes its solver does not repeat in another fresh
        process, run without a debugger."""
        crashed = {v.solver for v in judgement.verdicts if v.kind == VerdictKind.CRASH}
        if not crashed:
            return judgement
        run = self.calls.run
        twice = {s.name: run(s, formula, fresh=True) for s in specs if s.name in crashed}
        flaky = [
            v
            for v in judgement.verdicts
            if v.kind == VerdictKind.CRASH
            and v.solver in twice
            and twice[v.solver].outcome != Outcome.CRASH
        ]
        if not flaky:
            return judgement
        self.stats.fresh_unconfirmed += 1
        kinds = ", ".join(f"{v.kind} ({v.solver})" for v in flaky)
        self.say(f"crashed one fresh process of two, not stored: {kinds}")
        return replace(judgement, verdicts=[v for v in judgement.verdicts if v not in flaky])

    def _not_doubtful(
        self, verdict: Verdict, formula: str, origin: Origin, results: list[SolverResult]
    ) -> Verdict | None:
        """The verdict to store after the doubt gate (`oracle.doubt`): None when a trusted
        solver answers its formula against the construction (counted, the first of each
        cause kept in `doubts/`); a SLOW finding when ten times the limit solves a timed-out
        incompleteness."""
        if verdict.kind not in DOUBTED or verdict.expected is None:
            return verdict  # a crash, or a verdict that rests on no construction
        run = self.calls.run
        trusted = [run(spec, formula, fresh=True) for spec in self.trusted]
        found = doubtful(verdict, trusted)
        if found is not None:
            cause = f"{origin.strategy}: {found.cause(verdict)}"
            if cause not in self.stats.doubts:
                keep_example(CampaignFolder(self.root).doubts, cause, formula, found.solver)
            self.stats.doubts[cause] += 1
            self.say(f"construction doubt, not stored: {cause}")
            return None
        if not needs_more_time(verdict) or verdict.solver is None:
            return verdict
        blamed = next((s for s in self.calls.specs if s.name == verdict.solver), None)
        if blamed is None:
            return verdict
        limit = SLOW_FACTOR * self.calls.config.timeout
        longer = run(blamed, formula, fresh=True, timeout=limit, beyond_limit=True)
        # the time to compare with: a trusted solver's, else the verdict's reference target's
        reference = next((r for r in trusted if r.answers[:1] == longer.answers[:1]), None) or next(
            (r for r in results if r.spec.name == verdict.evidence.get("reference")), None
        )
        return slow_verdict(verdict, longer, limit, reference) or verdict


@dataclass
class CaseJudge:
    """How one case is judged, in persistent processes (`fresh=False`) or fresh ones, and
    on which formula: its expected answer, the related formula, the reference solver."""

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
