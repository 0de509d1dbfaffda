"""The campaign index's file, `campaign.sqlite`: its schema, opening it with its checks, and
one write transaction. What the tables hold and how they are read is `bugs.store`'s.

SQLite runs in WAL mode so `--jobs` workers, each with its own connection, write
concurrently. Opening checks the index (`PRAGMA quick_check` and its tables): a damaged,
missing or empty index while bug folders exist is a `StoreError` that names the file and
the way out (`bugs.reindex` rebuilds it from the bug folders), never a database exception.
`read_only` opens it without writing (read-only media included).
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Self
from urllib.parse import quote

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.record import VERDICT
from sphinxfuzz.errors import InputError, Step, StepKind

SCHEMA = """
CREATE TABLE IF NOT EXISTS config (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (run INTEGER PRIMARY KEY AUTOINCREMENT, started REAL NOT NULL,
    jobs INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS bugs (id TEXT PRIMARY KEY, kind TEXT NOT NULL, solver TEXT,
    signature TEXT NOT NULL, seed_file TEXT NOT NULL, position INTEGER NOT NULL,
    mutant INTEGER NOT NULL, theories TEXT NOT NULL, found_at REAL NOT NULL,
    folder TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS signatures (signature TEXT PRIMARY KEY, kind TEXT NOT NULL,
    solver TEXT, first_bug TEXT NOT NULL, count INTEGER NOT NULL, first_seen REAL NOT NULL,
    last_seen REAL NOT NULL);
CREATE TABLE IF NOT EXISTS hits (position INTEGER, mutant INTEGER, solver TEXT, kind TEXT,
    signature TEXT NOT NULL, PRIMARY KEY (position, mutant, solver, kind));
CREATE TABLE IF NOT EXISTS stats (run INTEGER, minute INTEGER, data TEXT NOT NULL,
    PRIMARY KEY (run, minute));
CREATE TABLE IF NOT EXISTS seed_findings (id TEXT PRIMARY KEY, seed_file TEXT NOT NULL,
    kind TEXT NOT NULL, solver TEXT, signature TEXT NOT NULL, found_at REAL NOT NULL,
    folder TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS seed_status (seed_file TEXT PRIMARY KEY, status TEXT NOT NULL,
    detail TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS progress (position INTEGER PRIMARY KEY, seed_file TEXT NOT NULL,
    finished_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS mutants (position INTEGER, mutant INTEGER, sha256 TEXT NOT NULL,
    theories TEXT NOT NULL, PRIMARY KEY (position, mutant));
"""

TABLES = frozenset(
    {"config", "runs", "bugs", "signatures", "hits", "stats", "seed_findings", "seed_status",
     "progress", "mutants"}
)  # fmt: skip


class StoreError(InputError):
    """A campaign folder that cannot be used as asked (missing, or config mismatch)."""


def needs_reindex(root: Path, problem: str) -> StoreError:
    """A damaged or lost index: the bug folders still hold every bug, so the way on is to
    rebuild the index from them (`bugs.reindex`)."""
    return StoreError(
        f"{problem}; rebuild the index from the bug folders",
        step=Step(StepKind.REINDEX, {"folder": str(root)}),
    )


def bug_folder_count(root: Path) -> int:
    """How many bug and seed-finding folders `root` holds (they outlive a lost index)."""
    count = 0
    for kind in (CampaignFolder.BUGS, CampaignFolder.FINDINGS):
        try:
            count += sum(
                1 for p in CampaignFolder(root).kind(kind).iterdir() if (p / VERDICT).is_file()
            )
        except OSError:
            pass
    return count


def disk_full(exc: BaseException, root: Path) -> bool:
    """Whether `exc` comes from a full disk (SQLite may only say "disk I/O error")."""
    if isinstance(exc, OSError):
        return exc.errno in (errno.ENOSPC, errno.EDQUOT)
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    if "full" in str(exc):
        return True
    try:
        space = os.statvfs(root)
    except OSError:
        return False
    return space.f_bavail * space.f_frsize < 64 * 1024


def disk_full_error(root: Path) -> StoreError:
    return StoreError(
        f"{root}: the disk is full; free space, then resume the campaign",
        step=Step(StepKind.RESUME, {"folder": str(root)}),
    )


def open_index(root: Path, *, create: bool, read_only: bool) -> sqlite3.Connection:
    """A connection to `root`'s index, checked (see the module doc); `create` makes a new
    campaign folder's index when there is none and no bug folder."""
    db = CampaignFolder(root).index
    _check_file(root, db, create and not read_only)
    try:
        connection = _connect(root, db, read_only)
    except sqlite3.DatabaseError as exc:
        raise _open_error(root, db, exc) from None
    try:
        _check_index(root, db, connection)
    except BaseException:
        connection.close()
        raise
    return connection


def _check_file(root: Path, db: Path, create: bool) -> None:
    """What can be told from the file system: missing, a folder, empty."""
    if db.is_dir():
        raise needs_reindex(root, f"{db}: is a folder, not a campaign index")
    if not db.exists():
        folders = bug_folder_count(root)
        if folders:
            raise needs_reindex(root, f"{db}: missing while {folders} bug folder(s) exist")
        if not create:
            raise StoreError(f"{root}: not a campaign folder (no {db.name})")
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{root}: cannot create the campaign folder: "
                             f"{exc.strerror or exc}") from None  # fmt: skip
    elif db.stat().st_size == 0 and (folders := bug_folder_count(root)):
        raise needs_reindex(root, f"{db}: empty while {folders} bug folder(s) exist")


def _connect(root: Path, db: Path, read_only: bool) -> sqlite3.Connection:
    if not read_only:
        connection = sqlite3.connect(db, timeout=60.0, isolation_level=None)
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.executescript(SCHEMA)
        except BaseException:
            connection.close()
            raise
        return connection
    uri = f"file:{quote(str(db.absolute()))}?mode=ro"
    connection = sqlite3.connect(uri, uri=True, timeout=60.0, isolation_level=None)
    try:
        connection.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return connection
    except sqlite3.OperationalError:
        connection.close()
        if os.access(root, os.W_OK):
            raise
    # read-only media: SQLite cannot even create the WAL index; nothing can change it
    return sqlite3.connect(f"{uri}&immutable=1", uri=True, isolation_level=None)


def _check_index(root: Path, db: Path, connection: sqlite3.Connection) -> None:
    try:
        problems = [str(r[0]) for r in connection.execute("PRAGMA quick_check").fetchall()]
        tables = {
            str(r[0])
            for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    except sqlite3.DatabaseError as exc:
        raise _open_error(root, db, exc) from None
    if problems != ["ok"]:
        # quick_check's first problem spans lines ("*** in database main ***\nPage 20: ...")
        problem = " ".join(problems[0].split())[:100]
        raise needs_reindex(root, f"{db}: damaged ({problem})")
    if not TABLES <= tables:
        folders = bug_folder_count(root)
        if folders or tables:
            missing = ", ".join(sorted(TABLES - tables))
            raise needs_reindex(root, f"{db}: damaged (no table {missing})")
        raise StoreError(f"{root}: not a campaign folder ({db.name} is empty)")


def _open_error(root: Path, db: Path, exc: sqlite3.DatabaseError) -> StoreError:
    text = str(exc)
    if disk_full(exc, root):
        return disk_full_error(root)
    if isinstance(exc, sqlite3.OperationalError) and (
        "unable to open" in text or "readonly" in text or "read-only" in text
    ):
        return StoreError(f"{db}: cannot be opened for writing ({text})")
    return needs_reindex(root, f"{db}: damaged ({text})")


@contextmanager
def write_transaction(root: Path, db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction on `root`'s index; a full disk (in SQLite or in a bug folder)
    is a one-line `StoreError` and nothing of the transaction is kept, so a resume goes on."""
    try:
        # IMMEDIATE takes the write lock up front: no upgrade deadlocks between workers
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    except (OSError, sqlite3.DatabaseError) as exc:
        if disk_full(exc, root):
            raise disk_full_error(root) from None
        if isinstance(exc, sqlite3.OperationalError):
            raise StoreError(f"{CampaignFolder(root).index}: cannot be written ({exc})") from None
        raise


class IndexConnection:
    """One connection to a campaign folder's index (open one per process), what the index's
    tables are read and written through (`bugs.store.Store`)."""

    def __init__(self, root: Path, *, create: bool = False, read_only: bool = False) -> None:
        self.root = Path(root)
        self.read_only = read_only
        self.db = open_index(self.root, create=create, read_only=read_only)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (`write_transaction`)."""
        with write_transaction(self.root, self.db) as db:
            yield db
