"""The model-check script: a formula with a solver's model substituted for its declarations.

Under a complete model the check is an evaluation: sat means the model satisfies the
formula, unsat means it does not."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sphinxfuzz.errors import InputError
from sphinxfuzz.smtlib import (
    Atom,
    Node,
    Script,
    SList,
    SmtParseError,
    parse_nodes,
    parse_script,
    print_node,
    walk,
)
from sphinxfuzz.smtlib.nodes import sym
from sphinxfuzz.smtlib.vocabulary import SORT_DECLARING, SYMBOL_DECLARING


class ModelCheckError(InputError):
    """The model or the formula cannot be turned into a check script."""


# what a check script keeps of the formula: declarations, definitions, assertions, options
_KEEP = SYMBOL_DECLARING | SORT_DECLARING | {
    "define-funs-rec", "set-option", "set-info", "assert", "push", "pop",
}  # fmt: skip
CHECKS = frozenset({"check-sat", "check-sat-assuming"})


def _name(node: Node) -> str:
    return node.name if isinstance(node, Atom) else ""


def _model_items(model_text: str) -> list[SList]:
    try:
        nodes = parse_nodes(model_text, "<model>")
    except SmtParseError as exc:
        raise ModelCheckError(f"unreadable model: {exc}") from None
    if len(nodes) != 1 or not isinstance(nodes[0], SList):
        raise ModelCheckError("a model must be one parenthesised list")
    items = list(nodes[0].items)
    if items and isinstance(items[0], Atom) and items[0].is_symbol("model"):
        items = items[1:]  # old z3 format: (model (define-fun ...) ...)
    if not all(isinstance(item, SList) for item in items):
        raise ModelCheckError("a model item is not a parenthesised command")
    if any(
        isinstance(node, Atom) and node.kind == "string" and _OLD_ESCAPE.search(node.text)
        for node in walk(nodes[0])
    ):
        # z3 before 4.8.9 prints "\x00" for the character 0; SMT-LIB 2.6 reads those four
        # characters: checked either way, such a model would be judged by the wrong string
        raise ModelCheckError("the model writes strings with pre-2.6 escapes (\\x..)")
    return items  # type: ignore[return-value]


# a backslash that does not start an SMT-LIB 2.6 `\u` escape (2.6 solvers print a
# backslash itself as \u{5c})
_OLD_ESCAPE = re.compile(r"\\(?!u)")
# z3's name for an element of an uninterpreted sort S: S!val!0, S!val!1, ...
_Z3_ELEMENT = re.compile(r"(.+)!val!\d+")


def constant_values(model_text: str) -> dict[str, Node]:
    """The value term of every constant a model defines (`(define-fun x () S v)`), by name;
    functions with parameters are left out. ModelCheckError on an unreadable model."""
    return {
        _name(item.items[1]): item.items[4]
        for item in _model_items(model_text)
        if item.head_name() == "define-fun"
        and len(item.items) == 5
        and isinstance(item.items[2], SList)
        and not item.items[2].items
    }


class _AbstractValues:
    """cvc5 prints values of uninterpreted sorts as `(as @U_0 U)`, which no solver reads back:
    each becomes a fresh constant of its sort, and constants of one sort are distinct."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}  # @U_0 -> fresh symbol
        self.by_sort: dict[str, list[str]] = {}  # sort text -> fresh symbols
        self.sort_nodes: dict[str, Node] = {}

    def rewrite(self, node: Node) -> Node:
        if isinstance(node, Atom):
            if node.kind == "symbol" and node.name.startswith("@"):
                if node.name in self.names:
                    return Atom(self.names[node.name], "symbol")
                raise ModelCheckError(f"model value {node.text} has no sort annotation")
            return node
        items = node.items
        if (
            len(items) == 3
            and _name(items[0]) == "as"
            and isinstance(items[1], Atom)
            and items[1].name.startswith("@")
        ):
            return Atom(self.fresh(items[1].name, items[2]), "symbol")
        return SList([self.rewrite(item) for item in items], node.pos)

    def fresh(self, value: str, sort: Node) -> str:
        if value not in self.names:
            symbol = f"sphinxfuzz_value_{len(self.names)}"
            self.names[value] = symbol
            key = print_node(sort)
            self.by_sort.setdefault(key, []).append(symbol)
            self.sort_nodes[key] = sort
        return self.names[value]


@dataclass
class _Model:
    definitions: dict[str, SList]  # define-fun items by name
    universe: dict[str, list[str]]  # sort text -> commands declaring its elements (printed)
    constraints: dict[str, list[str]]  # sort text -> cardinality/distinctness assertions


def _read_model(model_text: str) -> _Model:
    abstract = _AbstractValues()
    definitions: dict[str, SList] = {}
    z3_universe: dict[str, list[str]] = {}
    z3_sort_of: dict[str, str] = {}
    constraints: dict[str, list[str]] = {}
    for item in _model_items(model_text):
        head = item.head_name()
        if head == "define-fun" and len(item.items) == 5:
            name = _name(item.items[1])
            rewritten = abstract.rewrite(item)
            assert isinstance(rewritten, SList)
            definitions[name] = rewritten
        elif head in ("declare-fun", "declare-const") and len(item.items) >= 3:
            # z3's elements of an uninterpreted sort: (declare-fun U!val!0 () U)
            sort = print_node(item.items[-1])
            z3_universe.setdefault(sort, []).append(print_node(item))
            z3_sort_of[_name(item.items[1])] = sort
        elif head == "forall":
            # z3's cardinality constraint on a universe: keeps quantified formulas honest
            sorts = {print_node(binding.items[1]) for binding in _bindings(item)}
            key = sorts.pop() if len(sorts) == 1 else ""
            constraints.setdefault(key, []).append(f"(assert {print_node(item)})")
        elif head in ("define-fun-rec", "define-funs-rec", "define-sort", "declare-sort"):
            raise ModelCheckError(f"model item {head!r} is not supported by the model check")
        # anything else (comments are already gone) carries no assignment
    # z3 4.12 declares a universe's elements in some models and not in others (a model of
    # functions only): an element no item declared still names its sort
    for definition in definitions.values():
        for symbol in sorted(_symbols_in(definition.items[4])):
            named = _Z3_ELEMENT.fullmatch(symbol)
            if named is not None and symbol not in z3_sort_of:
                sort = print_node(sym(named.group(1)))
                z3_sort_of[symbol] = sort
                line = f"(declare-fun {print_node(sym(symbol))} () {sort})"
                z3_universe.setdefault(sort, []).append(line)
    universe: dict[str, list[str]] = dict(z3_universe)
    elements: dict[str, list[str]] = {}
    for element, sort in z3_sort_of.items():
        elements.setdefault(sort, []).append(element)
    for sort, symbols in abstract.by_sort.items():
        universe.setdefault(sort, []).extend(f"(declare-const {s} {sort})" for s in symbols)
        elements.setdefault(sort, []).extend(symbols)
    for sort, names in elements.items():
        if len(names) > 1:
            constraints.setdefault(sort, []).insert(0, f"(assert (distinct {' '.join(names)}))")
    return _Model(definitions, universe, constraints)


def _bindings(forall: SList) -> list[SList]:
    if len(forall.items) < 3 or not isinstance(forall.items[1], SList):
        return []
    return [b for b in forall.items[1].items if isinstance(b, SList) and len(b.items) == 2]


def _symbols_in(node: Node) -> set[str]:
    if isinstance(node, Atom):
        return {node.name} if node.kind == "symbol" else set()
    found: set[str] = set()
    stack: list[Node] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Atom):
            if current.kind == "symbol":
                found.add(current.name)
        else:
            stack.extend(current.items)
    return found


class _CheckWriter:
    """Writes the check script's lines: the formula's commands with the model's definitions
    in place of declarations, helpers and universes emitted before first use."""

    def __init__(self, model: _Model, declared: set[str]) -> None:
        self.model = model
        self.auxiliary = {n: d for n, d in model.definitions.items() if n not in declared}
        self._start()

    def _start(self) -> None:
        self.emitted: set[str] = set()
        self.universe_done: set[str] = set()
        self.out: list[str] = []
        self.stack_lines: list[int] = []  # where the formula's assert, push and pop lines are
        self.names: set[str] = set()  # symbols and sorts the lines declare
        self.after_reset = False

    def auxiliary_of(self, node: Node) -> None:
        # z3 may define a value through a helper (`(_ as-array k!0)`): define helpers first
        for symbol in sorted(_symbols_in(node.items[4] if isinstance(node, SList) else node)):
            if symbol in self.auxiliary and symbol not in self.emitted:
                self.emitted.add(symbol)
                self.auxiliary_of(self.auxiliary[symbol])
                self.out.append(print_node(self.auxiliary[symbol]))

    def universe(self, sort: str) -> None:
        if sort in self.universe_done:
            return
        self.universe_done.add(sort)
        self.out.extend(self.model.universe.get(sort, []))
        self.out.extend(self.model.constraints.get(sort, []))

    def command(self, command: SList) -> None:
        head = command.head_name()
        if head == "reset":  # what came before is gone: the check starts afresh
            self._start()
            return
        if head == "reset-assertions":
            # the assertions and the scopes go; the declarations stay, as z3 and yices keep
            # them (cvc5 drops them: a script for it declares again, skipped below)
            dropped = set(self.stack_lines)
            self.out = [line for i, line in enumerate(self.out) if i not in dropped]
            self.stack_lines, self.after_reset = [], True
            return
        if head not in _KEEP:
            return  # set-logic too: model values may leave the declared logic
        name = _name(command.items[1]) if len(command.items) >= 2 else ""
        if head in SYMBOL_DECLARING | SORT_DECLARING and name:
            if self.after_reset and name in self.names:
                return  # declared again after reset-assertions: the first one stands
            self.names.add(name)
        if head in ("assert", "push", "pop"):
            self.stack_lines.append(len(self.out))
        if head == "declare-sort" and len(command.items) >= 2:
            self.out.append(print_node(command))
            self.universe(print_node(command.items[1]))
            return
        if head in ("declare-fun", "declare-const") and len(command.items) >= 3:
            definition = self.model.definitions.get(_name(command.items[1]))
            if definition is not None:
                self.auxiliary_of(definition)
                self.out.append(print_node(definition))
                return
        self.out.append(print_node(command))

    def query(self, command: SList) -> None:
        """The first check-sat: check-sat-assuming's assumptions become assertions."""
        if command.head_name() == "check-sat-assuming" and len(command.items) == 2:
            assumptions = command.items[1]
            if isinstance(assumptions, SList):
                self.out.extend(f"(assert {print_node(a)})" for a in assumptions.items)

    def remaining_universes(self) -> None:
        """Universes of sorts no declare-sort introduces, and constraints over several sorts
        (rare), just before the first assertion: every sort is declared by then in usual
        scripts."""
        model = self.model
        prefix: list[str] = []
        for sort in [s for s in model.universe if s not in self.universe_done]:
            prefix.extend(model.universe[sort])
            prefix.extend(model.constraints.get(sort, []))
        prefix.extend(model.constraints.get("", []))
        if prefix:
            out = self.out
            first = next((i for i, line in enumerate(out) if line.startswith("(assert")), len(out))
            out[first:first] = prefix


def build_model_check(formula: str | Script, model_text: str, filename: str = "<mutant>") -> str:
    """The formula (its text, or parsed: read only) up to its first check-sat, with every
    declared constant or function that the model defines replaced by the model's
    `define-fun`, then `(check-sat)`.

    Symbols the model leaves out stay declared.
    """
    if isinstance(formula, Script):
        script = formula
    else:
        try:
            script = parse_script(formula, filename)
        except SmtParseError as exc:
            raise ModelCheckError(str(exc)) from None
    declared = {
        _name(cmd.items[1])
        for cmd in script.commands
        if cmd.head_name() in ("declare-fun", "declare-const") and len(cmd.items) >= 3
    }
    writer = _CheckWriter(_read_model(model_text), declared)
    for command in script.commands:
        if command.head_name() in CHECKS:
            writer.query(command)
            break
        writer.command(command)
    else:
        raise ModelCheckError(f"{filename}: the formula has no check-sat")
    writer.remaining_universes()
    writer.out.append("(check-sat)")
    return "\n".join(writer.out) + "\n"
