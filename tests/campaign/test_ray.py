"""Campaigns on a Ray cluster started here: a head and a second node, one CPU each."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from campaign_helpers import CRASHER, SEEDS, config_for

from sphinxfuzz.bugs.store import Store
from sphinxfuzz.campaign import Budget, Stats, run_campaign
from sphinxfuzz.campaign.cluster import FuzzActor, WorkerPlan
from sphinxfuzz.campaign.coordinator import validate
from sphinxfuzz.campaign.sink import Snapshot
from sphinxfuzz.solvers import parse_specs
from sphinxfuzz.solvers.options.declared import Declared, Kind
from sphinxfuzz.solvers.options.table import build_table, load_table, save_table

cluster_utils = pytest.importorskip("ray.cluster_utils")  # the test extra installs Ray


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    nodes = cluster_utils.Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    nodes.add_node(num_cpus=1)
    nodes.wait_for_nodes()
    session = nodes.head_node.get_session_dir_path()
    try:
        yield str(nodes.address)
    finally:
        nodes.shutdown()
        shutil.rmtree(session, ignore_errors=True)  # tests leave nothing outside tmp_path


def _stored(root: Path) -> tuple[list[tuple[int, int, str]], list[str], list[str], set[int]]:
    with Store(root) as store:
        findings = [Path(f[1]).name + ":" + f[2] for f in store.seed_findings()]
        bugs = sorted(f"{b.id}:{b.count}" for b in store.bugs())
        return store.mutant_log(), bugs, findings, store.done_positions()


@pytest.fixture(scope="module")
def both(cluster: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same campaign with --jobs 2 and on the cluster with 2 actors."""
    base = tmp_path_factory.mktemp("ray")
    config = config_for([SEEDS], f"z3;{CRASHER}", seed=3, per_seed=3)
    run_campaign(config, base / "jobs", Budget(), jobs=2)
    run_campaign(config, base / "ray", Budget(), jobs=2, ray=cluster)
    return base / "jobs", base / "ray"


def test_ray_gives_the_mutants_of_two_jobs(both: tuple[Path, Path]) -> None:
    jobs, ray = (_stored(root) for root in both)
    assert len(jobs[0]) >= 4  # plain.smt2 and crash.smt2, up to 3 each
    assert ray[0] == jobs[0]  # position, number and sha256 of every mutant
    assert ray[1] == jobs[1] and ray[3] == jobs[3]


def test_a_seed_finding_is_stored_once(both: tuple[Path, Path]) -> None:
    _mutants, _bugs, findings, _done = _stored(both[1])
    assert findings == ["finding.smt2:crash"]
    assert [p.name for p in (both[1] / "seed-findings").iterdir()] != []
    assert len(list((both[1] / "seed-findings").iterdir())) == 1


def _actor_pids() -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, ValueError):
            continue
        # An actor's process. Not only `ray::FuzzActor.run`: the actor is threaded, and when
        # a `take` that ran beside `run` ends, Ray titles the process plain `ray::FuzzActor`
        # although `run` goes on (on a busy machine the test never saw the `.run` title).
        # An actor whose `run` ended has that title too, so the test kills them all.
        if cmdline.startswith(b"ray::FuzzActor"):
            pids.append(int(entry.name))
    return pids


def test_a_killed_actor_is_replaced_and_nothing_stored_is_lost(
    cluster: str, tmp_path: Path
) -> None:
    root = tmp_path / "c"
    config = config_for([SEEDS], f"z3;{CRASHER}", seed=5, per_seed=6)
    before: list[str] = []
    messages: list[str] = []

    def kill_one(stats: Stats, elapsed: float) -> None:
        if before or stats.mutants < 1:
            return
        pids = _actor_pids()
        if not pids:  # between two calls of the actors: try again at the next report
            return
        with Store(root) as store:
            before.extend(f"{b.id}" for b in store.bugs())
            before.append(f"done:{sorted(store.done_positions())}")
        for pid in pids:
            os.kill(pid, signal.SIGKILL)

    run_campaign(
        config, root, Budget(), jobs=2, ray=cluster, on_progress=kill_one,
        on_message=messages.append,
    )  # fmt: skip
    assert before, "the campaign ended before an actor could be killed"
    assert any("replaced" in m for m in messages), messages
    _mutants, bugs, findings, done = _stored(root)
    ids = {b.split(":")[0] for b in bugs}
    assert {b for b in before if not b.startswith("done:")} <= ids
    assert done == {0, 1, 2, 3}  # every position finished, the killed one's redone
    assert findings == ["finding.smt2:crash"]
    assert [b for b in bugs if "crash" in b]  # crash.smt2's mutants crash the stand-in


def test_the_coordinator_writes_the_status_of_a_ray_campaign(both: tuple[Path, Path]) -> None:
    from sphinxfuzz.campaign.status_file import read_status

    written = json.loads((both[1] / "status.json").read_text())
    assert written["ray"] is not None and written["jobs"] == 2 and written["running"] is False
    local = json.loads((both[0] / "status.json").read_text())
    assert written["mutants"] == local["mutants"] > 0  # the actors' counters reached it
    # and why each worker ended: no budget, one pass over the seeds
    assert written["exit_reason"] == local["exit_reason"] == "seeds"
    assert read_status(both[1])["source"] == "store"


def test_an_actor_keeps_the_carried_option_tables_only_where_its_node_runs_the_same_solvers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The campaign carries the coordinator's option tables to every actor; a node that
    resolves other command lines (z3 at another path) reads or builds its own instead."""
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    z3 = parse_specs("z3")[0]
    relevancy = Declared("smt.relevancy", Kind.ENUM, "2", ("0", "1", "2"))
    save_table(z3, build_table(z3, declared=[relevancy]))
    campaign = validate(config_for([SEEDS], "z3", options="random:1"))
    node_tables = {"z3": load_table(z3)}
    assert campaign.option_tables == node_tables
    # told apart from what the node's cache holds
    carried = {"z3": dataclasses.replace(node_tables["z3"], options=())}
    with Store(tmp_path / "c", create=True) as store:
        snapshot = Snapshot.of(store)
    plan = WorkerPlan(0, 1, (None, None), None, 0, False)
    here = FuzzActor(dataclasses.replace(campaign, option_tables=carried), plan, snapshot)
    assert here.prepare() is None
    assert here.campaign.option_tables is carried
    moved = dataclasses.replace(z3, argv=("/elsewhere/z3",))
    there = dataclasses.replace(campaign, specs=(moved,), option_tables=carried)
    actor = FuzzActor(there, plan, snapshot)
    assert actor.prepare() is None
    assert actor.campaign.specs == (z3,) and actor.campaign.option_tables == node_tables
