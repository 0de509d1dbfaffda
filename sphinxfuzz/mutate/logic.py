"""Keeping `set-logic` honest: a mutant whose inserted terms need more than the seed's logic
declares gets the logic ALL (every solver we target accepts it)."""

from __future__ import annotations

from sphinxfuzz.smtlib import Atom, Node, SList, walk
from sphinxfuzz.smtlib.infer import SortInfo
from sphinxfuzz.smtlib.vocabulary import HIGHER_ORDER_SYMBOLS


def logic_features(logic: str) -> set[str] | None:
    """What a logic name allows, as feature letters; None when it allows everything."""
    if logic in ("ALL", "ALL_SUPPORTED") or logic.startswith("HO_") or logic == "HORN":
        return None
    features: set[str] = set()
    quantifier_free = logic.startswith("QF_")
    rest = logic[3:] if quantifier_free else logic
    if not quantifier_free:
        features.add("quantifiers")
    for part in ("AX", "UF", "BV", "FP", "DT", "FF"):
        if part in rest:
            features.add("A" if part == "AX" else part)
            rest = rest.replace(part, "", 1)
    if rest.startswith("A"):
        features.add("A")
        rest = rest[1:]
    if rest.startswith("S"):
        features.add("S")
        rest = rest[1:]
    if rest in ("IDL", "LIA", "NIA", "LIRA", "NIRA"):
        features.add("Int")
    if rest in ("RDL", "LRA", "NRA", "LIRA", "NIRA"):
        features.add("Real")
    if rest.startswith("N"):
        features.add("nonlinear")
    if rest.startswith("L") or rest.startswith("N") or rest in ("IDL", "RDL"):
        features.add("linear")
    if rest.startswith("L") or rest.startswith("N"):
        features.add("non-difference")  # IDL, RDL: no products, quotients, sums of terms
    return features


_SORT_FEATURES = {
    "Int": "Int",
    "Real": "Real",
    "BitVec": "BV",
    "FloatingPoint": "FP",
    "RoundingMode": "FP",
    "Array": "A",
    "String": "S",
    "RegLan": "S",
}
_MIXED = {"is_int", "to_int", "to_real"}
_NONLINEAR = {"*", "/", "div", "mod", "^", "abs"}
_DIVISIONS = {"/", "div", "mod"}


_EXTENSION_PREFIXES = ("set.", "rel.", "bag.", "table.", "seq.", "ff.")
# z3's pseudo-Boolean constraints and special relations (mostly indexed): z3 knows them only
# under logics that admit everything
_EXOTIC_HEADS = ("lambda", "pto", "sep", "wand")
_Z3_EXTENSIONS = {
    "at-most", "at-least", "pble", "pbge", "pbeq", "partial-order", "linear-order",
    "tree-order", "piecewise-linear-order", "transitive-closure",
}  # fmt: skip


def term_features(
    nodes: list[Node], info: SortInfo, datatypes: set[str], sorts: set[str], functions: set[str]
) -> set[str]:
    """Features the given terms use; `exotic` for anything only ALL covers."""
    features: set[str] = set()
    for root in nodes:
        for node in walk(root):
            sort = info.sort_of(node)
            if sort is not None:
                feature = _sort_feature(sort.name, datatypes, sorts)
                if feature is not None:
                    features.add(feature)
            if isinstance(node, SList):
                features |= _application_features(node, functions)
            elif node.text in ("sep.emp", "sep.nil") or node.text.startswith(_EXTENSION_PREFIXES):
                # separation logic, cvc5's sets, bags, tables, sequences, finite fields: no
                # standard logic name covers them (and their sorts may not be inferred)
                features.add("exotic")
    return features


def _sort_feature(name: str, datatypes: set[str], sorts: set[str]) -> str | None:
    if name in _SORT_FEATURES:
        return _SORT_FEATURES[name]
    if name in datatypes:
        return "DT"
    if name in sorts:
        return "UF"
    return None if name == "Bool" else "exotic"


def _application_features(node: SList, functions: set[str]) -> set[str]:
    head = node.head_name()
    features = {"UF"} if head in functions else set()
    if head in ("forall", "exists"):
        features.add("quantifiers")
    elif head in _MIXED:  # only mixed logics (LIRA) have them
        features |= {"Int", "Real"}
    elif head in _NONLINEAR and sum(not _is_literal(a) for a in node.items[1:]) > 1:
        features.add("nonlinear")
    elif head in _DIVISIONS and not all(_is_literal(a) and not _is_zero(a) for a in node.items[2:]):
        # (div 2 x), (/ 0.0 0.0 0.0): linear logics divide by non-zero numerals only (cvc5
        # calls a division by zero a non-linear fact)
        features.add("nonlinear")
    elif head in _EXOTIC_HEADS or node.operator_name() in _Z3_EXTENSIONS:
        features.add("exotic")
    if head in _NONLINEAR or (head == "+" and sum(not _is_literal(a) for a in node.items[1:]) > 1):
        # z3: "logic only supports difference arithmetic"
        features.add("non-difference")
    return features


_FLOATS = {"Float16": "FP", "Float32": "FP", "Float64": "FP", "Float128": "FP"}
_SORT_ATOMS = {**_SORT_FEATURES, **_FLOATS}


def declaration_features(commands: list[SList]) -> set[str]:
    """Features inserted declarations need even when no kept term uses them (a fresh
    function renamed away still declares it): sorts, functions, datatypes."""
    features: set[str] = set()
    for command in commands:
        head = command.head_name()
        if head in ("declare-sort", "define-sort"):
            features.add("UF")
        elif head in ("declare-datatype", "declare-datatypes"):
            features.add("DT")
        elif head in ("define-fun-rec", "define-funs-rec"):
            # z3 knows recursive definitions only under logics that admit everything
            # ("logic does not support theory recfun"); cvc5 wants quantifiers for them
            features.add("exotic")
        elif head == "declare-fun" and len(command.items) == 4:
            if isinstance(command.items[2], SList) and command.items[2].items:
                features.add("UF")
        for node in walk(command):
            if isinstance(node, Atom) and node.kind == "symbol" and node.text in _SORT_ATOMS:
                features.add(_SORT_ATOMS[node.text])
    return features


def is_higher_order(nodes: list[Node]) -> bool:
    """Whether the nodes use function sorts (`->`), `lambda`, explicit application `@`, or
    `rel.project` / `table.project` (cvc5 maps tuple.project over them: higher-order inside)."""
    for root in nodes:
        for node in walk(root):
            if isinstance(node, Atom) and node.text in HIGHER_ORDER_SYMBOLS:
                return True
    return False


def _is_literal(node: Node) -> bool:
    return isinstance(node, Atom) and node.kind in ("numeral", "decimal")


def _is_zero(node: Node) -> bool:
    return isinstance(node, Atom) and float(node.text) == 0


def needs_widening(logic: str, inserted: set[str]) -> bool:
    allowed = logic_features(logic)
    if allowed is None:
        return False
    if "exotic" in inserted:
        return True
    if "nonlinear" in inserted and "nonlinear" not in allowed:
        return True
    if "UF" in inserted and "UF" not in allowed:
        return True
    return bool(inserted - allowed - {"nonlinear", "linear"})


def set_logic_index(commands: list[SList]) -> int | None:
    for index, command in enumerate(commands):
        if (
            command.head_name() == "set-logic"
            and len(command.items) == 2
            and isinstance(command.items[1], Atom)
        ):
            return index
    return None


def operators_in(nodes: list[Node]) -> set[str]:
    """Operator names applied anywhere in `nodes` (what option rules are triggered by), and
    the names of qualified constants (`set.universe` of `(as set.universe (Set Int))`)."""
    lists = [n for root in nodes for n in walk(root) if isinstance(n, SList)]
    found = {n.operator_name() for n in lists}
    found |= {_qualified_constant(n) for n in lists}
    return {name for name in found if name}


def _qualified_constant(node: SList) -> str | None:
    """The name `(as name sort)` qualifies."""
    name = node.items[1] if node.head_name() == "as" and len(node.items) == 3 else None
    return name.name if isinstance(name, Atom) and name.kind == "symbol" else None


# Sorts a script may declare under a narrow logic but that z3 defines itself under ALL
# ("sort already defined Set"): yices2's regression suite declares `Set`, for one.
RESERVED_UNDER_ALL = frozenset({
    "Set", "Seq", "RegEx", "RegLan", "Array", "String", "Int", "Real", "RoundingMode",
    "Float16", "Float32", "Float64", "Float128", "FloatingPoint", "BitVec", "Relation", "Tuple",
})  # fmt: skip


def reserved_sort_names(commands: list[SList]) -> set[str]:
    """Sorts the commands declare (declare-sort, define-sort, datatypes) whose names ALL takes."""
    found: set[str] = set()
    for command in commands:
        head = command.head_name()
        if head in ("declare-sort", "define-sort", "declare-datatype") and len(command.items) > 1:
            names = [command.items[1]]
        elif head == "declare-datatypes":
            listed = command.items[1] if len(command.items) > 1 else None
            items = listed.items if isinstance(listed, SList) else []
            names = [d.items[0] for d in items if isinstance(d, SList) and d.items]
        else:
            continue
        found |= {n.name for n in names if isinstance(n, Atom) and n.name in RESERVED_UNDER_ALL}
    return found


def rename_symbols(nodes: list[SList], mapping: dict[str, str], skip: set[int]) -> None:
    """Rename symbol atoms in place, except inside the subtrees whose ids are in `skip`."""
    stack: list[SList] = list(nodes)
    while stack:
        node = stack.pop()
        for index, item in enumerate(node.items):
            if id(item) in skip:
                continue
            if isinstance(item, SList):
                stack.append(item)
            elif item.kind == "symbol" and item.name in mapping:
                node.items[index] = Atom(mapping[item.name], "symbol", item.pos)


def real_only(logic: str | None) -> bool:
    """A logic with reals and no integers: its numerals are reals (cvc5 types `3` as Real)."""
    allowed = logic_features(logic) if logic else None
    return allowed is not None and "Real" in allowed and "Int" not in allowed


_NUMERAL_COMMANDS = {"assert", "define-fun", "define-fun-rec", "define-funs-rec", "define-const"}


def numerals_to_decimals(commands: list[SList], skip: set[int]) -> None:
    """Numerals in the terms of `commands` become decimals (`3` -> `3.0`), except inside the
    subtrees whose ids are in `skip`, indices `(_ f 3)` and attribute values: what a
    real-only logic meant by them once the logic is ALL."""
    stack: list[SList] = [c for c in commands if c.head_name() in _NUMERAL_COMMANDS]
    while stack:
        node = stack.pop()
        if node.head_name() == "_":
            continue
        items = node.items[:2] if node.head_name() == "!" else node.items
        for index, item in enumerate(items):
            if id(item) in skip:
                continue
            if isinstance(item, SList):
                stack.append(item)
            elif item.kind == "numeral":
                node.items[index] = Atom(f"{item.text}.0", "decimal", item.pos)
