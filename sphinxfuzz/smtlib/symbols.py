"""The symbol table of a script: declared and defined functions, sorts, sort aliases and
datatypes, with push/pop scopes."""

from __future__ import annotations

from dataclasses import dataclass, field

from sphinxfuzz.smtlib.nodes import Node
from sphinxfuzz.smtlib.sorts import Sort, SortError, parse_sort

# Sorts every solver knows by name, with the number of sort arguments they take (None: any).
BUILTIN_SORTS: dict[str, int | None] = {
    "Bool": 0,
    "Int": 0,
    "Real": 0,
    "String": 0,
    "RegLan": 0,
    "RoundingMode": 0,
    "Unicode": 0,
    "Array": None,  # z3 allows multi-index arrays (Array I J E)
    "Seq": 1,
    "Set": 1,
    "Bag": 1,
    "Tuple": None,
    "UnitTuple": 0,
    "Relation": None,
}


@dataclass(frozen=True, slots=True)
class FunSig:
    """One signature of a function symbol; `params` are the sort parameters it is generic in
    (constructors and selectors of parametric datatypes)."""

    args: tuple[Sort, ...]
    result: Sort
    params: tuple[Sort, ...] = ()


@dataclass(slots=True)
class Datatype:
    name: str
    params: tuple[Sort, ...]
    # constructor name -> [(selector name, field sort)]
    constructors: dict[str, list[tuple[str, Sort]]] = field(default_factory=dict)

    def sort(self) -> Sort:
        return Sort(self.name, self.params)


@dataclass(slots=True)
class SortDef:
    kind: str  # "declared", "alias" or "datatype"
    arity: int = 0
    params: tuple[str, ...] = ()
    body: Node | None = None
    datatype: Datatype | None = None


_MISSING = object()


class SymbolTable:
    def __init__(self) -> None:
        self.funs: dict[str, list[FunSig]] = {}
        self.sorts: dict[str, SortDef] = {}
        self.constructors: dict[str, Datatype] = {}
        self._undo: list[list[tuple[dict, str, object]]] = []
        self._add_z3_list()

    def _add_z3_list(self) -> None:
        """z3's built-in parametric `(List T)`: nil, insert, head, tail. A script that
        declares its own `List` replaces it, as in z3."""
        element = Sort("T", param=True)
        datatype = Datatype("List", (element,))
        datatype.constructors["nil"] = []
        datatype.constructors["insert"] = [("head", element), ("tail", datatype.sort())]
        self.add_sort("List", SortDef("datatype", arity=1, datatype=datatype))
        self.add_datatype(datatype)

    # -- scopes ---------------------------------------------------------------------------
    def _set(self, table: dict, key: str, value: object) -> None:
        if self._undo:
            self._undo[-1].append((table, key, table.get(key, _MISSING)))
        table[key] = value

    def push(self, levels: int = 1) -> None:
        for _ in range(levels):
            self._undo.append([])

    def pop(self, levels: int = 1) -> None:
        for _ in range(min(levels, len(self._undo))):
            for table, key, previous in reversed(self._undo.pop()):
                if previous is _MISSING:
                    table.pop(key, None)
                else:
                    table[key] = previous

    def reset(self) -> None:
        self.__init__()  # type: ignore[misc]

    # -- definitions ----------------------------------------------------------------------
    def add_fun(self, name: str, sig: FunSig) -> None:
        sigs = self.funs.get(name)
        self._set(self.funs, name, [*sigs, sig] if sigs else [sig])

    def add_sort(self, name: str, definition: SortDef) -> None:
        self._set(self.sorts, name, definition)

    def add_datatype(self, datatype: Datatype) -> None:
        sort = datatype.sort()
        for constructor, fields in datatype.constructors.items():
            self.add_fun(constructor, FunSig(tuple(s for _, s in fields), sort, datatype.params))
            self._set(self.constructors, constructor, datatype)
            for selector, field_sort in fields:
                self.add_fun(selector, FunSig((sort,), field_sort, datatype.params))

    def constants(self) -> dict[str, Sort]:
        """Nullary, non-generic function symbols visible now (declared or defined constants;
        constructors such as `nil` are values, not variables, and are left out)."""
        found: dict[str, Sort] = {}
        for name, sigs in self.funs.items():
            if name in self.constructors:
                continue
            for sig in sigs:
                if not sig.args and not sig.params:
                    found[name] = sig.result
        return found

    # -- sorts ----------------------------------------------------------------------------
    def parse_sort(self, node: Node, params: dict[str, Sort] | None = None) -> Sort:
        def resolve(name: str, args: tuple[Sort, ...], where: Node) -> Sort:
            if params and name in params and not args:
                return params[name]
            definition = self.sorts.get(name)
            if definition is not None:
                if definition.kind == "alias":
                    if len(args) != len(definition.params):
                        raise SortError(
                            f"sort {name} takes {len(definition.params)} arguments", where
                        )
                    inner = dict(params or {})
                    inner.update(zip(definition.params, args, strict=True))
                    assert definition.body is not None
                    return self.parse_sort(definition.body, inner)
                return Sort(name, args)
            if name in BUILTIN_SORTS:
                arity = BUILTIN_SORTS[name]
                if arity is not None and arity != len(args):
                    raise SortError(f"sort {name} takes {arity} arguments", where)
                if name == "Relation":
                    return Sort("Set", (Sort("Tuple", args),))
                if name == "UnitTuple":
                    return Sort("Tuple")
                return Sort(name, args)
            raise SortError(f"unknown sort {name!r}", where)

        return parse_sort(node, resolve)
