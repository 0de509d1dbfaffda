"""Starting, resuming and coordinating a campaign (one worker in-process, or N spawned).

Workers write bugs, progress and the mutant log to the shared store themselves (SQLite WAL):
a bug is on disk the moment it is found, whatever happens to the coordinator. Counters go to
the coordinator over a queue instead, because it alone shows the live line and writes one
statistics row per minute; a coordinator killed mid-minute loses at most that minute of
counters, never a bug.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue as queue_module
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
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
    campaign with its targets' option tables (`Campaign.with_option_tables`: built here
    once, before any worker; `say` hears of a table built, once per release, seconds each);
    a `Campaign` given is taken as resolved and checked already, and only gets its tables."""
    if isinstance(config, Campaign):
        return config.with_option_tables(say)
    campaign = config.resolve()
    try:
        probe_confinement(unconfined=unconfined)
    except ConfinementError as exc:
        raise CampaignError(str(exc), setting="unconfined") from None
    campaign = campaign.with_option_tables(say)
    options = campaign.position_options()
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
class RunSettings:
    """This run's settings beside the campaign's config: `run_campaign`'s arguments."""

    root: Path
    budget: Budget
    jobs: int
    resume: bool
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
    stay; within a second of their change otherwise (`campaign.status_file`; 0: on a change
    alone). The story is `CampaignRun.run`'s."""
    if isinstance(persistent, bool):  # True would mean one script a process
        raise TypeError(f"persistent: scripts a process serves (0: fresh), not {persistent}")
    settings = RunSettings(root, budget, jobs, resume, persistent, unconfined, ray,
                           status_every, on_progress, on_message)  # fmt: skip
    return CampaignRun(config, settings).run()


class CampaignRun:
    """One run of a campaign, after Hypothesis's `ConjectureRunner`: it holds the config and
    this run's settings, and once the folder is open (`_prepared`) the resolved campaign,
    the store, the deadline, the counters' aggregator and the status writer; each phase of
    `run` is a method that reads them."""

    campaign: Campaign  # resolved and checked (`_validate`)
    # while the folder is open (`_prepared`)
    store: Store
    aggregator: _Aggregator
    deadline: float | None
    status: StatusWriter

    def __init__(self, config: CampaignConfig | Campaign, settings: RunSettings) -> None:
        self.config = config
        self.settings = settings

    def run(self) -> Stats:
        """Validate: the settings, the folder and the config checked before anything is
        written, the config read once. Prepare: the folder locked and opened, the run
        started. Fuzz: every worker probes the theories once, then checks each of its
        positions' seed and fuzzes it, until its budget or the seeds end
        (`worker.Worker.run`). Summary: the counters summed with why the fuzzing ended, in
        the store and `status.json`. Reduce: the stored findings (unless stopped), their
        counts added to the summary."""
        self._validate()
        with self._prepared():
            reason = self._fuzz()
            stats = self._summary(reason)
            if self.campaign.config.reduce and reason is not ExitReason.STOPPED:
                self._reduce(stats)  # a stop leaves the findings as they are
            return stats

    # -- the phases ------------------------------------------------------------------------
    def _validate(self) -> None:
        """The settings and the folder checked, then the config resolved and checked once
        (`validate`), before anything is written."""
        settings = self.settings
        check_jobs(settings.jobs, settings.ray)
        check_folder(settings.root, resume=settings.resume)
        self.campaign = validate(
            self.config, unconfined=settings.unconfined, say=settings.on_message
        )

    @contextlib.contextmanager
    def _prepared(self) -> Iterator[None]:
        """The folder locked and its store open (created, or checked against a resumed
        campaign's config); this run's statistics, deadline and status document started."""
        settings, campaign = self.settings, self.campaign
        root, budget = settings.root, settings.budget
        with (
            CampaignLock(root, create=not settings.resume),
            prepare(root, campaign.config, resume=settings.resume) as self.store,
        ):
            self.aggregator = _Aggregator(
                self.store, self.store.start_run(settings.jobs), settings.on_progress,
                time.monotonic(),
            )  # fmt: skip
            self.deadline = None if budget.seconds is None else time.time() + budget.seconds
            self.status = StatusWriter(
                root, self.aggregator.total, every=settings.status_every,
                seed_count=len(campaign.seed_files), jobs=settings.jobs,
                budget=(budget.seconds, budget.mutants), ray=settings.ray,
                options_of=campaign.config.solvers if campaign.config.sets_options else None,
            )  # fmt: skip
            with self.status:
                yield

    def _fuzz(self) -> ExitReason:
        """Run the workers (on Ray, in this process, or spawned) until they all end; why."""
        if self.settings.ray is not None:
            signalled = self._run_on_ray()
        elif self.settings.jobs == 1:
            signalled = self._run_inline()
        else:
            signalled = self._run_spawned()
        return ExitReason.STOPPED if signalled else self.aggregator.exit_reason()

    def _summary(self, reason: ExitReason) -> Stats:
        """The workers' counters summed, with `reason`, in the store and `status.json`."""
        stats = self.aggregator.flush(reason)
        self.status.ended(reason)
        return stats

    def _reduce(self, stats: Stats) -> None:
        """The campaign's reduction of its stored bugs (`campaign.reduction`), counted in
        `stats` (saved again) and shown in the status document; Ctrl-C or SIGTERM stops it
        as they stop the fuzzing."""
        halt, done = threading.Event(), Reductions()
        self.status.reducing(done.to_json)
        with _StopOnSignal(halt):
            reduce_stored(
                self.store, self.settings.root, per_bug=self.campaign.config.reduce_time,
                halt=halt, say=self.settings.on_message, done=done,
            )  # fmt: skip
        stats.reduced += done.reduced
        stats.not_reduced += done.not_reduced
        stats.reduce_seconds += done.seconds
        self.store.save_stats(self.aggregator.run, self.aggregator.minute, stats)

    # -- the three ways of running the workers; each returns whether a signal stopped them --
    def _run_on_ray(self) -> bool:
        from sphinxfuzz.campaign import cluster  # imports Ray: only for a campaign that asks

        settings = self.settings
        assert settings.ray is not None
        budget = (settings.budget.seconds, settings.budget.mutants)
        plans = [
            cluster.WorkerPlan(
                k, settings.jobs, budget, self.deadline, settings.persistent, settings.unconfined
            )
            for k in range(settings.jobs)
        ]
        stop = threading.Event()
        with _StopOnSignal(stop) as guard:
            cluster.run_on_ray(
                settings.ray, self.campaign, self.store, plans, self.aggregator.update,
                settings.on_message, stop,
            )  # fmt: skip
        return guard.signalled

    def _run_inline(self) -> bool:
        settings, stop = self.settings, threading.Event()

        def report(event: Event) -> None:
            if event.kind == "stats":
                self.aggregator.update(event.worker, event.payload)  # type: ignore[arg-type]
            elif event.kind == "message":
                settings.on_message(str(event.payload))

        with _StopOnSignal(stop) as guard:
            Worker(
                self.campaign, settings.root, budget=settings.budget, deadline=self.deadline,
                report=report, stop_requested=stop.is_set, persistent=settings.persistent,
                unconfined=settings.unconfined,
            ).run()  # fmt: skip
        return guard.signalled

    def _run_spawned(self) -> bool:
        # spawn, not fork: the coordinator may hold SQLite connections and threads
        settings = self.settings
        context = multiprocessing.get_context("spawn")
        events = context.Queue()
        stop = context.Event()
        budget = (settings.budget.seconds, settings.budget.mutants)
        processes = [
            context.Process(
                target=worker_main,
                args=(
                    self.campaign,
                    str(settings.root),
                    k,
                    settings.jobs,
                    budget,
                    self.deadline,
                    events,
                    stop,
                    os.getpid(),
                    settings.persistent,
                    settings.unconfined,
                ),
                name=f"sphinxfuzz-worker-{k}",
            )  # fmt: skip
            for k in range(settings.jobs)
        ]
        with _StopOnSignal(stop) as guard:
            for process in processes:
                process.start()
            try:
                failures = _follow(processes, events, stop, self.aggregator, settings.on_message)
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
