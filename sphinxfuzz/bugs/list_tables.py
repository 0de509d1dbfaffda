"""The tables `bugs list` prints: a campaign's groups, bugs and seed findings as rows of text,
alive first (`bugs.listing.alive_first`). The CLI only aligns and prints them; the same
findings as JSON are `bugs.listing.bugs_json`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.listing import (
    alive_first,
    bugs_json,
    known_of,
    reduced_text,
    reduction_and_standing,
    specs_of,
    today_of,
)
from sphinxfuzz.bugs.record import ALIVE
from sphinxfuzz.bugs.store import BugRow, Store
from sphinxfuzz.bugs.triage import BugGroup, group_bugs

# a seed finding as the index lists it: id, seed file, kind, blamed solver, signature
Finding = tuple[str, str, str, str | None, str]


@dataclass(frozen=True)
class TextTable:
    title: str
    header: tuple[str, ...]
    rows: list[tuple[str, ...]]


@dataclass(frozen=True)
class BugList:
    """What `bugs list` shows of a campaign folder; a table without rows is not shown."""

    root: Path
    groups: TextTable
    bugs: TextTable
    findings: TextTable
    empty: bool  # nothing stored (or, only alive asked, no seed finding alive either)


@dataclass(frozen=True)
class _Stored:
    rows: list[BugRow]
    findings: list[Finding]
    groups: list[BugGroup]
    first: float  # when the first run started: groups show minutes since


def _stored(root: Path) -> _Stored:
    with Store(root, read_only=True) as store:
        rows = store.bugs()
        findings = store.seed_findings()
        first = min((started for _, started, _ in store.runs()), default=0.0)
    return _Stored(rows, findings, group_bugs(rows), first)


def bug_list_json(root: Path, *, only_alive: bool = False) -> dict[str, Any]:
    """`bugs list --json`'s document (docs/json-output.md)."""
    got = _stored(root)
    return bugs_json(root, got.groups, got.rows, got.findings, only_alive=only_alive)


def bug_list(root: Path, *, only_alive: bool = False) -> BugList:
    """Distinct bugs (groups), then every bug, then the seed findings; `only_alive`: those
    the newest release still shows (`bugs refresh`)."""
    got = _stored(root)
    ranked_groups, ranked_rows = alive_first(got.groups, got.rows, only_alive=only_alive)
    groups = TextTable(
        f"distinct bugs in {root}",
        ("group", "status", "kind", "solver", "hits", "bugs", "first seen", "theories",
         "example", "signature / shape"),
        [(g.id, status, g.kind, g.solver or "-", str(g.hits), str(len(g.bugs)),
          f"{(g.first_seen - got.first) / 60:.1f} min", ",".join(g.theories) or "-",
          g.representative.id, g.key) for g, status in ranked_groups],
    )  # fmt: skip
    specs = specs_of(root)
    # reduced: bytes before and after; standing: of the options the bug needs (unknown: ?)
    facts = {r.id: reduction_and_standing(r.folder, specs) for r, _ in ranked_rows}
    bugs = TextTable(
        f"bugs in {root}",
        ("id", "today", "kind", "solver", "hits", "reduced", "standing", "known", "seed",
         "signature"),
        [(r.id, today.sentence() if today else "not checked", r.kind, r.solver or "-",
          str(r.count), reduced_text(facts[r.id][0], r.folder), str(facts[r.id][1] or "?"),
          _known_text(r.folder), Path(r.seed_file).name, r.signature)
         for r, today in ranked_rows],
    )  # fmt: skip
    findings = _finding_table(root, got.findings, only_alive)
    return BugList(root, groups, bugs, findings, not got.rows and not findings.rows)


def _finding_table(root: Path, findings: list[Finding], only_alive: bool) -> TextTable:
    folder = CampaignFolder(root)
    if only_alive:
        findings = [
            f for f in findings if (t := today_of(folder.finding(f[0]))) and t.status == ALIVE
        ]
    return TextTable(
        "seed findings (the unmutated seed already misbehaves)",
        ("id", "today", "kind", "solver", "known", "seed", "signature"),
        [(i, _today_text(folder.finding(i)), k, s or "-", _known_text(folder.finding(i)),
          Path(f).name, sig) for i, f, k, s, sig in findings],
    )  # fmt: skip


def _known_text(folder: Path) -> str:
    """ "likely z3#3453" for a finding `bugs.known` recognised, else "-"."""
    known = known_of(folder)
    return f"likely {known.label}" if known else "-"


def _today_text(folder: Path) -> str:
    today = today_of(folder)
    return today.sentence() if today else "not checked"
