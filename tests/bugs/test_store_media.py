"""The store on read-only media and on a full disk (issue 29).

Both need a file system of their own: a small tmpfs mounted under the test's tmp_path, which
only root may mount (as root, file modes do not make anything read-only). Elsewhere these
two tests cannot set up their medium and say so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from campaign_helpers import CRASHER, GENERATORS, SEEDS, TESTS

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.folder import CampaignFolder

ENV = {**os.environ, "PYTHONPATH": str(TESTS.parent)}


def sphinxfuzz(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from sphinxfuzz.cli import main; main()", *argv],
        capture_output=True, text=True, timeout=300, env=ENV,
    )  # fmt: skip


@pytest.fixture
def medium(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB tmpfs under tmp_path (unmounted at the end)."""
    mount = tmp_path / "medium"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)],
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_read_only_commands_work_on_read_only_media(
    crash_campaign: tuple[Path, list[str]], medium: Path, tmp_path: Path
) -> None:
    root = medium / "night"
    shutil.copytree(crash_campaign[0], root)
    with Store(root) as store:
        bug = store.bugs()[0].id
    subprocess.run(["mount", "-o", "remount,ro", str(medium)], check=True)
    listed = sphinxfuzz("bugs", "list", "-c", str(root))
    assert listed.returncode == 0 and bug in listed.stdout, listed.stdout + listed.stderr
    report = sphinxfuzz("report", "-c", str(root), "-o", str(tmp_path / "r.html"))
    assert report.returncode == 0 and (tmp_path / "r.html").is_file(), report.stderr
    shown = sphinxfuzz("bugs", "show", bug, "-c", str(root))
    assert shown.returncode == 0, shown.stderr
    replayed = sphinxfuzz("bugs", "replay", bug, "-c", str(root), "--trust-folder")
    assert replayed.returncode == 0 and "reproduces" in replayed.stdout, replayed.stderr
    for done in (listed, report, shown, replayed):
        assert "Traceback" not in done.stderr  # (the stored crash output has one on stdout)


def fill(folder: Path) -> Path:
    """Fill the file system of `folder` to the last byte."""
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as handle:
        chunk = b"\0" * 65536
        try:
            while True:
                handle.write(chunk)
        except OSError:
            pass
        for size in (4096, 512, 1):
            try:
                while True:
                    handle.write(b"\0" * size)
            except OSError:
                pass
    return filler


def test_a_full_disk_is_one_line_and_resume_goes_on(medium: Path) -> None:
    root = medium / "c"
    common = ("--solvers", f"z3;{CRASHER}", "--generators", str(GENERATORS), "--seed", "5")
    first = sphinxfuzz(
        "fuzz", "--seeds", str(SEEDS), *common, "--mutants", "2", "--no-reduce", "-c", str(root)
    )
    assert first.returncode == 0, first.stdout + first.stderr
    filler = fill(medium)
    full = sphinxfuzz("fuzz", "--resume", "-c", str(root), "--mutants", "6")
    output = full.stdout + full.stderr
    assert full.returncode == 2 and "Traceback" not in output, output
    errors = [line for line in full.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and "disk is full" in errors[0], output
    assert "--resume" in errors[0]
    filler.unlink()
    resumed = sphinxfuzz("fuzz", "--resume", "-c", str(root), "--mutants", "6")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    with Store(root, read_only=True) as store:
        assert len(store.runs()) >= 2 and (root / CampaignFolder.INDEX).is_file()
