"""The filing queue: which findings to report, in the order the solvers' maintainers ask, at
the pace they ask.

Per family, in cvc5's fuzzing guidelines' order (z3's maintainers rank alike): a wrong unsat
(refutational soundness), a wrong sat (solution soundness), an invalid model, a crash under
default options, a crash under regular options, then the rest (an incompleteness). Findings
that need an expert option (`solvers.options.standing.Standing.EXPERT`, which maintainers
decline: z3#3399, #4077) come only when asked for, marked.

An entry passes every gate, or is listed apart with the first gate it fails:
- its kind is one maintainers take (not a seed's unresolved disagreement, not a slow answer);
- alive in the family's newest release (`bugs refresh`: `Today`);
- reduced (`reduce.json`), and valid: the reduced formula read by the other family's newest
  release without an error line (the reduction's `reference`);
- not likely known (`bugs.known`);
- its standing known and not expert (unless asked);
- one per root cause (`bugs.triage`): the group's other findings go into its issue text.

At most `PER_WEEK` entries per family are queued per week (cvc5 asks for at most three
reports per fuzzing team per week). queue.json in the campaign folder records what was queued
when: an entry keeps its slot, and the next ones take the slots a week frees.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.issue_text import IssueText, issue, load_facts
from sphinxfuzz.bugs.known import recognise
from sphinxfuzz.bugs.option_drop import bug_standing
from sphinxfuzz.bugs.record import (
    ALIVE,
    BugFileError,
    BugRecord,
    load_known,
    load_not_reduced,
    load_record,
    load_reduction,
)
from sphinxfuzz.bugs.store import BugRow, StoreError
from sphinxfuzz.bugs.triage import BugGroup, finding_groups
from sphinxfuzz.errors import InputError
from sphinxfuzz.fileio import write_atomic
from sphinxfuzz.oracle import VerdictKind
from sphinxfuzz.solvers.options.standing import Standing

PER_WEEK = 3
WEEK = 7 * 24 * 3600.0

# the maintainers' order; an entry's category is one of these
WRONG_UNSAT = "wrong unsat"
WRONG_SAT = "wrong sat"
INVALID_MODEL = "invalid model"
CRASH_DEFAULT = "crash under default options"
CRASH_REGULAR = "crash under regular options"
INCOMPLETE = "incompleteness"
ORDER = (WRONG_UNSAT, WRONG_SAT, INVALID_MODEL, CRASH_DEFAULT, CRASH_REGULAR, INCOMPLETE)


@dataclass(frozen=True)
class Entry:
    id: str
    folder: Path
    family: str
    category: str  # one of ORDER ("" for a kind maintainers do not take)
    standing: Standing | None
    group: str  # its root cause's group id
    related: tuple[str, ...]  # the group's other findings
    reason: str = ""  # why it is held back ("" when it passes every gate)
    queued_at: float | None = None  # when it took its slot in the week's queue
    issue: IssueText | None = None

    @property
    def expert(self) -> bool:
        return self.standing == Standing.EXPERT

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "folder": str(self.folder), "family": self.family,
            "category": self.category,
            "standing": None if self.standing is None else str(self.standing),
            "expert": self.expert, "group": self.group, "related": list(self.related),
            "reason": self.reason or None, "queued_at": self.queued_at,
            "title": self.issue.title if self.issue else None,
            "issue": self.issue.markdown if self.issue else None,
        }  # fmt: skip


@dataclass(frozen=True)
class FilingQueue:
    campaign: Path
    per_week: int
    expert: bool
    queued: list[Entry]  # this week's, per family in the maintainers' order
    waiting: list[Entry]  # passed every gate; over the week's cap (`reason` says when)
    held: list[Entry]  # failed a gate (`reason`)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "sphinxfuzz/queue/1",
            "campaign": str(self.campaign),
            "per_week": self.per_week,
            "expert": self.expert,
            "queued": [e.to_json() for e in self.queued],
            "waiting": [e.to_json() for e in self.waiting],
            "held": [e.to_json() for e in self.held],
        }


def category(record: BugRecord, standing: Standing | None) -> str:
    """Where the finding stands in the maintainers' order ("" for a kind they do not take):
    a soundness verdict is a wrong unsat or a wrong sat by what the blamed solver answered."""
    kind = record.verdict.kind
    if kind == VerdictKind.SOUNDNESS:
        blamed = record.summary_of(record.verdict.solver)
        answers = blamed.answers if blamed else ()
        return WRONG_SAT if "sat" in answers and "unsat" not in answers else WRONG_UNSAT
    if kind == VerdictKind.INVALID_MODEL:
        return INVALID_MODEL
    if kind == VerdictKind.CRASH:
        return CRASH_DEFAULT if standing == Standing.DEFAULT else CRASH_REGULAR
    if kind == VerdictKind.INCOMPLETENESS:
        return INCOMPLETE
    return ""


def gate(record: BugRecord, standing: Standing | None, expert: bool) -> str:
    """The first gate the finding fails, in words, or "" when it passes them all."""
    if not category(record, standing):
        return f"a {record.verdict.kind} finding is not a report maintainers take"
    today = record.today
    if today is None:
        return "not checked on the newest release yet (refresh it)"
    if today.status != ALIVE:
        return f"not alive: {today.sentence()}"
    reduction = load_reduction(record.folder)
    if reduction is None:
        why = load_not_reduced(record.folder)
        return f"not reduced: {why.why}" if why else "not reduced"
    reference = reduction.reference or {}
    if not reference.get("accepted"):
        return f"not valid: the reduced formula is {reduction.reference_sentence()}"
    known = load_known(record.folder)
    if known is not None:
        return f"likely known: {known.label} ({known.link})"
    if standing is None:
        return "the standing of its options is not known"
    if standing == Standing.EXPERT and not expert:
        return "needs an expert option (maintainers decline those; shown when expert findings are asked for)"
    return ""


def _log_path(root: Path) -> Path:
    return CampaignFolder(root).queue


def read_log(root: Path) -> dict[str, dict[str, Any]]:
    """queue.json: finding id -> {family, group, at} of every entry ever queued."""
    path = _log_path(root)
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        entries = data["queued"]
        return {str(e["id"]): {"family": str(e["family"]), "group": str(e["group"]),
                               "at": float(e["at"])} for e in entries}  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{path}: not a filing queue record ({exc})") from None


def _write_log(root: Path, log: dict[str, dict[str, Any]]) -> None:
    entries = [
        {"id": ident, **entry} for ident, entry in sorted(log.items(), key=lambda i: i[1]["at"])
    ]
    data = {"schema": "sphinxfuzz/queue-log/1", "queued": entries}
    try:
        write_atomic(_log_path(root), json.dumps(data, indent=1) + "\n")
    except OSError as exc:
        raise StoreError(f"{_log_path(root)}: cannot be written ({exc.strerror or exc})") from None


def _family(record: BugRecord) -> str:
    blamed = record.summary_of(record.verdict.solver)
    return str(blamed.family) if blamed else "other"


def _candidates(
    root: Path, groups: Sequence[BugGroup], expert: bool, known: Path | None, record: bool
) -> tuple[list[Entry], list[Entry]]:
    """(one passing entry per group, in the maintainers' order; every finding held back)."""
    passing, held = [], []
    for group in groups:
        chosen: Entry | None = None
        for row in group.bugs:
            entry = _entry(row, group, expert, known, record)
            if entry is None:
                continue
            if entry.reason or chosen is not None:
                reason = entry.reason or f"the same root cause as {chosen.id if chosen else ''}"
                held.append(Entry(**{**entry.__dict__, "reason": reason}))
            else:
                chosen = entry
        if chosen is not None:
            passing.append(chosen)
    rank = {name: index for index, name in enumerate(ORDER)}
    passing.sort(key=lambda e: (e.family, rank[e.category]))
    return passing, held


def _entry(
    row: BugRow, group: BugGroup, expert: bool, known: Path | None, record: bool
) -> Entry | None:
    try:
        found = load_record(row.folder)
    except BugFileError:
        return None  # `bugs list` names the damaged folder
    if record:  # our own findings and seed names cost nothing; the corpus only when given
        recognise(row.folder, known)
    standing = bug_standing(found)
    related = tuple(f"{b.id}: {b.signature}" for b in group.bugs if b.id != row.id)
    return Entry(row.id, row.folder, _family(found), category(found, standing), standing,
                 group.id, related, gate(found, standing, expert))  # fmt: skip


def filing_queue(
    root: Path,
    *,
    per_week: int = PER_WEEK,
    expert: bool = False,
    known: Path | None = None,
    now: Callable[[], float] = time.time,
    record: bool = True,
) -> FilingQueue:
    """The campaign's filing queue (see the module docstring); new entries are recorded in
    its queue.json. `known`: a folder of upstream reproducers to recognise findings by
    (`bugs.known`), else what each finding's known.json says. `record` False writes nothing
    (no queue.json, no known.json: the report reads a folder that may be read-only) and
    shows what would be queued now."""
    if per_week < 1:
        raise InputError(f"per_week {per_week}: at least one report a week", setting="per_week")
    passing, held = _candidates(root, finding_groups(root), expert, known, record)
    log = read_log(root)
    moment = now()
    queued, waiting = [], []
    for entry in passing:
        week = [e for e in log.values() if e["family"] == entry.family and e["at"] > moment - WEEK]
        if entry.id in log:
            at = log[entry.id]["at"]
            if at > moment - WEEK:
                queued.append(_with_issue(entry, at))
            continue  # queued in an earlier week: filed then
        if len(week) < per_week:
            log[entry.id] = {"family": entry.family, "group": entry.group, "at": moment}
            queued.append(_with_issue(entry, moment))
            continue
        free = time.strftime("%Y-%m-%d", time.gmtime(min(e["at"] for e in week) + WEEK))
        reason = f"{per_week} {entry.family} report(s) queued this week; next slot {free}"
        waiting.append(Entry(**{**entry.__dict__, "reason": reason}))
    if record and any(e.queued_at == moment for e in queued):
        _write_log(root, log)
    return FilingQueue(root, per_week, expert, queued, waiting, held)


def _with_issue(entry: Entry, at: float) -> Entry:
    text = issue(load_facts(entry.folder), entry.related)
    return Entry(**{**entry.__dict__, "queued_at": at, "issue": text})
