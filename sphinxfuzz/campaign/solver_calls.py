"""One worker's solver calls: running them and counting them.

Every call of the campaign's loop goes through `SolverCalls.run`, which holds the campaign's
limits (its time-out, `--time`, memory), asks `solvers.processes` for a run (the solver's
long-lived process unless a fresh one is asked for), and counts the call; judging what they
answered is `cases.Judging`'s. A case's first run calls its targets at the same
time (`start` and `finish`), each target on a lane of its own: a thread that runs the cases
given to it one after the other (solver calls wait on pipes and release the GIL). So the
worker may draw its next case while they run, and start it before this one is judged: each
lane takes it up once done with this one, whatever the other targets still do. When a stop
or the deadline arrives while solvers run, `run` and `finish` raise `Stopped`: what they
answered may have been cut short.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.stats import Stats
from sphinxfuzz.campaign.config import CampaignConfig
from sphinxfuzz.mutate import Formula
from sphinxfuzz.oracle import normalise_failure
from sphinxfuzz.oracle.dialect import for_family
from sphinxfuzz.smtlib import Script
from sphinxfuzz.solvers import Outcome, SolverResult, SolverSpec
from sphinxfuzz.solvers.processes import SolverProcesses
from sphinxfuzz.strategies import TrustedRun

# a formula printed once (a test case), a script, or a text (checks, seeds of the probe)
Runnable = Formula | Script | str


class Stopped(Exception):
    """A stop request or the deadline arrived while solvers ran: what they answered may
    have been cut short (`reaper.abort_all`), so nothing of it is judged or stored."""


Span = tuple[float, float]  # (start, end) of a solver's run, `time.perf_counter`


# Spans `SolverClock` keeps to count later ones against: calls overlap only the few before
SPANS_KEPT = 64


Timed = list[tuple[SolverResult, Span]]  # a lane's results of one case, with their spans
Batch = list[tuple[SolverSpec, str]]  # what a lane runs of one case: each spec with its text


@dataclass(frozen=True)
class Running:
    """The calls `SolverCalls.start` gave the lanes: one future per lane, in order, with
    what it was given (its part of a case) and the case's limit, to run again a part it
    passed over (None: the lane's answer to the case before was not decided)."""

    calls: list[Future[Timed | None]]
    batches: list[Batch]
    limit: float


class SolverClock:
    """Seconds during which some solver ran: the union of the spans told, in any order (a
    case's calls on one lane overlap the next case's on another, and a judge's calls both),
    so `Stats.outside_share` stays the share of time with no solver running."""

    def __init__(self) -> None:
        self.kept: list[Span] = []  # disjoint, in order: the last SPANS_KEPT of the union

    def add(self, spans: Sequence[Span]) -> float:
        """Count `spans`: the seconds they add to the union."""
        if not spans:
            return 0.0
        before = sum(end - start for start, end in self.kept)
        merged = _merged([*self.kept, *spans])
        gained = sum(end - start for start, end in merged) - before
        self.kept = merged[-SPANS_KEPT:]
        return max(0.0, gained)


class SolverCalls:
    def __init__(
        self,
        config: CampaignConfig,
        specs: Sequence[SolverSpec],
        stats: Stats,
        root: Path,
        *,
        persistent: int,
        deadline: float | None,
        stopping: Callable[[], bool],
        say: Callable[[str], None],
    ) -> None:
        self.config, self.specs, self.stats, self.root = config, list(specs), stats, root
        self.deadline, self.stopping, self.say = deadline, stopping, say
        # which process answers a script: the target's long-lived one, replaced after
        # `persistent` scripts (0: a fresh process for every script), or a fresh one
        self.processes = SolverProcesses(
            self.specs, memory_mb=config.memory_mb, scripts_per_process=persistent
        )
        # the lanes `start` calls the targets on (one thread each, kept for the campaign's
        # life), by the names of the specs a lane runs
        self._lanes: dict[tuple[str, ...], ThreadPoolExecutor] = {}
        self.clock = SolverClock()

    def run(
        self,
        spec: SolverSpec,
        script: Runnable,
        *,
        fresh: bool = False,
        timeout: float | None = None,
        beyond_limit: bool = False,  # `timeout` may exceed the campaign's (slow findings)
    ) -> SolverResult:
        result = self._call(spec, script, fresh, self._limit(timeout, beyond_limit))
        end = time.perf_counter()
        if self.stopping():
            raise Stopped
        self._counted(result)
        self.stats.solver_time += self.clock.add([(end - result.elapsed, end)])
        return result

    def run_together(
        self, specs: Sequence[SolverSpec], script: Runnable, *, timeout: float | None = None
    ) -> list[SolverResult]:
        """`script` on every one of `specs` at the same time, results in their order."""
        return self.finish(self.start(specs, script, timeout=timeout))

    def start(
        self,
        specs: Sequence[SolverSpec],
        script: Runnable,
        *,
        timeout: float | None = None,
        after: Running | None = None,
    ) -> Running:
        """Give `script` to every one of `specs`' lanes and return at once (each target has
        a process of its own, so a case costs its slowest solver, not the sum): a lane runs
        it as soon as it has run what it was given before. `after`: the case started before
        on the same lanes, this one's start before that one is judged; a lane whose answer
        to it was not decided (a time-out, unknown, crash or rejection: the seed may end
        there, or the judging need that solver) passes this case over, and `finish` gives it
        again then. `finish` waits for the calls, `abandon` drops them."""
        limit = self._limit(timeout, False)
        if len({spec.name for spec in specs}) < len(specs):  # one process, one script at a time
            batches = [list(specs)]
        else:
            batches = [[spec] for spec in specs]
        # the texts printed here: a thread would wait for the GIL while the worker draws
        given = [[(spec, _text(spec, script)) for spec in batch] for batch in batches]
        before: list[Future[Timed | None] | None] = [None] * len(given)
        if after is not None and list(map(_names, after.batches)) == list(map(_names, given)):
            before = list(after.calls)
        calls = [
            self._lane(batch).submit(self._lane_calls, batch, limit, previous)
            for batch, previous in zip(given, before, strict=True)
        ]
        return Running(calls, given, limit)

    def finish(self, running: Running) -> list[SolverResult]:
        """The results of `start`'s calls, in their specs' order, once all ended (a part a
        lane passed over is run now). The solver time counted is the wall time they add to
        the union of every solver's runs (`SolverClock`)."""
        parts = self._waited(running.calls)
        passed: dict[int, Future[Timed | None]] = {
            index: self._lane(batch).submit(self._timed_calls, batch, running.limit)
            for index, (part, batch) in enumerate(zip(parts, running.batches, strict=True))
            if part is None
        }
        for index, again in zip(passed, self._waited(list(passed.values())), strict=True):
            parts[index] = again
        timed = [pair for part in parts for pair in part or []]
        for result, _ in timed:
            self._counted(result)
        self.stats.solver_time += self.clock.add([span for _, span in timed])
        return [result for result, _ in timed]

    def _waited(self, calls: Sequence[Future[Timed | None]]) -> list[Timed | None]:
        wait(calls)  # never leave a solver running unwatched, whatever another did
        if self.stopping():  # the reaper cut them short: nothing of it is judged
            raise Stopped
        return [call.result() for call in calls]  # errors surface

    def abandon(self, running: Running) -> None:
        """Drop `start`'s calls: those no lane took up yet never run; those running are
        waited for (a long-lived process answers one script at a time) and counted as
        calls and solver time, their answers left unread (a time-out of a case never
        tested is none of its seed's)."""
        # (`wait` would wait for a cancelled call until its lane dequeued it)
        ran = [call for call in running.calls if not call.cancel()]
        wait(ran)
        timed = [pair for call in ran for pair in call.result() or []]
        self.stats.solver_calls += len(timed)
        self.stats.solver_time += self.clock.add([span for _, span in timed])

    def busy(self, start: float, end: float) -> None:
        """A solver ran from `start` to `end` (`time.perf_counter`) outside `run` (a
        strategy's capability probes, a new bug's replay on the newest release): solver
        time, counted once where it overlaps other calls."""
        self.stats.solver_time += self.clock.add([(start, end)])

    def _lane(self, batch: Batch) -> ThreadPoolExecutor:
        names = _names(batch)
        lane = self._lanes.get(names)
        if lane is None:
            lane = self._lanes[names] = ThreadPoolExecutor(1, thread_name_prefix="solver-lane")
        return lane

    def _limit(self, timeout: float | None, beyond_limit: bool) -> float:
        limit = self.config.timeout if timeout is None else min(timeout, self.config.timeout)
        if beyond_limit and timeout is not None:
            limit = timeout
        if self.deadline is not None:  # --time holds whatever the solver does
            limit = max(0.05, min(limit, self.deadline - time.time()))
        return limit

    def _call(self, spec: SolverSpec, script: Runnable, fresh: bool, limit: float) -> SolverResult:
        return self._call_text(spec, _text(spec, script), fresh, limit)

    def _call_text(self, spec: SolverSpec, text: str, fresh: bool, limit: float) -> SolverResult:
        return self.processes.run(spec, text, timeout=limit, fresh=fresh)

    def _lane_calls(
        self, batch: Batch, limit: float, previous: Future[Timed | None] | None
    ) -> Timed | None:
        """`batch` on its lane, unless the lane's answer to the case before (`previous`,
        done: the lane ran it first) was not decided: None, passed over."""
        if previous is not None:
            try:
                answered = previous.result()
            except Exception:  # cancelled, or failed: `finish` of that case says how
                return None
            if answered is None or not all(result.decided for result, _ in answered):
                return None
        return self._timed_calls(batch, limit)

    def _timed_calls(self, calls: Batch, limit: float) -> Timed:
        """Calls one after the other, each with the span of time its solver ran (ending
        when it returned, `elapsed` long)."""
        timed = []
        for spec, text in calls:
            result = self._call_text(spec, text, False, limit)
            end = time.perf_counter()
            timed.append((result, (end - result.elapsed, end)))
        return timed

    def _counted(self, result: SolverResult) -> None:
        stats = self.stats
        stats.solver_calls += 1
        stats.unknowns += result.outcome == Outcome.UNKNOWN
        stats.timeouts += result.outcome == Outcome.TIMEOUT
        stats.errors += result.outcome == Outcome.ERROR

    def use_specs(self, specs: Sequence[SolverSpec]) -> None:
        """Run the targets as `specs` from now on (a position's options on their command
        lines, `campaign.position_options`); the list is shared, so every user sees the change."""
        self.specs[:] = specs

    def trusted_run(self, spec: SolverSpec) -> TrustedRun:
        """A trusted solver's run: fresh, and no longer than a seed's check may take."""
        return lambda text: self.run(spec, text, fresh=True, timeout=self.config.seed_timeout)

    def count(self, results: list[SolverResult], formula: Formula) -> bool:
        """Count one tested formula; True when every solver accepted it. The first formula
        of each rejection cause is kept in `rejected/`: a rejection is a fuzzer problem."""
        stats = self.stats
        stats.mutants += 1
        accepted = all(r.outcome != Outcome.ERROR for r in results)
        stats.accepted += accepted
        stats.undecided += any(r.undecided for r in results)
        for result in results:
            if result.outcome == Outcome.ERROR:
                cause = rejection(result)
                if cause not in stats.rejections:
                    first = " ".join((result.failure_line or "").split())
                    seen = formula.text_for(result.spec.family)
                    # the command line: with drawn options, they may be what the solver refuses
                    note = f"first error: {first}\n; command: {result.spec.text}"
                    keep_example(CampaignFolder(self.root).rejected, cause, seen, note)
                stats.rejections[cause] += 1
        return accepted

    def close(self) -> None:
        for lane in self._lanes.values():
            lane.shutdown()
        self.processes.close()


def _text(spec: SolverSpec, script: Runnable) -> str:
    """`script` as `spec`'s family reads it."""
    if isinstance(script, Formula):
        return script.text_for(spec.family)
    return for_family(script, spec.family)


def _names(batch: Batch) -> tuple[str, ...]:
    """The lane a batch runs on: its specs' names."""
    return tuple(spec.name for spec, _ in batch)


def _merged(spans: Sequence[Span]) -> list[Span]:
    """The union of the (start, end) `spans` as disjoint spans, in order."""
    union: list[Span] = []
    for start, end in sorted(spans):
        if union and start <= union[-1][1]:
            if end > union[-1][1]:
                union[-1] = (union[-1][0], end)
        else:
            union.append((start, end))
    return union


def keep_example(folder: Path, cause: str, text: str, note: str) -> None:
    """`<folder>/<hash of cause>.smt2`: one example formula of a cause (a campaign folder's
    `CampaignFolder.doubts` or `.rejected`)."""
    name = hashlib.sha1(cause.encode("utf-8")).hexdigest()[:12]
    try:
        folder.mkdir(exist_ok=True)
        (folder / f"{name}.smt2").write_text(f"; {cause}\n; {note}\n" + text)
    except OSError:
        pass  # an example only; the counter is what matters


def cause(line: str) -> str:
    """A failure line as a counter key: what varies between runs normalised away."""
    return normalise_failure(line)[:160]


def rejection(result: SolverResult) -> str:
    return f"{result.spec.name}: {cause(result.failure_line or 'rejected')}"
