"""Sorts: a small immutable value type and the reading of sort expressions."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sphinxfuzz.errors import InputError
from sphinxfuzz.smtlib.nodes import Atom, Node, SList


class Sort:
    """A sort `name`, with sort arguments (`(Array Int Bool)`) and numeral indices
    (`(_ BitVec 32)`). Sort parameters of parametric datatypes are sorts flagged `param`."""

    __slots__ = ("name", "args", "indices", "param", "_hash")

    def __init__(
        self,
        name: str,
        args: tuple[Sort, ...] = (),
        indices: tuple[int, ...] = (),
        param: bool = False,
    ) -> None:
        self.name = name
        self.args = args
        self.indices = indices
        self.param = param
        self._hash = hash((name, args, indices, param))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Sort)
            and self._hash == other._hash
            and self.name == other.name
            and self.args == other.args
            and self.indices == other.indices
            and self.param == other.param
        )

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"Sort({self})"

    def __str__(self) -> str:
        from sphinxfuzz.smtlib.lexer import is_simple_symbol

        name = self.name if is_simple_symbol(self.name) else f"|{self.name}|"
        if self.indices:
            head = f"(_ {name} {' '.join(map(str, self.indices))})"
            if not self.args:
                return head
            name = head
        if self.args:
            return f"({name} {' '.join(map(str, self.args))})"
        return "UnitTuple" if name == "Tuple" else name  # the empty tuple's sort, so spelled

    @property
    def width(self) -> int:
        """Bit-width of a bit-vector sort."""
        return self.indices[0]

    def has_params(self) -> bool:
        return self.param or any(arg.has_params() for arg in self.args)

    def substitute(self, mapping: Mapping[Sort, Sort]) -> Sort:
        if self.param:
            return mapping.get(self, self)
        if not self.args:
            return self
        return Sort(self.name, tuple(arg.substitute(mapping) for arg in self.args), self.indices)


BOOL = Sort("Bool")
INT = Sort("Int")
REAL = Sort("Real")
STRING = Sort("String")
REGLAN = Sort("RegLan")
ROUNDING_MODE = Sort("RoundingMode")


def bitvec(width: int) -> Sort:
    return Sort("BitVec", (), (width,))


def floating_point(exponent: int, significand: int) -> Sort:
    return Sort("FloatingPoint", (), (exponent, significand))


def array(index: Sort, element: Sort) -> Sort:
    return Sort("Array", (index, element))


def seq(element: Sort) -> Sort:
    return Sort("Seq", (element,))


# Sorts whose name alone is an abbreviation of an indexed sort.
_FLOAT_ABBREVIATIONS = {
    "Float16": (5, 11),
    "Float32": (8, 24),
    "Float64": (11, 53),
    "Float128": (15, 113),
}


class SortError(InputError):
    """A sort expression that does not denote a sort; `node` locates it."""

    def __init__(self, message: str, node: Node) -> None:
        super().__init__(message)
        self.node = node


def parse_sort(node: Node, resolve: Callable[[str, tuple[Sort, ...], Node], Sort]) -> Sort:
    """Turn a sort expression into a `Sort`. `resolve(name, args, node)` handles every named
    sort that is not built in (declared sorts, aliases, datatypes, parameters)."""
    if isinstance(node, Atom):
        if node.kind != "symbol":
            raise SortError(f"{node.text!r} is not a sort", node)
        name = node.name
        if name in _FLOAT_ABBREVIATIONS:
            return floating_point(*_FLOAT_ABBREVIATIONS[name])
        return resolve(name, (), node)
    items = node.items
    if not items:
        raise SortError("empty sort expression", node)
    head = items[0]
    if isinstance(head, Atom) and head.is_symbol("_"):
        return _indexed_sort(node)
    if isinstance(head, SList):
        # `((_ BitVec 8) ...)` does not occur; a list head must be an indexed sort applied to args
        base = _indexed_sort(head)
        args = tuple(parse_sort(item, resolve) for item in items[1:])
        return Sort(base.name, args, base.indices)
    if not head.is_symbol():
        raise SortError(f"{head.text!r} is not a sort name", node)
    args = tuple(parse_sort(item, resolve) for item in items[1:])
    if head.name == "->":
        if len(args) < 2:
            raise SortError("a function sort (-> ...) needs a domain and a range", node)
        return Sort("->", args)
    return resolve(head.name, args, node)


def _indexed_sort(node: SList) -> Sort:
    items = node.items
    if len(items) < 3 or not isinstance(items[1], Atom):
        raise SortError("an indexed sort is (_ name index+)", node)
    name = items[1].name
    indices: list[int] = []
    for item in items[2:]:
        if not isinstance(item, Atom) or item.kind != "numeral":
            raise SortError(f"index of sort {name} must be a numeral", node)
        indices.append(int(item.text))
    return Sort(name, (), tuple(indices))
