"""What a campaign did, as its index keeps it: its settings (config), when each run started
and with how many jobs, each run's counters a minute (`bugs.stats.Stats`), the positions
done, every mutant's hash, and what the seed check found of each seed. A resume reads them
back; `bugs.store.Store` adds what the campaign found."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

from sphinxfuzz.bugs.index_file import IndexConnection
from sphinxfuzz.bugs.stats import Stats


class RunLog(IndexConnection):
    """The index's tables of what the campaign did (config, runs, stats, progress, mutants,
    seed_status)."""

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
