"""Pieces of a seed the metamorphic strategies work on: its assertions, declarations, free
constants, the names it binds, and renaming a seed's symbols apart from another's."""

from __future__ import annotations

from dataclasses import dataclass

from sphinxfuzz.smtlib import Atom, Node, Script, SList, copy_node, infer_sorts, sym, walk
from sphinxfuzz.smtlib.vocabulary import BINDERS, SYMBOL_DECLARING

# commands that make two seeds' declarations clash in ways renaming constants cannot fix
UNMERGEABLE = {
    "declare-sort",
    "define-sort",
    "declare-datatype",
    "declare-datatypes",
    "define-funs-rec",
    "push",
    "pop",
    "reset",
    "reset-assertions",
    "check-sat-assuming",
}
DROPPED = {
    "check-sat",
    "exit",
    "get-model",
    "get-value",
    "get-info",
    "get-assignment",
    "get-unsat-core",
    "get-proof",
    "set-info",
    "set-option",
    "set-logic",
    "echo",
}


@dataclass
class SeedParts:
    """A single-query seed split into its declarations (in order) and its assertions."""

    declarations: list[SList]
    assertions: list[Node]
    constants: dict[str, str]  # free constant name -> sort text (declared with no arguments)
    bound: set[str]  # every name some binder binds (replacing those is unsafe)


def single_query(script: Script) -> bool:
    heads = [c.head_name() for c in script.commands]
    return heads.count("check-sat") == 1 and not UNMERGEABLE.intersection(heads)


def split(script: Script) -> SeedParts:
    declarations: list[SList] = []
    assertions: list[Node] = []
    constants: dict[str, str] = {}
    for command in script.commands:
        head = command.head_name()
        if head == "assert":
            assertions.append(command.items[1])
        elif head in DROPPED:
            continue
        else:
            declarations.append(command)
            if head == "declare-const":
                constants[_name(command.items[1])] = _text(command.items[2])
            elif (
                head == "declare-fun"
                and isinstance(command.items[2], SList)
                and not command.items[2].items
            ):
                constants[_name(command.items[1])] = _text(command.items[3])
    return SeedParts(declarations, assertions, constants, bound_names(script))


def bound_names(script: Script) -> set[str]:
    names: set[str] = set()
    for command in script.commands:
        for node in walk(command):
            if not (isinstance(node, SList) and node.head_name() in BINDERS and len(node) > 1):
                continue
            binding = node.items[1] if node.head_name() != "match" else SList([])
            for item in binding.items if isinstance(binding, SList) else []:
                if isinstance(item, SList) and item.items and isinstance(item.items[0], Atom):
                    names.add(item.items[0].name)
            if node.head_name() == "match" and len(node) > 2 and isinstance(node.items[2], SList):
                for case in node.items[2].items:  # pattern variables
                    if isinstance(case, SList) and case.items:
                        names.update(a.name for a in walk(case.items[0]) if isinstance(a, Atom))
    return names


def declared_names(script: Script) -> set[str]:
    names = {_name(c.items[1]) for c in script.commands if c.head_name() in SYMBOL_DECLARING}
    for command in script.commands:  # (! t :named n) declares n
        for node in walk(command):
            if isinstance(node, SList) and node.head_name() == "!":
                items = node.items
                names.update(
                    _name(following)
                    for item, following in zip(items, items[1:], strict=False)
                    if isinstance(item, Atom) and item.text == ":named"
                )
    return names


def rename_apart(script: Script, taken: set[str], suffix: str) -> tuple[Script, dict[str, str]]:
    """A copy of `script` whose declared and named symbols get fresh names (not in `taken`)."""
    mapping: dict[str, str] = {}
    for name in sorted(declared_names(script)):
        fresh = f"{name}{suffix}"
        while fresh in taken:
            fresh += "_"
        mapping[name] = fresh
    commands = [_rename(command, mapping) for command in script.commands]
    return Script(commands, script.filename), mapping  # type: ignore[arg-type]


def _rename(node: Node, mapping: dict[str, str]) -> Node:
    if isinstance(node, Atom):
        if node.kind == "symbol" and node.name in mapping:
            return sym(mapping[node.name])
        return node
    return SList([_rename(item, mapping) for item in node.items], node.pos)


def substitute(node: Node, values: dict[str, Node]) -> Node:
    """`node` with every symbol named in `values` replaced by a copy of its term."""
    if isinstance(node, Atom):
        if node.kind == "symbol" and node.name in values:
            return copy_node(values[node.name])
        return node
    return SList([substitute(item, values) for item in node.items], node.pos)


def is_quantifier_free(script: Script) -> bool:
    return not any(
        isinstance(n, SList) and n.head_name() in ("forall", "exists")
        for c in script.commands
        for n in walk(c)
    )


def fully_sorted(script: Script) -> bool:
    return infer_sorts(script).fully_sorted


def _name(node: Node) -> str:
    return node.name if isinstance(node, Atom) else ""


def _text(node: Node) -> str:
    from sphinxfuzz.smtlib import print_node

    return print_node(node)
