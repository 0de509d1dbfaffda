"""HistFuzz: sub-terms of historical bug triggers fill seeds' holes, with their trackers
recorded; z3 and cvc5 accept the mutants and never contradict each other on them."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest
from campaign_helpers import config_for

from sphinxfuzz.campaign import Budget, CampaignError, run_campaign
from sphinxfuzz.mutate import load_seed
from sphinxfuzz.strategies import StrategyContext, fresh, get
from sphinxfuzz.strategies.histfuzz import HistfuzzStrategy, load_history, strict

from .batching import run_marked, scoped
from .seeds import SKELETONS, SOLVERS, fast

HISTORY = Path(__file__).resolve().parents[1] / "fixtures" / "history"


def test_fragments_carry_their_declarations_and_tracker() -> None:
    found = {(f.source, f.tracker, f.declarations, f.term) for f in load_history(HISTORY)}
    assert ("yices2_77_1.smt2", "yices2", "(declare-fun x () (_ BitVec 8))\n"
            "(declare-fun y () (_ BitVec 8))", "(bvult (bvadd x y) #x10)") in found  # fmt: skip
    assert ("notes.smt2", "other", "(declare-fun r () Real)", "(< (* 2.0 r) 1.5)") in found
    # a term using a definition is left out, the file's other terms are not
    assert ("z3_5_0.smt2", "z3", "(declare-const c Int)", "(< c 9)") in found
    assert not any(term == "(> (f c) 2)" for *_, term in found)
    sources = {source for source, *_ in found}
    assert "cvc5_3_0.smt2" not in sources  # declares a datatype
    assert "z3_8_0.smt2" not in sources  # does not parse
    trackers = {tracker for _, tracker, *_ in found}
    assert trackers == {"z3", "cvc5", "yices2", "cvc5-projects", "other"}


@pytest.mark.parametrize(
    ("declarations", "term", "kept"),
    [
        ("(declare-const x Int)", "(and (> x 1) (< x 5))", True),
        ("(declare-fun a (Real) Bool)", "(a 2.0)", True),
        ("(declare-const s String)", '(str.in_re s (re.range "a" "z"))', True),
        # what z3 takes and cvc5 refuses, seen in mutants of the shared bug triggers
        ("(declare-const x Int)(declare-const r Real)", "(< x r)", False),
        ("(declare-fun a (Real) Bool)", "(a 2)", False),
        ("(declare-const x Int)", "(< (* x) 2)", False),
        ("(declare-fun a (Int) Bool)(declare-fun b (Int) Bool)", "(= a b)", False),
        ("(declare-const s String)(declare-const t String)", "(str.in_re s (re.range s t))", False),
        (
            "(declare-const m (Array (Array Bool Bool) Bool))",
            "(select m ((as const (Array Bool Bool)) true))",
            False,
        ),
        ("(declare-fun t () R)", "(= t t)", False),
        ("(declare-const a (_ BitVec 4))", "(= (bvxnor a a a) a)", False),
        (
            "(declare-const s (Set Int))(declare-const t (Set Real))",
            "(= s t)",
            False,
        ),  # a sort the trigger declared elsewhere
    ],
)
def test_only_strictly_typed_fragments_are_drawn(declarations: str, term: str, kept: bool) -> None:
    assert strict(declarations, term) == kept


def _strategy(history: str) -> HistfuzzStrategy:
    strategy = fresh("histfuzz")
    assert isinstance(strategy, HistfuzzStrategy)
    strategy.setup(StrategyContext(specs=SOLVERS, history=history))
    return strategy


def test_100_mutants_are_accepted_and_answered_alike_by_z3_and_cvc5() -> None:
    strategy = _strategy(str(HISTORY))
    rng = random.Random(9)
    seeds = [seed for seed, _ in fast()][::2]
    cases = []
    for seed in seeds:
        stream = strategy.mutants(seed, rng)
        cases += [next(stream) for _ in range(6)]
    cases = [cases[i * len(cases) // 100] for i in range(100)]
    assert len({id(c) for c in cases}) == 100
    for case in cases:
        assert case.ready and case.expected is None
        drawn = case.provenance["history"]
        assert drawn and case.provenance["trackers"] == sorted(
            {name.split("_")[0] if name != "notes.smt2" else "other" for name in drawn}  # type: ignore[union-attr]
        )
    scripts = [c.script for c in cases]
    with ThreadPoolExecutor(2) as pool:  # each solver on its own batch, side by side
        outputs = list(pool.map(
            lambda spec: run_marked(spec, [scoped([s], family=spec.family) for s in scripts]),
            SOLVERS,
        ))  # fmt: skip
    said: list[list[str | None]] = []
    for found in outputs:
        assert all(not any(line.startswith("(error") for line in lines or []) for lines in found)
        said.append([next((a for a in lines or [] if a in ("sat", "unsat")), None)
                     for lines in found])  # fmt: skip
    z3, cvc5 = said
    assert z3.count(None) <= 10 and cvc5.count(None) <= 10, (z3, cvc5)
    assert [i for i, (a, b) in enumerate(zip(z3, cvc5, strict=True)) if a and b and a != b] == []


def test_without_a_history_it_applies_to_no_seed(tmp_path: Path) -> None:
    seed = load_seed(str(SKELETONS / "lia_bounded_sum.smt2"))
    assert not _strategy("").applies(seed)
    assert _strategy(str(HISTORY)).applies(seed)
    config = config_for([SKELETONS / "lia_bounded_sum.smt2"], "z3")
    with pytest.raises(CampaignError, match="history") as raised:
        replace(config, strategies="histfuzz", history=str(tmp_path / "none")).resolve()
    assert raised.value.setting == "history"


def test_a_mix_with_weights_draws_histfuzz_and_its_mutants_run(tmp_path: Path) -> None:
    seeds = [SKELETONS / "lia_bounded_sum.smt2", SKELETONS / "bv_extract_concat.smt2"]
    config = replace(config_for(seeds, "z3", seed=3, per_seed=3),
                     strategies="histfuzz=3,canary", history=str(HISTORY))  # fmt: skip
    stats = run_campaign(config, tmp_path / "c", Budget(mutants=12))
    assert stats.strategies["histfuzz"].cases >= 3, stats.strategies
    assert stats.bugs.total() == 0
    assert get("histfuzz").oracle == "differential"
