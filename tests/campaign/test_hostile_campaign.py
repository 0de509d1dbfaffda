"""A campaign that no solver, seed or generator can hang or mislead (issue 14)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from campaign_helpers import SEEDS, TESTS, config_for

from sphinxfuzz.bugs import Store
from sphinxfuzz.campaign import Budget, CampaignError, run_campaign
from sphinxfuzz.campaign.lock import CampaignLock
from sphinxfuzz.solvers.reaper import running as sleeping

HOSTILE = TESTS / "fixtures" / "hostile" / "solvers"
HANG = str(HOSTILE / "hang_on_assert.sh")
PLAIN = SEEDS / "plain.smt2"


def test_a_mistyped_solver_option_stops_the_campaign_before_any_seed(tmp_path: Path) -> None:
    config = config_for([PLAIN], "z3 modelvalidate=true;z3")
    with pytest.raises(CampaignError) as info:
        run_campaign(config, tmp_path / "c", Budget(mutants=5))
    message = str(info.value)
    assert "solver 'z3 modelvalidate=true' fails on a trivial script" in message
    assert "unknown parameter 'modelvalidate'" in message
    assert not (tmp_path / "c").exists()  # nothing ran, nothing stored


def test_a_campaign_without_a_working_generator_stops(tmp_path: Path) -> None:
    folder = tmp_path / "generators" / "Ints"
    folder.mkdir(parents=True)
    (folder / "generator.py").write_text(
        'THEORY = "Ints"\nSOLVERS = ("z3", "cvc5")\n\n\ndef generate(rng):\n'
        '    raise ValueError("always")\n'
    )
    config = replace(config_for([SEEDS], "z3"), generators=str(tmp_path / "generators"))
    started = time.monotonic()
    with pytest.raises(CampaignError, match="no working generator: the last 50 generator calls"):
        run_campaign(config, tmp_path / "c", Budget(seconds=120))
    assert time.monotonic() - started < 60


def test_a_second_process_on_a_live_campaign_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "c"
    config = config_for([PLAIN], "z3", per_seed=1)
    run_campaign(config, root, Budget())
    with CampaignLock(root, create=False):  # as if another process were running it
        with pytest.raises(CampaignError, match=r"another sphinxfuzz process \(pid \d+\)"):
            run_campaign(config, root, Budget(mutants=1), resume=True)
    run_campaign(config, root, Budget(mutants=1), resume=True)  # released: fine again


def test_seeds_over_the_size_limit_are_skipped_with_a_message(tmp_path: Path) -> None:
    big = tmp_path / "big.smt2"
    big.write_text("(declare-const x Int)\n" + "(assert (> x 0))\n" * 2000)
    messages: list[str] = []
    config = replace(config_for([PLAIN, big], "z3", per_seed=1), max_seed_bytes=10_000)
    stats = run_campaign(config, tmp_path / "c", Budget(), on_message=messages.append)
    assert stats.seeds_malformed == 1 and stats.seeds_used == 1
    assert any("over the 10,000-byte limit" in m and "big.smt2" in m for m in messages)


def test_time_limit_holds_whatever_the_solver_does(tmp_path: Path) -> None:
    config = config_for([PLAIN], f"z3;{HANG}", timeout=60)
    started = time.monotonic()
    run_campaign(config, tmp_path / "c", Budget(seconds=3), persistent=0)
    assert time.monotonic() - started < 10
    assert sleeping("sleep 787") == [] and sleeping("sleep 788") == []


def _hanging_under(ancestor: int) -> bool:
    """Whether a hanging solver (`sleep 788`) descends from process `ancestor`."""
    for pid in sleeping("sleep 788"):
        while pid > 1 and pid != ancestor:
            try:  # the parent's pid: the field after the state, after the command's ")"
                pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                break
        if pid == ancestor:
            return True
    return False


@pytest.mark.parametrize("jobs", [1, 2])
def test_sigterm_stops_the_campaign_within_seconds(tmp_path: Path, jobs: int) -> None:
    command = [
        sys.executable, "-c", "from sphinxfuzz.cli import main; main()", "fuzz",
        "--seeds", str(PLAIN),
        "--solvers", f"z3;{HANG}", "--generators", str(TESTS / "fixtures" / "generators"),
        "--timeout", "60", "--time", "10m", "--jobs", str(jobs), "--out", str(tmp_path / "c"),
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(TESTS.parent)}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 60
    while not _hanging_under(process.pid) and time.monotonic() < deadline:
        time.sleep(0.2)  # wait until one of its solvers hangs (another test's may already)
    assert _hanging_under(process.pid), process.communicate(timeout=30)[0]
    stopped = time.monotonic()
    process.send_signal(signal.SIGTERM)
    output = process.communicate(timeout=30)[0].decode()
    assert time.monotonic() - stopped < 8, output
    assert process.returncode == 0, output
    assert "Traceback" not in output
    assert sleeping("sleep 787") == [] and sleeping("sleep 788") == []
    with Store(tmp_path / "c") as store:
        assert store.config() is not None
