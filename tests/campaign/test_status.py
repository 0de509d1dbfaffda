"""A campaign's live status: `status.json` rewritten while it runs, `sphinxfuzz status`
reading it, a killed campaign told apart from a running one, and the schema the document
follows (sphinxfuzz/schemas/status.schema.json, described in docs/json-output.md)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
from campaign_helpers import SEEDS

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.stats import Stats
from sphinxfuzz.campaign.status_file import STATUS_PERIOD, StatusWriter

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "sphinxfuzz" / "schemas" / "status.schema.json").read_text())


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


def _status(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sphinxfuzz", "status", "-c", str(root), *extra],
                          capture_output=True, text=True, env=_env(), timeout=60)  # fmt: skip


def _status_json(root: Path) -> dict[str, Any]:
    done = _status(root, "--json")
    assert done.returncode == 0, done.stderr
    document: dict[str, Any] = json.loads(done.stdout)
    jsonschema.validate(document, SCHEMA)
    return document


def test_a_running_campaign_shows_moving_figures_and_a_killed_one_is_not_running(
    tmp_path: Path,
) -> None:
    root = tmp_path / "camp"
    fuzz = subprocess.Popen(
        [sys.executable, "-m", "sphinxfuzz", "fuzz", "--time", "5m", "--log-every", "0.5",
         "--seeds", str(SEEDS), "--solvers", "z3", "--seed", "4", "-c", str(root), "--quiet"],
        env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not (root / "status.json").is_file():
            assert fuzz.poll() is None, fuzz.stderr.read() if fuzz.stderr else ""
            assert time.monotonic() < deadline, "no status.json after 120 s"
            time.sleep(0.2)
        first = _status_json(root)
        assert first["running"] and first["pid"] == fuzz.pid and first["source"] == "status.json"
        later = first
        while later["mutants"] <= first["mutants"] and time.monotonic() < deadline:
            time.sleep(1)
            later = _status_json(root)
        assert later["running"] and later["elapsed"] > first["elapsed"]
        assert later["updated"] > first["updated"] and later["mutants"] > first["mutants"]
        assert later["solver_calls"] > first["solver_calls"]
        assert later["seeds"]["total"] == len(list(SEEDS.glob("*.smt2")))
        shown = _status(root)
        assert shown.returncode == 0 and ": running, pid " in shown.stdout, shown.stdout
    finally:
        fuzz.send_signal(signal.SIGKILL)
        fuzz.wait()
    # the file still says running (nothing rewrote it); the lock says otherwise
    assert json.loads((root / "status.json").read_text())["running"] is True
    dead = _status_json(root)
    assert not dead["running"] and dead["source"] == "store" and dead["pid"] == fuzz.pid
    # a kill between per-minute rows: the last status's counters, not the older row's
    last = json.loads((root / "status.json").read_text())
    assert dead["mutants"] >= last["mutants"] >= later["mutants"] > 0
    shown = _status(root)
    assert shown.returncode == 0 and f"campaign {root}: not running" in shown.stdout, shown.stdout
    watched = _status(root, "--watch", "--every", "0.5")  # ends at once: nothing runs
    assert watched.returncode == 0 and "not running" in watched.stdout


def test_a_finished_campaign_reports_its_stored_bugs(
    crash_campaign: tuple[Path, list[str]],
) -> None:
    root = crash_campaign[0]
    written = json.loads((root / "status.json").read_text())
    jsonschema.validate(written, SCHEMA)
    assert written["running"] is False  # the last write of a run that ended
    document = _status_json(root)
    with Store(root) as store:
        kinds = [str(row.kind) for row in store.bugs()]
    assert kinds and document["bugs"]["crash"] == kinds.count("crash")
    assert document["mutants"] == written["mutants"] > 0
    assert 0 < document["accepted_share"] <= 1 and document["strategies"]["sphinx"]["cases"] > 0


def test_the_schema_is_documented_field_by_field() -> None:
    text = (REPO / "docs" / "json-output.md").read_text(encoding="utf-8")
    section = text.split("## `sphinxfuzz status --json`", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`([a-z_-]+)`", section))
    fields = set(SCHEMA["properties"])
    for nested in ("budget", "seeds"):
        fields |= set(SCHEMA["properties"][nested]["properties"])
    fields |= set(SCHEMA["properties"]["strategies"]["additionalProperties"]["properties"])
    assert fields - named == set()


def _on_clock(tmp_path: Path, stats: Stats, now: list[float], every: float) -> StatusWriter:
    """A status writer of one job over `stats`, its clock `now[0]` (moved by the test)."""
    return StatusWriter(
        tmp_path, lambda: stats, every=every, seed_count=1, jobs=1, budget=(None, None),
        clock=lambda: now[0],
    )  # fmt: skip


def test_the_status_file_follows_the_counters_within_a_second_whatever_the_log_period(
    tmp_path: Path,
) -> None:
    # the writer on an injected clock: `status --watch` reads counters at most a second old
    # even when the log is printed every minute, and an idle campaign's file is not rewritten
    # each second for its clock alone
    stats, now = Stats(), [0.0]
    writer = _on_clock(tmp_path, stats, now, every=60.0)
    status = tmp_path / "status.json"
    assert writer.period == STATUS_PERIOD == 1.0
    assert writer.write(unless_same=True) and json.loads(status.read_text())["mutants"] == 0
    now[0] += 1.0
    stats.mutants = 3
    assert writer.write(unless_same=True)  # a tick after the change
    assert json.loads(status.read_text())["mutants"] == 3
    assert json.loads(status.read_text())["elapsed"] == 1.0
    now[0] += 30.0
    assert not writer.write(unless_same=True)  # nothing new
    now[0] += 30.0
    assert writer.write(unless_same=True)  # the clock's figures, at the log's pace
    assert json.loads(status.read_text())["elapsed"] == 61.0
    # a period shorter than a second stays
    short = StatusWriter(tmp_path, Stats, every=0.5, seed_count=1, jobs=1, budget=(None, None))
    assert short.period == 0.5


def test_a_log_period_of_0_still_shows_the_counters_move(tmp_path: Path) -> None:
    # `--log-every 0` (no statistics line) once left status.json as written at the start, and
    # `status --watch` showed a campaign that never moved: now it follows every change, on
    # the writer's own thread, and only an unchanged document is never rewritten
    stats, now = Stats(), [0.0]
    writer = _on_clock(tmp_path, stats, now, every=0)
    status = tmp_path / "status.json"
    assert writer.period == STATUS_PERIOD
    with writer:
        assert json.loads(status.read_text())["mutants"] == 0
        stats.mutants = 5
        deadline = time.monotonic() + 10 * STATUS_PERIOD
        while json.loads(status.read_text())["mutants"] != 5:
            assert time.monotonic() < deadline, "status.json did not follow the counters"
            time.sleep(0.1)
        now[0] += 3600.0
        assert not writer.write(unless_same=True)  # the same counters an hour on: left
    assert json.loads(status.read_text())["running"] is False
