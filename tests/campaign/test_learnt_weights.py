"""Theory weights learnt from the campaign's own mutants: a theory keeps its probe weight
while its mutants are undecided at most at the target share, and is drawn less the more of
them are; the number of terms a mutant gets learns alike."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.campaign.learnt_weights import PRIOR_DECIDED, TARGET_UNDECIDED, LearntWeights
from tests.campaign_helpers import SEEDS, config_for

# z3 answers unknown to 2^x = 3 over the reals (and to a mutant holding it), sat to x > 1
MIXED = '''"""Real terms, half of them with a power z3 does not decide."""
import random

THEORY = "Mixed"
SOLVERS = ("z3",)


def generate(rng: random.Random) -> tuple[str, str]:
    return "(declare-const x Real)", rng.choice(("(> x 1.0)", "(= (^ 2.0 x) 3.0)"))
'''

SURE = '''"""Integer terms z3 decides at once."""
import random

THEORY = "Sure"
SOLVERS = ("z3",)


def generate(rng: random.Random) -> tuple[str, str]:
    return "(declare-const n Int)", f"(> n {rng.randint(0, 9)})"
'''


def test_a_theory_keeps_its_probe_weight_while_its_mutants_are_decided() -> None:
    drawn, undecided = Counter({"A": 30, "B": 30}), Counter[str]()
    weights = LearntWeights(["A", "B", "C"], {"A": 0.64, "B": 1.0}, drawn, undecided)
    assert dict(weights) == {"A": 0.64, "B": 1.0, "C": 1.0}  # exactly: the same draws
    # the live counters of the worker's statistics: one undecided of 30 is under the target
    undecided.update({"A": 10, "B": 1})
    assert 1 / (30 + PRIOR_DECIDED) <= TARGET_UNDECIDED and weights["B"] == 1.0
    share = 10 / (30 + PRIOR_DECIDED)
    assert weights["A"] == pytest.approx(0.64 * TARGET_UNDECIDED / share)
    assert weights["C"] == 1.0
    with pytest.raises(KeyError):
        weights["D"]  # noqa: B018 (not a theory of the pool: `get` gives its default)
    # no probe weights: from 1; the first mutant of a theory undecided already counts
    first = LearntWeights(["A"], None, Counter({"A": 1}), Counter({"A": 1}))
    assert first["A"] == pytest.approx(TARGET_UNDECIDED * (1 + PRIOR_DECIDED))


def test_the_campaign_counts_the_theories_of_its_undecided_mutants(tmp_path: Path) -> None:
    generators = tmp_path / "generators"
    for theory, text in (("Mixed", MIXED), ("Sure", SURE)):
        (generators / theory).mkdir(parents=True)
        (generators / theory / "generator.py").write_text(text)
    config = replace(
        config_for([SEEDS / "plain.smt2"], "z3", per_seed=10), generators=str(generators)
    )
    stats = run_campaign(config, tmp_path / "c", Budget(mutants=20))
    # z3 left some undecided, each of them with a Mixed term; Sure alone is always decided
    assert stats.undecided > 0 and stats.theories_undecided["Mixed"] == stats.undecided
    assert stats.theories_undecided["Sure"] < stats.theories["Sure"]
    # and by how many terms each mutant holds (what the draw of that number learns from)
    assert sum(stats.term_counts.values()) == stats.mutants
    assert sum(stats.term_counts_undecided.values()) == stats.undecided
