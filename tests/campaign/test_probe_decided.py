"""The theory probe weighs a theory by the share of its terms every solver decides: a theory
the solvers accept but answer `unknown` to, or cannot solve (the cvc5 wheel has no CoCoA for
finite fields), is drawn less often or not at all, and the probe says why."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sphinxfuzz.campaign.theory_probe import (
    DECIDE_TERMS,
    ONE_WAY_TERMS,
    STOPS_PER_THEORY,
    TERMS_PER_MUTANT,
    probe_theories,
)
from sphinxfuzz.generators.catalogue import default_generators_dir, load_catalogue
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

# cvc5 proves (f k) = k by unfolding, so the asserted term is unsat; asked for a model of
# (f k) = k it answers unknown: decided one way only, as the shipped RecFuns terms are
ONE_WAY = '''"""Recursive-function terms cvc5 decides asserted, not negated."""
import random

THEORY = "OneWay"
SOLVERS = ("cvc5",)


def generate(rng: random.Random) -> tuple[str, str]:
    decls = "(define-fun-rec f ((n Int)) Int (ite (<= n 0) 0 (+ 1 (f (- n 1)))))"
    k = rng.randint(1, 5)
    return decls, f"(distinct (f {k}) {k})"
'''

# cvc5 1.0 takes str.contains only with strings-exp (`solvers.options.needed`)
TEXT = '''"""String terms cvc5 1.0 decides with the options a mutant gets."""
import random

THEORY = "Text"
SOLVERS = ("cvc5",)


def generate(rng: random.Random) -> tuple[str, str]:
    return "(declare-const s String)", f'(str.contains s "{rng.choice("abc")}")'
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
    specs, cache = parse_specs("z3 model_validate=true"), tmp_path / "cache"
    with GeneratorPool(_catalogue(tmp_path / "g", MIXED, SURE)) as pool:
        probe = probe_theories(pool, specs, folder=cache)
        again = probe_theories(pool, specs, folder=cache)
        longer = probe_theories(pool, specs, folder=cache, decide_timeout=3.0)
    assert probe.accepted == {"Mixed": 1.0, "Sure": 1.0}
    assert 0 < probe.decided["Mixed"] < 1 and probe.decided["Sure"] == 1.0
    # k of the DECIDE_TERMS checked terms decided: drawn (k / DECIDE_TERMS) ^ 2 as often
    checked = probe.decided["Mixed"] ** (1 / TERMS_PER_MUTANT) * DECIDE_TERMS
    assert abs(checked - round(checked)) < 1e-9
    assert "undecided: unknown" in probe.why("Mixed")
    # the second probe reads every answer from the cache, and draws alike
    assert probe.probed == 2 and again.probed == 0 and again.solver_seconds == 0
    assert probe.weights() == probe.decided == again.decided
    assert again.why("Mixed") == probe.why("Mixed")
    assert longer.probed == 2  # another limit may decide more: asked again


def test_an_edited_generator_is_probed_again(tmp_path: Path) -> None:
    specs, cache = parse_specs("z3"), tmp_path / "cache"
    with GeneratorPool(_catalogue(tmp_path / "a", MIXED, SURE)) as pool:
        probe_theories(pool, specs, folder=cache, terms=4)
    only_decided = MIXED.replace('"(= (^ 2.0 x) 3.0)"', '"(< x 0.0)"')
    with GeneratorPool(_catalogue(tmp_path / "b", only_decided, SURE)) as pool:
        edited = probe_theories(pool, specs, folder=cache, terms=4)
    assert edited.probed == 1 and edited.decided == {"Mixed": 1.0, "Sure": 1.0}


def test_a_theory_a_solver_cannot_solve_is_left_out(tmp_path: Path) -> None:
    with GeneratorPool(_catalogue(tmp_path / "g", FIELD, SURE)) as pool:
        probe = probe_theories(
            pool, parse_specs("cvc5"), terms=2 * STOPS_PER_THEORY, folder=tmp_path / "cache"
        )
    # every field term stops cvc5's batch; the theory after it is still decided in full
    assert probe.accepted == {"Field": 1.0, "Sure": 1.0}
    assert probe.decided == {"Field": 0.0, "Sure": 1.0}
    assert probe.weights() == {"Field": 0.0, "Sure": 1.0}
    assert "cocoa" in probe.why("Field")


def test_the_shipped_finite_fields_are_drawn_only_where_every_target_decides(
    tmp_path: Path,
) -> None:
    entries = load_catalogue(default_generators_dir()).entries
    with GeneratorPool({"CVC5_FiniteFields": entries["CVC5_FiniteFields"]}) as pool:
        both = probe_theories(pool, parse_specs("z3;cvc5"), terms=4, folder=tmp_path)
        z3 = probe_theories(pool, parse_specs("z3"), terms=4, folder=tmp_path)
    # the cvc5 wheel parses them and cannot solve them (no CoCoA); z3 decides them
    assert both.accepted == {"CVC5_FiniteFields": 1.0}
    assert both.decided == {"CVC5_FiniteFields": 0.0} and both.weights() is None
    assert "cvc5 leaves term seed" in both.why("CVC5_FiniteFields")
    assert z3.decided == {"CVC5_FiniteFields": 1.0} and z3.probed == 0  # z3's answers cached


def test_a_term_decided_one_way_only_counts_as_undecided(tmp_path: Path) -> None:
    with GeneratorPool(_catalogue(tmp_path / "g", ONE_WAY, SURE)) as pool:
        probe = probe_theories(
            pool, parse_specs("cvc5"), terms=DECIDE_TERMS, folder=tmp_path / "cache"
        )
    # every term is decided asserted (unsat), none negated: a mutant holds it either way
    assert probe.accepted == {"OneWay": 1.0, "Sure": 1.0}
    assert "(negated)" in probe.why("OneWay")
    # kept, at the share of ONE_WAY_TERMS checked terms, squared
    assert probe.decided["Sure"] == 1.0
    assert probe.decided["OneWay"] == (ONE_WAY_TERMS / DECIDE_TERMS) ** TERMS_PER_MUTANT


@pytest.mark.skipif(not shutil.which("/usr/bin/cvc5"), reason="Debian's cvc5 1.0 binary is absent")
def test_a_cvc5_binary_is_asked_with_the_options_a_mutant_gets(tmp_path: Path) -> None:
    with GeneratorPool(_catalogue(tmp_path / "g", TEXT, SURE)) as pool:
        probe = probe_theories(
            pool, parse_specs("/usr/bin/cvc5"), terms=DECIDE_TERMS, folder=tmp_path / "cache"
        )
    # without incremental it refused every push, without strings-exp every str.contains
    assert probe.decided == {"Text": 1.0, "Sure": 1.0}
