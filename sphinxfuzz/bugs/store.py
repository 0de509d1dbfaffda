"""The campaign folder: `campaign.sqlite` (the index) and one folder per bug.

Layout:
    campaign.sqlite          config, bugs, signatures (with hit counts), hits, stats per
                             minute, seed findings, seed status, progress, mutant hash log
    bugs/<id>/, seed-findings/<id>/   bug folders (`bugs.record` knows their files)

A bug folder is written (staged, then renamed) before its index row is committed, so the
index never names a missing folder. SQLite runs in WAL mode so `--jobs` workers, each with
its own connection, write concurrently.

The bug folders are the source of truth; the index can be rebuilt from them (`bugs.reindex`).
Opening checks the index (`PRAGMA quick_check` and its tables): a damaged, missing or empty
index while bug folders exist is a `StoreError` that names the file and the way out, never
a database exception. `read_only` opens it without writing (read-only media included).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.record import (
    REDUCED,
    VERDICT,
    BugRecord,
    Origin,
    SeedFindingRecord,
    SolverSummary,
    bug_files,
    load_record,
    safe_name,
)
from sphinxfuzz.bugs.shapes import operator_heads
from sphinxfuzz.bugs.stats import Stats
from sphinxfuzz.errors import InputError, Step, StepKind
from sphinxfuzz.fileio import write_folder_atomic
from sphinxfuzz.oracle import Judgement, Verdict, VerdictKind
from sphinxfuzz.solvers import SolverResult

# triggers kept per coarse crash signature (`_another_trigger`)
COARSE_TRIGGERS = 5

_SCHEMA = """
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


class StoreError(InputError):
    """A campaign folder that cannot be used as asked (missing, or config mismatch)."""


TABLES = frozenset(
    {"config", "runs", "bugs", "signatures", "hits", "stats", "seed_findings", "seed_status",
     "progress", "mutants"}
)  # fmt: skip


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


def _disk_full(exc: BaseException, root: Path) -> bool:
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


@dataclass(frozen=True)
class BugRow:
    id: str
    kind: VerdictKind
    solver: str | None
    signature: str
    seed_file: str
    position: int
    mutant: int
    theories: list[str]
    found_at: float
    folder: Path
    count: int  # hits of its signature (1 for bugs that are never deduplicated)

    @property
    def reduced_path(self) -> Path:
        return self.folder / REDUCED


def bug_id(position: int, mutant: int, verdict: Verdict) -> str:
    """Deterministic: the same mutant found again after a resume gets the same id."""
    return f"{position}-{mutant}-{safe_name(verdict.solver or 'all')}-{verdict.kind}"


class Store:
    """One connection to a campaign folder (open one per process)."""

    def __init__(self, root: Path, *, create: bool = False, read_only: bool = False) -> None:
        self.root = Path(root)
        self.read_only = read_only
        db = CampaignFolder(self.root).index
        self._check_file(db, create and not read_only)
        try:
            self.db = self._connect(db)
        except sqlite3.DatabaseError as exc:
            raise self._open_error(db, exc) from None
        try:
            self._check_index(db)
        except BaseException:
            self.db.close()
            raise

    def _check_file(self, db: Path, create: bool) -> None:
        """What can be told from the file system: missing, a folder, empty."""
        if db.is_dir():
            raise needs_reindex(self.root, f"{db}: is a folder, not a campaign index")
        if not db.exists():
            folders = bug_folder_count(self.root)
            if folders:
                raise needs_reindex(self.root, f"{db}: missing while {folders} bug folder(s) exist")
            if not create:
                raise StoreError(f"{self.root}: not a campaign folder (no {db.name})")
            try:
                self.root.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"{self.root}: cannot create the campaign folder: "
                                 f"{exc.strerror or exc}") from None  # fmt: skip
        elif db.stat().st_size == 0 and (folders := bug_folder_count(self.root)):
            raise needs_reindex(self.root, f"{db}: empty while {folders} bug folder(s) exist")

    def _connect(self, db: Path) -> sqlite3.Connection:
        if not self.read_only:
            connection = sqlite3.connect(db, timeout=60.0, isolation_level=None)
            try:
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=NORMAL")
                connection.executescript(_SCHEMA)
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
            if os.access(self.root, os.W_OK):
                raise
        # read-only media: SQLite cannot even create the WAL index; nothing can change it
        return sqlite3.connect(f"{uri}&immutable=1", uri=True, isolation_level=None)

    def _check_index(self, db: Path) -> None:
        try:
            problems = [str(r[0]) for r in self.db.execute("PRAGMA quick_check").fetchall()]
            tables = {
                str(r[0])
                for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
        except sqlite3.DatabaseError as exc:
            raise self._open_error(db, exc) from None
        if problems != ["ok"]:
            # quick_check's first problem spans lines ("*** in database main ***\nPage 20: ...")
            problem = " ".join(problems[0].split())[:100]
            raise needs_reindex(self.root, f"{db}: damaged ({problem})")
        if not TABLES <= tables:
            folders = bug_folder_count(self.root)
            if folders or tables:
                missing = ", ".join(sorted(TABLES - tables))
                raise needs_reindex(self.root, f"{db}: damaged (no table {missing})")
            raise StoreError(f"{self.root}: not a campaign folder ({db.name} is empty)")

    def _open_error(self, db: Path, exc: sqlite3.DatabaseError) -> StoreError:
        text = str(exc)
        if _disk_full(exc, self.root):
            return disk_full_error(self.root)
        if isinstance(exc, sqlite3.OperationalError) and (
            "unable to open" in text or "readonly" in text or "read-only" in text
        ):
            return StoreError(f"{db}: cannot be opened for writing ({text})")
        return needs_reindex(self.root, f"{db}: damaged ({text})")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; a full disk (in SQLite or in a bug folder) is a one-line
        `StoreError` and nothing of the transaction is kept, so a resume goes on."""
        try:
            # IMMEDIATE takes the write lock up front: no upgrade deadlocks between workers
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")
        except (OSError, sqlite3.DatabaseError) as exc:
            if _disk_full(exc, self.root):
                raise disk_full_error(self.root) from None
            if isinstance(exc, sqlite3.OperationalError):
                raise StoreError(
                    f"{CampaignFolder(self.root).index}: cannot be written ({exc})"
                ) from None
            raise

    # -- config and runs ------------------------------------------------------------------
    def config(self) -> dict[str, object] | None:
        rows = self.db.execute("SELECT key, value FROM config").fetchall()
        return {k: json.loads(v) for k, v in rows} or None

    def save_config(self, config: dict[str, object]) -> None:
        with self.transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO config VALUES (?, ?)",
                [(k, json.dumps(v, sort_keys=True)) for k, v in config.items()],
            )

    def start_run(self, jobs: int) -> int:
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO runs (started, jobs) VALUES (?, ?)", (time.time(), jobs)
            )
            return int(cursor.lastrowid or 0)

    def runs(self) -> list[tuple[int, float, int]]:
        """(run, started, jobs) of every run, oldest first."""
        rows = self.db.execute("SELECT run, started, jobs FROM runs ORDER BY run").fetchall()
        return [(int(r), float(s), int(j)) for r, s, j in rows]

    # -- statistics -----------------------------------------------------------------------
    def save_stats(self, run: int, minute: int, stats: Stats) -> None:
        """The run's cumulative counters at `minute` (one row per minute per run)."""
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO stats VALUES (?, ?, ?)",
                (run, minute, json.dumps(stats.to_json(), sort_keys=True)),
            )

    def total_stats(self) -> Stats:
        """Sum over runs of each run's last recorded counters."""
        total = Stats()
        rows = self.db.execute(
            "SELECT s.data FROM stats s JOIN (SELECT run, MAX(minute) AS m FROM stats GROUP BY run) "
            "last ON s.run = last.run AND s.minute = last.m"
        ).fetchall()
        for (data,) in rows:
            total.add(Stats.from_json(json.loads(data)))
        return total

    def stats_rows(self) -> list[tuple[int, int, Stats]]:
        rows = self.db.execute("SELECT run, minute, data FROM stats ORDER BY run, minute")
        return [(r, m, Stats.from_json(json.loads(d))) for r, m, d in rows.fetchall()]

    # -- progress and mutant log ----------------------------------------------------------
    def done_positions(self) -> set[int]:
        return {p for (p,) in self.db.execute("SELECT position FROM progress").fetchall()}

    def mark_done(self, position: int, seed_file: str) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO progress VALUES (?, ?, ?)",
                (position, seed_file, time.time()),
            )

    def log_mutants(self, rows: Sequence[tuple[int, int, str, list[str]]]) -> None:
        with self.transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO mutants VALUES (?, ?, ?, ?)",
                [(p, m, digest, json.dumps(th)) for p, m, digest, th in rows],
            )

    def mutant_log(self) -> list[tuple[int, int, str]]:
        rows = self.db.execute(
            "SELECT position, mutant, sha256 FROM mutants ORDER BY position, mutant"
        )
        return [(int(p), int(m), str(h)) for p, m, h in rows.fetchall()]

    # -- seeds ----------------------------------------------------------------------------
    def seed_status(self, seed_file: str) -> tuple[str, str] | None:
        row = self.db.execute(
            "SELECT status, detail FROM seed_status WHERE seed_file = ?", (seed_file,)
        ).fetchone()
        return (str(row[0]), str(row[1])) if row else None

    def seed_statuses(self) -> dict[str, tuple[str, str]]:
        """seed file -> (status, detail), for every seed a run looked at."""
        rows = self.db.execute("SELECT seed_file, status, detail FROM seed_status")
        return {str(f): (str(s), str(d)) for f, s, d in rows.fetchall()}

    def seed_status_counts(self) -> dict[str, int]:
        """status -> how many seeds have it (every seed a run looked at has one)."""
        rows = self.db.execute("SELECT status, COUNT(*) FROM seed_status GROUP BY status")
        return {str(status): int(count) for status, count in rows.fetchall()}

    def set_seed_status(self, seed_file: str, status: str, detail: str) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO seed_status VALUES (?, ?, ?)", (seed_file, status, detail)
            )

    def record_seed_finding(
        self, seed_file: str, seed_text: str, verdict: Verdict, results: Sequence[SolverResult]
    ) -> str:
        # the stem names the seed; a hash of its path keeps seeds of one name in two folders apart
        digest = hashlib.sha1(seed_file.encode("utf-8")).hexdigest()[:6]
        stem = safe_name(Path(seed_file).stem)
        ident = f"{stem}-{digest}-{safe_name(verdict.solver or 'all')}-{verdict.kind}"
        folder = CampaignFolder(self.root).finding(ident)
        record = SeedFindingRecord(
            folder, ident, verdict, seed_file, [SolverSummary.of(r) for r in results]
        )
        files = bug_files(record, seed_text, results)
        with self.transaction() as db:
            write_folder_atomic(folder, files)
            db.execute(
                "INSERT OR REPLACE INTO seed_findings VALUES (?, ?, ?, ?, ?, ?, ?)",
                (ident, seed_file, str(verdict.kind), verdict.solver, verdict.signature,
                 time.time(), str(folder.relative_to(self.root))),
            )  # fmt: skip
        return ident

    def seed_finding_rows(self) -> list[BugRow]:
        """The seed findings as rows like the bugs' (no mutant: position and mutant -1), for
        what treats every finding alike (triage, the filing queue)."""
        rows = self.db.execute(
            "SELECT id, kind, solver, signature, seed_file, found_at, folder FROM seed_findings "
            "ORDER BY found_at, id"
        ).fetchall()
        return [BugRow(i, VerdictKind(k), s, sig, f, -1, -1, [], at, self.root / d, 1)
                for i, k, s, sig, f, at, d in rows]  # fmt: skip

    def seed_findings(self) -> list[tuple[str, str, str, str | None, str]]:
        rows = self.db.execute(
            "SELECT id, seed_file, kind, solver, signature FROM seed_findings ORDER BY found_at"
        )
        return [tuple(r) for r in rows.fetchall()]  # type: ignore[misc]

    # -- bugs -----------------------------------------------------------------------------
    def record_bug(
        self,
        verdict: Verdict,
        origin: Origin,
        text: str,
        results: Sequence[SolverResult],
        check: Judgement | None = None,
    ) -> str | None:
        """Store one verdict about `text` (made at `origin`, run with `results`; `check`: the
        judgement whose model-check script and runs go with it). Returns the new bug's id, or
        None when it only counted a hit of a crash signature already stored (or a hit already
        recorded before a resume)."""
        assert verdict.kind != VerdictKind.NONE
        position, mutant = origin.position, origin.mutant
        ident = bug_id(position, mutant, verdict)
        check_script = check.check_script if check is not None else None
        check_results = check.check_results if check is not None else []
        if check_script is None:
            check_script = verdict.check_script
        now = time.time()
        dedupe = verdict.kind == VerdictKind.CRASH
        with self.transaction() as db:
            fresh_hit = db.execute(
                "INSERT OR IGNORE INTO hits VALUES (?, ?, ?, ?, ?)",
                (position, mutant, verdict.solver, str(verdict.kind), verdict.signature),
            ).rowcount
            if not fresh_hit:
                return None
            known = db.execute(
                "SELECT first_bug FROM signatures WHERE signature = ?", (verdict.signature,)
            ).fetchone()
            if known is not None:
                db.execute(
                    "UPDATE signatures SET count = count + 1, last_seen = ? WHERE signature = ?",
                    (now, verdict.signature),
                )
                if dedupe and not self._another_trigger(db, verdict, text):
                    return None
            else:
                db.execute(
                    "INSERT INTO signatures VALUES (?, ?, ?, ?, 1, ?, ?)",
                    (verdict.signature, str(verdict.kind), verdict.solver, ident, now, now),
                )
            folder = CampaignFolder(self.root).bug(ident)
            record = BugRecord(
                folder, ident, verdict, origin.seed_file, [SolverSummary.of(r) for r in results],
                origin.campaign_seed, position, mutant, list(origin.theories),
                [SolverSummary.of(r) for r in check_results], origin.strategy,
            )  # fmt: skip
            files = bug_files(record, text, results, check_script, check_results)
            write_folder_atomic(folder, files)  # the folder exists before its index row
            db.execute(
                "INSERT OR REPLACE INTO bugs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (ident, str(verdict.kind), verdict.solver, verdict.signature, origin.seed_file,
                 position, mutant, json.dumps(list(origin.theories)), now,
                 str(folder.relative_to(self.root))),
            )  # fmt: skip
        return ident

    def _another_trigger(self, db: sqlite3.Connection, verdict: Verdict, text: str) -> bool:
        """A coarse crash signature (a bare signal no debugger could sign) may hide several
        bugs: up to COARSE_TRIGGERS triggers are kept while their operator sets differ, and
        triage tells them apart after reduction."""
        if not verdict.evidence.get("coarse"):
            return False
        folders = [
            str(row[0])
            for row in db.execute(
                "SELECT folder FROM bugs WHERE signature = ?", (verdict.signature,)
            )
        ]
        if len(folders) >= COARSE_TRIGGERS:
            return False
        mine = operator_heads(text)
        stored = [operator_heads(load_record(self.root / f).formula()) for f in folders]
        return all(mine != theirs for theirs in stored)

    def has_signature(self, signature: str) -> bool:
        row = self.db.execute("SELECT 1 FROM signatures WHERE signature = ?", (signature,))
        return row.fetchone() is not None

    def signatures(self) -> set[str]:
        return {str(row[0]) for row in self.db.execute("SELECT signature FROM signatures")}

    def bugs(self) -> list[BugRow]:
        rows = self.db.execute(
            "SELECT b.id, b.kind, b.solver, b.signature, b.seed_file, b.position, b.mutant, "
            "b.theories, b.found_at, b.folder, COALESCE(s.count, 1) FROM bugs b "
            "LEFT JOIN signatures s ON s.signature = b.signature AND s.first_bug = b.id "
            # only a crash stands for other hits; any other bug is stored once per mutant
            "AND b.kind = ? "
            "ORDER BY b.found_at, b.id",
            (str(VerdictKind.CRASH),),
        ).fetchall()
        return [
            BugRow(r[0], VerdictKind(r[1]), r[2], r[3], r[4], r[5], r[6], json.loads(r[7]), r[8],
                   self.root / r[9], r[10])
            for r in rows
        ]  # fmt: skip

    def bug(self, ident: str) -> BugRow | None:
        return next((b for b in self.bugs() if b.id == ident), None)

    def signature_counts(self) -> list[tuple[str, str, str | None, int]]:
        rows = self.db.execute(
            "SELECT signature, kind, solver, count FROM signatures ORDER BY count DESC, signature"
        )
        return [tuple(r) for r in rows.fetchall()]  # type: ignore[misc]
