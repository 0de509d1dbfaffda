"""Deduplication as a bug is stored: every hit of a signature is counted once (a resume that
meets a mutant again counts nothing), and a crash signature already stored stands for its
new hits instead of a folder each, except a coarse one (a bare signal no debugger could sign),
which may hide several bugs: up to `COARSE_TRIGGERS` triggers of it are kept while their
operator sets differ, and triage tells them apart after reduction (`bugs.triage`).

Runs inside the index's write transaction (`bugs.store.Store.record_bug`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sphinxfuzz.bugs.record import load_record
from sphinxfuzz.bugs.shapes import operator_heads
from sphinxfuzz.oracle import Verdict, VerdictKind

# triggers kept per coarse crash signature (`_another_trigger`)
COARSE_TRIGGERS = 5


def counts_as_new(
    db: sqlite3.Connection,
    root: Path,
    verdict: Verdict,
    at: tuple[int, int],
    ident: str,
    text: str,
    now: float,
) -> bool:
    """Count the hit of `verdict` at (position, mutant) with formula `text`; whether it is
    a bug of its own (`ident`, the signature's first bug when the signature is new) rather
    than one more hit of a stored crash, or a hit counted before a resume."""
    position, mutant = at
    fresh_hit = db.execute(
        "INSERT OR IGNORE INTO hits VALUES (?, ?, ?, ?, ?)",
        (position, mutant, verdict.solver, str(verdict.kind), verdict.signature),
    ).rowcount
    if not fresh_hit:
        return False
    known = db.execute(
        "SELECT first_bug FROM signatures WHERE signature = ?", (verdict.signature,)
    ).fetchone()
    if known is None:
        db.execute(
            "INSERT INTO signatures VALUES (?, ?, ?, ?, 1, ?, ?)",
            (verdict.signature, str(verdict.kind), verdict.solver, ident, now, now),
        )
        return True
    db.execute(
        "UPDATE signatures SET count = count + 1, last_seen = ? WHERE signature = ?",
        (now, verdict.signature),
    )
    # only a crash stands for other hits; any other bug is stored once per mutant
    return verdict.kind != VerdictKind.CRASH or _another_trigger(db, root, verdict, text)


def _another_trigger(db: sqlite3.Connection, root: Path, verdict: Verdict, text: str) -> bool:
    """A coarse crash signature's trigger with operators no kept trigger of it has."""
    if not verdict.evidence.get("coarse"):
        return False
    folders = [
        str(row[0])
        for row in db.execute("SELECT folder FROM bugs WHERE signature = ?", (verdict.signature,))
    ]
    if len(folders) >= COARSE_TRIGGERS:
        return False
    mine = operator_heads(text)
    stored = [operator_heads(load_record(root / f).formula()) for f in folders]
    return all(mine != theirs for theirs in stored)
