"""Filling placeholders: generated terms, adapted to the sorts in scope at the placeholder.

For each chosen atom the filler asks a generator for (declarations, term), learns the sorts of
the term's fresh symbols from the declarations, renames fresh constants to seed variables of
the same sort that are visible there (with probability `rename_prob`), gives every other fresh
symbol a name no other symbol of the script has, and puts the remaining declarations right
before the assertion (same push/pop level, so they are in scope exactly where they are used).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from sphinxfuzz.smtlib import (
    Atom,
    Node,
    Script,
    SList,
    SmtParseError,
    infer_sorts,
    walk,
)
from sphinxfuzz.smtlib.generated import read_generated
from sphinxfuzz.smtlib.infer import SortInfo, TermSite
from sphinxfuzz.smtlib.sorts import BOOL, Sort
from sphinxfuzz.smtlib.vocabulary import BINDERS, GENERATOR_DECLARING


class TermSource(Protocol):
    """Where terms come from: the catalogue's generator pool, or test generators."""

    @property
    def theories(self) -> Sequence[str]: ...

    def generate(self, theory: str, seed: int) -> tuple[str, str]: ...


@dataclass
class Insertion:
    """One filled placeholder, for statistics and triage."""

    theory: str
    renamed: int  # fresh constants renamed to seed variables
    fresh: int  # fresh symbols kept (renamed apart)


@dataclass
class FillReport:
    insertions: list[Insertion] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # why a generated term was not used


class FreshNames:
    """Allocates symbol names that clash with nothing in the script or allocated before."""

    def __init__(self, used: set[str]) -> None:
        self.used = used

    def fresh(self, base: str) -> str:
        stem = base.rstrip("0123456789_") or "v"
        if base not in self.used:
            self.used.add(base)
            return base
        counter = 1
        while f"{stem}_{counter}" in self.used:
            counter += 1
        name = f"{stem}_{counter}"
        self.used.add(name)
        return name


def symbol_names(script: Script) -> set[str]:
    # a plain stack, not `walk`: this reads every node of each mutant that becomes a base
    names: set[str] = set()
    stack: list[Node] = list(script.commands)
    while stack:
        node = stack.pop()
        if isinstance(node, SList):
            stack.extend(node.items)
        elif node.kind == "symbol":
            names.add(node.name)
    return names


def _declared_names(commands: list[SList]) -> tuple[dict[str, str], set[str]]:
    """Names each declaration introduces: symbol -> kind ('const', 'fun', 'sort', 'ctor'...),
    plus the constructor names (their `is-C` testers need renaming too)."""
    names: dict[str, str] = {}
    constructors: set[str] = set()
    for command in commands:
        head = command.head_name()
        items = command.items
        if head in ("declare-const", "declare-fun") and isinstance(items[1], Atom):
            nullary = head == "declare-const" or (
                isinstance(items[2], SList) and not items[2].items
            )
            names[items[1].name] = "const" if nullary else "fun"
        elif head in ("define-fun", "define-fun-rec", "define-const") and isinstance(
            items[1], Atom
        ):
            names[items[1].name] = "fun"
        elif head == "define-funs-rec" and isinstance(items[1], SList):
            for decl in items[1].items:
                if isinstance(decl, SList) and decl.items and isinstance(decl.items[0], Atom):
                    names[decl.items[0].name] = "fun"
        elif head in ("declare-sort", "define-sort") and isinstance(items[1], Atom):
            names[items[1].name] = "sort"
        elif head in ("declare-datatype", "declare-datatypes"):
            _datatype_names(command, names, constructors)
    return names, constructors


def _datatype_names(command: SList, names: dict[str, str], constructors: set[str]) -> None:
    items = command.items
    if command.head_name() == "declare-datatype":
        sorts = [items[1]]
        bodies = [items[2]]
    else:
        first, second = items[1], items[2]
        if not isinstance(first, SList) or not isinstance(second, SList):
            return
        if first.items and all(isinstance(i, SList) for i in first.items):
            sorts = [i.items[0] for i in first.items if isinstance(i, SList) and i.items]
            bodies = list(second.items)
        else:  # legacy: (params) ((Name ctor ...) ...)
            sorts = [d.items[0] for d in second.items if isinstance(d, SList) and d.items]
            bodies = [SList(d.items[1:]) for d in second.items if isinstance(d, SList)]
    for sort in sorts:
        if isinstance(sort, Atom):
            names[sort.name] = "sort"
    for body in bodies:
        if isinstance(body, SList) and body.head_name() == "par" and len(body.items) == 3:
            body = body.items[2]
        if not isinstance(body, SList):
            continue
        for ctor in body.items:
            ctor_name = ctor if isinstance(ctor, Atom) else (ctor.items[0] if ctor.items else None)
            if isinstance(ctor_name, Atom):
                names[ctor_name.name] = "ctor"
                constructors.add(ctor_name.name)
            if isinstance(ctor, SList):
                for selector in ctor.items[1:]:
                    if (
                        isinstance(selector, SList)
                        and selector.items
                        and isinstance(selector.items[0], Atom)
                    ):
                        names[selector.items[0].name] = "selector"


def _rename(node: Node, mapping: dict[str, str]) -> Node:
    if isinstance(node, Atom):
        if node.kind == "symbol":
            new = mapping.get(node.name)
            if new is not None:
                return Atom(new if _simple(new) else f"|{new}|", "symbol", node.pos)
        return node
    if node.head_name() == "_":  # an indexed identifier: `(_ bv0 4)` is no constant bv0
        return node
    return SList([_rename(item, mapping) for item in node.items], node.pos)


def _simple(name: str) -> bool:
    from sphinxfuzz.smtlib.lexer import is_simple_symbol

    return is_simple_symbol(name)


def _bound_inside(term: Node) -> set[str]:
    """Every name a binder inside the generated term introduces (renaming a fresh constant to
    one of these would be captured)."""
    bound: set[str] = set()
    for node in walk(term):
        if isinstance(node, SList) and node.head_name() in BINDERS and len(node.items) >= 2:
            for var in walk(node.items[1]):
                if isinstance(var, Atom) and var.kind == "symbol":
                    bound.add(var.name)
    return bound


@dataclass
class Generated:
    """A generated term made ready for one placeholder."""

    declarations: list[SList]
    term: Node
    renamed: int
    fresh: int


def adapt(
    decls_text: str,
    term_text: str,
    visible: dict[str, Sort],
    names: FreshNames,
    rng: random.Random,
    rename_prob: float,
) -> Generated:
    """Parse and type a generated (declarations, term) pair and adapt it to a placeholder where
    `visible` variables are in scope. Raises ValueError when the pair is unusable."""
    commands, term, info = _bool_term(decls_text, term_text)
    declared, constructors = _declared_names(commands)
    captured = _bound_inside(term)
    by_sort: dict[Sort, list[str]] = {}
    for name, var_sort in visible.items():
        if name not in captured:
            by_sort.setdefault(var_sort, []).append(name)
    mapping, renamed_to_seed = _names_for(
        declared, info.symbols.constants(), by_sort, names, rng, rename_prob
    )
    for ctor in constructors:  # legacy testers `is-C`
        mapping[f"is-{ctor}"] = f"is-{mapping[ctor]}"
    kept = [
        _rename(c, mapping)
        for c in commands
        if not (
            c.head_name() in ("declare-const", "declare-fun")
            and isinstance(c.items[1], Atom)
            and c.items[1].name in renamed_to_seed
        )
    ]
    return Generated(
        [c for c in kept if isinstance(c, SList)],
        _rename(term, mapping),
        len(renamed_to_seed),
        len(declared) - len(renamed_to_seed),
    )


def _bool_term(decls_text: str, term_text: str) -> tuple[list[SList], Node, SortInfo]:
    """(the declaring commands, the term, their sorts) of a generated pair whose term is Bool;
    raises ValueError otherwise."""
    try:
        pair = read_generated(decls_text, term_text)  # as the capability check read it
    except SmtParseError as exc:
        raise ValueError(f"generated text does not parse: {exc}") from None
    term, info = pair.term, pair.info
    commands = [c for c in pair.commands if c.head_name() in GENERATOR_DECLARING]
    if len(commands) < len(pair.commands):  # typed without the other commands
        check = Script([*commands, SList([Atom("assert", "symbol"), term])], "<generated>")
        info = infer_sorts(check)
    sort = info.sort_of(term)
    if sort != BOOL:
        raise ValueError(f"generated term is not Bool (sort {sort})")
    return commands, term, info


def _names_for(
    declared: dict[str, str],
    constants: Mapping[str, Sort],
    by_sort: dict[Sort, list[str]],
    names: FreshNames,
    rng: random.Random,
    rename_prob: float,
) -> tuple[dict[str, str], set[str]]:
    """(each declared name's new name, those renamed to a seed variable of `by_sort`): a
    constant becomes a seed variable of its sort with probability `rename_prob`, anything
    else a fresh name."""
    mapping: dict[str, str] = {}
    renamed_to_seed: set[str] = set()
    fresh_sorts = {name for name, kind in declared.items() if kind == "sort"}
    for name in sorted(declared):
        kind = declared[name]
        if (
            kind == "const"
            and name in constants
            and not _mentions(constants[name], fresh_sorts)  # its sort is renamed apart
            and rng.random() < rename_prob
        ):
            candidates = by_sort.get(constants[name])
            if candidates:
                mapping[name] = rng.choice(sorted(candidates))
                renamed_to_seed.add(name)
                continue
        mapping[name] = names.fresh(name)
    return mapping, renamed_to_seed


def _mentions(sort: Sort, names: set[str]) -> bool:
    return sort.name in names or any(_mentions(arg, names) for arg in sort.args)


def visible_at(site: TermSite, constants_at: dict[int, dict[str, Sort]]) -> dict[str, Sort]:
    """Seed variables usable at a placeholder: declared constants of the script at that
    assertion, shadowed by the binders (quantifier, let, match) around the placeholder."""
    visible = dict(constants_at.get(site.command, {}))
    visible.update(site.env)
    return visible
