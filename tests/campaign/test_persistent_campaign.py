"""Persistent solver processes in a campaign: a verdict is stored only when fresh
processes reproduce it."""

from __future__ import annotations

from pathlib import Path

import pytest
from campaign_helpers import FIXTURES, SEEDS, config_for

from sphinxfuzz.bugs import Store
from sphinxfuzz.campaign import Budget, run_campaign

STANDIN = str(FIXTURES / "z3_persistent_standin.py")


def _run(tmp_path: Path, solvers: str, seeds: list[Path]) -> tuple[Store, list[str]]:
    messages: list[str] = []
    root = tmp_path / "campaign"
    config = config_for(seeds, solvers, per_seed=3)
    run_campaign(config, root, Budget(), on_message=messages.append)
    return Store(root), messages


def test_a_crash_only_leftover_state_causes_is_not_stored(tmp_path: Path) -> None:
    store, messages = _run(tmp_path, f"z3;{STANDIN} --glitch", [SEEDS / "plain.smt2"])
    with store:
        stats = store.total_stats()
        bugs = store.bugs()
    assert stats.mutants == 3
    # a new process first answers an empty script (`PersistentSolver._ready`), so every
    # script it serves is at least its second, which crashes the stand-in: each mutant
    # crashes in its process, and a fresh process never crashes
    assert stats.fresh_confirmations == 3 and stats.fresh_unconfirmed == 3
    assert bugs == []
    assert any("not reproduced in fresh processes" in m for m in messages)


def test_a_real_crash_in_a_persistent_process_is_confirmed_and_stored(tmp_path: Path) -> None:
    store, _messages = _run(tmp_path, f"z3;{STANDIN}", [SEEDS / "crash.smt2"])
    with store:
        stats = store.total_stats()
        bugs = store.bugs()
    # the first hit is confirmed fresh; the next two carry a stored signature: counted only
    assert stats.fresh_confirmations == 1 and stats.fresh_unconfirmed == 0
    assert [b.kind for b in bugs] == ["crash"] and bugs[0].count == 3
    assert stats.duplicates == 2
    stderr = next(bugs[0].folder.glob("*.stderr*"), None)
    assert stderr is not None


def test_a_crash_one_fresh_process_of_two_shows_is_not_stored(tmp_path: Path) -> None:
    # the stand-in crashes in its kept process and in every other fresh one: each mutant's
    # first fresh run crashes, the second does not, so no report names an unreliable command
    counter = tmp_path / "fresh-runs"
    store, messages = _run(tmp_path, f"z3;{STANDIN} --flaky {counter}", [SEEDS / "crash.smt2"])
    with store:
        stats = store.total_stats()
        assert store.bugs() == []
    assert stats.fresh_confirmations == 3 and stats.fresh_unconfirmed == 3
    assert int(counter.read_text()) == 6
    assert any("crashed one fresh process of two" in m for m in messages)


def test_fresh_processes_on_request(tmp_path: Path) -> None:
    messages: list[str] = []
    root = tmp_path / "campaign"
    config = config_for([SEEDS / "plain.smt2"], f"z3;{STANDIN} --glitch", per_seed=3)
    run_campaign(config, root, Budget(), on_message=messages.append, persistent=0)
    with Store(root) as store:
        stats = store.total_stats()
        assert store.bugs() == []
    assert stats.mutants == 3 and stats.fresh_confirmations == 0
    # a count of scripts, not a switch: True would have served one script a process (the
    # peers bench passed it so, and compared a process per call with opfuzz for two sessions)
    with pytest.raises(TypeError, match="scripts a process serves"):
        run_campaign(config, tmp_path / "other", Budget(), persistent=True)
