"""Every shipped theory inserted into seeds that name restrictive logics: the mutant's logic
never makes real z3 or cvc5 reject it (the mutator widens it, to ALL)."""

from __future__ import annotations

import random

import pytest

from sphinxfuzz.campaign.targets import theory_options
from sphinxfuzz.generators.catalogue import default_generators_dir, load_catalogue
from sphinxfuzz.generators.pool import GeneratorPool
from sphinxfuzz.mutate import Seed, mutate
from sphinxfuzz.smtlib import parse_script
from sphinxfuzz.solvers import Outcome, parse_specs
from sphinxfuzz.solvers.persistent import PersistentSolver

SEEDS = {
    "QF_BV": "(declare-const a (_ BitVec 8))\n(assert (bvult a #x10))\n(assert (= a #x01))\n",
    "QF_LIA": "(declare-const x Int)\n(assert (> x 2))\n(assert (< x 10))\n",
    "QF_S": '(declare-const s String)\n(assert (= s "ab"))\n(assert (distinct s ""))\n',
}


class _OneTheory:
    def __init__(self, pool: GeneratorPool, theory: str) -> None:
        self.pool, self.theories = pool, (theory,)

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        return self.pool.generate(theory, seed)


def _mutant(text: str, rng_seed: int, source, **options):
    return mutate(
        Seed("<seed>", text, parse_script(text)), random.Random(rng_seed), source, **options
    )


def _answered(solvers, mutant, outcomes) -> None:
    for solver in solvers:
        result = solver.run(mutant.text_for(solver.spec.family), timeout=10)
        assert result.outcome in outcomes, (solver.spec.name, result.failure_line)


@pytest.fixture(scope="module")
def solvers():
    running = [PersistentSolver(spec) for spec in parse_specs("z3;cvc5")]
    yield running
    for solver in running:
        solver.close()


def test_no_mutant_names_a_logic_that_forbids_its_terms(solvers):
    folder = str(default_generators_dir())
    entries = list(load_catalogue(folder).entries.values())
    options = theory_options(folder, entries)
    families = {entry.theory: entry.solvers for entry in entries}
    rejected: list[str] = []
    with GeneratorPool(entries) as pool:
        assert len(pool.theories) == len(entries) >= 20
        for theory in sorted(pool.theories):
            # one logic per theory that forbids what its terms hold keeps the test fast
            logic = {"FixedSizeBitVectors": "QF_LIA", "Ints": "QF_S"}.get(theory, "QF_BV")
            for body in [SEEDS[logic]]:
                text = f"(set-logic {logic})\n{body}(check-sat)\n"
                seed = Seed(f"<{logic}>", text, parse_script(text))
                rng = random.Random(f"{theory}:{logic}")
                mutant = mutate(seed, rng, _OneTheory(pool, theory), theory_options=options)
                for solver in solvers:
                    if solver.spec.family not in families[theory]:
                        continue  # a cvc5 extension is no z3 input
                    # a logic is refused as the script is read; solving is not needed
                    # (FloatingPoint's and Transcendentals' terms here time out at any limit)
                    result = solver.run(mutant.text_for(solver.spec.family), timeout=2)
                    if result.outcome in (Outcome.ERROR, Outcome.CRASH):
                        rejected.append(
                            f"{theory} in {logic}: {solver.spec.name}: {result.failure_line}"
                        )
    assert not rejected, "\n".join(rejected)


class _UnusedDeclarations:
    """A term that keeps none of the sorts and functions its declarations introduce (its
    constant is renamed to the seed's): the declarations alone need UF."""

    theories = ("UF",)

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        return "(declare-sort S0 0)\n(declare-fun f (S0) Int)\n(declare-const i Int)", "(> i 3)"


def test_declarations_alone_widen_the_logic(solvers):
    text = f"(set-logic QF_LIA)\n{SEEDS['QF_LIA']}(check-sat)\n"
    mutant = _mutant(text, 3, _UnusedDeclarations(), rename_prob=1.0)
    assert "(set-logic ALL)" in mutant.text and "(declare-sort S0 0)" in mutant.text
    _answered(solvers, mutant, (Outcome.SAT,))


class _RecursiveDefinition:
    """An integer term whose function is defined recursively: a logic with quantifiers and
    uninterpreted functions covers the term, not the definition."""

    theories = ("RecFuns",)

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        definition = "(define-fun-rec f0 ((n Int)) Int (ite (<= n 0) 0 (+ 1 (f0 (- n 1)))))"
        return definition, "(= (f0 2) 2)"


def test_recursive_definitions_widen_the_logic(solvers):
    text = f"(set-logic UFLIA)\n{SEEDS['QF_LIA']}(check-sat)\n"
    mutant = _mutant(text, 3, _RecursiveDefinition(), rename_prob=1.0)
    assert "(set-logic ALL)" in mutant.text and "define-fun-rec f0" in mutant.text
    _answered(solvers, mutant, (Outcome.SAT, Outcome.UNKNOWN))


class _IntTerm:
    theories = ("Ints",)

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        return "(declare-const i Int)", "(> i 3)"


def test_seed_sorts_that_all_defines_are_renamed_when_widening(solvers):
    # yices2's regressions declare a sort `Set` under UF; z3 defines Set itself under ALL
    text = (
        "(set-logic UF)\n(declare-sort Set 0)\n(declare-sort Elem 0)\n"
        "(declare-fun member (Elem Set) Bool)\n(declare-const s Set)\n"
        "(assert (exists ((e Elem)) (member e s)))\n(check-sat)\n"
    )
    mutant = _mutant(text, 1, _IntTerm())
    assert "(set-logic ALL)" in mutant.text and "(declare-sort Set_1 0)" in mutant.text
    assert "(declare-const i Int)" in mutant.text  # inserted terms keep the built-in sorts
    _answered(solvers, mutant, (Outcome.SAT,))


def test_every_set_logic_after_a_reset_is_widened(solvers):
    text = (
        "(set-logic QF_BV)\n(declare-const a (_ BitVec 4))\n(assert (bvult a #x3))\n"
        "(check-sat)\n(reset)\n(set-logic QF_BV)\n(declare-const b (_ BitVec 4))\n"
        "(assert (bvugt b #x3))\n(check-sat)\n"
    )
    mutant = _mutant(text, 4, _IntTerm(), max_placeholders=2)
    assert mutant.text.count("(set-logic ALL)") == 2, mutant.text
    _answered(solvers, mutant, (Outcome.SAT,))


def test_numerals_of_a_real_only_seed_stay_reals_under_all(solvers):
    # under QF_UFLRA cvc5 reads `3` as a Real; under ALL it is an Int
    text = (
        "(set-logic QF_UFLRA)\n(declare-const x Real)\n(declare-fun p (Real) Bool)\n"
        "(assert (p 3))\n(assert (= x (ite (p x) 3 (+ x 1))))\n(check-sat)\n"
    )
    mutant = _mutant(text, 2, _IntTerm(), max_placeholders=1)
    assert "(set-logic ALL)" in mutant.text and "(ite (p x) 3.0 (+ x 1.0))" in mutant.text
    assert "(> i 3)" in mutant.text  # the inserted Int term keeps its numeral
    _answered(solvers, mutant, (Outcome.SAT, Outcome.UNSAT))


class _IsInt:
    theories = ("Reals_Ints",)

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        return "(declare-const r Real)", "(is_int r)"


def test_int_real_conversions_leave_real_only_logics(solvers):
    text = "(set-logic QF_LRA)\n(declare-const x Real)\n(assert (> x 2.5))\n(check-sat)\n"
    mutant = _mutant(text, 1, _IsInt())
    assert "(set-logic ALL)" in mutant.text and "is_int" in mutant.text
    _answered(solvers, mutant, (Outcome.SAT,))


class _Divides:
    theories = ("Reals",)

    def __init__(self, term: str) -> None:
        self.term = term

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        return "(declare-const r Real)", f"(> r {self.term})"


def test_a_division_by_zero_leaves_linear_logics(solvers):
    # every divisor a numeral, but zero: cvc5 refuses it as non-linear under QF_LRA
    text = "(set-logic QF_LRA)\n(declare-const x Real)\n(assert (> x 2.5))\n(check-sat)\n"
    mutant = _mutant(text, 1, _Divides("(/ 0.0 0.0 0.0)"))
    assert "(set-logic ALL)" in mutant.text and "(/ 0.0 0.0 0.0)" in mutant.text
    _answered(solvers, mutant, (Outcome.SAT, Outcome.UNKNOWN))
    linear = _mutant(text, 1, _Divides("(/ 1.0 2.0 4.0)"))  # non-zero numerals: still linear
    assert "(set-logic QF_LRA)" in linear.text and "(/ 1.0 2.0 4.0)" in linear.text
    _answered(solvers, linear, (Outcome.SAT,))
