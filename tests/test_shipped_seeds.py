"""The shipped seeds: enough of them, read by our reader, answered alike by z3 and cvc5."""

from __future__ import annotations

from pathlib import Path

import pytest

from sphinxfuzz.mutate import find_atoms, load_seed
from sphinxfuzz.smtlib import infer_sorts
from sphinxfuzz.solvers import Outcome, parse_specs, run_solver

SKELETONS = Path(__file__).resolve().parent.parent / "skeletons"
SEEDS = sorted(SKELETONS.glob("*.smt2"))


def test_there_are_enough_seeds() -> None:
    assert len(SEEDS) >= 60


@pytest.mark.parametrize("path", SEEDS, ids=[p.stem for p in SEEDS])
def test_seed_reads_types_and_has_atoms(path: Path) -> None:
    seed = load_seed(path)
    info = infer_sorts(seed.script)
    assert info.fully_sorted, info.problems
    atoms, _ = find_atoms(seed.script)
    assert len(atoms) >= 3


def test_z3_answers_every_seed() -> None:
    z3 = parse_specs("z3")[0]
    for path in SEEDS:
        result = run_solver(z3, path.read_text(), timeout=10)
        assert result.outcome in (Outcome.SAT, Outcome.UNSAT), (path.name, result.stdout)
        assert "unknown" not in result.answers, path.name


def test_cvc5_agrees_with_z3_on_a_sample() -> None:
    z3, cvc5 = parse_specs("z3;cvc5")
    for path in SEEDS[::6]:
        text = path.read_text()
        expected = run_solver(z3, text, timeout=10).answers
        assert run_solver(cvc5, text, timeout=20).answers == expected, path.name
