"""Expected-answer annotations: dropped from seeds and mutants, and never a crash verdict
(checked with real z3 and cvc5)."""

from __future__ import annotations

import random
import shutil

import pytest

from sphinxfuzz.mutate import load_seed, mutate
from sphinxfuzz.oracle import judge
from sphinxfuzz.solvers import Outcome, parse_specs, run_solver

# unsat as written; its only atom, replaced by any satisfiable term, makes it sat
SEED = """(set-info :smt-lib-version 2.6)
(set-info :status unsat)
(set-logic QF_LIA)
(declare-const x Int)
(assert (< x x))
(check-sat)
"""


class SatSource:
    theories = ("Ints",)

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        return "(declare-const i Int)", f"(> i {seed % 7})"


def _specs() -> list:
    texts = ["z3 model_validate=true", "cvc5 --check-models"]
    if shutil.which("/usr/bin/cvc5"):  # Debian's 1.0.x aborts on the annotation
        texts.append("/usr/bin/cvc5 --check-models")
    return parse_specs(";".join(texts))


def test_seed_keeps_the_claimed_answer_and_mutants_carry_none(tmp_path):
    path = tmp_path / "seed.smt2"
    path.write_text(SEED)
    seed = load_seed(path)
    assert seed.expected == ("unsat",)
    assert ":status" not in seed.text and ":smt-lib-version" in seed.text
    mutant = mutate(seed, random.Random(1), SatSource())
    assert ":status" not in mutant.text
    results = [run_solver(s, mutant.text_for(s.family), timeout=30) for s in _specs()]
    assert [r.outcome for r in results] == [Outcome.SAT] * len(results), [r.stderr for r in results]


@pytest.mark.parametrize("spec", _specs(), ids=lambda s: s.name)
def test_answer_against_annotation_is_no_crash(spec):
    text = SEED.replace("(< x x)", "(> x 3)") + "(get-model)\n"
    result = run_solver(spec, text, timeout=30)
    assert result.annotation_conflict, (result.stdout, result.stderr)
    assert result.outcome == Outcome.SAT
    assert "sat" in result.answers
    assert not judge(text, [result], lambda s, t: run_solver(s, t)).verdicts
