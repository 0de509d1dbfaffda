"""ARCHITECTURE.md names the code it describes, so a rename that leaves it behind fails here.

The rule: a backticked span of the prose is a reference when it starts with a dotted name whose
first part is a package or top-level module of sphinxfuzz (`bugs.folder.CampaignFolder`,
`sphinxfuzz.errors.Step`, `api.run_campaign(...)`) or a class sphinxfuzz defines followed by a
member (`Family.read`). A module reference resolves when the modules exist and each further
part is bound in the one before: a top-level definition, assignment or import of the module
(imports followed to their source), or a member of the class (its body, `self.` assignments,
`__slots__`, its bases). A class reference resolves when some class of that name has the
member. Resolution reads the source (AST), so nothing is imported and optional dependencies
stay unloaded. Spans that are file names (`status.json`) and fenced code blocks are not
references.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

from tests.test_layers import ALLOWED, LEAVES

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sphinxfuzz"
DOC = ROOT / "ARCHITECTURE.md"
FILE_SUFFIXES = {"json", "md", "py", "smt2", "sqlite", "lark", "toml", "lock", "txt"}
TOP_LEVEL = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()} | {
    p.stem for p in PACKAGE.glob("*.py") if not p.stem.startswith("_")
}
_SPAN = re.compile(r"`([^`\n]+)`")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


def references(markdown: str) -> list[str]:
    """The dotted names into sphinxfuzz that `markdown`'s prose spans start with, in order."""
    prose = re.sub(r"^```.*?^```", "", markdown, flags=re.S | re.M)
    found = []
    for span in _SPAN.findall(prose):
        match = _DOTTED.match(span.strip())
        if match is None:
            continue
        parts = match.group(0).split(".")
        if parts[0] == "sphinxfuzz":
            parts = parts[1:]
        if parts and parts[-1] not in FILE_SUFFIXES:
            if parts[0] in TOP_LEVEL or (parts[0] in _classes() and parts[0][0].isupper()):
                found.append(".".join(parts))
    return found


@functools.cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def _classes() -> dict[str, list[tuple[Path, ast.ClassDef]]]:
    """Every class sphinxfuzz defines at a module's top level, by name."""
    found: dict[str, list[tuple[Path, ast.ClassDef]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in _tree(path).body:
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append((path, node))
    return found


def _module_file(parts: list[str]) -> tuple[Path | None, list[str]]:
    """The file of the longest module prefix of `parts`, and the names left after it."""
    here, found, rest = PACKAGE, None, parts
    for i, part in enumerate(parts):
        if (here / part / "__init__.py").is_file():
            here = here / part
            found, rest = here / "__init__.py", parts[i + 1 :]
        elif (here / f"{part}.py").is_file():
            return here / f"{part}.py", parts[i + 1 :]
        else:
            break
    return found, rest


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a body, with those under `if`/`try` (TYPE_CHECKING imports) inlined."""
    out: list[ast.stmt] = []
    for node in body:
        out.append(node)
        if isinstance(node, ast.If | ast.Try):
            out += _statements(node.body + node.orelse)
    return out


def _bound(body: list[ast.stmt], name: str) -> ast.stmt | None:
    for node in _statements(body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name == name:
                return node
        elif isinstance(node, ast.Assign):
            if any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                return node
        elif isinstance(node, ast.AnnAssign):
            if isinstance(node.target, ast.Name) and node.target.id == name:
                return node
        elif isinstance(node, ast.ImportFrom | ast.Import):
            if any((a.asname or a.name.split(".")[0]) == name for a in node.names):
                return node
    return None


def _resolves_in(path: Path, names: list[str]) -> bool:
    if not names:
        return True
    body = _tree(path).body
    node = _bound(body, names[0])
    if isinstance(node, ast.ImportFrom):
        return _follow_import(path, node, names)
    for name in names[1:]:
        if not isinstance(node, ast.ClassDef):
            return False
        node = _member(path, node, name)
    return node is not None


def _follow_import(path: Path, node: ast.ImportFrom, names: list[str]) -> bool:
    """`from X import a` binds `a`: resolve X.a.rest inside sphinxfuzz (outside it: trusted)."""
    if node.level:
        base = path.parent.relative_to(PACKAGE).parts
        base = base[: len(base) - node.level + 1]
        module = [*base, *(node.module or "").split(".")]
    elif node.module and node.module.split(".")[0] == "sphinxfuzz":
        module = node.module.split(".")[1:]
    else:
        return len(names) == 1
    original = next(a.name for a in node.names if (a.asname or a.name) == names[0])
    return resolves([p for p in module if p] + [original] + names[1:])


def _member(path: Path, cls: ast.ClassDef, name: str) -> ast.stmt | None:
    """A name bound in the class body or, failing that, in a base class of sphinxfuzz's."""
    found = _bound(cls.body, name)
    if found is not None:
        return found
    for node in ast.walk(cls):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id == "self" and node.attr == name:
                return cls
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets
        ):
            if any(isinstance(c, ast.Constant) and c.value == name for c in ast.walk(node.value)):
                return cls
    for base in cls.bases:
        if isinstance(base, ast.Name):
            parent = _bound(_tree(path).body, base.id)
            if isinstance(parent, ast.ClassDef):
                found = _member(path, parent, name)
            elif isinstance(parent, ast.ImportFrom) and _follow_import(
                path, parent, [base.id, name]
            ):
                return parent
            if found is not None:
                return found
    return None


def resolves(parts: list[str]) -> bool:
    if parts[0] in _classes() and parts[0] not in TOP_LEVEL:
        return any(_resolves_in(path, parts) for path, _ in _classes()[parts[0]])
    path, rest = _module_file(parts)
    return path is not None and _resolves_in(path, rest)


def test_every_code_reference_in_architecture_resolves() -> None:
    refs = references(DOC.read_text(encoding="utf-8"))
    assert refs, "the rule finds no reference: the document or the rule changed"
    stale = [ref for ref in refs if not resolves(ref.split("."))]
    assert not stale, "ARCHITECTURE.md names code that does not resolve: " + ", ".join(stale)


def test_a_renamed_function_would_be_reported() -> None:
    """The check can fail: a reference to a function renamed away does not resolve."""
    text = DOC.read_text(encoding="utf-8")
    ref = next(r for r in references(text) if len(r.split(".")) >= 3 and resolves(r.split(".")))
    renamed = ref + "_renamed"
    assert references(text.replace(f"`{ref}", f"`{renamed}", 1)).count(renamed) == 1
    assert not resolves(renamed.split("."))
    assert not resolves(["campaign", "no_such_module", "Worker"])


def test_rule_reads_spans_not_files_or_code_blocks() -> None:
    sample = (
        "`sphinxfuzz.bugs.store.Store` and `campaign.worker.Worker.run(x)`, not `status.json`,\n"
        "`bugs/record.py`, `campaign.sqlite`, `Set` or `Sort`; `Answer.read` is.\n"
        "```\n`smtlib.nope`\n```\n"
    )
    assert references(sample) == ["bugs.store.Store", "campaign.worker.Worker.run", "Answer.read"]
    assert not resolves(["Answer", "no_such_member"])


def test_one_section_per_package_after_what_it_imports() -> None:
    """Each package has a `## \\`sphinxfuzz.<package>\\`` section, placed after the sections of
    the packages tests/test_layers.py lets it import (import order)."""
    headings = re.findall(r"^## `sphinxfuzz\.(\w+)`", DOC.read_text(encoding="utf-8"), re.M)
    packages = [p for p in ALLOWED if p not in {"__init__", "__main__"}]
    assert sorted(headings) == sorted(packages)
    for i, package in enumerate(headings):
        assert ALLOWED[package] - LEAVES <= set(headings[:i]), package
