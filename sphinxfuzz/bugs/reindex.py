"""Rebuilding a campaign's index from its bug folders (`sphinxfuzz bugs reindex`).

The bug folders are the source of truth: each `verdict.json` holds what the index row of
its bug says, except the time it was found (the folder's time is taken) and how often a
crash signature was hit before (the count of its stored bugs is taken). Whatever of the
old index can still be read (the configuration, runs, statistics, progress, seed statuses,
the mutant log) is carried over, so a `fuzz --resume` goes on; the old file is kept beside
the new one as `campaign.sqlite.damaged-<time>`.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.index_file import SCHEMA, StoreError
from sphinxfuzz.bugs.record import (
    BugFileError,
    SeedFindingRecord,
    is_bug_folder,
    load_record,
)

# Tables whose rows are not in the bug folders: carried over when the old index reads.
CARRIED = ("config", "runs", "stats", "progress", "seed_status", "mutants")


@dataclass
class Reindexed:
    """What `reindex` did."""

    bugs: int = 0
    findings: int = 0
    carried: list[str] = field(default_factory=list)  # tables read from the old index
    skipped: list[str] = field(default_factory=list)  # unreadable bug folders, with why
    kept_as: Path | None = None  # where the old index went


def reindex(root: Path) -> Reindexed:
    """Rebuild `root`'s index from its bug folders (see the module doc)."""
    root = Path(root)
    if not root.is_dir():
        raise StoreError(f"{root}: no such campaign folder")
    done = Reindexed()
    folder = CampaignFolder(root)
    db, building = folder.index, folder.rebuilding
    for leftover in _with_journals(building):
        leftover.unlink(missing_ok=True)
    try:
        with contextlib.closing(sqlite3.connect(building, isolation_level=None)) as new:
            new.executescript(SCHEMA)
            new.execute("BEGIN")
            done.carried = _carry(db, new)
            _index_bugs(root, new, done)
            new.execute("COMMIT")
    except (OSError, sqlite3.Error) as exc:
        for leftover in _with_journals(building):
            leftover.unlink(missing_ok=True)
        raise StoreError(f"{root}: cannot write a new index ({exc})") from None
    if db.exists() or db.is_symlink():
        done.kept_as = folder.damaged(time.strftime("%Y%m%d-%H%M%S"))
        os.rename(db, done.kept_as)
    for journal in _with_journals(db)[1:]:
        journal.unlink(missing_ok=True)  # they belong to the old file
    os.rename(building, db)
    return done


def _with_journals(db: Path) -> list[Path]:
    return [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]


def _carry(db: Path, new: sqlite3.Connection) -> list[str]:
    """Copy each table of `CARRIED` that the old index still reads in full."""
    if not db.is_file():
        return []
    carried = []
    uri = f"file:{db.absolute()}?mode=ro&immutable=1"
    try:
        old = sqlite3.connect(uri, uri=True)
    except sqlite3.Error:
        return []
    with contextlib.closing(old):
        for table in CARRIED:
            try:
                rows = old.execute(f"SELECT * FROM {table}").fetchall()  # noqa: S608 - ours
            except sqlite3.Error:
                continue
            if rows:
                marks = ", ".join("?" * len(rows[0]))
                try:
                    new.executemany(f"INSERT OR IGNORE INTO {table} VALUES ({marks})", rows)
                except sqlite3.Error:
                    continue  # another shape: not this index's table
            carried.append(table)
    return carried


def _folders(root: Path, kind: str) -> Iterator[Path]:
    parent = CampaignFolder(root).kind(kind)
    if parent.is_dir():
        yield from sorted(p for p in parent.iterdir() if is_bug_folder(p))


def _index_bugs(root: Path, new: sqlite3.Connection, done: Reindexed) -> None:
    for folder in _folders(root, CampaignFolder.BUGS):
        try:
            record = load_record(folder)
        except BugFileError as exc:
            done.skipped.append(str(exc))
            continue
        if isinstance(record, SeedFindingRecord):
            done.skipped.append(f"{folder}: a seed finding among the bugs (no mutant named)")
            continue
        verdict = record.verdict
        found = folder.stat().st_mtime
        relative = str(folder.relative_to(root))
        new.execute(
            "INSERT OR REPLACE INTO bugs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (record.id, str(verdict.kind), verdict.solver, verdict.signature, record.seed_file,
             record.position, record.mutant, json.dumps(record.theories), found, relative),
        )  # fmt: skip
        new.execute(
            "INSERT OR IGNORE INTO hits VALUES (?, ?, ?, ?, ?)",
            (record.position, record.mutant, verdict.solver, str(verdict.kind), verdict.signature),
        )
        known = new.execute(
            "SELECT first_seen FROM signatures WHERE signature = ?", (verdict.signature,)
        ).fetchone()
        if known is None:
            new.execute(
                "INSERT INTO signatures VALUES (?, ?, ?, ?, 1, ?, ?)",
                (verdict.signature, str(verdict.kind), verdict.solver, record.id, found, found),
            )
        else:
            first = "first_bug = CASE WHEN ? < first_seen THEN ? ELSE first_bug END"
            new.execute(
                f"UPDATE signatures SET count = count + 1, {first}, "
                "first_seen = MIN(first_seen, ?), last_seen = MAX(last_seen, ?) "
                "WHERE signature = ?",
                (found, record.id, found, found, verdict.signature),
            )
        done.bugs += 1
    for folder in _folders(root, CampaignFolder.FINDINGS):
        try:
            record = load_record(folder)
        except BugFileError as exc:
            done.skipped.append(str(exc))
            continue
        if not isinstance(record, SeedFindingRecord):
            done.skipped.append(f"{folder}: not a seed finding (it names a mutant)")
            continue
        verdict = record.verdict
        new.execute(
            "INSERT OR REPLACE INTO seed_findings VALUES (?, ?, ?, ?, ?, ?, ?)",
            (record.id, record.seed_file, str(verdict.kind), verdict.solver, verdict.signature,
             folder.stat().st_mtime, str(folder.relative_to(root))),
        )  # fmt: skip
        done.findings += 1
