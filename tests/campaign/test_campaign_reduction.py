"""The campaign reduces its own stored bugs after the fuzzing (`campaign.reduction`): once,
kept only when still the same bug, with the reason recorded when not, off when asked, and a
stop in the middle leaves no ddSMT and no scratch folder behind."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from campaign_helpers import CRASHER, GENERATORS, SEEDS, TESTS, config_for
from typer.testing import CliRunner

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.record import (
    Known,
    NotReduced,
    load_not_reduced,
    write_known,
    write_not_reduced,
)
from sphinxfuzz.bugs.reduce import formula_size
from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.campaign.reduction import waiting
from sphinxfuzz.campaign.status_file import read_status
from sphinxfuzz.cli import app
from sphinxfuzz.oracle.same_bug import CheckSpec, check

# a mutant of crash.smt2 crashes the stand-in in one place: one bug, one reduction
SOLVERS = f"z3;{CRASHER}"
PER_BUG = 8.0  # ddSMT's best within it is kept: enough to cut a mutant down by half


def only_bug(root: Path) -> Path:
    (folder,) = (root / "bugs").iterdir()
    return folder


def test_off_leaves_bugs_and_a_refused_one_says_why(tmp_path: Path) -> None:
    root = tmp_path / "c"
    config = config_for([SEEDS / "crash.smt2"], SOLVERS, per_seed=2)  # reduce off
    stats = run_campaign(config, root, Budget())
    folder = only_bug(root)
    assert stats.bugs["crash"] == 1 and stats.reduced == stats.not_reduced == 0
    assert not (folder / "reduce.json").exists() and load_not_reduced(folder) is None
    # a resume may turn it on; this bug's trigger stops firing as its reduction starts
    mutant = folder / "mutant.smt2"

    def quiet_it(line: str) -> None:
        if line.startswith("reducing 1 of 1"):
            mutant.write_text(mutant.read_text().replace("crash_marker", "quiet_marker"))

    on = replace(config, reduce=True, reduce_time=PER_BUG)
    resumed = run_campaign(on, root, Budget(), resume=True, on_message=quiet_it)
    refused = load_not_reduced(folder)
    assert resumed.not_reduced == 1 and resumed.reduced == 0
    assert refused is not None and "no longer shows the bug" in refused.why
    assert not (folder / "reduce.json").exists() and not (folder / "reduced.smt2").exists()
    # the status document (checked against its schema) counts it, the fuzzing's rates kept
    status = read_status(root)["reduction"]
    assert status["findings"] == status["not_reduced"] == 1 and status["current"] is None
    # bugs list says why, in its table and its JSON
    listed = CliRunner().invoke(app, ["bugs", "list", "-c", str(root)])
    assert "no: the stored formula no longer shows the bug" in listed.output, listed.output
    document = CliRunner().invoke(app, ["bugs", "list", "-c", str(root), "--json"])
    (row,) = json.loads(document.output)["bugs"]
    assert row["not_reduced"] == refused.why and row["reduced"] is False
    # the refusal is recorded: a later run does not try it again
    later = run_campaign(on, root, Budget(), resume=True)
    assert later.not_reduced == later.reduced == 0


def test_findings_known_already_wait_for_the_others(
    crash_campaign: tuple[Path, list[str]], tmp_path: Path
) -> None:
    root = tmp_path / "c"
    shutil.copytree(crash_campaign[0], root)
    with Store(root) as store:
        bugs = [row.folder for row in store.bugs()]
        findings = [root / "seed-findings" / row[0] for row in store.seed_findings()]
        first, *others = bugs
        assert others and findings and waiting(store, root) == [*bugs, *findings]
        write_known(first, Known("z3#1", "https://github.com/Z3Prover/z3/issues/1", "test"))
        assert waiting(store, root) == [*others, *findings, first]
        write_not_reduced(others[0], NotReduced(others[0].name, "a reason", 1.0))
        assert waiting(store, root) == [*others[1:], *findings, first]


def _running(needle: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if needle.encode() in command:
                found.append(int(entry.name))
    return found


def test_a_stop_during_reduction_leaves_nothing_and_a_resume_reduces(tmp_path: Path) -> None:
    # a short TMPDIR, as /tmp is: ddSMT's own folders then go into the reduction's scratch
    # folder (`bugs.reduce._run_ddsmt`), whose removal is what is tested here
    scratch = Path(tempfile.mkdtemp(prefix="sfr-", dir="/tmp"))
    try:
        _stop_and_resume(tmp_path / "c", scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _stop_and_resume(root: Path, scratch: Path) -> None:
    fuzz = [sys.executable, "-c", "from sphinxfuzz.cli import main; main()", "fuzz"]
    env = {**os.environ, "PYTHONPATH": str(TESTS.parent), "TMPDIR": str(scratch)}
    first = subprocess.Popen(
        [*fuzz, "--seeds", str(SEEDS / "crash.smt2"), "--solvers", SOLVERS,
         "--generators", str(GENERATORS), "--mutants-per-seed", "2", "--fast-seed-factor", "1",
         "--timeout-factor", "0", "--options", "none", "--seed", "1", "--reduce-time", "5m",
         "--log-every", "0", "-c", str(root)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip
    assert first.stdout is not None
    lines = []
    for line in first.stdout:
        lines.append(line)
        if "reducing 1 of 1" in line:
            break
    deadline = time.monotonic() + 60
    while not _running(f"{scratch}/sphinxfuzz-reduce-") and time.monotonic() < deadline:
        time.sleep(0.2)  # until ddSMT runs
    assert _running(f"{scratch}/sphinxfuzz-reduce-"), "".join(lines)
    time.sleep(1.0)  # ddSMT's checks under way
    first.send_signal(signal.SIGINT)
    rest, _ = first.communicate(timeout=30)
    output = "".join(lines) + rest
    assert first.returncode == 0, output
    assert "reduction stopped: 1 bug(s) left for the next run" in output
    time.sleep(1.0)
    assert _running(str(scratch)) == [] and list(scratch.iterdir()) == []
    folder = only_bug(root)
    assert not (folder / "reduce.json").exists() and load_not_reduced(folder) is None
    # a resume (a run setting may change) reduces it, keeping it the same bug
    resume = [*fuzz, "--resume", "-c", str(root), "--reduce-time", f"{PER_BUG:g}s"]
    resumed = subprocess.run(resume, capture_output=True, text=True, env=env, timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    done = read_status(root)["reduction"]
    meta = json.loads((folder / "reduce.json").read_text())
    reduced = (folder / "reduced.smt2").read_text()
    original = (folder / "mutant.smt2").read_text()
    assert done["reduced"] == 1 and done["not_reduced"] == 0 and done["seconds"] > 0
    assert formula_size(reduced).bytes < formula_size(original).bytes / 2
    verdict = json.loads((folder / "verdict.json").read_text())["verdict"]
    found, _ = check(CheckSpec.from_json(meta["check"]), reduced)
    assert found is not None and found.signature == verdict["signature"]
    assert meta["reference"]["solver"] == "z3" and meta["reference"]["accepted"] is True
    # the next run finds it reduced: not again
    written = (folder / "reduce.json").stat().st_mtime_ns
    again = subprocess.run(resume, capture_output=True, text=True, env=env, timeout=300)
    assert again.returncode == 0 and "reducing" not in again.stdout, again.stdout
    assert read_status(root)["reduction"]["findings"] == 0
    assert (folder / "reduce.json").stat().st_mtime_ns == written
