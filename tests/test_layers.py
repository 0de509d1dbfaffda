"""The import graph keeps the layers ARCHITECTURE.md draws: a package imports only the
packages listed for it here (the drawing, as data), so a new upward import fails a test
instead of waiting for a careful reader."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "sphinxfuzz"

# every package's allowed imports inside sphinxfuzz (the leaf modules errors, fileio, visible and
# datafiles may be imported from anywhere and import nothing of sphinxfuzz's)
LEAVES = {"errors", "fileio", "datafiles", "visible"}
ALLOWED = {
    "smtlib": set(),
    "solvers": {"smtlib"},
    "generators": {"smtlib", "solvers"},
    "synthesis": {"smtlib", "solvers", "generators"},
    "oracle": {"smtlib", "solvers"},
    "mutate": {"smtlib", "solvers", "oracle"},
    "strategies": {"smtlib", "solvers", "oracle", "mutate", "generators"},
    "bugs": {"smtlib", "solvers", "oracle"},
    "campaign": {"smtlib", "solvers", "generators", "oracle", "mutate", "strategies", "bugs"},
    "cli": {
        "smtlib",
        "solvers",
        "generators",
        "synthesis",
        "oracle",
        "mutate",
        "strategies",
        "bugs",
        "campaign",
        "api",
    },  # fmt: skip
    # the Python API (docs/api.md) over the library; the CLI calls it
    "api": {"smtlib", "solvers", "oracle", "bugs", "campaign"},
    "__init__": {"api"},
    "__main__": {"cli"},
}


def _imports() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).parts
        owner = parts[0] if len(parts) > 1 else path.stem
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                target = name.split(".")[1] if name.startswith("sphinxfuzz.") else None
                if target and target != owner:
                    graph[owner].add(target)
    return graph


def test_imports_go_one_way() -> None:
    wrong = {
        owner: sorted(targets - ALLOWED.get(owner, set()) - LEAVES)
        for owner, targets in _imports().items()
        if owner not in LEAVES
    }
    assert {k: v for k, v in wrong.items() if v} == {}


def test_leaves_import_nothing_of_sphinxfuzz() -> None:
    graph = _imports()
    assert {leaf: sorted(graph[leaf]) for leaf in LEAVES if graph.get(leaf)} == {}


def test_every_package_has_a_place() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages - set(ALLOWED) - {"_data"} == set()


def test_the_drawing_names_every_package() -> None:
    drawing = (PACKAGE.parent / "ARCHITECTURE.md").read_text(encoding="utf-8")
    block = drawing.split("## Layers", 1)[1].split("```")[1]
    assert {p for p in ALLOWED if p not in ("__main__", "__init__")} <= set(block.split()), block


def test_no_module_imports_another_modules_private_name() -> None:
    # a name with a leading underscore is its module's own: another module that needs it
    # needs a public name in the module that holds it (one home, named for what it is)
    private = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith("sphinxfuzz")
            ):
                private += [
                    f"{path.relative_to(PACKAGE)}: {node.module}.{alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_") and not alias.name.startswith("__")
                ]
    assert private == []
