from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from sphinxfuzz.generators.catalogue import (
    CatalogueError,
    default_generators_dir,
    load_catalogue,
)

Build = Callable[[str], str]


def write_generator(root: Path, theory: str, source: str) -> Path:
    folder = root / theory
    folder.mkdir(parents=True)
    path = folder / "generator.py"
    path.write_text(source, encoding="utf-8")
    return path


def named(source: str, theory: str, solvers: str = '("z3", "cvc5")') -> str:
    return source.replace('THEORY = "Toy"', f'THEORY = "{theory}"').replace(
        'SOLVERS = ("z3", "cvc5")', f"SOLVERS = {solvers}"
    )


def test_fixture_catalogue(fixtures_dir: Path) -> None:
    catalogue = load_catalogue(fixtures_dir)
    assert sorted(catalogue.entries) == ["FixedSizeBitVectors", "Ints", "Strings"]
    entry = catalogue.entries["Ints"]
    assert entry.solvers == ("z3", "cvc5")
    assert entry.path == fixtures_dir / "Ints" / "generator.py"
    assert entry.source.startswith('"""Hand-written')
    assert entry.manifest is None and entry.grammar_path is None


def test_theories_for_and_manifest(tmp_path: Path, toy_source: Build) -> None:
    body = "    return '', 'true'\n"
    write_generator(tmp_path, "Both", named(toy_source(body), "Both"))
    write_generator(tmp_path, "OnlyZ3", named(toy_source(body), "OnlyZ3", '("z3",)'))
    (tmp_path / "Both" / "manifest.json").write_text(json.dumps({"validity": 0.9}))
    (tmp_path / "Both" / "grammar.lark").write_text("start: /true/\n")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / "__pycache__").mkdir()
    catalogue = load_catalogue(tmp_path)
    assert catalogue.theories_for({"z3"}) == ["Both", "OnlyZ3"]
    assert catalogue.theories_for({"z3", "cvc5"}) == ["Both"]
    assert catalogue.theories_for({"yices"}) == []
    assert catalogue.theories_for(set()) == ["Both", "OnlyZ3"]
    assert catalogue.entries["Both"].manifest == {"validity": 0.9}
    assert catalogue.entries["Both"].grammar_path == tmp_path / "Both" / "grammar.lark"


def test_missing_generator_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "Ints").mkdir()
    with pytest.raises(CatalogueError, match=r"Ints/generator\.py: missing generator"):
        load_catalogue(tmp_path)


def test_unsafe_generator_names_file_and_line(tmp_path: Path, toy_source: Build) -> None:
    source = named(toy_source("    return '', 'true'\n"), "Ints") + "import os\n"
    path = write_generator(tmp_path, "Ints", source)
    line = source.count("\n")
    with pytest.raises(CatalogueError, match=rf"{path}:{line}:1: import of 'os'"):
        load_catalogue(tmp_path)


def test_unreadable_header(tmp_path: Path, toy_source: Build) -> None:
    source = named(toy_source("    return '', 'true'\n"), "Ints", "tuple(['z3'])")
    write_generator(tmp_path, "Ints", source)
    with pytest.raises(CatalogueError, match="SOLVERS must be"):
        load_catalogue(tmp_path)


def test_theory_must_match_directory(tmp_path: Path, toy_source: Build) -> None:
    write_generator(tmp_path, "Reals", named(toy_source("    return '', 'true'\n"), "Ints"))
    with pytest.raises(CatalogueError, match="THEORY is 'Ints' but the directory is named 'Reals'"):
        load_catalogue(tmp_path)


def test_bad_manifest(tmp_path: Path, toy_source: Build) -> None:
    write_generator(tmp_path, "Ints", named(toy_source("    return '', 'true'\n"), "Ints"))
    (tmp_path / "Ints" / "manifest.json").write_text('{"validity": 0.5,\n  oops}')
    with pytest.raises(CatalogueError, match=r"manifest\.json:2:3: invalid JSON"):
        load_catalogue(tmp_path)
    (tmp_path / "Ints" / "manifest.json").write_text("[1, 2]")
    with pytest.raises(CatalogueError, match="must be a JSON object"):
        load_catalogue(tmp_path)


def test_lenient_mode_collects_errors(tmp_path: Path, toy_source: Build) -> None:
    write_generator(tmp_path, "Ints", named(toy_source("    return '', 'true'\n"), "Ints"))
    (tmp_path / "Reals").mkdir()
    catalogue = load_catalogue(tmp_path, strict=False)
    assert list(catalogue.entries) == ["Ints"]
    assert "missing generator" in catalogue.errors["Reals"]


def test_missing_directory_and_default(tmp_path: Path) -> None:
    with pytest.raises(CatalogueError, match="does not exist"):
        load_catalogue(tmp_path / "nope")
    default = default_generators_dir()
    assert default.name == "generated_generators"
    assert (default.parent / "sphinxfuzz" / "generators" / "catalogue.py").is_file()
