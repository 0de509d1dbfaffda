"""The JSON documents `bugs list --json` and `bugs show --json` print (docs/json-output.md).

Each document names its schema and version in `schema`; fields are only ever added."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinxfuzz.campaign.reduce import REDUCED, load_reduction
from sphinxfuzz.campaign.store import BugRow, safe_name
from sphinxfuzz.campaign.triage import BugGroup


def _bug(row: BugRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "kind": row.kind,
        "solver": row.solver,
        "signature": row.signature,
        "hits": row.count,
        "reduced": (row.folder / REDUCED).is_file(),
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


def bug_json(folder: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """The stored record (verdict.json) with the formulas and every solver's output."""
    formula = folder / ("mutant.smt2" if (folder / "mutant.smt2").is_file() else "seed.smt2")
    reduced = folder / REDUCED
    solvers = []
    for solver in meta.get("solvers") or []:
        streams = {}
        for stream in ("stdout", "stderr"):
            path = folder / f"{safe_name(str(solver['name']))}.{stream}"
            streams[stream] = path.read_text(encoding="utf-8") if path.is_file() else ""
        solvers.append({**solver, **streams})
    return {
        "schema": "sphinxfuzz/bug/1",
        "id": meta.get("id", folder.name),
        "folder": str(folder),
        "verdict": meta.get("verdict"),
        "seed_file": meta.get("seed_file"),
        "campaign_seed": meta.get("campaign_seed"),
        "position": meta.get("position"),
        "mutant": meta.get("mutant"),
        "theories": meta.get("theories", []),
        "formula": formula.read_text(encoding="utf-8") if formula.is_file() else None,
        "reduced": reduced.read_text(encoding="utf-8") if reduced.is_file() else None,
        "reduction": load_reduction(folder),
        "solvers": solvers,
    }
