"""Campaign workers as Ray actors (`run_campaign(..., ray_address=...)`, `fuzz --ray`).

The only module that imports Ray, and only when called: the default install needs no Ray.
Actor k of N takes seed positions k, k+N, ... as `--jobs` worker k does, so a fixed campaign
seed gives the same mutants. Each actor keeps its own persistent solver processes on its
node and resolves the solver specs there; a node where a spec does not resolve (or fails
its smoke test) says so and is left out. An actor writes nothing: its findings are queued
(`sink.Forwarding`) and the coordinator drains them every `POLL` seconds into the one store,
with the actor's counters for the live line. An actor that dies is replaced by a new one
for the same positions: what it had not marked done is redone (a bug stored already is
recognised by its hit and stored once), what it had not handed over yet is made again.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from sphinxfuzz.bugs.store import Store
from sphinxfuzz.campaign.config import Budget, Campaign
from sphinxfuzz.campaign.config_text import read_solvers
from sphinxfuzz.campaign.sink import Forwarding, Snapshot, Write, apply
from sphinxfuzz.campaign.targets import CampaignError
from sphinxfuzz.campaign.worker import Event, Worker
from sphinxfuzz.errors import SphinxfuzzError
from sphinxfuzz.solvers import reaper, scratch
from sphinxfuzz.solvers.installs import install_releases
from sphinxfuzz.solvers.smoke import smoke_test

POLL = 0.5  # seconds between the coordinator's drains
MAX_PLACEMENTS = 3  # tries to place one worker on a node that resolves the solvers


@dataclass(frozen=True)
class WorkerPlan:
    """What one actor runs: worker `index` of `jobs`, with its share of the budget."""

    index: int
    jobs: int
    budget: tuple[float | None, int | None]
    deadline: float | None
    persistent: int  # scripts per solver process (`SolverCalls`); 0: fresh processes
    unconfined: bool
    made: int = 0  # mutants an actor this one replaces made (counted against the budget)


class FuzzActor:
    """One campaign worker in a Ray actor (threaded: `take` and `stop` answer while `run`
    runs)."""

    def __init__(self, campaign: Campaign, plan: WorkerPlan, snapshot: Snapshot) -> None:
        self.campaign = campaign
        self.plan = plan
        self.sink = Forwarding(snapshot)
        self.stopped = threading.Event()
        self.events: list[Event] = []
        self.lock = threading.Lock()

    def node(self) -> str:
        import ray

        return str(ray.get_runtime_context().get_node_id())

    def prepare(self) -> str | None:
        """Resolve the solver specs (and their option tables) on this node; why they cannot
        be used here, or None."""
        config = self.campaign.config
        try:
            install_releases(config.solvers, say=lambda line: None)
            specs = read_solvers(config.solvers)
        except (SphinxfuzzError, OSError) as exc:
            return str(exc)
        for spec in specs:
            problem = smoke_test(spec, timeout=max(config.timeout, 5.0), memory_mb=config.memory_mb)
            if problem is not None:
                return f"solver {spec.text!r} fails on a trivial script: {problem}"
        # the coordinator's option tables are of its command lines: a node that resolves
        # others reads or builds its own
        if tuple(specs) != self.campaign.specs:
            fresh = replace(self.campaign, specs=tuple(specs), option_tables=None)
            try:
                self.campaign = fresh.with_option_tables()
            except (SphinxfuzzError, OSError) as exc:
                return f"no option tables for its solvers: {exc}"
        return None

    def _report(self, event: Event) -> None:
        with self.lock:
            if event.kind == "stats":  # only the latest counters matter
                self.events = [e for e in self.events if e.kind != "stats"]
            self.events.append(event)

    def run(self) -> None:
        plan = self.plan
        # the campaign folder is the coordinator's; `rejected/` examples stay on the node
        folder = scratch.make("actor")
        worker = Worker(
            self.campaign, folder, worker=plan.index, jobs=plan.jobs,
            budget=Budget(*plan.budget), deadline=plan.deadline, report=self._report,
            stop_requested=self.stopped.is_set, persistent=plan.persistent,
            unconfined=plan.unconfined, sink=lambda: self.sink,
        )  # fmt: skip
        if worker.mutant_limit is not None:
            worker.mutant_limit = max(0, worker.mutant_limit - plan.made)
        try:
            worker.run()
        finally:
            scratch.remove(folder)

    def take(self) -> tuple[list[Write], list[Event]]:
        with self.lock:  # events after writes: a message may name a bug folder
            events, self.events = self.events, []
            return self.sink.take(), events

    def stop(self) -> None:
        self.stopped.set()
        reaper.abort_all()


@dataclass
class _Slot:
    """The actor currently running worker `index`, and what it has made so far."""

    plan: WorkerPlan
    actor: Any
    run: Any  # the ObjectRef of its `run`
    key: int  # its counters' key in the aggregator (a new one per replacement)
    mutants: int = 0


Update = Callable[[int, dict[str, object]], None]
Say = Callable[[str], None]


class RayCoordinator:
    """Starts the actors, drains them into the store, replaces the ones that die."""

    def __init__(
        self,
        campaign: Campaign,
        store: Store,
        plans: list[WorkerPlan],
        update: Update,
        say: Say,
        stop: threading.Event,
    ) -> None:
        import ray

        self.ray = ray
        self.remote = ray.remote(FuzzActor)
        self.campaign_ref = ray.put(campaign)
        self.store = store
        self.update = update
        self.say = say
        self.stop = stop
        self.bad_nodes: set[str] = set()
        self.next_key = len(plans)
        self.slots = [self._start(plan, plan.index) for plan in plans]

    def _start(self, plan: WorkerPlan, key: int) -> _Slot:
        for _ in range(MAX_PLACEMENTS):
            actor = self._new_actor(plan)
            node, problem = self.ray.get([actor.node.remote(), actor.prepare.remote()])
            if problem is None:
                return _Slot(plan, actor, actor.run.remote(), key)
            self.say(f"node {node} left out: {problem}")
            self.bad_nodes.add(node)
            self.ray.kill(actor)
        raise CampaignError(
            f"worker {plan.index}: no node of the cluster could run the solvers "
            f"(left out: {', '.join(sorted(self.bad_nodes))})",
            setting="solvers",
        )

    def _new_actor(self, plan: WorkerPlan) -> Any:
        snapshot = Snapshot.of(self.store)
        good = [
            n["NodeID"]
            for n in self.ray.nodes()
            if n["Alive"] and n["NodeID"] not in self.bad_nodes
        ]
        options: dict[str, Any] = {"num_cpus": 1, "max_concurrency": 3, "max_restarts": 0}
        if self.bad_nodes and good:
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            node = good[plan.index % len(good)]
            options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node, soft=False)
        elif self.bad_nodes:
            raise CampaignError("no node of the cluster can run the solvers", setting="solvers")
        return self.remote.options(**options).remote(self.campaign_ref, plan, snapshot)

    def _drain(self, slot: _Slot) -> None:
        writes, events = self.ray.get(slot.actor.take.remote())
        apply(self.store, writes)
        for event in events:
            if event.kind == "stats":
                payload = cast(dict[str, object], event.payload)
                slot.mutants = int(cast(int, payload["mutants"]))
                self.update(slot.key, payload)
            elif event.kind == "message":
                self.say(f"[worker {slot.plan.index}] {event.payload}")

    def _replace(self, k: int, why: str) -> None:
        slot = self.slots[k]
        self.say(f"[worker {slot.plan.index}] lost ({why.splitlines()[0][:200]}); replaced")
        plan = replace(slot.plan, made=slot.plan.made + slot.mutants)
        self.slots[k] = self._start(plan, self.next_key)
        self.next_key += 1

    def run(self) -> None:
        errors = self.ray.exceptions
        running = set(range(len(self.slots)))
        stopping = False
        while running:
            refs = {self.slots[k].run: k for k in running}
            ready, _ = self.ray.wait(list(refs), timeout=POLL, num_returns=len(refs))
            if self.stop.is_set() and not stopping:
                stopping = True
                for k in running:
                    self.slots[k].actor.stop.remote()
            finished = {refs[r] for r in ready}
            for k in sorted(running):
                try:
                    self._drain(self.slots[k])
                    if k in finished:
                        self.ray.get(self.slots[k].run)
                        running.discard(k)
                        self.ray.kill(self.slots[k].actor)
                except (errors.RayActorError, errors.ActorUnavailableError) as exc:
                    if stopping:
                        running.discard(k)
                    else:
                        self._replace(k, str(exc))
                except errors.RayTaskError as exc:
                    cause = exc.cause if isinstance(exc.cause, CampaignError) else None
                    raise CampaignError(f"worker {k} failed:\n{cause or exc}") from None


def run_on_ray(
    address: str,
    campaign: Campaign,
    store: Store,
    plans: list[WorkerPlan],
    update: Update,
    say: Say,
    stop: threading.Event,
) -> None:
    """Connect to the cluster at `address` ("local": start one here with a CPU per
    worker), run the workers `plans` there until they are all done, then disconnect."""
    try:
        import ray
    except ImportError:
        raise CampaignError(
            "a campaign on Ray needs the ray package (pip install 'sphinxfuzz[ray]')",
            setting="ray",
        ) from None
    local = address == "local"
    started = time.monotonic()
    try:
        ray.init(
            address=None if local else address,
            num_cpus=len(plans) if local else None,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise CampaignError(f"Ray cluster {address!r}: {exc}", setting="ray") from None
    say(f"ray: connected in {time.monotonic() - started:.1f} s, {len(plans)} actor(s)")
    session = _session_dir(ray) if local else None
    try:
        RayCoordinator(campaign, store, plans, update, say, stop).run()
    finally:
        ray.shutdown()
        if session is not None:  # the cluster was ours: so are its logs and sockets
            shutil.rmtree(session, ignore_errors=True)


def _session_dir(ray: Any) -> Path | None:
    """The session folder of the local cluster this process started (Ray writes it under
    its temporary folder and leaves it behind after shutdown)."""
    try:
        node = ray._private.worker._global_node
        return Path(node.get_session_dir_path()) if node is not None else None
    except AttributeError:
        return None
