"""Verdicts against an answer known by construction, on real solvers and real formulas:
judged, stored, replayed, reduced and bisected like the verdicts of the fuzz loop."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from sphinxfuzz.bugs import Origin, Store, load_record
from sphinxfuzz.bugs.bisect import bisect_bug
from sphinxfuzz.bugs.issue_text import issue_text, load_facts
from sphinxfuzz.bugs.reduce import reduce_bug
from sphinxfuzz.bugs.replay import check_spec, replay
from sphinxfuzz.oracle import (
    Expected,
    ModelChecker,
    Verdict,
    VerdictKind,
    build_model_check,
    judge_expected,
    judge_related,
)
from sphinxfuzz.oracle.run import run_in_dialect
from sphinxfuzz.oracle.same_bug import check
from sphinxfuzz.solvers import SolverResult, SolverSpec, parse_specs

MODELS = "(set-option :produce-models true)\n"
# From z3's issue 4912: z3 4.8.8 answers unsat; z3 4.12 and later, and cvc5, answer sat.
NONLINEAR = (
    MODELS
    + """(declare-fun skoX () Real)
(declare-fun skoSQ3 () Real)
(declare-fun pi () Real)
(assert (or (> (* skoX (* skoX (- skoX (+ skoX (/ 1 24))))) 0) (and (not (>= skoSQ3 0)) (or (not (< skoX 0)) (and (not (>= (/ 31415927 10000000) pi)) (and (not (<= pi (/ 15707963 5000000))) (and (not (< (* (/ (- 1) 10000000) (- pi (/ 1 2))) skoX)) (= (+ skoSQ3 skoSQ3) 3))))))))
(check-sat)
(get-model)
"""
)
# From z3's issue 6364: cvc5 answers unknown, z3 sat.
FORALL_UF = (
    MODELS
    + "(declare-fun a (Int) Bool)\n(assert (forall ((b Int)) (a b)))\n(check-sat)\n(get-model)\n"
)

OLD_Z3 = pytest.mark.usefixtures("z3_4_8_8", "z3_4_12_2")


def _run(spec: SolverSpec, text: str) -> SolverResult:
    return run_in_dialect(spec, text, timeout=10.0)


def _store(root: Path, verdict: Verdict, text: str, results: list[SolverResult]) -> Path:
    with Store(root, create=True) as store:
        store.save_config({"timeout": 10.0, "memory_mb": 4096})
        ident = store.record_bug(
            verdict, Origin(1, "seed.smt2", 0, 0, "sphinx", ("Reals",)), text, results
        )
    return root / "bugs" / str(ident)


@OLD_Z3
def test_a_wrong_answer_against_a_witness_model(tmp_path: Path) -> None:
    z3, old, cvc5 = parse_specs("z3;z3@4.8.8;cvc5")
    # the expected answer by construction: a model that satisfies the formula (as STORM has)
    witness = _run(z3, NONLINEAR).model
    assert witness is not None
    assert _run(cvc5, build_model_check(NONLINEAR, witness)).answers == ["sat"]
    expected = Expected("sat", "storm", "the formula holds under a model built with it")
    results = [_run(old, NONLINEAR), _run(cvc5, NONLINEAR)]
    [verdict] = judge_expected(
        results, expected, ModelChecker(NONLINEAR, _run), witness_model=witness
    )
    assert (verdict.kind, verdict.solver, verdict.expected) == (
        VerdictKind.SOUNDNESS, "z3@4.8.8", expected,
    )  # fmt: skip
    assert verdict.evidence["reference"] == "cvc5"
    folder = _store(tmp_path, verdict, NONLINEAR, results)
    record = load_record(folder)
    assert record.verdict == verdict
    assert replay(folder).reproduced
    spec = check_spec(tmp_path, record)
    assert spec.run == ("z3@4.8.8", "cvc5")
    assert check(spec, NONLINEAR)[0] is not None
    # z3 4.8.8 answers this one right: not the bug
    assert (
        check(spec, MODELS + "(declare-fun x () Real)\n(assert (> x 1.0))\n(check-sat)\n")[0]
        is None
    )
    # without a reference solver the witness model confirms the expected answer
    by_model = replace(spec, reference=None, run=("z3@4.8.8", "cvc5"))
    assert check(by_model, NONLINEAR)[0] is not None
    reduction = reduce_bug(tmp_path, folder.name, time_limit=8.0)
    assert reduction.after.bytes <= reduction.before.bytes
    assert check(spec, (folder / "reduced.smt2").read_text())[0] is not None
    text = issue_text(load_facts(folder))
    assert "unsat on a formula that is sat by construction" in text and "cvc5" in text
    lifespan = bisect_bug(tmp_path, folder, "z3", versions=["4.8.8", "4.12.2"],
                          say=lambda _: None, installer=lambda f, v: None)  # fmt: skip
    assert [(t.version, t.status) for t in lifespan.tried] == [
        ("4.8.8", "bug"),
        ("4.12.2", "clean"),
    ]
    assert load_record(folder).verdict.kind == VerdictKind.SOUNDNESS  # bisect.json beside it


def test_a_model_that_satisfies_the_formula_refutes_the_expectation() -> None:
    """z3 answers sat against an expected unsat; its model holds, so the expectation was
    wrong, not z3: no verdict."""
    z3, cvc5 = parse_specs("z3;cvc5")
    results = [_run(z3, NONLINEAR), _run(cvc5, NONLINEAR)]
    wrong = Expected("unsat", "test", "a deliberately wrong expectation")
    assert judge_expected(results, wrong, ModelChecker(NONLINEAR, _run)) == []
    # without a model check the contrary answers stand as soundness verdicts of both
    verdicts = judge_expected(results, wrong)
    assert [(v.kind, v.solver) for v in verdicts] == [
        (VerdictKind.SOUNDNESS, "z3"), (VerdictKind.SOUNDNESS, "cvc5"),
    ]  # fmt: skip


def test_unknown_where_a_related_formula_is_solved(tmp_path: Path) -> None:
    z3, cvc5 = parse_specs("z3;cvc5")
    original = [_run(z3, FORALL_UF), _run(cvc5, FORALL_UF)]
    assert original[0].model is not None and original[1].answers == ["unknown"]
    # the related formula: the original with z3's model substituted, sat by construction,
    # and a model of it is one of the original
    related = build_model_check(FORALL_UF, original[0].model)
    implied = Expected("sat", "model-substitution", "the related formula has a model of it")
    again = [_run(z3, related), _run(cvc5, related)]
    [verdict] = judge_related(original, again, implied, texts=(FORALL_UF, related))
    assert (verdict.kind, verdict.solver) == (VerdictKind.INCOMPLETENESS, "cvc5")
    assert verdict.related is not None and verdict.related.text == related
    assert verdict.evidence["unsolved"] == "original" and verdict.evidence["reference"] == "z3"
    folder = _store(tmp_path, verdict, FORALL_UF, original)
    record = load_record(folder)
    assert record.verdict == verdict
    assert replay(folder).reproduced
    spec = check_spec(tmp_path, record)
    assert spec.run == ("cvc5", "z3")
    assert check(spec, FORALL_UF)[0] is not None
    # cvc5 solves a quantifier-free candidate: not the bug any more
    assert (
        check(spec, MODELS + "(declare-fun a (Int) Bool)\n(assert (a 1))\n(check-sat)\n")[0] is None
    )
    reduction = reduce_bug(tmp_path, folder.name, time_limit=8.0)
    assert reduction.after.bytes <= reduction.before.bytes
    assert check(spec, (folder / "reduced.smt2").read_text())[0] is not None
    text = issue_text(load_facts(folder))
    assert "Related formula" in text and "unknown on a formula whose related formula" in text
