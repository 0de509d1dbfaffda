"""Text others wrote reaches the terminal with its control characters visible, and per-seed
messages on mass input are summarised (issue 29)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from campaign_helpers import SEEDS, TESTS, config_for

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.record import load_record, safe_name
from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.campaign.repeats import SHOWN
from sphinxfuzz.visible import visible

ENV = {**os.environ, "PYTHONPATH": str(TESTS.parent)}
ESCAPES = "\x1b[2J\x1b]0;owned\x07\x9b31m"  # clear screen, set title, a C1 CSI


def sphinxfuzz(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from sphinxfuzz.cli import main; main()", *argv],
        capture_output=True, text=True, timeout=300, env=ENV,
    )  # fmt: skip


def test_visible_spells_out_controls_and_keeps_lines() -> None:
    assert visible("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert visible("x\ty\nz\r") == "x\ty\nz\\x0d"
    assert visible("x\ty\nz", one_line=True) == "x\\x09y\\x0az"
    assert visible("\x00\x7f\x9b\u202e") == "\\x00\\x7f\\x9b\\u202e"
    assert visible('(assert (= s "é"))') == '(assert (= s "é"))'


def test_bugs_show_makes_stored_solver_output_visible(
    crash_campaign: tuple[Path, list[str]], tmp_path: Path
) -> None:
    root = tmp_path / "night"
    shutil.copytree(crash_campaign[0], root)
    with Store(root) as store:
        bug = store.bugs()[0]
    record = load_record(bug.folder)
    solver = record.solvers[-1].name
    (bug.folder / f"{safe_name(solver)}.stderr").write_text(f"boom {ESCAPES} end\n")
    shown = sphinxfuzz("bugs", "show", bug.id, "-c", str(root))
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout and "\x9b" not in shown.stdout
    assert "boom \\x1b[2J\\x1b]0;owned\\x07\\x9b31m end" in shown.stdout


def test_generators_sample_makes_the_exception_text_visible(tmp_path: Path) -> None:
    folder = tmp_path / "generators" / "Ints"
    folder.mkdir(parents=True)
    (folder / "generator.py").write_text(
        'THEORY = "Ints"\nSOLVERS = ("z3",)\n\n\ndef generate(rng):\n'
        f"    raise ValueError({ESCAPES!r})\n"
    )
    done = sphinxfuzz("generators", "sample", "Ints", "--generators", str(tmp_path / "generators"))
    assert done.returncode == 2
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr and "\x9b" not in done.stderr
    assert "ValueError: \\x1b[2J\\x1b]0;owned\\x07\\x9b31m" in done.stderr


def test_mass_per_seed_messages_are_summarised(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    for index in range(300):
        (seeds / f"empty-{index:03}.smt2").write_text("")
    shutil.copy(SEEDS / "plain.smt2", seeds / "plain.smt2")
    messages: list[str] = []
    config = replace(config_for([seeds], "z3", per_seed=1))
    stats = run_campaign(config, tmp_path / "c", Budget(), on_message=messages.append)
    skipping = [m for m in messages if m.startswith("skipping seed: /")]
    assert len(skipping) == SHOWN
    (summary,) = [m for m in messages if m.startswith("skipping seed: 295 more")]
    assert "300 in all" in summary
    assert stats.seeds_malformed == 300 and stats.seeds_used == 1
    with Store(tmp_path / "c", read_only=True) as store:
        assert store.seed_status_counts().get("malformed") == 300
