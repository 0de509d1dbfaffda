"""The JSON documents `bugs list --json` and `bugs show --json` print (docs/json-output.md).

Each document names its schema and version in `schema`; fields are only ever added."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinxfuzz.bugs.record import BugRecord, load_reduction
from sphinxfuzz.bugs.store import BugRow
from sphinxfuzz.bugs.triage import BugGroup


def _bug(row: BugRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "kind": row.kind,
        "solver": row.solver,
        "signature": row.signature,
        "hits": row.count,
        "reduced": row.reduced_path.is_file(),
        "seed_file": row.seed_file,
        "position": row.position,
        "mutant": row.mutant,
        "theories": list(row.theories),
        "found_at": row.found_at,
        "folder": str(row.folder),
    }


def bugs_json(
    root: Path,
    groups: list[BugGroup],
    rows: list[BugRow],
    findings: list[tuple[str, str, str, str | None, str]],
) -> dict[str, Any]:
    return {
        "schema": "sphinxfuzz/bugs-list/1",
        "campaign": str(root),
        "groups": [
            {
                "id": g.id,
                "kind": g.kind,
                "solver": g.solver,
                "key": g.key,
                "theories": list(g.theories),
                "hits": g.hits,
                "bugs": [b.id for b in g.bugs],
                "example": g.representative.id,
                "first_seen": g.first_seen,
            }
            for g in groups
        ],
        "bugs": [_bug(r) for r in rows],
        "seed_findings": [
            {
                "id": i,
                "seed_file": f,
                "kind": k,
                "solver": s,
                "signature": sig,
                "folder": str(root / "seed-findings" / i),
            }
            for i, f, k, s, sig in findings
        ],  # fmt: skip
    }


def bug_json(record: BugRecord) -> dict[str, Any]:
    """The stored record (verdict.json) with the formulas and every solver's output."""
    solvers = [
        {**s.to_json(), "stdout": record.output(s.name, "stdout"),
         "stderr": record.output(s.name, "stderr")}
        for s in record.solvers
    ]  # fmt: skip
    reduction = load_reduction(record.folder)
    stored = record.to_json()
    return {
        "schema": "sphinxfuzz/bug/1",
        "id": record.id,
        "folder": str(record.folder),
        "verdict": stored["verdict"],
        "seed_file": record.seed_file,
        "campaign_seed": stored.get("campaign_seed"),
        "position": stored.get("position"),
        "mutant": stored.get("mutant"),
        "theories": stored.get("theories", []),
        "formula": record.formula(),
        "reduced": record.reduced(),
        "reduction": reduction.to_json() if reduction else None,
        "solvers": solvers,
    }
