"""The JSON documents `bugs list --json` and `bugs show --json` print (docs/json-output.md).

Each document names its schema and version in `schema`; fields are only ever added."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.option_drop import bug_standing, campaign_specs
from sphinxfuzz.bugs.record import (
    ALIVE,
    FIXED,
    BugFileError,
    BugRecord,
    Known,
    Reduction,
    Today,
    load_known,
    load_not_reduced,
    load_record,
    load_reduction,
)
from sphinxfuzz.bugs.store import BugRow, StoreError
from sphinxfuzz.bugs.triage import BugGroup
from sphinxfuzz.oracle import VerdictKind
from sphinxfuzz.solvers.options.standing import Standing


def today_of(folder: Path) -> Today | None:
    """The bug's status on the newest release (`bugs refresh`), None when never checked."""
    try:
        return load_record(folder).today
    except BugFileError:
        return None


def status_of(todays: list[Today | None]) -> str:
    """A group's status: alive when any member is, fixed when every member is, else the
    status of a bug not checked (or undecided) yet: "unknown"."""
    statuses = {t.status if t else "unknown" for t in todays}
    if ALIVE in statuses:
        return ALIVE
    return FIXED if statuses == {FIXED} else "unknown"


def _rank(kind: str, status: str) -> tuple[int, int]:
    """Alive bugs first, then the ones not known, then fixed ones; slow findings (a
    performance matter, not a bug) after every bug."""
    return (kind == VerdictKind.SLOW, {ALIVE: 0, FIXED: 2}.get(status, 1))


def alive_first(
    groups: list[BugGroup], rows: list[BugRow], *, only_alive: bool = False
) -> tuple[list[tuple[BugGroup, str]], list[tuple[BugRow, Today | None]]]:
    """Groups with their status and bugs with theirs, alive first (stable otherwise);
    `only_alive` keeps the alive ones only."""
    todays = {row.id: today_of(row.folder) for row in rows}
    ranked_rows = sorted(
        ((row, todays[row.id]) for row in rows),
        key=lambda pair: _rank(pair[0].kind, pair[1].status if pair[1] else "unknown"),
    )
    ranked_groups = sorted(
        ((g, status_of([todays.get(b.id) for b in g.bugs])) for g in groups),
        key=lambda pair: _rank(pair[0].kind, pair[1]),
    )
    if only_alive:
        ranked_rows = [(r, t) for r, t in ranked_rows if t is not None and t.status == ALIVE]
        ranked_groups = [(g, s) for g, s in ranked_groups if s == ALIVE]
    return ranked_groups, ranked_rows


def reduction_and_standing(
    folder: Path, specs: Sequence[str]
) -> tuple[Reduction | None, Standing | None]:
    """The bug's reduction (None: not reduced) and the standing it needs (`bug_standing`;
    None: not told, or a damaged folder, which `bugs list` shows as such elsewhere)."""
    try:
        return load_reduction(folder), bug_standing(load_record(folder), specs)
    except BugFileError:
        return None, None


def reduced_text(reduction: Reduction | None, folder: Path | None = None) -> str:
    """ "1161 -> 90 B", or "no", with why when the campaign's reduction refused it."""
    if reduction is None:
        why = None if folder is None else not_reduced_why(folder)
        return "no" if why is None else f"no: {textwrap.shorten(why, 70, placeholder=' ...')}"
    return f"{reduction.before.bytes} -> {reduction.after.bytes} B"


def not_reduced_why(folder: Path) -> str | None:
    """Why the campaign kept no reduced formula (`bugs.record.NotReduced`), or None."""
    try:
        refused = load_not_reduced(folder)
    except BugFileError as exc:
        return str(exc)
    return None if refused is None else refused.why


def specs_of(root: Path) -> list[str]:
    """The campaign's solver specs, or none when its index cannot tell."""
    try:
        return campaign_specs(root)
    except StoreError:
        return []


def known_of(folder: Path) -> Known | None:
    """The reported bug the finding likely is (`bugs.known`), None when none matched (or
    its known.json is damaged: `bugs list` still lists the finding)."""
    try:
        return load_known(folder)
    except BugFileError:
        return None


def _known_json(folder: Path) -> dict[str, str] | None:
    known = known_of(folder)
    return known.to_json() if known else None


def _bug(row: BugRow, today: Today | None = None, specs: Sequence[str] = ()) -> dict[str, Any]:
    reduction, standing = reduction_and_standing(row.folder, specs)
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
        "today": today.to_json() if today else None,
        "size": reduction.before.to_json() if reduction else None,
        "reduced_size": reduction.after.to_json() if reduction else None,
        "standing": None if standing is None else str(standing),
        "not_reduced": None if reduction else not_reduced_why(row.folder),
        "known": _known_json(row.folder),
    }


def bugs_json(
    root: Path,
    groups: list[BugGroup],
    rows: list[BugRow],
    findings: list[tuple[str, str, str, str | None, str]],
    *,
    only_alive: bool = False,
) -> dict[str, Any]:
    """Alive bugs and groups first (`alive_first`); `status` / `today` say alive or fixed."""
    ranked_groups, ranked_rows = alive_first(groups, rows, only_alive=only_alive)
    specs = specs_of(root)
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
                "status": status,
            }
            for g, status in ranked_groups
        ],
        "bugs": [_bug(r, today, specs) for r, today in ranked_rows],
        "seed_findings": [
            {
                "id": i,
                "seed_file": f,
                "kind": k,
                "solver": s,
                "signature": sig,
                "folder": str(CampaignFolder(root).finding(i)),
                "today": (lambda t: t.to_json() if t else None)(
                    today_of(CampaignFolder(root).finding(i))
                ),
                "known": _known_json(CampaignFolder(root).finding(i)),
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
    standing = bug_standing(record)
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
        "standing": None if standing is None else str(standing),
        "solvers": solvers,
    }
