"""The Python API: `import sphinxfuzz` exports a documented, typed surface, and the example
in docs/api.md runs exactly as printed."""

from __future__ import annotations

import ast
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import sphinxfuzz
from sphinxfuzz import api

REPO = Path(__file__).resolve().parents[2]


def test_every_export_is_documented_and_typed() -> None:
    assert set(sphinxfuzz.__all__) >= {
        "CampaignConfig", "run_campaign", "load_bugs", "replay", "reduce", "bisect",
    }  # fmt: skip
    for name in sphinxfuzz.__all__:
        thing = getattr(sphinxfuzz, name)
        assert thing is getattr(api, name) and inspect.getdoc(thing), name
        if inspect.isfunction(thing):
            signature = inspect.signature(thing)
            assert signature.return_annotation is not inspect.Signature.empty, name
            untyped = [p for p in signature.parameters.values() if p.annotation is p.empty]
            assert untyped == [], name


def _api_names(module: str) -> set[str]:
    """What a cli module takes from `sphinxfuzz.api`: imported by name, or called as
    `api.NAME` after `from sphinxfuzz import api`."""
    tree = ast.parse((REPO / "sphinxfuzz" / "cli" / f"{module}.py").read_text("utf-8"))
    named = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "sphinxfuzz.api"
        for alias in node.names
    }
    module_imported = any(
        isinstance(node, ast.ImportFrom) and node.module == "sphinxfuzz"
        and any(alias.name == "api" and alias.asname is None for alias in node.names)
        for node in ast.walk(tree)
    )  # fmt: skip
    called = {
        node.attr
        for node in ast.walk(tree)
        if module_imported and isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name) and node.value.id == "api"
    }  # fmt: skip
    return named | called


def test_the_cli_calls_the_api() -> None:
    for module, names in (
        ("fuzz", {"run_campaign"}),
        ("bugs", {"replay", "list_bugs", "show", "issue", "queue", "refresh", "reindex"}),
        ("reduce_command", {"reduce", "reducible", "reduce_each"}),
        ("bisect_command", {"bisect", "bisect_each"}),
        ("report_command", {"report"}),
        ("status_command", {"status"}),
    ):
        assert names <= _api_names(module), module


def test_the_cli_imports_nothing_from_bugs() -> None:
    """The commands reach stored findings through the API only."""
    for path in (REPO / "sphinxfuzz" / "cli").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("sphinxfuzz.bugs"), path.name
            if isinstance(node, ast.ImportFrom) and node.module == "sphinxfuzz":
                assert "bugs" not in {alias.name for alias in node.names}, path.name


def test_the_documented_example_runs_as_printed() -> None:
    doc = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    (example,) = re.findall(r"```python\n(.*?)```", doc, re.S)
    assert len(example.strip().splitlines()) <= 16
    done = subprocess.run([sys.executable, "-c", example], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    first, *bugs = done.stdout.splitlines()
    assert re.fullmatch(r"20 mutants, \d+ solver calls, \d+ new bugs in /\S+/campaign", first)
    assert int(first.split(" solver calls")[0].split()[-1]) >= 40, first  # both solvers ran
    assert all(re.fullmatch(r"\S+ \S+ \S+ (reproduces|gone)", line) for line in bugs), bugs


def test_stored_bugs_are_listed_and_replayed(crash_campaign: tuple[Path, list[str]]) -> None:
    root = crash_campaign[0]
    bugs = sphinxfuzz.load_bugs(root)
    crashes = [bug for bug in bugs if bug.kind == "crash"]
    assert crashes and all(bug.folder.is_dir() for bug in bugs)
    again = sphinxfuzz.replay(root, crashes[0].id, trust_folder=True)
    assert again.reproduced and again.original.kind == "crash"
    by_path = sphinxfuzz.replay(None, str(crashes[0].folder), trust_folder=True)
    assert by_path.reproduced
