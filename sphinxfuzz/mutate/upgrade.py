"""Seeds written for cvc4 or an early cvc5: today's names for their operators.

Bug trackers keep formulas in the syntax of the release they were filed against: cvc4 1.8's
`(member x s)`, `(card s)`, `(as emptyset (Set Int))`, SMT-LIB 2.5's `str.in.re`. cvc5 1.x
rejects every one of them, and so does z3, so such a seed would be set aside. Renamed to
the names cvc5 and SMT-LIB 2.6 use now (`old_names.json`, the table), it is the same
formula in a syntax the targets read. cvc4's empty tuple, its sort `Tuple` or `(Tuple)` and
its value `mkTuple` or `(mkTuple)`, has a name of its own today (`UnitTuple`, `tuple.unit`;
the table's `nullary`). A name the script declares, defines or binds itself is its own
symbol and stays.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.smtlib import Atom, Node, Script, SList, print_script, walk
from sphinxfuzz.smtlib.vocabulary import (
    BINDERS,
    OPTION_COMMANDS,
    SORT_DECLARING,
    SYMBOL_DECLARING,
    SYMBOLS_DECLARING,
)

TABLE = Path(__file__).with_name("old_names.json")
_WITH_PARAMETERS = frozenset({"define-fun", "define-fun-rec"})


@dataclass(frozen=True)
class OldNames:
    renamed: dict[str, str]  # old name -> today's
    indexed: dict[str, int]  # operator -> how many trailing numerals its indices take
    nullary: dict[str, str]  # old name, with no arguments -> today's name of that constant


@cache
def old_names() -> OldNames:
    data = json.loads(TABLE.read_text(encoding="utf-8"))
    indexed = {k: int(v) for k, v in data["indexed"].items()}
    return OldNames(dict(data["renamed"]), indexed, dict(data["nullary"]))


def upgraded(seed: Seed) -> Seed | None:
    """The seed with today's names for the old operators it uses and does not declare
    itself; None when it uses none."""
    table = old_names()
    own = own_names(seed.script)
    renamed = {old: new for old, new in table.renamed.items() if old not in own}
    indexed = {name: n for name, n in table.indexed.items() if name not in own}
    nullary = {old: new for old, new in table.nullary.items() if old not in own}
    changed = False
    commands = []
    for command in seed.script.commands:
        if command.head_name() in OPTION_COMMANDS:  # attribute values are not terms
            commands.append(command)
            continue
        new = _upgrade(command, _Names(renamed, indexed, nullary))
        changed = changed or new is not command
        commands.append(new)
    if not changed:
        return None
    script = Script(commands, seed.script.filename)
    return replace(seed, script=script, text=print_script(script))


@dataclass(frozen=True)
class _Names:
    """The table's names the script leaves to their old meaning (not its own)."""

    renamed: dict[str, str]
    indexed: dict[str, int]
    nullary: dict[str, str]


def _upgrade(command: SList, names: _Names) -> SList:
    """`command` with old names renamed and old-style indexed applications rebuilt; the same
    object when nothing changed (the seed's script is never changed in place). Children
    before parents, without recursion: seeds nest deeper than Python's stack."""
    done: dict[int, Node] = {}
    stack: list[tuple[SList, bool]] = [(command, False)]
    while stack:
        node, children_done = stack.pop()
        if not children_done:
            stack.append((node, True))
            stack.extend((item, False) for item in node.items if isinstance(item, SList))
            continue
        items = [
            done[id(item)] if isinstance(item, SList) else _renamed(item, index > 0, names)
            for index, item in enumerate(node.items)
        ]
        done[id(node)] = _rebuilt(node, items, names)
    new = done[id(command)]
    return new if isinstance(new, SList) else command  # `(mkTuple)` is no command


def _renamed(atom: Atom, alone: bool, names: _Names) -> Atom:
    """`atom` renamed; `alone` when it is no list's head (so a constant or a sort)."""
    if atom.kind != "symbol":
        return atom
    new = names.nullary.get(atom.name) if alone else None
    new = new or names.renamed.get(atom.name)
    return atom if new is None else Atom(new, "symbol", atom.pos)


def _rebuilt(node: SList, items: list[Node], names: _Names) -> Node:
    """`node` over its upgraded `items`: `(re.loop r 1 3)` becomes `((_ re.loop 1 3) r)`,
    `(mkTuple)` becomes `tuple.unit`."""
    head = node.head_name() or ""
    if len(node.items) == 1 and head in names.nullary:
        return Atom(names.nullary[head], "symbol", node.pos)
    count = names.indexed.get(head)
    if count is not None and len(items) == count + 2:  # the operator, one argument, numerals
        numerals = items[2:]
        if all(isinstance(n, Atom) and n.kind == "numeral" for n in numerals):
            indexed = SList([Atom("_", "symbol"), items[0], *numerals], node.pos)
            return SList([indexed, items[1]], node.pos)
    if all(new is old for new, old in zip(items, node.items, strict=True)):
        return node
    return SList(items, node.pos)


def own_names(script: Script) -> set[str]:
    """Every name the script gives a meaning to: declared or defined symbols and sorts,
    datatype constructors and selectors, parameters, bound variables, `:named` labels."""
    names: set[str] = set()
    for command in script.commands:
        head, items = command.head_name(), command.items
        if head in SYMBOL_DECLARING and len(items) > 1:
            names.update(_symbols(items[1:2]))
            if head in _WITH_PARAMETERS and len(items) > 2 and isinstance(items[2], SList):
                names.update(_first_symbols(items[2]))  # parameters
        elif head in SYMBOLS_DECLARING and len(items) > 1 and isinstance(items[1], SList):
            for declaration in items[1].items:
                if isinstance(declaration, SList) and declaration.items:
                    names.update(_symbols(declaration.items[:1]))
                    if len(declaration.items) > 1 and isinstance(declaration.items[1], SList):
                        names.update(_first_symbols(declaration.items[1]))
        elif head in SORT_DECLARING:  # sorts, constructors, selectors, sort parameters
            names.update(a.name for a in walk(command) if isinstance(a, Atom))
        for node in walk(command):
            if isinstance(node, SList):
                names.update(_bound(node))
    return names


def _bound(node: SList) -> set[str]:
    head, items = node.head_name(), node.items
    if head in BINDERS and len(items) > 1:
        if head == "match":  # pattern variables and constructors alike: both are the script's
            cases = items[2] if len(items) > 2 and isinstance(items[2], SList) else SList([])
            return {
                a.name
                for case in cases.items
                if isinstance(case, SList) and case.items
                for a in walk(case.items[0])
                if isinstance(a, Atom)
            }
        return _first_symbols(items[1]) if isinstance(items[1], SList) else set()
    if head == "!":
        return {
            after.name
            for before, after in zip(items, items[1:], strict=False)
            if isinstance(before, Atom) and before.text == ":named" and isinstance(after, Atom)
        }
    return set()


def _symbols(nodes: list[Node]) -> set[str]:
    return {n.name for n in nodes if isinstance(n, Atom) and n.kind == "symbol"}


def _first_symbols(listing: SList) -> set[str]:
    """The names of a list of `(name ...)` pairs: sorted variables, let bindings."""
    return {
        item.items[0].name
        for item in listing.items
        if isinstance(item, SList) and item.items and isinstance(item.items[0], Atom)
    }
