"""A store that says what is wrong, in one line, and a way out (issue 29).

A real campaign with crash bugs is copied and its index damaged in the ways an audit found;
`bugs list`, `report` and `fuzz --resume` must each end with one line naming the file and
`sphinxfuzz bugs reindex`, never a database traceback; the reindex brings the bugs back.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from campaign_helpers import GENERATORS, SEEDS, TESTS

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.folder import CampaignFolder

ENV = {**os.environ, "PYTHONPATH": str(TESTS.parent)}


def sphinxfuzz(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from sphinxfuzz.cli import main; main()", *argv],
        capture_output=True, text=True, timeout=300, env=ENV, cwd=cwd,
    )  # fmt: skip


def one_line_error(done: subprocess.CompletedProcess[str], *needles: str) -> None:
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "Traceback" not in output and "sqlite3." not in output, output
    errors = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and errors[0].startswith("error:"), output
    for needle in needles:
        assert needle in errors[0], output


def truncate(db: Path) -> None:
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2 + 100])


def randomize(db: Path) -> None:
    db.write_bytes(bytes((i * 7919 + 13) % 251 for i in range(db.stat().st_size)))


def overwrite_part(db: Path) -> None:
    data = bytearray(db.read_bytes())
    data[4096:12288] = bytes((i * 31) % 256 for i in range(8192))
    db.write_bytes(bytes(data))


def make_folder(db: Path) -> None:
    db.unlink()
    (db).mkdir()
    (db / "note.txt").write_text("not a database\n")


def empty(db: Path) -> None:
    db.write_bytes(b"")


def remove(db: Path) -> None:
    db.unlink()


DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "truncated": (truncate, "damaged"),
    "random": (randomize, "damaged"),
    "partly overwritten": (overwrite_part, "damaged"),
    "a folder": (make_folder, "is a folder"),
    "empty": (empty, "empty while"),
    "missing": (remove, "missing while"),
}


@pytest.fixture
def campaign(crash_campaign: tuple[Path, list[str]], tmp_path: Path) -> Path:
    root = tmp_path / "night"
    shutil.copytree(crash_campaign[0], root)
    for journal in ("-wal", "-shm"):  # a closed campaign: everything is in the main file
        (root / (CampaignFolder.INDEX + journal)).unlink(missing_ok=True)
    return root


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_index_is_one_line_with_the_way_out(campaign: Path, damage: str) -> None:
    harm, what = DAMAGE[damage]
    with Store(campaign) as store:
        assert store.bugs()  # the fixture has bugs
    harm(campaign / CampaignFolder.INDEX)
    needles = (str(campaign / CampaignFolder.INDEX), what, f"sphinxfuzz bugs reindex -c {campaign}")
    one_line_error(sphinxfuzz("bugs", "list", "-c", str(campaign)), *needles)
    one_line_error(
        sphinxfuzz("report", "-c", str(campaign), "-o", str(campaign.parent / "r.html")), *needles
    )
    one_line_error(sphinxfuzz("fuzz", "--resume", "-c", str(campaign), "--mutants", "1"), *needles)
    assert not (campaign.parent / "r.html").exists()


@pytest.mark.parametrize("damage", ["truncated", "empty", "a folder"])
def test_reindex_brings_the_bugs_back(campaign: Path, damage: str) -> None:
    with Store(campaign) as store:
        before = sorted((b.id, b.kind, b.signature) for b in store.bugs())
        findings = sorted(store.seed_findings())
    DAMAGE[damage][0](campaign / CampaignFolder.INDEX)
    done = sphinxfuzz("bugs", "reindex", "-c", str(campaign))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"rebuilt from {len(before)} bug folder(s)" in done.stdout
    with Store(campaign, read_only=True) as store:
        assert sorted((b.id, b.kind, b.signature) for b in store.bugs()) == before
        assert sorted(store.seed_findings()) == findings
    listed = sphinxfuzz("bugs", "list", "-c", str(campaign))
    assert listed.returncode == 0 and all(ident in listed.stdout for ident, _, _ in before)
    kept = [
        p.name for p in campaign.iterdir() if p.name.startswith(f"{CampaignFolder.INDEX}.damaged-")
    ]
    assert len(kept) == 1


def test_reindex_keeps_what_the_old_index_still_reads_so_resume_goes_on(campaign: Path) -> None:
    with Store(campaign) as store:  # a lost row of the index: a bug folder it does not name
        store.db.execute("DELETE FROM bugs")
        done_before = store.done_positions()
    done = sphinxfuzz("bugs", "reindex", "-c", str(campaign))
    assert done.returncode == 0, done.stderr
    assert "config" in done.stdout and "progress" in done.stdout
    with Store(campaign, read_only=True) as store:
        assert store.bugs() and store.done_positions() == done_before
    resumed = sphinxfuzz("fuzz", "--resume", "-c", str(campaign), "--mutants", "1")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr


@pytest.mark.parametrize("where", ["/proc/sphinxfuzz-campaign", "/dev/null/campaign"])
def test_an_unwritable_campaign_path_is_one_line(where: str) -> None:
    done = sphinxfuzz(
        "fuzz", "--seeds", str(SEEDS / "plain.smt2"), "--solvers", "z3",
        "--generators", str(GENERATORS), "--mutants", "1", "-c", where,
    )  # fmt: skip
    one_line_error(done, where)


def test_an_empty_campaign_name_writes_nothing_into_the_current_folder(tmp_path: Path) -> None:
    done = sphinxfuzz(
        "fuzz", "--seeds", str(SEEDS / "plain.smt2"), "--solvers", "z3",
        "--generators", str(GENERATORS), "--mutants", "1", "-c", "", cwd=tmp_path,
    )  # fmt: skip
    one_line_error(done, "current folder")
    assert list(tmp_path.iterdir()) == []
    for command in (["bugs", "list", "-c", ""], ["report", "-c", ""]):
        one_line_error(sphinxfuzz(*command, cwd=tmp_path), "empty campaign folder name")
    assert list(tmp_path.iterdir()) == []
