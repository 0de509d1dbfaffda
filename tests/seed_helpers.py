"""Helpers shared by the tests of seeds reworked before use (`mutate.upgrade`,
`mutate.declare`): a seed file of a test's own text, and what real z3 and cvc5 answer."""

from __future__ import annotations

from pathlib import Path

from sphinxfuzz.mutate import Seed, load_seed
from sphinxfuzz.oracle.dialect import for_family
from sphinxfuzz.smtlib import parse_script
from sphinxfuzz.solvers import Outcome, parse_specs, run_solver

Z3, CVC5 = parse_specs("z3;cvc5")


def answer(spec_index: int, text: str) -> Outcome:
    """What z3 (0) or cvc5 (1) answers to `text`, in its family's dialect."""
    spec = (Z3, CVC5)[spec_index]
    return run_solver(spec, for_family(parse_script(text), spec.family), timeout=20.0).outcome


def seed_of(tmp_path: Path, text: str, name: str = "seed.smt2") -> Seed:
    path = tmp_path / name
    path.write_text(text)
    return load_seed(path)
