"""Crash identity (issue 25 item 3): two segfaults that print nothing are two bugs when
their stacks differ, and a few triggers per coarse signature are kept without a debugger."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from campaign_helpers import SEGFAULTER, SEGV_SEED, config_for

from sphinxfuzz.bugs import Store, load_record
from sphinxfuzz.bugs.dedup import COARSE_TRIGGERS
from sphinxfuzz.bugs.replay import replay
from sphinxfuzz.campaign import Budget, run_campaign


def _campaign(tmp_path: Path) -> list[Path]:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    for site in ("null_site", "other_site"):
        (seeds / f"{site}.smt2").write_text(SEGV_SEED.format(site=site))
    root = tmp_path / "c"
    run_campaign(config_for([seeds], f"z3;{SEGFAULTER}", seed=4, per_seed=2), root, Budget())
    with Store(root) as store:
        return [b.folder for b in store.bugs() if b.kind == "crash"]


@pytest.mark.skipif(shutil.which("gdb") is None, reason="needs gdb (apt-get install gdb)")
def test_two_silent_segfaults_are_two_bugs_by_their_stacks(tmp_path: Path) -> None:
    folders = _campaign(tmp_path)
    records = [load_record(f) for f in folders]
    # one bug per faulting place, though both were "killed by signal 11" before
    assert len(records) == 2, [r.verdict.signature for r in records]
    by_site = {
        "null_site" if "null_site" in r.formula() else "other_site": r.verdict for r in records
    }
    assert set(by_site) == {"null_site", "other_site"}
    # symbols where the interpreter has them, else module+offset (a stripped distribution build)
    null_site, other_site = by_site["null_site"].signature, by_site["other_site"].signature
    assert null_site.startswith("other: SIGSEGV in ") and other_site.startswith(
        "other: SIGSEGV in "
    )
    assert "string_at" in null_site or "_ctypes" in null_site
    assert "faulthandler" in other_site or "python3" in other_site
    for verdict in by_site.values():
        assert verdict.evidence["signal"] == "SIGSEGV" and verdict.evidence["backtrace"]
        assert "coarse" not in verdict.evidence
    # replay takes the stack again: the same signature, so the bug reproduces
    assert all(replay(folder).reproduced for folder in folders)


def test_without_a_debugger_a_coarse_signature_keeps_a_few_triggers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    z3 = shutil.which("z3")
    assert z3 is not None
    # a PATH with the interpreter and z3 but no gdb
    monkeypatch.setenv(
        "PATH", os.pathsep.join({os.path.dirname(sys.executable), os.path.dirname(z3)})
    )
    assert shutil.which("gdb") is None
    folders = _campaign(tmp_path)
    records = [load_record(f) for f in folders]
    assert 2 <= len(records) <= COARSE_TRIGGERS
    assert {r.verdict.signature for r in records} == {"other: killed by signal 11"}
    assert all(r.verdict.evidence.get("coarse") is True for r in records)
