"""Triage: which stored bugs are one bug.

- crash: one group per normalised crash signature (the store already keeps one bug per
  signature and counts its hits);
- soundness and invalid model, once reduced: one group per (kind, blamed solver, shape of
  the reduced formula), the shape being its asserted terms with every declared or bound name
  replaced by a placeholder numbered in order of appearance and every literal by its kind
  (`<int>`, `<str>`, ...): operators and structure, not names and constants. Two mutants
  from different theories that reduce to the same division by zero are one bug.
- the same kinds while not reduced: one group per (kind, blamed solver, theories of the
  inserted terms, the set of operator heads in the asserted terms); a whole mutant's exact
  structure is never shared, its operators may be.

Groups are computed from the store and the bug folders on every call: they change as bugs
get reduced, and nothing has to be kept in step.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from sphinxfuzz.bugs.record import load_record, read_text
from sphinxfuzz.bugs.store import BugRow, Store
from sphinxfuzz.oracle import VerdictKind
from sphinxfuzz.smtlib import Atom, Node, SList, SmtParseError, parse_script
from sphinxfuzz.smtlib.vocabulary import BINDERS, SYMBOL_DECLARING


@dataclass
class BugGroup:
    id: str  # stable: a hash of the key
    kind: str
    solver: str | None
    key: str  # the signature of a crash, the shape of other bugs
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


def _head(node: SList) -> str | None:
    first = node.items[0] if node.items else None
    if isinstance(first, Atom) and first.kind == "symbol":
        return first.name
    # indexed operators `((_ extract 7 0) x)` and qualified ones `((as const (Array ...)) 0)`
    if isinstance(first, SList) and len(first.items) >= 2 and isinstance(first.items[1], Atom):
        if first.head_name() == "_":
            return first.items[1].name
        if first.head_name() == "as":
            return f"as {first.items[1].name}"
    return None


def operator_heads(text: str) -> set[str]:
    """Operator heads used in the asserted terms; user-declared functions count as `<uf>`."""
    try:
        commands = parse_script(text).commands
    except SmtParseError:
        return set()
    declared = {
        c.items[1].name
        for c in commands
        if c.head_name() in SYMBOL_DECLARING and len(c.items) > 1 and isinstance(c.items[1], Atom)
    }
    heads: set[str] = set()
    stack: list[Node] = [c.items[1] for c in commands if c.head_name() == "assert" and len(c) > 1]
    while stack:
        node = stack.pop()
        if not isinstance(node, SList) or not node.items:
            continue
        head = _head(node)
        items = node.items
        if head == "_":
            continue  # an indexed constant such as (_ bv5 4): a value, not an operator
        if head is not None:
            heads.add("<uf>" if head in declared else head)
        if (head or "").startswith("as "):
            continue  # a sort annotation: no operator inside
        if head in BINDERS and len(items) > 2:
            # the binder list names variables, not operators; keep the bound terms of a let
            if head == "let" and isinstance(items[1], SList):
                stack.extend(
                    b.items[1] for b in items[1].items if isinstance(b, SList) and len(b) == 2
                )
            stack.extend(items[2:])
            continue
        stack.extend(items[1:] if head is not None else items)
    return heads


_LITERALS = {"numeral": "<int>", "decimal": "<real>", "hex": "<bv>", "binary": "<bv>",
             "string": "<str>", "literal": "<lit>"}  # fmt: skip


def formula_shape(text: str) -> str:
    """The asserted terms with names and literals abstracted (see the module docstring);
    asserts sorted and without repeats. "" when the text does not parse."""
    try:
        commands = parse_script(text).commands
    except SmtParseError:
        return ""
    named: set[str] = {
        c.items[1].name
        for c in commands
        if c.head_name() in SYMBOL_DECLARING and len(c.items) > 1 and isinstance(c.items[1], Atom)
    }
    for command in commands:  # bound names, wherever they are bound
        stack: list[Node] = list(command.items)
        while stack:
            node = stack.pop()
            if not isinstance(node, SList):
                continue
            if (
                node.head_name() in BINDERS
                and len(node.items) > 2
                and isinstance(node.items[1], SList)
            ):
                named |= {b.items[0].name for b in node.items[1].items
                          if isinstance(b, SList) and b.items and isinstance(b.items[0], Atom)}  # fmt: skip
            stack.extend(node.items)
    order: dict[str, str] = {}

    def shape(node: Node) -> str:
        if isinstance(node, Atom):
            if node.kind == "symbol" and node.name in named:
                return order.setdefault(node.name, f"x{len(order)}")
            if node.kind == "symbol" and node.name.startswith("bv") and node.name[2:].isdigit():
                return "<bv>"  # the value of (_ bv5 4)
            return _LITERALS.get(node.kind, node.text)
        return "(" + " ".join(shape(item) for item in node.items) + ")"

    asserts = [c.items[1] for c in commands if c.head_name() == "assert" and len(c) > 1]
    try:
        # names are numbered per assert, so the order of the asserts does not matter
        shapes = []
        for term in asserts:
            order.clear()
            shapes.append(shape(term))
    except RecursionError:
        return ""
    return " ".join(sorted(set(shapes)))


def formula_of(bug: BugRow) -> tuple[str, bool]:
    """(the reduced formula when there is one, else the stored trigger; whether reduced)."""
    if bug.reduced_path.is_file():
        return read_text(bug.reduced_path), True
    return load_record(bug.folder).formula(), False


def _coarse(bug: BugRow) -> bool:
    """A crash signed only by its signal: the store kept a few triggers of it
    (`Store._another_trigger`), told apart here by their reduced shapes."""
    return bool(load_record(bug.folder).verdict.evidence.get("coarse"))


def group_key(bug: BugRow) -> tuple[str, str | None, tuple[str, ...], str]:
    """(kind, solver, theories, key): theories are part of the key only while unreduced."""
    theories = tuple(sorted(set(bug.theories)))
    kind = str(bug.kind)  # the group id hashes the key: the kind's stored text
    if bug.kind == VerdictKind.CRASH and not _coarse(bug):
        return kind, bug.solver, (), bug.signature
    text, reduced = formula_of(bug)
    if bug.kind == VerdictKind.CRASH and not reduced:  # coarse: together until reduced
        return kind, bug.solver, (), bug.signature
    if reduced:
        shape = formula_shape(text)
        if shape:
            return kind, bug.solver, (), shape
    return kind, bug.solver, theories, " ".join(sorted(operator_heads(text)))


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
    with Store(root, read_only=True) as store:
        return group_bugs(store.bugs())
