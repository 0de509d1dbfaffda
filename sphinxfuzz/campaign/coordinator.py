"""Starting, resuming and coordinating a campaign (one worker in-process, or N spawned).

Workers write bugs, progress and the mutant log to the shared store themselves (SQLite WAL):
a bug is on disk the moment it is found, whatever happens to the coordinator. Counters go to
the coordinator over a queue instead, because it alone shows the live line and writes one
statistics row per minute; a coordinator killed mid-minute loses at most that minute of
counters, never a bug.
"""

from __future__ import annotations

import multiprocessing
import os
import queue as queue_module
import signal
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Protocol

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.stats import Stats
from sphinxfuzz.bugs.store import Store
from sphinxfuzz.campaign.config import Budget, Campaign, CampaignConfig, with_run_settings
from sphinxfuzz.campaign.exit_reason import ExitReason
from sphinxfuzz.campaign.lock import CampaignLock
from sphinxfuzz.campaign.position_options import PositionOptions
from sphinxfuzz.campaign.reduction import Reductions, reduce_stored
from sphinxfuzz.campaign.status_file import StatusWriter
from sphinxfuzz.campaign.targets import CampaignError
from sphinxfuzz.campaign.worker import Event, Worker, worker_main
from sphinxfuzz.generators.child_process import probe_confinement
from sphinxfuzz.generators.confine import ConfinementError
from sphinxfuzz.solvers import reaper
from sphinxfuzz.solvers.persistent import SCRIPTS_PER_PROCESS
from sphinxfuzz.solvers.smoke import smoke_test

Progress = Callable[[Stats, float], None]  # (this run's counters, seconds since start)
Message = Callable[[str], None]

STATS_PERIOD = 60.0  # seconds between statistics rows
JOBS_PER_CORE = 4  # local workers per CPU core at most: more only queue up and exhaust memory
STOP_GRACE = 6.0  # seconds a stop request may take before the process ends itself
STOPPED_HARD = 3  # exit status when the grace ran out


def stored_config(root: Path) -> CampaignConfig:
    """The config a campaign folder holds (to resume it)."""
    with Store(root) as store:
        return _stored_config(store, root)


def _stored_config(store: Store, root: Path) -> CampaignConfig:
    stored = store.config()
    if stored is None:
        raise CampaignError(f"{root}: nothing to resume (the campaign has no config)")
    return CampaignConfig.from_json(stored)


def resumed_config(root: Path, given: Mapping[str, object | None]) -> CampaignConfig:
    """The stored config of the campaign in `root`; every setting in `given` (None: not
    given) must agree with it, but for the run settings (`config.RUN_SETTINGS`), which it
    takes as given."""
    config = stored_config(root)
    _require_same(root, config, given)
    return with_run_settings(config, given)


def _require_same(root: Path, stored: CampaignConfig, given: Mapping[str, object | None]) -> None:
    differing = stored.differences(given)
    if differing:
        raise CampaignError(
            f"{root}: a resumed campaign keeps its stored config ({'; '.join(differing)}); "
            "leave out the settings that differ, or start a new campaign",
            setting="resume",
        )


def prepare(root: Path, config: CampaignConfig, *, resume: bool) -> Store:
    """Open (or create) the campaign folder and check that it matches `config`."""
    if resume:
        store = Store(root)
        try:
            _require_same(root, _stored_config(store, root), config.to_json())
        except CampaignError:
            store.close()
            raise
        return store
    if CampaignFolder(root).index.exists():
        raise CampaignError(
            f"{root}: already holds a campaign; resume it or choose another campaign folder",
            setting="campaign",
        )
    store = Store(root, create=True)
    store.save_config(config.to_json())
    return store


def validate(
    config: CampaignConfig | Campaign, *, unconfined: bool = False,
    say: Callable[[str], None] | None = None,
) -> Campaign:  # fmt: skip
    """Fail before any process starts: solvers, seeds and generators must all be usable,
    and generator code must run confined (unless `unconfined`). Returns the resolved
    campaign; a `Campaign` given is taken as resolved and checked already. `say` hears of
    option tables built (once per release, seconds each)."""
    if isinstance(config, Campaign):
        return config
    campaign = config.resolve()
    try:
        probe_confinement(unconfined=unconfined)
    except ConfinementError as exc:
        raise CampaignError(str(exc), setting="unconfined") from None
    # random options need the targets' option tables: built here once, before any worker
    options = PositionOptions.prepare(campaign.options, campaign.specs, config.campaign_seed, say)
    fixed = options.specs_for(0) if options.plan.fixed else []  # the same at every position
    for spec, setting in [
        *((s, "solvers") for s in campaign.specs),
        *((s, "options") for s in fixed),
    ]:
        problem = smoke_test(spec, timeout=max(config.timeout, 5.0), memory_mb=config.memory_mb)
        if problem is not None:
            raise CampaignError(
                f"solver {spec.text!r} fails on a trivial script ((check-sat) on an empty "
                f"problem): {problem}. Check its options.",
                setting=setting,
            )
    return campaign


class _Aggregator:
    """Sums the workers' counters and writes a statistics row each minute."""

    def __init__(self, store: Store, run: int, progress: Progress, started: float) -> None:
        self.store = store
        self.run = run
        self.progress = progress
        self.started = started
        self.latest: dict[int, Stats] = {}
        self.minute = 0

    def total(self) -> Stats:
        total = Stats()
        for stats in list(self.latest.values()):  # the status thread reads it too
            total.add(stats)
        return total

    def update(self, worker: int, data: dict[str, object]) -> None:
        self.latest[worker] = Stats.from_json(data)
        elapsed = time.monotonic() - self.started
        self.progress(self.total(), elapsed)
        if elapsed >= (self.minute + 1) * STATS_PERIOD:
            self.minute = int(elapsed // STATS_PERIOD)
            self.store.save_stats(self.run, self.minute, self.total())

    def exit_reason(self) -> ExitReason:
        """Why the fuzzing ended, from the reasons in the workers' last counters."""
        return ExitReason.of_workers(stats.exit_reason for stats in self.latest.values())

    def flush(self, reason: ExitReason | None = None) -> Stats:
        """The summed counters, saved as the minute's row; `reason`: the fuzzing ended so."""
        total = self.total()
        if reason is not None:
            total.exit_reason = reason
        self.minute = max(self.minute, int((time.monotonic() - self.started) // STATS_PERIOD))
        self.store.save_stats(self.run, self.minute, total)
        return total


class _Settable(Protocol):
    """A threading or multiprocessing Event: what a stop request sets."""

    def set(self) -> None: ...


class _StopOnSignal:
    """Ctrl-C / SIGTERM ask for a graceful stop: the solvers running now are killed, the
    mutant they ran is dropped (a resume makes it again), statistics are flushed. Whatever
    the main thread is blocked on, the process ends within `STOP_GRACE` seconds: a watchdog
    thread then kills the workers and solvers and exits (bugs are written atomically and
    the lock is the kernel's, so nothing stored is lost; a resume goes on)."""

    def __init__(self, event: _Settable) -> None:
        self.event = event
        self.signalled = False  # a signal asked for the stop
        self.previous: dict[int, object] = {}
        self.watchdog: threading.Timer | None = None

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.signalled = True
        self.event.set()
        reaper.abort_all()  # solvers of this process: their answers are not judged anyway
        if self.watchdog is None:
            self.watchdog = threading.Timer(STOP_GRACE, _stop_hard)
            self.watchdog.daemon = True
            self.watchdog.start()

    def __enter__(self) -> _StopOnSignal:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self.previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]
        if self.watchdog is not None:
            self.watchdog.cancel()


def _stop_hard() -> None:
    """The stop took longer than its grace: end the workers, the solvers and this process."""
    for child in multiprocessing.active_children():
        child.kill()
    reaper.abort_all()
    os.write(2, f"stopped: the campaign did not stop within {STOP_GRACE:g} s; ended\n".encode())
    os._exit(STOPPED_HARD)


def check_folder(root: Path, *, resume: bool) -> None:
    """Refuse, before anything is written, a campaign folder that cannot be used: the
    current folder (what an empty name gives), or for a resume one whose index does not
    open (`Store` says what is wrong and the way out)."""
    if Path(root) == Path():
        raise CampaignError(
            "the current folder as campaign folder (an empty name means it): the index and "
            "the lock would be mixed into its files; name a folder of its own",
            setting="campaign",
        )
    if resume:
        Store(root, read_only=True).close()


def check_jobs(jobs: int, ray: str | None = None) -> None:
    """`jobs` within bounds: at least 1, and for local workers at most `JOBS_PER_CORE` per
    core (a Ray cluster's size is its own)."""
    if jobs < 1:
        raise CampaignError(f"jobs {jobs}: must be at least 1", setting="jobs")
    cores = os.cpu_count() or 1
    if ray is None and jobs > JOBS_PER_CORE * cores:
        raise CampaignError(
            f"jobs {jobs}: at most {JOBS_PER_CORE} workers per CPU core run here "
            f"({cores} core(s): at most {JOBS_PER_CORE * cores}); more would only wait "
            "for a core and take memory",
            setting="jobs",
        )


@dataclass(frozen=True)
class _Run:
    """This run's settings beside the campaign's config: `run_campaign`'s arguments."""

    root: Path
    budget: Budget
    jobs: int
    persistent: int
    unconfined: bool
    ray: str | None
    status_every: float
    on_progress: Progress
    on_message: Message


def run_campaign(
    config: CampaignConfig | Campaign,
    root: Path,
    budget: Budget,
    *,
    jobs: int = 1,
    resume: bool = False,
    on_progress: Progress = lambda stats, elapsed: None,
    on_message: Message = lambda text: None,
    persistent: int = SCRIPTS_PER_PROCESS,
    unconfined: bool = False,
    ray: str | None = None,
    status_every: float = 10.0,
) -> Stats:
    """Run (or resume) a campaign until its budget is spent, the seeds run out (no budget:
    one pass) or a stop is requested. Returns this run's counters, with why the fuzzing
    ended (`Stats.exit_reason`). `persistent`: keep one
    solver process per solver and worker where the solver allows it, replaced after that many
    scripts (0: a fresh process per script; verdicts are confirmed in fresh processes either
    way); it changes speed, never the mutants. `unconfined`: run
    generators even where the kernel confinement cannot be set up. A `Campaign` (from
    `validate`) is run as it is, without checking it again. `ray`: run the `jobs` workers as
    actors of the Ray cluster at that address ("local": start one here; `campaign.cluster`).
    `status_every`: seconds between rewrites of the folder's `status.json` while its counters
    stay; within a second of their change otherwise (`campaign.status_file`; 0: only at the start
    and the end).

    The story: the config read and checked once (`validate`), the folder locked and
    prepared, then `_phases`."""
    if isinstance(persistent, bool):  # True would mean one script a process
        raise TypeError(f"persistent: scripts a process serves (0: fresh), not {persistent}")
    check_jobs(jobs, ray)
    check_folder(root, resume=resume)
    campaign = validate(config, unconfined=unconfined, say=on_message)
    run = _Run(root, budget, jobs, persistent, unconfined, ray, status_every, on_progress,
               on_message)  # fmt: skip
    with (
        CampaignLock(root, create=not resume),
        prepare(root, campaign.config, resume=resume) as store,
    ):
        return _phases(campaign, store, run)


def _phases(campaign: Campaign, store: Store, run: _Run) -> Stats:
    """Fuzz: every worker probes the theories once, then checks each of its positions' seed
    and fuzzes it, until its budget or the seeds end (`loop.Worker.run`). Summary: the
    counters summed with why the fuzzing ended, in the store and `status.json`. Reduce: the
    stored findings (unless stopped), their counts added to the summary."""
    aggregator = _Aggregator(store, store.start_run(run.jobs), run.on_progress, time.monotonic())
    deadline = None if run.budget.seconds is None else time.time() + run.budget.seconds
    status = StatusWriter(
        run.root, aggregator.total, every=run.status_every, seed_count=len(campaign.seed_files),
        jobs=run.jobs, budget=(run.budget.seconds, run.budget.mutants), ray=run.ray,
        options_of=campaign.config.solvers if campaign.config.sets_options else None,
    )  # fmt: skip
    with status:
        reason = _fuzz(campaign, store, run, deadline, aggregator)
        stats = aggregator.flush(reason)
        status.ended(reason)
        if campaign.config.reduce and reason is not ExitReason.STOPPED:  # a stop leaves them
            _reduce_after(store, run, campaign.config.reduce_time, stats, status)
            store.save_stats(aggregator.run, aggregator.minute, stats)
        return stats


def _fuzz(
    campaign: Campaign, store: Store, run: _Run, deadline: float | None, aggregator: _Aggregator
) -> ExitReason:
    """Run the workers (on Ray, in this process, or spawned) until they all end; why."""
    if run.ray is not None:
        signalled = _run_on_ray(campaign, store, run, deadline, aggregator)
    elif run.jobs == 1:
        signalled = _run_inline(campaign, run, deadline, aggregator)
    else:
        signalled = _run_spawned(campaign, run, deadline, aggregator)
    return ExitReason.STOPPED if signalled else aggregator.exit_reason()


def _reduce_after(
    store: Store, run: _Run, per_bug: float, stats: Stats, status: StatusWriter
) -> None:
    """The campaign's reduction of its stored bugs (`campaign.reduction`), counted in `stats`
    and shown in the status document; Ctrl-C or SIGTERM stops it as they stop the fuzzing."""
    halt, done = threading.Event(), Reductions()
    status.reducing(done.to_json)
    with _StopOnSignal(halt):
        reduce_stored(store, run.root, per_bug=per_bug, halt=halt, say=run.on_message, done=done)
    stats.reduced += done.reduced
    stats.not_reduced += done.not_reduced
    stats.reduce_seconds += done.seconds


def _run_on_ray(
    campaign: Campaign, store: Store, run: _Run, deadline: float | None, aggregator: _Aggregator
) -> bool:
    from sphinxfuzz.campaign import cluster  # imports Ray: only for a campaign that asks

    budget = (run.budget.seconds, run.budget.mutants)
    plans = [
        cluster.WorkerPlan(k, run.jobs, budget, deadline, run.persistent, run.unconfined)
        for k in range(run.jobs)
    ]
    stop = threading.Event()
    with _StopOnSignal(stop) as guard:
        assert run.ray is not None
        cluster.run_on_ray(run.ray, campaign, store, plans, aggregator.update, run.on_message, stop)
    return guard.signalled


def _run_inline(
    campaign: Campaign, run: _Run, deadline: float | None, aggregator: _Aggregator
) -> bool:
    stop = threading.Event()

    def report(event: Event) -> None:
        if event.kind == "stats":
            aggregator.update(event.worker, event.payload)  # type: ignore[arg-type]
        elif event.kind == "message":
            run.on_message(str(event.payload))

    with _StopOnSignal(stop) as guard:
        Worker(
            campaign, run.root, budget=run.budget, deadline=deadline, report=report,
            stop_requested=stop.is_set, persistent=run.persistent, unconfined=run.unconfined,
        ).run()  # fmt: skip
    return guard.signalled


def _run_spawned(
    campaign: Campaign, run: _Run, deadline: float | None, aggregator: _Aggregator
) -> bool:
    # spawn, not fork: the coordinator may hold SQLite connections and threads
    context = multiprocessing.get_context("spawn")
    events = context.Queue()
    stop = context.Event()
    budget = (run.budget.seconds, run.budget.mutants)
    processes = [
        context.Process(
            target=worker_main,
            args=(
                campaign,
                str(run.root),
                k,
                run.jobs,
                budget,
                deadline,
                events,
                stop,
                os.getpid(),
                run.persistent,
                run.unconfined,
            ),
            name=f"sphinxfuzz-worker-{k}",
        )  # fmt: skip
        for k in range(run.jobs)
    ]
    with _StopOnSignal(stop) as guard:
        for process in processes:
            process.start()
        try:
            failures = _follow(processes, events, stop, aggregator, run.on_message)
        finally:
            stop.set()
            _join(processes)
    if failures:  # one line when every worker failed alike (a full disk, a broken index)
        distinct = list(dict.fromkeys(failures))
        raise CampaignError(distinct[0] if len(distinct) == 1 else "\n".join(distinct))
    return guard.signalled


def _follow(
    processes: list[Any], events: Any, stop: _Settable, aggregator: _Aggregator,
    on_message: Message,
) -> list[str]:  # fmt: skip
    """Pass the spawned workers' events on until every worker is done or gone; the failures
    (a failing worker stops the others)."""
    failures: list[str] = []
    running = set(range(len(processes)))
    while running:
        try:
            event: Event = events.get(timeout=0.5)
        except queue_module.Empty:
            for k in list(running):
                if not processes[k].is_alive():  # died without a word
                    running.discard(k)
                    failures.append(f"worker {k} exited with {processes[k].exitcode}")
            continue
        if event.kind == "stats":
            aggregator.update(event.worker, event.payload)  # type: ignore[arg-type]
        elif event.kind == "message":
            on_message(f"[worker {event.worker}] {event.payload}")
        elif event.kind == "done":
            running.discard(event.worker)
        elif event.kind == "failed":
            running.discard(event.worker)
            text = str(event.payload)  # a message, or a traceback of a defect
            failures.append(text if "\n" not in text else f"worker {event.worker} "
                            f"failed:\n{text}")  # fmt: skip
            stop.set()
    return failures


def _join(processes: list[Any]) -> None:
    """Wait for the stopped workers, a minute for all (they stop together); kill the rest."""
    ends = time.monotonic() + 60
    for process in processes:
        if process.pid is not None:
            process.join(timeout=max(0.0, ends - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join()
