"""The node model: a script is a list of commands, each an `SList` of `Atom`s and `SList`s.

S-expressions are kept as read (token text verbatim, positions attached) rather than turned
into a typed AST: printing stays faithful to what the solver saw, and mutation is a matter of
swapping a child node. Sorts and scopes live beside the tree (see `infer.py`).
"""

from __future__ import annotations

from collections.abc import Container, Iterator
from typing import overload

Pos = tuple[int, int]  # (line, column), both 1-based


class Atom:
    """A token: symbol, keyword, numeral, decimal, hex, binary, string or other #-literal."""

    __slots__ = ("text", "kind", "pos", "name")

    def __init__(self, text: str, kind: str, pos: Pos = (0, 0)) -> None:
        self.text = text
        self.kind = kind
        self.pos = pos
        # The symbol's identity: `|x|` and `x` name the same symbol. Found once (atoms are
        # never changed in place): sort inference and every walk ask it of each atom.
        self.name = text[1:-1] if kind == "symbol" and len(text) >= 2 and text[0] == "|" else text

    def is_symbol(self, name: str | None = None) -> bool:
        return self.kind == "symbol" and (name is None or self.name == name)

    def __repr__(self) -> str:
        return f"Atom({self.text!r}, {self.kind!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Atom) and self.kind == other.kind and self.name == other.name

    def __hash__(self) -> int:
        return hash((self.kind, self.name))


class SList:
    """A parenthesised list of nodes."""

    __slots__ = ("items", "pos")

    def __init__(self, items: list[Node], pos: Pos = (0, 0)) -> None:
        self.items = items
        self.pos = pos

    def head_name(self) -> str | None:
        """Name of the first item when it is a symbol (the command or operator name)."""
        if self.items:
            first = self.items[0]
            if isinstance(first, Atom) and first.kind == "symbol":
                return first.name
        return None

    def operator_name(self) -> str | None:
        """The operator of an application: its head symbol, or the name of an indexed or
        qualified head (`int_to_bv` for `((_ int_to_bv 8) x)`, `const` for
        `((as const (Array Int Int)) 0)`)."""
        head = self.items[0] if self.items else None
        if isinstance(head, SList) and len(head.items) >= 2 and head.head_name() in ("_", "as"):
            name = head.items[1]
            return name.name if isinstance(name, Atom) and name.kind == "symbol" else None
        return self.head_name()

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> Node:
        return self.items[index]

    def __iter__(self) -> Iterator[Node]:
        return iter(self.items)

    def __repr__(self) -> str:
        return f"SList({self.items!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SList) and self.items == other.items

    __hash__ = None  # type: ignore[assignment]  # mutable


Node = Atom | SList


def sym(name: str) -> Atom:
    """A symbol atom, quoted with bars when its name is not a simple symbol."""
    from sphinxfuzz.smtlib.lexer import is_simple_symbol

    return Atom(name if is_simple_symbol(name) else f"|{name}|", "symbol")


def walk(node: Node) -> Iterator[Node]:
    """Every node below and including `node`, parents before children."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, SList):
            stack.extend(reversed(current.items))


@overload
def copy_node(node: SList, keep: Container[int] = ...) -> SList: ...
@overload
def copy_node(node: Node, keep: Container[int] = ...) -> Node: ...
def copy_node(node: Node, keep: Container[int] = ()) -> Node:
    """A deep copy (atoms are shared: they are never mutated in place), sharing too the
    lists whose ids are in `keep`."""
    if isinstance(node, Atom) or id(node) in keep:
        return node
    return SList([copy_node(item, keep) for item in node.items], node.pos)
