"""Sort inference over a whole script: the sort of every term and the binders in scope at it.

The checker follows the script's commands in order, keeping the symbol table (with push/pop)
the way a solver would, and types each term bottom-up. It never raises on a well-formed
S-expression: what it cannot type gets no sort and is counted, so one unknown operator does
not hide the sorts of everything else.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from sphinxfuzz.smtlib.nodes import Atom, Node, SList
from sphinxfuzz.smtlib.reader import Script
from sphinxfuzz.smtlib.sorts import BOOL, INT, REAL, Sort, SortError
from sphinxfuzz.smtlib.symbols import Datatype, FunSig, SortDef, SymbolTable
from sphinxfuzz.smtlib.theories import CONSTANTS, RULES, indexed_constant, literal_sort

Env = Mapping[str, Sort]
_NEGATIVE_LITERAL = re.compile(r"-[0-9]+(\.[0-9]+)?\Z")
_EMPTY_ENV: dict[str, Sort] = {}

# Commands whose arguments after the name are all terms.
_TERM_COMMANDS = {"assert", "simplify", "eval", "minimize", "maximize", "query", "rule"}


@dataclass(slots=True)
class TermSite:
    """One term occurrence: where it is (parent list and index, command number), its sort and
    the bound variables visible at it. The mutator replaces `parent.items[index]`."""

    node: Node
    sort: Sort | None
    env: Env
    parent: SList
    index: int
    command: int


@dataclass
class SortInfo:
    sorts: dict[int, Sort] = field(default_factory=dict)  # id(node) -> sort
    terms: int = 0
    unsorted: int = 0
    problems: list[str] = field(default_factory=list)  # the first few reasons, for reports
    symbols: SymbolTable = field(default_factory=SymbolTable)
    sites: list[TermSite] | None = None
    # command index of each assert -> declared constants visible there
    constants_at: dict[int, dict[str, Sort]] = field(default_factory=dict)
    too_deep: str | None = None  # why the typing stopped: terms nested too deeply to read

    def sort_of(self, node: Node) -> Sort | None:
        return self.sorts.get(id(node))

    @property
    def fully_sorted(self) -> bool:
        return self.unsorted == 0


class _Checker:
    def __init__(self, script: Script, collect_sites: bool) -> None:
        self.script = script
        self.info = SortInfo(sites=[] if collect_sites else None)
        self.symbols = self.info.symbols
        self.command = 0

    # -- bookkeeping ----------------------------------------------------------------------
    def problem(self, node: Node, message: str) -> None:
        if len(self.info.problems) < 20:
            line, col = node.pos
            self.info.problems.append(f"{self.script.filename}:{line}:{col}: {message}")

    def record(self, node: Node, sort: Sort | None) -> Sort | None:
        info = self.info
        info.terms += 1
        if sort is None:
            info.unsorted += 1
        else:
            info.sorts[id(node)] = sort
        return sort

    def sort(self, node: Node, params: dict[str, Sort] | None = None) -> Sort:
        return self.symbols.parse_sort(node, params)

    # -- terms ----------------------------------------------------------------------------
    def term(
        self, node: Node, env: Env, parent: SList | None = None, index: int = 0
    ) -> Sort | None:
        if isinstance(node, Atom):
            result = self.atom(node, env)
        else:
            result = self.compound(node, env)
        self.record(node, result)
        if self.info.sites is not None and parent is not None:
            self.info.sites.append(TermSite(node, result, env, parent, index, self.command))
        return result

    def atom(self, node: Atom, env: Env) -> Sort | None:
        if node.kind != "symbol":
            sort = literal_sort(node.kind, node.text)
            if sort is None:
                self.problem(node, f"literal {node.text!r} has no known sort")
            return sort
        name = node.name
        if name in env:
            return env[name]
        sigs = self.symbols.funs.get(name)
        if sigs:
            for sig in sigs:
                if not sig.args and not sig.params:
                    return sig.result
            for sig in sigs:
                if not sig.args and not sig.result.has_params():
                    return sig.result
            if any(not sig.args for sig in sigs):
                return None  # a generic nullary constructor such as nil needs `as`
            # a function used as a value (higher-order)
            sig = sigs[0]
            return Sort("->", (*sig.args, sig.result))
        constant = CONSTANTS.get(name)
        if constant is not None:
            return constant
        negative = _NEGATIVE_LITERAL.match(name)
        if negative:  # z3 reads -1 and -2.5 as literals
            return REAL if negative.group(1) else INT
        self.problem(node, f"unknown symbol {name!r}")
        return None

    def args(self, node: SList, env: Env, start: int = 1) -> list[Sort | None]:
        items = node.items
        return [self.term(items[i], env, node, i) for i in range(start, len(items))]

    def compound(self, node: SList, env: Env) -> Sort | None:
        items = node.items
        if not items:
            self.problem(node, "empty application ()")
            return None
        head = items[0]
        if isinstance(head, Atom):
            if head.kind != "symbol":
                self.problem(node, f"{head.text!r} cannot be applied")
                return None
            special = _SPECIAL_FORMS.get(head.name)
            if special is not None and head.name not in env:
                return special(self, node, env)
            return self.apply(head.name, (), node, self.args(node, env), env)
        # ((_ op i ...) args), ((as f S) args), or a higher-order head term
        if head.items and isinstance(head.items[0], Atom):
            first = head.items[0].name
            if first == "_" and head.items[0].kind == "symbol":
                return self.indexed_application(head, node, env)
            if first == "as" and len(head.items) == 3:
                # ((as const (Array I E)) v) and ((as f S) args): the qualifier is the result
                self.args(node, env)
                try:
                    return self.sort(head.items[2])
                except SortError as exc:
                    self.problem(exc.node, str(exc))
                    return None
        head_sort = self.term(head, env, node, 0)
        self.args(node, env)
        if head_sort is not None and head_sort.name in ("->", "Array") and head_sort.args:
            return head_sort.args[-1]
        self.problem(node, "cannot tell the sort of this application")
        return None

    def indexed_application(self, head: SList, node: SList, env: Env) -> Sort | None:
        parts = head.items
        if len(parts) < 2 or not isinstance(parts[1], Atom):
            self.problem(head, "malformed indexed identifier")
            self.args(node, env)
            return None
        name = parts[1].name
        args = self.args(node, env)
        if name == "is" or name == "update":
            return BOOL if name == "is" else (args[0] if args else None)
        if name == "map" and len(parts) == 3:
            return self.array_map(parts[2], args, env)
        indices = _numeral_indices(parts[2:])
        return self.apply(name, indices, node, args, env)

    def array_map(self, function: Node, args: list[Sort | None], env: Env) -> Sort | None:
        """z3's ((_ map f) a1 ... an): an array of f applied to the elements."""
        if not args or args[0] is None or not args[0].args:
            return None
        elements: list[Sort | None] = [
            a.args[-1] if a is not None and a.args else None for a in args
        ]
        if isinstance(function, Atom):
            element = self.apply(function.name, (), function, elements, env, quiet=True)
        elif (
            function.items and isinstance(function.items[0], Atom) and function.items[0].name == "_"
        ):
            name = function.items[1].name if isinstance(function.items[1], Atom) else ""
            element = self.apply(
                name, _numeral_indices(function.items[2:]), function, elements, env, quiet=True
            )
        else:
            element = None
        if element is None:
            return None
        return Sort("Array", (*args[0].args[:-1], element))

    def apply(
        self,
        name: str,
        indices: tuple[int, ...],
        node: Node,
        args: list[Sort | None],
        env: Env,
        quiet: bool = False,
    ) -> Sort | None:
        bound = env.get(name)
        if bound is not None:
            if bound.name in ("->", "Array") and bound.args:
                return bound.args[-1]
            return None
        sigs = self.symbols.funs.get(name)
        if sigs:
            result = _pick_signature(sigs, args)
            if result is not None:
                return result
        if name.startswith("is-") and name[3:] in self.symbols.constructors:
            return BOOL
        rule = RULES.get(name)
        if rule is not None:
            try:
                return rule(indices, args)
            except (IndexError, ValueError):
                return None
        if not quiet and not sigs:
            self.problem(node, f"unknown function {name!r}")
        return None

    # -- special forms --------------------------------------------------------------------
    def let(self, node: SList, env: Env) -> Sort | None:
        if len(node.items) != 3 or not isinstance(node.items[1], SList):
            self.problem(node, "let expects ((name term) ...) and a body")
            return None
        bindings = node.items[1]
        inner = dict(env)
        for binding in bindings.items:
            if (
                isinstance(binding, SList)
                and len(binding.items) == 2
                and isinstance(binding.items[0], Atom)
            ):
                sort = self.term(binding.items[1], env, binding, 1)  # parallel let: outer env
                if sort is not None:
                    inner[binding.items[0].name] = sort
                else:
                    inner.pop(binding.items[0].name, None)
            else:
                self.problem(binding, "malformed let binding")
        return self.term(node.items[2], inner, node, 2)

    def sorted_vars(self, node: Node, env: Env) -> dict[str, Sort] | None:
        """The environment extended with ((x S) ...); None when a variable is malformed."""
        domain = self.domain(node)
        if domain is None:
            return None
        inner = dict(env)
        inner.update(domain)
        return inner

    def domain(self, node: Node) -> list[tuple[str, Sort]] | None:
        if not isinstance(node, SList):
            self.problem(node, "expected a list of sorted variables ((x S) ...)")
            return None
        found: list[tuple[str, Sort]] = []
        for var in node.items:
            if not (
                isinstance(var, SList) and len(var.items) == 2 and isinstance(var.items[0], Atom)
            ):
                self.problem(var, "malformed sorted variable")
                return None
            try:
                found.append((var.items[0].name, self.sort(var.items[1])))
            except SortError as exc:
                self.problem(exc.node, str(exc))
                return None
        return found

    def quantifier(self, node: SList, env: Env) -> Sort | None:
        if len(node.items) != 3:
            self.problem(node, "a quantifier expects variables and a body")
            return None
        inner = self.sorted_vars(node.items[1], env)
        if inner is None:
            return None
        self.term(node.items[2], inner, node, 2)
        return BOOL

    def lambda_(self, node: SList, env: Env) -> Sort | None:
        if len(node.items) != 3 or not isinstance(node.items[1], SList):
            self.problem(node, "lambda expects variables and a body")
            return None
        domain = self.domain(node.items[1])
        if domain is None:
            return None
        body = self.term(node.items[2], {**env, **dict(domain)}, node, 2)
        if body is None:
            return None
        return Sort("->", (*(sort for _, sort in domain), body))

    def annotation(self, node: SList, env: Env) -> Sort | None:
        items = node.items
        if len(items) < 2:
            self.problem(node, "(! term attributes) needs a term")
            return None
        sort = self.term(items[1], env, node, 1)
        for i in range(2, len(items) - 1):
            key, value = items[i], items[i + 1]
            if not (isinstance(key, Atom) and key.kind == "keyword"):
                continue
            if key.text == ":named" and isinstance(value, Atom) and sort is not None:
                self.symbols.add_fun(value.name, FunSig((), sort))
            elif key.text == ":pattern" and isinstance(value, SList):
                for pattern in self.pattern_terms(value, env):
                    self.term(pattern, env)
            elif key.text == ":no-pattern":
                self.term(value, env)
        return sort

    def pattern_terms(self, value: SList, env: Env) -> list[Node]:
        """`:pattern (t1 ... tn)`; some files write a single pattern `:pattern (f x)`."""
        head = value.items[0] if value.items else None
        if isinstance(head, Atom) and head.kind == "symbol" and head.name not in env:
            sigs = self.symbols.funs.get(head.name)
            if (sigs and any(sig.args for sig in sigs)) or (not sigs and head.name in RULES):
                return [value]
        return list(value.items)

    def qualified(self, node: SList, env: Env) -> Sort | None:
        if len(node.items) != 3:
            self.problem(node, "(as term Sort) expects a term and a sort")
            return None
        try:
            result = self.sort(node.items[2])
        except SortError as exc:
            self.problem(exc.node, str(exc))
            return None
        inner = node.items[1]
        if isinstance(inner, SList):
            self.term(inner, env, node, 1)
        return result

    def indexed(self, node: SList, env: Env) -> Sort | None:
        items = node.items
        if len(items) < 3 or not isinstance(items[1], Atom):
            self.problem(node, "malformed indexed identifier")
            return None
        name = items[1].name
        if name == "as-array" and isinstance(items[2], Atom):
            sigs = self.symbols.funs.get(items[2].name)
            if sigs:
                sig = sigs[0]
                return Sort("Array", (*sig.args, sig.result))
            return None
        sort = indexed_constant(name, _numeral_indices(items[2:]))
        if sort is None:
            self.problem(node, f"unknown indexed constant {name!r}")
        return sort

    def match(self, node: SList, env: Env) -> Sort | None:
        if len(node.items) != 3 or not isinstance(node.items[2], SList):
            self.problem(node, "match expects a term and a list of cases")
            return None
        scrutinee = self.term(node.items[1], env, node, 1)
        result: Sort | None = None
        for case in node.items[2].items:
            if not isinstance(case, SList) or len(case.items) != 2:
                self.problem(case, "a match case is (pattern term)")
                continue
            inner = self.pattern_env(case.items[0], scrutinee, env)
            sort = self.term(case.items[1], inner, case, 1)
            result = result or sort
        return result

    def pattern_env(self, pattern: Node, scrutinee: Sort | None, env: Env) -> Env:
        if isinstance(pattern, Atom):
            name = pattern.name
            if name in self.symbols.constructors or scrutinee is None:
                return env
            return {**env, name: scrutinee}  # a variable pattern binds the whole term
        if not pattern.items or not isinstance(pattern.items[0], Atom):
            return env
        constructor = pattern.items[0].name
        datatype = self.symbols.constructors.get(constructor)
        if datatype is None:
            return env
        fields = datatype.constructors.get(constructor, [])
        binding: dict[Sort, Sort] = {}
        if scrutinee is not None and scrutinee.name == datatype.name:
            binding = dict(zip(datatype.params, scrutinee.args, strict=False))
        inner = dict(env)
        for var, (_selector, field_sort) in zip(pattern.items[1:], fields, strict=False):
            if isinstance(var, Atom):
                inner[var.name] = field_sort.substitute(binding)
        return inner

    # -- commands -------------------------------------------------------------------------
    def run(self) -> SortInfo:
        for index, command in enumerate(self.script.commands):
            self.command = index
            name = command.head_name()
            handler = _COMMANDS.get(name or "")
            if handler is None:
                continue
            try:
                handler(self, command)
            except SortError as exc:  # a malformed command: a solver would reject it too
                self.problem(exc.node, str(exc))
        return self.info

    def cmd_terms(self, command: SList) -> None:
        if command.head_name() == "assert" and self.info.sites is not None:
            self.info.constants_at[self.command] = self.symbols.constants()
        for i in range(1, len(command.items)):
            item = command.items[i]
            if isinstance(item, Atom) and item.kind == "keyword":
                break  # assert-soft / rule attributes follow
            self.term(item, _EMPTY_ENV, command, i)

    def cmd_term_list(self, command: SList) -> None:
        # (get-value (t ...)), (check-sat-assuming (l ...))
        holder = command.items[1] if len(command.items) >= 2 else None
        if isinstance(holder, SList):
            for i, item in enumerate(holder.items):
                self.term(item, _EMPTY_ENV, holder, i)

    def cmd_declare_const(self, command: SList) -> None:
        self.symbols.add_fun(_name(_arg(command, 1)), FunSig((), self.sort(_arg(command, 2))))

    def cmd_declare_fun(self, command: SList) -> None:
        domain = _list(_arg(command, 2))
        args = tuple(self.sort(s) for s in domain.items)
        self.symbols.add_fun(_name(_arg(command, 1)), FunSig(args, self.sort(_arg(command, 3))))

    def cmd_declare_rel(self, command: SList) -> None:
        domain = _list(_arg(command, 2))
        args = tuple(self.sort(s) for s in domain.items)
        self.symbols.add_fun(_name(_arg(command, 1)), FunSig(args, BOOL))

    def cmd_declare_var(self, command: SList) -> None:
        self.symbols.add_fun(_name(_arg(command, 1)), FunSig((), self.sort(_arg(command, 2))))

    def _define(self, command: SList, recursive: bool) -> None:
        name = _name(_arg(command, 1))
        domain = self.domain(_arg(command, 2))
        if domain is None:
            return
        sig = FunSig(tuple(sort for _, sort in domain), self.sort(_arg(command, 3)))
        if recursive:
            self.symbols.add_fun(name, sig)
        self.term(_arg(command, 4), dict(domain), command, 4)
        if not recursive:
            self.symbols.add_fun(name, sig)

    def cmd_define_fun(self, command: SList) -> None:
        self._define(command, recursive=False)

    def cmd_define_fun_rec(self, command: SList) -> None:
        self._define(command, recursive=True)

    def cmd_define_const(self, command: SList) -> None:
        sort = self.sort(_arg(command, 2))
        self.term(_arg(command, 3), _EMPTY_ENV, command, 3)
        self.symbols.add_fun(_name(_arg(command, 1)), FunSig((), sort))

    def cmd_define_funs_rec(self, command: SList) -> None:
        decls, bodies = _list(_arg(command, 1)), _list(_arg(command, 2))
        domains: list[list[tuple[str, Sort]] | None] = []
        for decl in map(_list, decls.items):
            domain = self.domain(_arg(decl, 1))
            domains.append(domain)
            if domain is not None:
                args = tuple(sort for _, sort in domain)
                sig = FunSig(args, self.sort(_arg(decl, 2)))
                self.symbols.add_fun(_name(_arg(decl, 0)), sig)
        for i, (body, domain) in enumerate(zip(bodies.items, domains, strict=False)):
            if domain is not None:
                self.term(body, dict(domain), bodies, i)

    def cmd_declare_sort(self, command: SList) -> None:
        arity = _numeral(_arg(command, 2)) if len(command.items) > 2 else 0
        self.symbols.add_sort(_name(_arg(command, 1)), SortDef("declared", arity=arity))

    def cmd_define_sort(self, command: SList) -> None:
        params = _list(_arg(command, 2))
        names = tuple(_name(p) for p in params.items)
        self.symbols.add_sort(
            _name(_arg(command, 1)), SortDef("alias", params=names, body=_arg(command, 3))
        )

    def cmd_declare_datatype(self, command: SList) -> None:
        self._datatypes([(_name(_arg(command, 1)), _arg(command, 2))])

    def cmd_declare_datatypes(self, command: SList) -> None:
        first, second = _list(_arg(command, 1)), _list(_arg(command, 2))
        if first.items and all(isinstance(item, SList) for item in first.items):
            # SMT-LIB 2.6: ((Name arity) ...) (decl ...)
            names = [_name(_arg(item, 0)) for item in first.items if isinstance(item, SList)]
            self._datatypes(list(zip(names, second.items, strict=False)))
            return
        # SMT-LIB 2.5 / legacy z3: (params) ((Name ctor ...) ...)
        shared_params = [_name(p) for p in first.items]
        decls: list[tuple[str, Node]] = []
        for decl in map(_list, second.items):
            decls.append((_name(_arg(decl, 0)), SList(decl.items[1:], decl.pos)))
        self._datatypes(decls, legacy_params=shared_params)

    def _datatypes(
        self, decls: list[tuple[str, Node]], legacy_params: list[str] | None = None
    ) -> None:
        prepared: list[tuple[Datatype, dict[str, Sort], Node]] = []
        for name, decl in decls:
            params: list[str] = list(legacy_params or [])
            body = decl
            if isinstance(decl, SList) and decl.head_name() == "par" and len(decl.items) == 3:
                params = [_name(p) for p in _list(decl.items[1]).items]
                body = decl.items[2]
            param_sorts = {p: Sort(p, param=True) for p in params}
            datatype = Datatype(name, tuple(param_sorts.values()))
            self.symbols.add_sort(name, SortDef("datatype", arity=len(params), datatype=datatype))
            prepared.append((datatype, param_sorts, body))
        for datatype, param_sorts, body in prepared:
            for constructor in _list(body).items:
                if isinstance(constructor, Atom):
                    datatype.constructors[constructor.name] = []
                    continue
                fields = []
                for selector in map(_list, constructor.items[1:]):
                    fields.append(
                        (_name(_arg(selector, 0)), self.sort(_arg(selector, 1), param_sorts))
                    )
                datatype.constructors[_name(_arg(constructor, 0))] = fields
            self.symbols.add_datatype(datatype)

    def cmd_push(self, command: SList) -> None:
        self.symbols.push(_numeral(_arg(command, 1)) if len(command.items) > 1 else 1)

    def cmd_pop(self, command: SList) -> None:
        self.symbols.pop(_numeral(_arg(command, 1)) if len(command.items) > 1 else 1)

    def cmd_reset(self, _command: SList) -> None:
        self.symbols.reset()

    def cmd_labelled_term(self, command: SList) -> None:
        # (get-interpolant name term), (get-abduct name term [grammar])
        if len(command.items) >= 3:
            self.term(_arg(command, 2), _EMPTY_ENV, command, 2)


def _name(node: Node) -> str:
    if not isinstance(node, Atom):
        raise SortError("expected a symbol", node)
    return node.name


def _numeral(node: Node) -> int:
    if not (isinstance(node, Atom) and node.kind == "numeral"):
        raise SortError("expected a numeral", node)
    return int(node.text)


def _arg(command: SList, index: int) -> Node:
    """Item `index` of a command (or declaration) that must have it."""
    if index >= len(command.items):
        raise SortError(f"{command.head_name() or 'this list'} is missing an argument", command)
    return command.items[index]


def _list(node: Node) -> SList:
    if not isinstance(node, SList):
        raise SortError("expected a parenthesised list", node)
    return node


def _numeral_indices(nodes: list[Node]) -> tuple[int, ...]:
    return tuple(int(n.text) for n in nodes if isinstance(n, Atom) and n.kind == "numeral")


def _unify(pattern: Sort, actual: Sort | None, binding: dict[Sort, Sort]) -> bool:
    if actual is None:
        return True
    if pattern.param:
        bound = binding.get(pattern)
        if bound is None:
            binding[pattern] = actual
            return True
        return bound == actual
    if pattern.name != actual.name or pattern.indices != actual.indices:
        return False
    if len(pattern.args) != len(actual.args):
        return False
    return all(_unify(p, a, binding) for p, a in zip(pattern.args, actual.args, strict=True))


def _pick_signature(sigs: list[FunSig], args: list[Sort | None]) -> Sort | None:
    for sig in reversed(sigs):  # later declarations win (z3 overloading by arity/sorts)
        if len(sig.args) != len(args):
            continue
        binding: dict[Sort, Sort] = {}
        if all(_unify(p, a, binding) for p, a in zip(sig.args, args, strict=True)):
            result = sig.result.substitute(binding) if sig.params else sig.result
            return None if result.has_params() else result
    # Arity matches but sorts don't (or unknown): trust the only candidate of that arity.
    candidates = [sig for sig in sigs if len(sig.args) == len(args) and not sig.result.has_params()]
    if len(candidates) == 1:
        return candidates[0].result
    return None


_SPECIAL_FORMS: dict[str, Callable[[_Checker, SList, Env], Sort | None]] = {
    "let": _Checker.let,
    "forall": _Checker.quantifier,
    "exists": _Checker.quantifier,
    "lambda": _Checker.lambda_,
    "!": _Checker.annotation,
    "as": _Checker.qualified,
    "_": _Checker.indexed,
    "match": _Checker.match,
}

_COMMANDS: dict[str, Callable[[_Checker, SList], None]] = {
    **dict.fromkeys(_TERM_COMMANDS, _Checker.cmd_terms),
    "assert-soft": _Checker.cmd_terms,
    "get-value": _Checker.cmd_term_list,
    "check-sat-assuming": _Checker.cmd_term_list,
    "declare-const": _Checker.cmd_declare_const,
    "declare-fun": _Checker.cmd_declare_fun,
    "declare-rel": _Checker.cmd_declare_rel,
    "declare-var": _Checker.cmd_declare_var,
    "define-fun": _Checker.cmd_define_fun,
    "define-fun-rec": _Checker.cmd_define_fun_rec,
    "define-funs-rec": _Checker.cmd_define_funs_rec,
    "define-const": _Checker.cmd_define_const,
    "declare-sort": _Checker.cmd_declare_sort,
    "define-sort": _Checker.cmd_define_sort,
    "declare-datatype": _Checker.cmd_declare_datatype,
    "declare-datatypes": _Checker.cmd_declare_datatypes,
    "declare-codatatype": _Checker.cmd_declare_datatype,
    "declare-codatatypes": _Checker.cmd_declare_datatypes,
    "push": _Checker.cmd_push,
    "pop": _Checker.cmd_pop,
    "reset": _Checker.cmd_reset,
    "get-interpolant": _Checker.cmd_labelled_term,
    "get-abduct": _Checker.cmd_labelled_term,
}


# The typing walk is recursive (clear code for the usual depth), a few frames per level of
# nesting: 4 at most as measured (`not` chains; `let` takes 3), so the frames it may take
# read READ_DEPTH levels.
_FRAMES = 50_000
READ_DEPTH = _FRAMES // 4


def infer_sorts(script: Script, *, collect_sites: bool = False) -> SortInfo:
    """Type every term of `script`. With `collect_sites`, also list every term occurrence
    with its parent, sort and the bound variables in scope (what the mutator needs)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _FRAMES))
    checker = _Checker(script, collect_sites)
    try:
        return checker.run()
    except RecursionError:
        info = checker.info
        info.unsorted += 1
        info.too_deep = (
            f"{script.filename}: terms nested {_depth(script):,} deep, too deeply to read "
            f"(the limit is about {READ_DEPTH:,} levels)"
        )
        info.problems.append(info.too_deep)
        return info
    finally:
        sys.setrecursionlimit(limit)


def _depth(script: Script) -> int:
    """The deepest nesting of lists in `script`'s commands, a command's own list not counted
    (a plain stack: no recursion)."""
    deepest = 0
    stack: list[tuple[Node, int]] = [(command, 0) for command in script.commands]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, SList):
            deepest = max(deepest, depth)
            stack.extend((item, depth + 1) for item in node.items)
    return deepest
