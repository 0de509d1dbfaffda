"""Static safety and contract check of an untrusted generator module.

Generators are written by an LLM, so before any of their code runs the AST is checked
against an allow-list (`allowed_names.json`, a reason per entry): (a) imports of the listed
modules only, and of each only the listed names (`module.name` or `from module import
name`; a module object itself may not be passed around, so no public attribute such as
`enum.bltns` or `dataclasses.inspect` is reachable), (b) builtins from the list only, plus
the generator's own names, (c) on other objects no dunder, private or known escape
attribute, and (d) the module contract: literal `THEORY`, literal `SOLVERS` and a
one-argument `generate`. The check is conservative: it may refuse odd but harmless code; the
kernel confinement of the child process (`confine.py`) stays the wall behind it.
"""

from __future__ import annotations

import ast
import builtins
import json
import re
import string
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sphinxfuzz.errors import InputError
from sphinxfuzz.generators.theory_folder import GeneratorFolder

ALLOW_LIST = Path(__file__).with_name("allowed_names.json")
_ALLOWED = json.loads(ALLOW_LIST.read_text(encoding="utf-8"))

# module -> the names a generator may use from it
ALLOWED_NAMES: dict[str, frozenset[str]] = {
    module: frozenset(entry["names"]) for module, entry in _ALLOWED["modules"].items()
}
ALLOWED_MODULES: frozenset[str] = frozenset(ALLOWED_NAMES)
ALLOWED_BUILTINS: frozenset[str] = frozenset(_ALLOWED["builtins"])
BUILTIN_NAMES: frozenset[str] = frozenset(dir(builtins))

# Built-in names that open files, run code, read input or expose namespaces.
FORBIDDEN_NAMES: frozenset[str] = frozenset(
    {
        "open",
        "exec",
        "eval",
        "compile",
        "__import__",
        "input",
        "breakpoint",
        "globals",
        "locals",
        "vars",
        "dir",
        "help",
        "exit",
        "quit",
        "memoryview",
        "copyright",
        "credits",
        "license",
    }
)

# Reflection helpers: allowed only as direct calls with a literal, harmless attribute name.
ATTRIBUTE_BUILTINS: frozenset[str] = frozenset({"getattr", "setattr", "delattr", "hasattr"})

# Attribute names that lead to modules, frames or dynamic attribute lookup even without
# dunders (`dataclasses.sys`, `gen.gi_frame.f_back.f_globals`, `string.Formatter().get_field`).
FORBIDDEN_ATTRIBUTES: frozenset[str] = frozenset(
    {
        "sys",
        "os",
        "builtins",
        "modules",
        "subprocess",
        "importlib",
        "gi_frame",
        "gi_code",
        "gi_yieldfrom",
        "cr_frame",
        "cr_code",
        "cr_await",
        "ag_frame",
        "ag_code",
        "f_back",
        "f_globals",
        "f_locals",
        "f_builtins",
        "f_code",
        "f_trace",
        "tb_frame",
        "tb_next",
        "co_code",
        "co_consts",
        "Formatter",
        "get_field",
        "attrgetter",
        "methodcaller",
        "get_type_hints",
        "ForwardRef",
        "make_dataclass",
        "SystemRandom",
        # evaluate string annotations (`typing.get_type_hints` on a registered function)
        "singledispatch",
        "singledispatchmethod",
    }
)

# str.format / format_map look up attributes and items named in the template at run time
# (`"{0.__globals__}".format(f)`): allowed only on a literal template whose fields name
# nothing but positions or keywords.
FORMAT_METHODS: frozenset[str] = frozenset({"format", "format_map"})

# Dunders that cannot be turned into an escape on their own.
HARMLESS_DUNDER_ATTRIBUTES: frozenset[str] = frozenset({"__init__", "__name__"})
HARMLESS_DUNDER_NAMES: frozenset[str] = frozenset({"__name__", "__slots__", "__all__"})
HARMLESS_DUNDER_STRINGS: frozenset[str] = frozenset({"__init__", "__name__", "__main__"})

# Only the seeded generator class of `random`: module-level functions share hidden global
# state, which would make `generate(random.Random(seed))` non-deterministic.
RANDOM_MODULE_ALLOWED: frozenset[str] = ALLOWED_NAMES["random"]

_DUNDER_IN_STRING = re.compile(r"__[A-Za-z_]\w*__")
_FAMILY = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class Problem:
    """One reason a generator source is refused, with a 1-based position."""

    line: int
    col: int
    message: str
    filename: str = GeneratorFolder.GENERATOR

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.col}: {self.message}"


class UnsafeGenerator(InputError):
    """A generator source that must not run; `problems` lists every reason."""

    def __init__(self, filename: str, problems: list[Problem]) -> None:
        self.filename = filename
        self.problems = problems
        listing = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"{filename}: generator refused ({len(problems)} problem(s)):\n{listing}")


@dataclass(frozen=True)
class Header:
    """The module-level constants a catalogue needs, read without running the code."""

    theory: str
    solvers: tuple[str, ...]


def check_source(source: str, filename: str = GeneratorFolder.GENERATOR) -> list[Problem]:
    """Every safety and contract problem of `source`, in source order (empty = acceptable)."""
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        return [Problem(exc.lineno or 1, exc.offset or 1, f"syntax error: {exc.msg}", filename)]
    except ValueError as exc:  # e.g. NUL bytes in the source
        return [Problem(1, 1, f"unreadable source: {exc}", filename)]
    except (RecursionError, MemoryError):  # the parser itself gives up on deep nesting
        return [Problem(1, 1, "source is nested too deeply to check", filename)]
    checker = _SafetyVisitor(filename, _bound_names(tree))
    try:
        checker.visit(tree)
    except RecursionError:
        return [Problem(1, 1, "source is nested too deeply to check", filename)]
    problems = checker.problems + _contract_problems(tree, filename)
    return sorted(problems, key=lambda p: (p.line, p.col, p.message))


def require_safe(source: str, filename: str = GeneratorFolder.GENERATOR) -> None:
    """Raise `UnsafeGenerator` unless `check_source` finds nothing."""
    problems = _problems(source, filename)
    if problems:
        raise UnsafeGenerator(filename, list(problems))


@lru_cache(maxsize=128)
def _problems(source: str, filename: str) -> tuple[Problem, ...]:
    # a campaign checks each generator when validating, cataloguing and loading the pool
    return tuple(check_source(source, filename))


def read_header(source: str, filename: str = GeneratorFolder.GENERATOR) -> Header:
    """`THEORY` and `SOLVERS` as written in the source; raises `UnsafeGenerator` if unreadable."""
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        problem = Problem(exc.lineno or 1, exc.offset or 1, f"syntax error: {exc.msg}", filename)
        raise UnsafeGenerator(filename, [problem]) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        problem = Problem(1, 1, f"unreadable source: {type(exc).__name__}", filename)
        raise UnsafeGenerator(filename, [problem]) from None
    problems = _contract_problems(tree, filename)
    if problems:
        raise UnsafeGenerator(filename, problems)
    theory = _literal_assignments(tree)["THEORY"][0]
    solvers = _literal_assignments(tree)["SOLVERS"][0]
    assert isinstance(theory, str) and isinstance(solvers, tuple)  # guaranteed by the check
    return Header(theory, solvers)


class _SafetyVisitor(ast.NodeVisitor):
    def __init__(self, filename: str, bound: frozenset[str] = frozenset()) -> None:
        self.filename = filename
        self.bound = bound  # names the module binds itself (they shadow builtins)
        self.problems: list[Problem] = []
        self.modules: dict[str, str] = {}  # local name -> allowed module it is bound to
        self.random_aliases: set[str] = set()
        self.random_class_names: set[str] = set()

    def _report(self, node: ast.AST, message: str) -> None:
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0) + 1
        self.problems.append(Problem(line, col, message, self.filename))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            # `import a.b` binds `a`; `import a.b as c` binds c to `a.b`
            module = alias.name if alias.asname else alias.name.split(".")[0]
            if alias.name not in ALLOWED_MODULES or module not in ALLOWED_MODULES:
                self._report(node, f"import of '{alias.name}' is not allowed ({_allowed_text()})")
                continue
            local = alias.asname or module
            self.modules[local] = module
            if module == "random":
                self.random_aliases.add(local)
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level or module not in ALLOWED_MODULES:
            shown = "." * node.level + module
            self._report(node, f"import from '{shown}' is not allowed ({_allowed_text()})")
            return
        for alias in node.names:
            name = alias.name
            if name == "*":
                self._report(node, "'from ... import *' is not allowed; import names explicitly")
            elif name.startswith("_") and module != "__future__":
                self._report(node, f"import of private name '{name}' is not allowed")
            elif name in FORBIDDEN_ATTRIBUTES or name in FORBIDDEN_NAMES:
                self._report(node, f"import of '{name}' is not allowed")
            elif module == "random" and name in RANDOM_MODULE_ALLOWED:
                self.random_class_names.add(alias.asname or name)
            elif module == "random":
                self._report(
                    node,
                    f"'from random import {name}' uses the shared global generator; "
                    "make every random choice through the rng argument",
                )
            elif name not in ALLOWED_NAMES[module]:
                self._report(node, _not_listed(module, name))
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if name in FORBIDDEN_NAMES:
            self._report(
                node, f"use of '{name}' is not allowed (files, code execution or namespaces)"
            )
        elif _is_dunder(name) and name not in HARMLESS_DUNDER_NAMES:
            self._report(node, f"use of '{name}' is not allowed (interpreter internals)")
        elif name in ATTRIBUTE_BUILTINS:
            # Reached only when not the callee of a checked call (see visit_Call).
            self._report(
                node, f"'{name}' may only be called directly with a literal attribute name"
            )
        elif isinstance(node.ctx, ast.Load) and name in self.modules:
            # Reached only when not the owner of an attribute (see visit_Attribute): a module
            # passed on as a value would let any of its attributes be read.
            self._report(
                node, f"module '{name}' may only be used as '{name}.<name>' with a listed name"
            )
        elif (
            isinstance(node.ctx, ast.Load)
            and name in BUILTIN_NAMES
            and name not in ALLOWED_BUILTINS
            and name not in self.bound
            and not _is_dunder(name)
        ):
            self._report(node, f"use of builtin '{name}' is not on the allow-list")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id in self.modules:
            module = self.modules[owner.id]
            public = not node.attr.startswith("_")
            if public and module == "random" and node.attr not in RANDOM_MODULE_ALLOWED:
                self._report(
                    node,
                    f"'{owner.id}.{node.attr}' uses the shared global generator; "
                    "make every random choice through the rng argument",
                )
            elif node.attr not in ALLOWED_NAMES[module]:
                self._report(node, _not_listed(module, node.attr))
            return  # the module name itself is used as it must be
        self._check_attribute_name(node, node.attr, owner)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in ATTRIBUTE_BUILTINS:
            name = _str_constant(node.args[1]) if len(node.args) >= 2 else None
            if name is None:
                self._report(node, f"'{func.id}' needs a literal attribute name as second argument")
            else:
                self._check_attribute_name(node, name, node.args[0])
            for child in [*node.args, *node.keywords]:
                self.visit(child)
            return
        unseeded = not node.args and not node.keywords
        if unseeded and (
            (isinstance(func, ast.Name) and func.id in self.random_class_names)
            or (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id in self.random_aliases
                and func.attr == "Random"
            )
        ):
            self._report(node, "Random() without a seed is not deterministic; use the rng argument")
        self.generic_visit(node)

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        # `case type(__base__=b)` reads the attribute `__base__` of the subject
        for attr in node.kwd_attrs:
            self._check_attribute_name(node, attr, node.cls)
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        # A dunder spelled in a string feeds str.format field lookups or annotations eval.
        if isinstance(node.value, str | bytes):
            text = node.value if isinstance(node.value, str) else node.value.decode("latin-1")
            for match in _DUNDER_IN_STRING.finditer(text):
                if match.group(0) not in HARMLESS_DUNDER_STRINGS:
                    self._report(node, f"string mentions interpreter internal '{match.group(0)}'")
                    break

    def _check_attribute_name(self, node: ast.AST, attr: str, owner: ast.expr) -> None:
        if _is_dunder(attr):
            if attr not in HARMLESS_DUNDER_ATTRIBUTES:
                self._report(
                    node, f"access to attribute '{attr}' is not allowed (interpreter internals)"
                )
        elif attr.startswith("_"):
            # not even on `self`: any object can be passed as self (`f(random)` reads
            # `random._os` inside `def f(self): return self._os`)
            self._report(
                node,
                f"access to private attribute '{attr}' is not allowed; "
                "name attributes without a leading underscore",
            )
        elif attr in FORBIDDEN_ATTRIBUTES:
            self._report(node, f"access to attribute '{attr}' is not allowed")
        elif attr in FORMAT_METHODS and not _simple_template(owner):
            self._report(
                node,
                f"'.{attr}' is only allowed on a string literal whose fields are plain "
                "positions or names (use an f-string)",
            )


def _contract_problems(tree: ast.Module, filename: str) -> list[Problem]:
    """Problems with the THEORY / SOLVERS / generate contract."""
    problems: list[Problem] = []
    assignments = _literal_assignments(tree)

    def report(line: int, col: int, message: str) -> None:
        problems.append(Problem(line, col, message, filename))

    theory = assignments.get("THEORY")
    if theory is None:
        report(1, 1, 'missing module-level THEORY = "<theory name>"')
    elif not (isinstance(theory[0], str) and theory[0].strip()):
        report(theory[1], 1, "THEORY must be a non-empty string literal")
    elif theory[2] > 1:
        report(theory[1], 1, "THEORY must be assigned exactly once")

    solvers = assignments.get("SOLVERS")
    if solvers is None:
        report(1, 1, 'missing module-level SOLVERS = ("z3", "cvc5", ...)')
    elif not (
        isinstance(solvers[0], tuple)
        and solvers[0]
        and all(isinstance(s, str) and _FAMILY.match(s) for s in solvers[0])
    ):
        report(
            solvers[1],
            1,
            'SOLVERS must be a non-empty tuple of solver family names like ("z3", "cvc5")',
        )
    elif solvers[2] > 1:
        report(solvers[1], 1, "SOLVERS must be assigned exactly once")

    generates = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "generate"
    ]
    if not generates:
        report(1, 1, "missing module-level function 'def generate(rng):'")
    for node in generates:
        args = node.args
        if isinstance(node, ast.AsyncFunctionDef):
            report(node.lineno, node.col_offset + 1, "generate must be a plain function, not async")
        params = [*args.posonlyargs, *args.args]
        if len(params) != 1 or args.defaults or args.vararg or args.kwarg or args.kwonlyargs:
            report(
                node.lineno, node.col_offset + 1, "generate must take exactly one parameter (rng)"
            )
    if len(generates) > 1:
        report(generates[1].lineno, 1, "generate is defined more than once")
    return problems


def _literal_assignments(tree: ast.Module) -> dict[str, tuple[object, int, int]]:
    """Module-level `THEORY`/`SOLVERS` assignments: name -> (literal value, line, count).

    A value that is not a literal is kept as None so the caller can report it.
    """
    found: dict[str, tuple[object, int, int]] = {}
    for node in tree.body:
        targets: list[ast.expr]
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name) and target.id in ("THEORY", "SOLVERS"):
                try:
                    literal: object = ast.literal_eval(value)
                except (ValueError, TypeError, SyntaxError, RecursionError):
                    literal = None
                previous = found.get(target.id)
                if previous is None:
                    found[target.id] = (literal, node.lineno, 1)
                else:
                    found[target.id] = (previous[0], previous[1], previous[2] + 1)
    return found


def _bound_names(tree: ast.AST) -> frozenset[str]:
    """Every name the module binds anywhere (a conservative, scope-blind over-approximation:
    a builtin it shadows somewhere is taken as shadowed everywhere, and then is its own)."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bound.add(node.rest)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            bound.update(node.names)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
    return frozenset(bound)


def _not_listed(module: str, name: str) -> str:
    listed = ", ".join(sorted(ALLOWED_NAMES[module]))
    return f"'{module}.{name}' is not on the allow-list (from '{module}' only: {listed})"


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _simple_template(node: ast.expr) -> bool:
    """A literal format template whose fields are empty, numbers or identifiers (no `.`
    attribute or `[...]` item lookups, none in nested format specs either)."""
    template = _str_constant(node)
    if template is None:
        return False
    pending = [template]
    try:
        while pending:
            for _, field, spec, _ in string.Formatter().parse(pending.pop()):
                if field is not None and ("." in field or "[" in field):
                    return False
                if spec:
                    pending.append(spec)
    except ValueError:
        return False  # a malformed template would fail at run time anyway
    return True


def _str_constant(node: ast.expr) -> str | None:
    """The text of a string literal, else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _allowed_text() -> str:
    return "allowed: " + ", ".join(sorted(m for m in ALLOWED_MODULES if m != "__future__"))
