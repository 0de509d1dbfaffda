"""The theory probe weighs a theory by the share of its terms every solver decides: a theory
the solvers accept but answer `unknown` to, or cannot solve (the cvc5 wheel has no CoCoA for
finite fields), is drawn less often or not at all, and the probe says why."""

from __future__ import annotations

from pathlib import Path

from sphinxfuzz.campaign.theory_probe import STOPS_PER_THEORY, probe_theories
from sphinxfuzz.generators.catalogue import load_catalogue
from sphinxfuzz.generators.pool import GeneratorPool
from sphinxfuzz.solvers import parse_specs

# z3 answers unknown to 2^x = 3 over the reals, and sat to x > 1 at once
MIXED = '''"""Real terms, half of them with a power z3 does not decide."""
import random

THEORY = "Mixed"
SOLVERS = ("z3",)


def generate(rng: random.Random) -> tuple[str, str]:
    term = rng.choice(("(> x 1.0)", "(= (^ 2.0 x) 3.0)"))
    return "(declare-const x Real)", term
'''

FIELD = '''"""Finite-field terms: cvc5 parses them, but the wheel cannot solve them."""
import random

THEORY = "Field"
SOLVERS = ("cvc5",)


def generate(rng: random.Random) -> tuple[str, str]:
    value = rng.randint(0, 4)
    decls = "(declare-const a (_ FiniteField 5))"
    return decls, f"(= (ff.mul a a) (as ff{value} (_ FiniteField 5)))"
'''

SURE = '''"""Integer terms every solver decides at once."""
import random

THEORY = "Sure"
SOLVERS = ("z3", "cvc5")


def generate(rng: random.Random) -> tuple[str, str]:
    return "(declare-const n Int)", f"(> n {rng.randint(0, 9)})"
'''


def _catalogue(tmp_path: Path, *generators: str) -> dict:
    for text in generators:
        theory = text.split('THEORY = "')[1].split('"')[0]
        (tmp_path / theory).mkdir(parents=True)
        (tmp_path / theory / "generator.py").write_text(text)
    return load_catalogue(tmp_path).entries


def test_terms_z3_answers_unknown_to_lower_the_weight(tmp_path: Path) -> None:
    with GeneratorPool(_catalogue(tmp_path, MIXED, SURE)) as pool:
        probe = probe_theories(pool, parse_specs("z3 model_validate=true"), campaign_seed=3)
        again = probe_theories(pool, parse_specs("z3 model_validate=true"), campaign_seed=3)
    assert probe.accepted == {"Mixed": 1.0, "Sure": 1.0}
    assert 0 < probe.decided["Mixed"] < 1 and probe.decided["Sure"] == 1.0
    assert probe.weights() == probe.decided == again.decided  # the same answers, the same draw
    assert "undecided: unknown" in probe.why("Mixed")


def test_a_theory_a_solver_cannot_solve_is_left_out(tmp_path: Path) -> None:
    with GeneratorPool(_catalogue(tmp_path, FIELD, SURE)) as pool:
        probe = probe_theories(
            pool, parse_specs("cvc5"), campaign_seed=1, terms=2 * STOPS_PER_THEORY
        )
    # every field term stops cvc5's batch; the theory after it is still decided in full
    assert probe.accepted == {"Field": 1.0, "Sure": 1.0}
    assert probe.decided == {"Field": 0.0, "Sure": 1.0}
    assert probe.weights() == {"Field": 0.0, "Sure": 1.0}
    assert "cocoa" in probe.why("Field")
