"""Operator-level capabilities: features of generated terms probed on real solvers, cached
per release, and terms with a feature a target lacks drawn again."""

from __future__ import annotations

import json
from pathlib import Path

from sphinxfuzz.generators.capabilities import (
    REDRAWS,
    Capabilities,
    CapableTerms,
    cache_file,
    features_made_by,
    term_features,
)
from sphinxfuzz.solvers import parse_specs, solver_version

FF = ("(declare-const a (_ FiniteField 7))", "(= (ff.add a a) (as ff1 (_ FiniteField 7)))")
BAG = ("(declare-const a (Bag Int))", "(= (bag.count 1 a) 2)")  # cvc5's bags: z3 lacks them
BV = (
    "(declare-const b (_ BitVec 8))",
    "(bvult ((_ extract 3 0) (bvadd b #x01)) ((_ zero_extend 2) #b10))",
)


def test_features_are_operators_indexed_operators_theory_values_and_sorts():
    names = {f.name for f in term_features(*BV)}
    assert names == {"BitVec", "bvult", "extract", "bvadd", "zero_extend"}
    names = {f.name for f in term_features(*FF)}
    assert {"FiniteField", "ff.add", "as-value"} <= names
    strings = term_features("(declare-const s String)", "(str.in_re s (re.* re.allchar))")
    assert {"str.in_re", "re.*", "re.allchar", "String"} <= {f.name for f in strings}
    # bound variables, declared functions and match patterns are no features
    bound = term_features(
        "(declare-fun f (Int) Int)", "(forall ((x Int)) (let ((y (f x))) (> y x)))"
    )
    assert {f.name for f in bound} == {"Int", ">"}


def test_z3_lacks_bags_and_the_answer_is_cached(tmp_path):
    z3 = parse_specs("z3")
    capabilities = Capabilities(z3, folder=tmp_path)
    lacking = capabilities.lacking(term_features(*BAG))
    assert set(lacking) == {("Bag/1", "z3"), ("bag.count", "z3")}
    assert capabilities.lacking(term_features(*BV)) == []
    assert cache_file(z3[0], tmp_path).is_file()
    again = Capabilities(z3, folder=tmp_path)
    assert again.lacking(term_features(*BAG)) == lacking and again.probes == 0


def test_each_probe_reports_when_its_solver_ran_and_a_cached_answer_none(tmp_path):
    # what a campaign counts as solver time (`StrategyContext.spent`)
    spans: list[tuple[float, float]] = []
    capabilities = Capabilities(
        parse_specs("z3"), folder=tmp_path, spent=lambda *s: spans.append(s)
    )
    capabilities.lacking(term_features(*BAG))
    assert len(spans) == 1 and 0 < spans[0][1] - spans[0][0] < 60
    capabilities.lacking(term_features(*BAG))
    assert len(spans) == 1


def test_a_parametric_sort_is_probed_by_its_head_and_arity_never_blamed_for_its_arguments(
    tmp_path,
):
    # z3's arrays of several indices are no cvc5 sort, and a solver without Seq refuses an
    # array of sequences: neither refusal may be cached against cvc5's ordinary arrays
    nary = ("(declare-const a (Array Int Bool Int))", "(= (select a 1 true) 2)")
    of_bags = ("(declare-const a (Array Int (Bag Int)))", "(= (select a 1) (select a 2))")
    plain = ("(declare-const a (Array Int (_ BitVec 8)))", "(= (select a 1) #x00)")
    assert {f.name for f in term_features(*nary)} >= {"Array/3", "select"}
    assert {f.name for f in term_features(*of_bags)} >= {"Array/2", "Bag/1"}
    cvc5, z3 = parse_specs("cvc5")[0], parse_specs("z3")[0]
    assert ("Array/3", "cvc5") in Capabilities([cvc5], folder=tmp_path).lacking(
        term_features(*nary)
    )
    assert set(Capabilities([z3], folder=tmp_path).lacking(term_features(*of_bags))) == {
        ("Bag/1", "z3"),
        ("select", "z3"),  # the refusal is cached as select[Bag/1]
    }
    for spec in (cvc5, z3):  # read back from the cache: arrays stay usable
        assert Capabilities([spec], folder=tmp_path).lacking(term_features(*plain)) == []


def test_an_indexed_constant_is_a_feature_old_z3_lacks_for_char(tmp_path):
    # z3 4.8.x rejects (_ char #x41), so the grammar strategy must not draw it for them
    char = ("", '(= "A" (_ char #x41))')
    assert {f.name for f in term_features(*char)} == {"char", "String"}
    capabilities = Capabilities(parse_specs("z3@4.8.8;z3;cvc5"), folder=tmp_path)
    assert capabilities.lacking(term_features(*char)) == [("char", "z3@4.8.8")]


class _Source:
    """A bag term on a first draw (seed below 2^32), a bit-vector term on any redraw."""

    theories = ("Mixed",)

    def __init__(self) -> None:
        self.seeds: list[int] = []

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        self.seeds.append(seed)
        return BAG if seed < 2**32 else BV


def test_a_term_with_a_lacked_feature_is_drawn_again_and_counted(tmp_path):
    capabilities = Capabilities(parse_specs("z3;cvc5"), folder=tmp_path)
    source = _Source()
    terms = CapableTerms(source, capabilities)
    assert terms.generate("Mixed", 5) == BV
    assert terms.generate("Mixed", 5) == BV  # the same seed, the same term
    assert source.seeds == [5, 5 + 2**32, 5, 5 + 2**32]
    assert terms.left_out["Bag/1 (z3)"] == 2
    assert not any("(cvc5)" in key for key in terms.left_out)


def test_redraws_are_bounded(tmp_path):
    class OnlyBags:
        theories = ("CVC5_Bags",)

        def generate(self, theory: str, seed: int) -> tuple[str, str]:
            return BAG

    terms = CapableTerms(OnlyBags(), Capabilities(parse_specs("z3"), folder=tmp_path))
    try:
        terms.generate("CVC5_Bags", 1)
    except ValueError as exc:
        assert "which z3 lacks" in str(exc)
    else:
        raise AssertionError("a term z3 cannot read was used")
    assert terms.left_out["Bag/1 (z3)"] == REDRAWS + 1


SEGFAULT_ON_PLUS = Path(__file__).resolve().parents[1] / "fixtures/fake_solvers/segfault_on_plus.sh"


def test_a_crash_while_probing_is_never_a_capability(tmp_path):
    """Issue 52 defect 3: a solver that segfaults on `+` has not refused `+`. The crash is
    not cached (a later campaign would never find it), the feature stays in the terms (so
    the mutants show the crash, which the campaign stores) and the crash is kept to say."""
    (crashy,) = parse_specs(str(SEGFAULT_ON_PLUS))
    capabilities = Capabilities([crashy], folder=tmp_path)
    features = term_features("(declare-const x Int)", "(> (+ x 1) (* x 2))")
    assert capabilities.lacking(features) == []
    assert capabilities.crashed == {crashy.name: {"+": "killed by signal 11"}}
    cached = json.loads(cache_file(crashy, tmp_path).read_text())["features"]
    assert cached == {"Int": None, ">": None, "*": None}  # what it answered, and no more
    probes = capabilities.probes
    assert capabilities.lacking(features) == [] and capabilities.probes == probes
    # the next campaign probes it again, and finds the crash again, beside a target that
    # has every answer cached
    z3 = parse_specs("z3")[0]
    Capabilities([z3], folder=tmp_path).lacking(features)
    again = Capabilities([z3, crashy], folder=tmp_path)
    assert again.lacking(features) == [] and again.probes == 1
    assert again.crashed == {z3.name: {}, crashy.name: {"+": "killed by signal 11"}}


def test_yices_takes_bit_vectors_and_lacks_strings_in_one_batch(tmp_path):
    """yices refuses push outside its --incremental mode and stops at its first error: the
    probe batch runs it in that mode, so a feature it lacks is its own refusal, never the
    batch's (before, every feature was refused with "push is not allowed")."""
    yices = parse_specs("yices")
    capabilities = Capabilities(yices, folder=tmp_path)
    strings = term_features("(declare-const s String)", '(= (str.++ s "a") s)')
    assert capabilities.lacking(term_features(*BV)) == []
    assert ("str.++", "yices") in capabilities.lacking(strings)
    assert ("String", "yices") in capabilities.lacking(strings)
    assert capabilities.known["yices"]["bvadd"] is None


def test_an_array_sort_is_probed_over_bool_so_a_solver_without_integers_keeps_arrays(
    tmp_path,
):
    # bitwuzla reads no Int: probed as (Array Int Int), its bit-vector arrays were left out
    bitwuzla = Capabilities([parse_specs("bitwuzla")[0]], folder=tmp_path)
    bv = ("(declare-const a (Array (_ BitVec 4) (_ BitVec 8)))", "(= (select a #x1) #x00)")
    assert bitwuzla.lacking(term_features(*bv)) == []
    ints = ("(declare-const a (Array Int Int))", "(= (select a 1) 0)")
    assert ("Int", "bitwuzla") in bitwuzla.lacking(term_features(*ints))


def test_yices_features_an_older_probe_refused_are_probed_again(tmp_path):
    """Before the probe ran yices incremental, it refused every feature ("push is not
    allowed"): a cache file written then (no word on how its answers were made) is asked
    again, not read, and stored with how the answers were made now."""
    yices = parse_specs("yices")[0]
    push = 'error: (error "push is not allowed in non-incremental mode")'
    old = {"family": "yices", "version": solver_version(yices), "argv": list(yices.argv),
           "features": {f.name: push for f in term_features(*BV)}}  # fmt: skip
    cache_file(yices, tmp_path).write_text(json.dumps(old))
    capabilities = Capabilities([yices], folder=tmp_path)
    assert capabilities.lacking(term_features(*BV)) == [] and capabilities.probes == 5
    stored = json.loads(cache_file(yices, tmp_path).read_text())
    assert stored["made_by"] == {"features": features_made_by(yices)}
    assert stored["features"]["bvadd"] is None
