"""The campaign's index (`campaign.sqlite`): what a campaign stored, saved and loaded
through `Store`, beside one folder per bug.

Tables:
    config, runs             the campaign's settings; when each run started, with how many jobs
    stats                    each run's counters, a row a minute
    progress, mutants        the positions done; every mutant's hash and theories
    seed_status              what the seed check found of each seed
    seed_findings            findings of the unmutated seeds (their folders: seed-findings/<id>/)
    bugs, signatures, hits   bug rows (their folders: bugs/<id>/), each signature's hit count,
                             each hit once (deduplication: `bugs.dedup`)

A bug folder is written (staged, then renamed) before its index row is committed, so the
index never names a missing folder. The bug folders are the source of truth; the index can
be rebuilt from them (`bugs.reindex`). The file itself (schema, opening checks, transactions)
is `bugs.index_file`'s, the tables of what the campaign did `bugs.run_log`'s; grouping
findings by root cause is `bugs.triage`'s, over this index.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sphinxfuzz.bugs.dedup import counts_as_new
from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.index_file import StoreError
from sphinxfuzz.bugs.record import (
    REDUCED,
    BugRecord,
    Origin,
    SeedFindingRecord,
    SolverSummary,
    bug_files,
    safe_name,
)
from sphinxfuzz.bugs.run_log import RunLog
from sphinxfuzz.fileio import write_folder_atomic
from sphinxfuzz.oracle import Judgement, Verdict, VerdictKind
from sphinxfuzz.solvers import SolverResult

__all__ = ["BugRow", "Store", "StoreError", "bug_id"]


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


class Store(RunLog):
    """One connection to a campaign folder (open one per process): what the campaign did
    (`bugs.run_log.RunLog`) and what it found, its bugs and seed findings."""

    # -- seed findings --------------------------------------------------------------------
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
        with self.transaction() as db:
            if not counts_as_new(db, self.root, verdict, (position, mutant), ident, text, now):
                return None
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
