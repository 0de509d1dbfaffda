"""Fixtures of the generator-runtime tests (the project runs pytest in importlib mode,
so shared helpers are fixtures rather than importable modules)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "generators"

HEADER = 'import random\n\nTHEORY = "Toy"\nSOLVERS = ("z3", "cvc5")\n\n\n'


@pytest.fixture
def fixtures_dir() -> Path:
    """`tests/fixtures/generators`: the hand-written Ints, FixedSizeBitVectors, Strings."""
    return FIXTURES


@pytest.fixture
def fixture_source() -> Callable[[str], str]:
    def read(theory: str) -> str:
        return (FIXTURES / theory / "generator.py").read_text(encoding="utf-8")

    return read


@pytest.fixture
def toy_source() -> Callable[[str], str]:
    """A contract-conforming module (THEORY "Toy") whose `generate` has the given body."""

    def build(body: str) -> str:
        return HEADER + "def generate(rng):\n" + body

    return build
