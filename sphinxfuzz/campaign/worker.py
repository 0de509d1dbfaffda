"""One worker's fuzz loop (Algorithm 2): seed -> its strategy's cases -> every solver ->
oracle -> store.

Worker k of N takes positions k, k+N, k+2N, ... (see `seeds.SeedOrder`). A position's seed
is checked once (`seedcheck`), its strategy is drawn (`mix.StrategyBench`), and the strategy
makes the position's cases from `rng_for(campaign_seed, position)` alone: seed checks, solver
answers and timing never touch that generator, so a fixed campaign seed gives the same cases.
How many a seed gets is its `budget.SeedBudget`; the solver calls are `calls.SolverCalls`'s,
and what a confirmed verdict becomes is `recording.Recorder`'s. The loop knows no strategy
by name: what a strategy needs it declares (`strategies.Needs`).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from sphinxfuzz.bugs.stats import Stats
from sphinxfuzz.bugs.store import Store
from sphinxfuzz.campaign.case_tester import CaseTester
from sphinxfuzz.campaign.config import Budget, Campaign
from sphinxfuzz.campaign.exit_reason import ExitReason
from sphinxfuzz.campaign.judging import Judging
from sphinxfuzz.campaign.learnt_weights import LearntWeights
from sphinxfuzz.campaign.recording import Recorder
from sphinxfuzz.campaign.repeats import RepeatedMessages
from sphinxfuzz.campaign.rngs import rng_for
from sphinxfuzz.campaign.seedcheck import USABLE, SeedChecker, UsableSeed
from sphinxfuzz.campaign.seeds import SeedOrder
from sphinxfuzz.campaign.sink import Findings
from sphinxfuzz.campaign.solver_calls import SolverCalls, Stopped
from sphinxfuzz.campaign.strategy_bench import StrategyBench
from sphinxfuzz.campaign.targets import CampaignError
from sphinxfuzz.campaign.theory_probe import DECIDE_LIMIT, probe_theories
from sphinxfuzz.errors import SphinxfuzzError
from sphinxfuzz.generators.pool import GeneratorPool
from sphinxfuzz.mutate import Seed, SeedError, load_seed
from sphinxfuzz.mutate.mutant import MAX_PLACEHOLDERS, with_needed_options
from sphinxfuzz.oracle import VerdictKind
from sphinxfuzz.solvers import SolverSpec, reaper
from sphinxfuzz.solvers.fresh_process import remove_scratch_dir
from sphinxfuzz.solvers.options import needed_options
from sphinxfuzz.solvers.persistent import SCRIPTS_PER_PROCESS
from sphinxfuzz.solvers.versions import solver_version
from sphinxfuzz.strategies import (
    StrategyContext,
)
from sphinxfuzz.strategies.scheduler import Counters, PairCoverage

# Seconds the worker's thread keeps the GIL before a thread that waits gets it: while the
# worker draws a case (pure Python), a solver thread whose solver answered, or that is to send
# a script, waits that long at each step, with no solver running (Python's default: 5 ms; a
# bench of #28 measured 6.9% of the time outside solvers with it, 5.9% with this).
SWITCH_INTERVAL = 0.0005
# Seconds between two statistics reports of a worker within a position (each case's would
# cost 0.45 ms of JSON and summing on the worker's thread: 0.6% of a regressions campaign's
# time with no solver running); a position's end and the run's end report at once.
PUBLISH_EVERY = 0.25
# Seeds drawn per position as partners (`Needs.partners`; each labelled once by the trusted
# solver).
PARTNERS = 3


@dataclass
class Event:
    """What a worker tells the coordinator: `stats` (its cumulative counters for this run,
    as JSON), `message` (a line for the user)."""

    kind: str
    worker: int
    payload: object


Report = Callable[[Event], None]


class Worker:
    def __init__(
        self,
        campaign: Campaign,
        root: Path,
        *,
        worker: int = 0,
        jobs: int = 1,
        budget: Budget | None = None,
        deadline: float | None = None,
        report: Report = lambda event: None,
        stop_requested: Callable[[], bool] = lambda: False,
        persistent: int = SCRIPTS_PER_PROCESS,
        unconfined: bool = False,
        sink: Callable[[], AbstractContextManager[Findings]] | None = None,
    ) -> None:
        self.campaign = campaign
        # where findings go (`campaign.sink`): the campaign's store, unless given
        self.open_sink = sink or (lambda: Store(root))
        self.config = config = campaign.config
        self.unconfined = unconfined  # generators may run without kernel confinement
        self.worker, self.jobs = worker, jobs
        self.budget = budget = budget or Budget()
        self.deadline = deadline
        self.report = report
        self.stop_requested = stop_requested
        self.stats = Stats()
        self.started = time.monotonic()
        self.published = float("-inf")  # when the statistics were last reported
        self.mutant_limit = _mutant_share(budget.mutants, worker, jobs)
        self.specs: list[SolverSpec] = list(campaign.specs)
        self.targets = [(spec.family, solver_version(spec)) for spec in self.specs]
        self.repeats = RepeatedMessages()  # per-seed messages: the first few, then a count
        self.calls = SolverCalls(
            config, self.specs, self.stats, root, persistent=persistent, deadline=deadline,
            stopping=self._stopping, say=self._say,
        )  # fmt: skip
        self.judging = Judging(self.calls, campaign.trusted, self._needed_options, self._say)
        self.recorder = Recorder(self.calls, config.newest, self._say)
        # Seeds are checked by the trusted solver too, when the mix has one: a target already
        # wrong on a seed makes that a seed finding, not a source of cases that only find
        # the seed's own bug again (with one target nothing else would notice).
        targets = {s.name for s in self.specs}
        trusted = [t for t in campaign.trusted if t.name not in targets]
        self.seeds = SeedChecker(
            config, self.calls, self.judging, self.specs + trusted, self._needed_options,
            say=self._say, refresh=self.recorder.refresh,
        )  # fmt: skip
        # labels and models are of seeds: a seed slower than seed_timeout is not used
        self.trusted = [self.calls.trusted_run(spec) for spec in campaign.trusted]
        self.bench = StrategyBench(campaign.mix, self.trusted, self._partners)
        self.tester = CaseTester(
            config, self.calls, self.judging, self.recorder, self.bench, self._needed_options,
            out_of_budget=self._out_of_budget, stop_requested=stop_requested,
            publish=lambda: self._publish(soon=True), say=self._say,
            options=campaign.position_options(),
        )  # fmt: skip
        self.pairs = PairCoverage()  # what the bandit rewards (operator pairs tried)

    # -- stopping and telling -------------------------------------------------------------
    def _stopping(self) -> bool:
        return self.stop_requested() or (self.deadline is not None and time.time() >= self.deadline)

    def _out_of_budget(self) -> bool:
        if self._stopping():
            return True
        return self.mutant_limit is not None and self.stats.mutants >= self.mutant_limit

    def _publish(self, *, soon: bool = False) -> None:
        """Report the statistics; `soon`: unless reported within PUBLISH_EVERY."""
        now = time.monotonic()
        if soon and now - self.published < PUBLISH_EVERY:
            return
        self.published = now
        self.stats.wall_time = now - self.started
        self.report(Event("stats", self.worker, self.stats.to_json()))

    def _say(self, message: str, kind: str | None = None) -> None:
        """Report `message`; one of a `kind` that repeats per seed only while few."""
        if kind is None or self.repeats.show(kind):
            self.report(Event("message", self.worker, message))

    def _why_stopped(self) -> ExitReason:
        """Why `_out_of_budget` (or a `Stopped` call) ended the worker."""
        if self.stop_requested():
            return ExitReason.STOPPED
        if self.deadline is not None and time.time() >= self.deadline:
            return ExitReason.TIME
        return ExitReason.MUTANTS

    # -- the worker's story ---------------------------------------------------------------
    def run(self) -> Stats:
        """Run the worker's phases until its budget or its seeds end; `stats.exit_reason`
        says which."""
        reaper.cancel_when(self._stopping)  # no solver call outlives a stop or the deadline
        switch = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL)
        try:
            self.stats.exit_reason = self._phases()
            self._publish()
            return self.stats
        finally:
            sys.setswitchinterval(switch)
            reaper.cancel_when(None)
            for line in self.repeats.summary():
                self._say(line)
            self.calls.close()

    def _phases(self) -> ExitReason:
        """Probe: the strategies get what they need, the theory weights a probe's answers
        (`_context`). Then seed check and fuzz, position after position (`_positions`)."""
        try:
            generators = _generator_pool(self.campaign, self.unconfined)
            with self.open_sink() as store, generators as pool:
                self.bench.setup(self._context(pool))
                return self._positions(store)
        except Stopped:  # the position in progress is not marked done: a resume redoes it
            return self._why_stopped()

    def _context(self, pool: GeneratorPool | None) -> StrategyContext:
        weights: Mapping[str, float] | None = None
        counts: Mapping[str, float] | None = None
        if pool is not None and self.config.adapt_theories:  # the probe's, then learnt
            stats = self.stats
            probed = _probe(pool, self.specs, self.config.timeout, stats, self._say_probe)
            weights = LearntWeights(pool.theories, probed, stats.theories, stats.theories_undecided)
            terms = [str(n) for n in range(1, MAX_PLACEHOLDERS + 1)]
            counts = LearntWeights(terms, None, stats.term_counts, stats.term_counts_undecided)

        def left_out(counts: Mapping[str, int]) -> None:
            self.stats.left_out = Counter(counts)

        config = self.config
        return StrategyContext(
            self.specs, self.trusted, pool, weights, self.campaign.theory_options,
            self._needed_options, config.rename_prob, config.generators, self.calls.busy, left_out,
            counts, config.history,
        )  # fmt: skip

    def _positions(self, store: Findings) -> ExitReason:
        """The worker's positions in turn: each one's seed checked (`seedcheck`), then its
        cases made and tested (`_fuzz_position`)."""
        order = SeedOrder(list(self.campaign.seed_files), self.config.campaign_seed)
        done = store.done_positions()
        current_round, usable = 0, False
        for position in itertools.count(self.worker, self.jobs):
            if self._out_of_budget():
                return self._why_stopped()
            round_ = order.round_of(position)
            if round_ != current_round:
                if self.budget.unlimited:
                    return ExitReason.SEEDS  # without a budget: one pass over the seeds
                if not usable:
                    self._say("no usable seed in a whole round: stopping this worker")
                    return ExitReason.SEEDS
                current_round, usable = round_, False
            seed_file = order.seed_at(position)
            if position in done:  # by an earlier run
                status = store.seed_status(seed_file)
                usable = usable or status is None or status[0] in USABLE
                continue
            found = self.seeds.usable(store, seed_file)
            usable = usable or found is not None
            if found is not None:
                if not self._fuzz_position(store, position, found):
                    # stopped inside the seed: it is not done, a resume redoes it
                    return self._why_stopped()
            store.mark_done(position, seed_file)
            self._publish()
        raise AssertionError("positions never run out")  # itertools.count is endless

    def _say_probe(self, message: str) -> None:
        if self.worker == 0:  # every worker probes alike: one says so
            self._say(message)

    def _needed_options(self, operators: set[str], commands: Mapping[str, int]) -> list[str]:
        return needed_options(self.targets, operators, commands)

    def _partners(self, position: int) -> list[Seed]:
        """Up to PARTNERS seeds drawn for `position`; unreadable ones are left out."""
        files = self.campaign.seed_files
        rng = rng_for(self.config.campaign_seed, position, "partners")
        found = []
        for path in rng.sample(files, min(PARTNERS, len(files))):
            try:
                raw = load_seed(path, max_bytes=self.config.max_seed_bytes)
            except SeedError:
                continue
            found.append(with_needed_options(raw, self._needed_options))
        return found

    def _index(self, position: int) -> int:
        """The worker's own count of positions (what its scheduler learns in order of)."""
        return position // self.jobs

    # -- one position ---------------------------------------------------------------------
    def _fuzz_position(self, store: Findings, position: int, usable: UsableSeed) -> bool:
        """The position's strategy makes and tests its cases on the targets its seed serves;
        False when stopped inside."""
        campaign_seed, index, seed = self.config.campaign_seed, self._index(position), usable.seed
        # as many solvers to compare as the campaign has, up to two: a seed only one of
        # several targets accepts prefers strategies that carry their expected answer
        compares = len(usable.specs) >= min(2, len(self.specs))
        name = self.bench.choose(seed, campaign_seed, position, index, compares=compares)
        why = "" if compares else " with one target alone"
        counted = position < len(self.campaign.seed_files)  # a seed counts once, in round one
        if counted:
            self.seeds.count(usable, None if name is not None else f"no strategy applies{why}")
        if name is None:
            return True
        before = _Snapshot.of(self.stats)
        self.tester.scripts = []
        self.tester.check = usable.check
        self.tester.set_aside = None
        finished = False
        try:
            finished = self.tester.seed_cases(store, position, seed, name, usable.specs)
            if counted and self.tester.set_aside is not None:
                self.seeds.set_aside_after(usable, self.tester.set_aside)
        finally:  # a stop inside the position (`Stopped`) still counts what was tested
            counters = before.credit(self.stats, name)
        if self.bench.mix.scheduler == "bandit":
            counters.new_operator_pairs = self.pairs.new_pairs(self.tester.scripts)
        if finished:
            self.bench.scheduler.reward(name, counters, index)
        return finished


@dataclass(frozen=True)
class _Snapshot:
    """The counters a position changes, before it: `delta` gives what it did."""

    mutants: int
    accepted: int
    solver_calls: int
    solver_time: float
    crashes: int
    verdicts: int

    @classmethod
    def of(cls, stats: Stats) -> _Snapshot:
        crashes = stats.bugs.get(str(VerdictKind.CRASH), 0)
        return cls(stats.mutants, stats.accepted, stats.solver_calls, stats.solver_time,
                   crashes, sum(stats.bugs.values()) - crashes)  # fmt: skip

    def credit(self, stats: Stats, strategy: str) -> Counters:
        """What the position did since this snapshot, also added to `strategy`'s counters."""
        counters = self.delta(stats)
        mine = stats.strategy(strategy)
        mine.positions += 1
        mine.cases += counters.cases
        mine.accepted += counters.accepted
        mine.verdicts += counters.verdicts + counters.new_crash_signatures
        mine.solver_calls += counters.solver_calls
        mine.solver_seconds += counters.solver_seconds
        return counters

    def delta(self, stats: Stats) -> Counters:
        now = _Snapshot.of(stats)
        return Counters(
            cases=now.mutants - self.mutants,
            accepted=now.accepted - self.accepted,
            solver_calls=now.solver_calls - self.solver_calls,
            solver_seconds=now.solver_time - self.solver_time,
            new_crash_signatures=now.crashes - self.crashes,
            verdicts=now.verdicts - self.verdicts,
        )


def _mutant_share(mutants: int | None, worker: int, jobs: int) -> int | None:
    """Worker `worker`'s part of a mutant budget: all `jobs` together make exactly that many."""
    if mutants is None:
        return None
    return mutants // jobs + (1 if worker < mutants % jobs else 0)


@contextlib.contextmanager
def _generator_pool(campaign: Campaign, unconfined: bool) -> Iterator[GeneratorPool | None]:
    """The campaign's generator pool, open while a worker runs; none for a mix whose
    strategies draw no generated terms."""
    if not campaign.mix.needs_generators:
        yield None
        return
    with GeneratorPool(list(campaign.generators), unconfined=unconfined) as pool:
        if not pool.theories:
            failures = "; ".join(
                f"{t}: {why.strip().splitlines()[-1]}" for t, why in pool.load_failures.items()
            )
            raise CampaignError(
                f"no generator could be loaded from {campaign.config.generators}: {failures}"
            )
        yield pool


def _probe(
    pool: GeneratorPool, specs: list[SolverSpec], timeout: float, stats: Stats,
    say: Callable[[str], None],
) -> dict[str, float] | None:  # fmt: skip
    """The theory probe's draw weights (None: the probe decided nothing), its solver time
    counted in `stats`; the theories it leaves out or draws less often are told to `say`."""
    probe = probe_theories(pool, specs, timeout=timeout, decide_timeout=min(DECIDE_LIMIT, timeout))
    stats.solver_time += probe.solver_seconds
    for stale in probe.stale:
        say(f"theory probe: answers cached for {stale} by an older probe: probed again")
    weights = probe.weights()
    if weights is not None:
        for theory, share in sorted(probe.decided.items()):
            if share < 1.0:
                what = "left out" if share == 0 else f"drawn {share:.0%} as often"
                why = probe.why(theory).splitlines()[0][:160]
                say(f"theory probe: {theory} {what} ({why})")
    return weights


def worker_main(
    campaign: Campaign,
    root: str,
    worker: int,
    jobs: int,
    budget: tuple[float | None, int | None],
    deadline: float | None,
    queue: object,
    stop: object,
    parent_pid: int,
    persistent: int = SCRIPTS_PER_PROCESS,
    unconfined: bool = False,
) -> None:
    """Entry point of a spawned worker process: events go to the coordinator's queue."""
    import signal
    import threading
    import traceback

    from sphinxfuzz.solvers.reaper import abort_all

    # The coordinator turns Ctrl-C into `stop`; a worker must finish its mutant, not die.
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def report(event: Event) -> None:
        queue.put(event)  # type: ignore[attr-defined]

    def stop_requested() -> bool:
        # an orphaned worker (coordinator killed) stops too
        return stop.is_set() or os.getppid() != parent_pid  # type: ignore[attr-defined]

    def abort_on_stop() -> None:  # a stop must not wait for the solvers running now
        # polled, never `stop.wait()`: a worker that exits while waiting on the Event leaves
        # `Event.set` in the coordinator waiting for it forever
        while not stop_requested():
            time.sleep(0.2)
        abort_all()

    threading.Thread(target=abort_on_stop, daemon=True).start()

    try:
        Worker(
            campaign,
            Path(root),
            worker=worker,
            jobs=jobs,
            budget=Budget(*budget),
            deadline=deadline,
            report=report,
            stop_requested=stop_requested,
            persistent=persistent,
            unconfined=unconfined,
        ).run()
        report(Event("done", worker, None))
    except SphinxfuzzError as exc:  # a clear message (a full disk too) needs no traceback
        report(Event("failed", worker, str(exc)))
    except BaseException:
        report(Event("failed", worker, traceback.format_exc()))
    finally:
        remove_scratch_dir()  # now, not at exit: a worker may be killed after its last word
