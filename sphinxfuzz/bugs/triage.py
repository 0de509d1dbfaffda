"""Triage: which stored findings are one root cause, so that each group is one report that
lists its other findings (z3's maintainers ask for related findings in one issue).

- crash: one group per crash place (`bugs.shapes.crash_place`): a failed assertion's
  file:line, or the top frames of the stack of a crash signed by it; a crash whose signature
  names no place groups by its whole signature (the store keeps one bug per signature and
  counts its hits). A coarse crash (a bare signal no debugger signed) waits for reduction;
- any other kind, and a coarse crash, once reduced: one group per (kind, blamed solver,
  operator set of the reduced formula, first bad release when bisected): two mutants from
  different theories that reduce to the same division by zero, and broke in the same
  release, are one bug;
- the same kinds while not reduced: one group per (kind, blamed solver, theories of the
  inserted terms, the set of operator heads in the asserted terms); a whole mutant's exact
  structure is never shared, its operators may be.

Groups are computed from the store and the bug folders on every call: they change as bugs
get reduced and bisected, and nothing has to be kept in step. Seed findings group with bugs.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from sphinxfuzz.bugs.record import load_bisection, load_record, read_text
from sphinxfuzz.bugs.shapes import crash_place, formula_shape, operator_heads
from sphinxfuzz.bugs.store import BugRow, Store
from sphinxfuzz.oracle import VerdictKind


@dataclass
class BugGroup:
    id: str  # stable: a hash of the key
    kind: str
    solver: str | None
    key: str  # the place (else the signature) of a crash, the operators of other bugs
    theories: tuple[str, ...]
    bugs: list[BugRow] = field(default_factory=list)

    @property
    def hits(self) -> int:
        """Mutants that hit the group: a crash bug stands for every hit of its signature,
        any other bug is stored once per mutant (its count is 1)."""
        return sum(bug.count for bug in self.bugs)

    @property
    def first_seen(self) -> float:
        return min(bug.found_at for bug in self.bugs)

    @property
    def representative(self) -> BugRow:
        """The bug to show: the first reduced one, else the first found."""
        reduced = [bug for bug in self.bugs if bug.reduced_path.is_file()]
        return (reduced or self.bugs)[0]


def formula_of(bug: BugRow) -> tuple[str, bool]:
    """(the reduced formula when there is one, else the stored trigger; whether reduced)."""
    if bug.reduced_path.is_file():
        return read_text(bug.reduced_path), True
    return load_record(bug.folder).formula(), False


def _coarse(bug: BugRow) -> bool:
    """A crash signed only by its signal: the store kept a few triggers of it
    (`bugs.dedup`), told apart here by their reduced shapes."""
    return bool(load_record(bug.folder).verdict.evidence.get("coarse"))


def _first_bad(bug: BugRow) -> str:
    bisection = load_bisection(bug.folder)
    return (bisection.first_bad or "") if bisection is not None else ""


def group_key(bug: BugRow) -> tuple[str, str | None, tuple[str, ...], str]:
    """(kind, solver, theories, key): theories are part of the key only while unreduced."""
    theories = tuple(sorted(set(bug.theories)))
    kind = str(bug.kind)  # the group id hashes the key: the kind's stored text
    if bug.kind == VerdictKind.CRASH and not _coarse(bug):
        return kind, bug.solver, (), crash_place(bug.signature) or bug.signature
    text, reduced = formula_of(bug)
    if bug.kind == VerdictKind.CRASH and not reduced:  # coarse: together until reduced
        return kind, bug.solver, (), bug.signature
    operators = " ".join(sorted(operator_heads(text)))
    if reduced and operators:
        first = _first_bad(bug)
        return kind, bug.solver, (), operators + (f" (first bad: {first})" if first else "")
    return kind, bug.solver, theories, operators


def group_bugs(bugs: list[BugRow]) -> list[BugGroup]:
    """Distinct bugs, most hits first (then oldest first)."""
    groups: dict[tuple[str, str | None, tuple[str, ...], str], BugGroup] = {}
    for bug in bugs:
        key = group_key(bug)
        if key not in groups:
            digest = hashlib.sha1(repr(key).encode("utf-8")).hexdigest()[:8]
            groups[key] = BugGroup(f"g{digest}", key[0], key[1], key[3], key[2])
        groups[key].bugs.append(bug)
        if not key[2]:  # crashes and reduced bugs: the theories of every member
            groups[key].theories = tuple(sorted({*groups[key].theories, *bug.theories}))
    return sorted(groups.values(), key=lambda g: (-g.hits, g.first_seen, g.id))


def campaign_groups(root: Path) -> list[BugGroup]:
    """The bugs' groups (seed findings apart: `bugs list` shows them in a table of their own)."""
    with Store(root, read_only=True) as store:
        return group_bugs(store.bugs())


def finding_groups(root: Path) -> list[BugGroup]:
    """The groups of every finding, bugs and seed findings alike (one root cause, one issue)."""
    with Store(root, read_only=True) as store:
        return group_bugs(store.bugs() + store.seed_finding_rows())


def related_findings(root: Path, folder: Path) -> list[str]:
    """The other findings of the group of the finding in `folder`, each as "id: signature",
    for its issue text."""
    here = folder.resolve()
    for group in finding_groups(root):
        if any(bug.folder.resolve() == here for bug in group.bugs):
            return [f"{b.id}: {b.signature}" for b in group.bugs if b.folder.resolve() != here]
    return []


__all__ = [
    "BugGroup",
    "campaign_groups",
    "finding_groups",
    "formula_shape",
    "group_bugs",
    "operator_heads",
    "related_findings",
]
