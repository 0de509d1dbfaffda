"""Validation against the real z3 binary and the cvc5 shim."""

from __future__ import annotations

from pathlib import Path

import pytest

from sphinxfuzz.generators.catalogue import default_generators_dir, load_catalogue
from sphinxfuzz.generators.sandbox import sample_terms
from sphinxfuzz.generators.solver_check import check_terms
from sphinxfuzz.generators.term_metrics import distinct_errors
from sphinxfuzz.generators.theory_docs import default_docs_dir, load_theory_doc, parse_theory_doc
from sphinxfuzz.generators.theory_validation import (
    MIN_WITHIN,
    candidate_share,
    validate_theory,
    within_features,
)
from sphinxfuzz.solvers import SolverSpec, parse_specs

INVALID = [
    ("(declare-const x Int)", "(> x y)"),  # undeclared symbol
    ("(declare-const x Int)", "(bvadd x 1)"),  # wrong sort
    ("(declare-const x Int)", "(> x 1"),  # unbalanced: checked on its own
    ("(declare-const x Int) (check-sat)", "(> x 1)"),  # declarations hold another command
    ("", '(= "abc x)'),  # unterminated string
    ("(declare-const x Int)", "(+ x 1)"),  # not Boolean
]
ONLY_CVC5 = ("(declare-const x Int)", "((_ divisible 3) x)")  # z3 5.4 lacks divisible


@pytest.fixture(scope="module")
def specs() -> list[SolverSpec]:
    return parse_specs("z3;cvc5")


@pytest.fixture(scope="module")
def mixed(fixtures_dir_module: Path) -> list[tuple[str, str]]:
    """Valid fixture terms with invalid ones interleaved (a term reuses `x` across scopes)."""
    catalogue = load_catalogue(fixtures_dir_module)
    pairs: list[tuple[str, str]] = []
    for theory in ("Ints", "FixedSizeBitVectors", "Strings"):
        report = sample_terms(catalogue.entries[theory].source, 8, seed=5)
        assert report.kind == "ok"
        pairs += report.samples
    for offset, bad in enumerate([*INVALID, ONLY_CVC5]):
        pairs.insert(3 * offset + 1, bad)
    return pairs


@pytest.fixture(scope="module")
def fixtures_dir_module() -> Path:
    return Path(__file__).resolve().parents[1] / "fixtures" / "generators"


def test_valid_and_invalid_terms(specs: list[SolverSpec], mixed: list[tuple[str, str]]) -> None:
    verdicts = check_terms(mixed, specs)
    by_pair = {(v.decls, v.term): v for v in verdicts}
    for bad in INVALID:
        verdict = by_pair[bad]
        assert not verdict.valid, bad
        assert set(verdict.errors) == {"z3", "cvc5"}, (bad, verdict.errors)
    assert "unknown constant y" in by_pair[INVALID[0]].errors["z3"]
    only = by_pair[ONLY_CVC5]
    assert only.valid and set(only.errors) == {"z3"} and "divisible" in only.errors["z3"]
    good = [v for v in verdicts if (v.decls, v.term) not in {*INVALID, ONLY_CVC5}]
    assert len(good) == 24 and all(v.valid and not v.errors for v in good)


def test_batched_matches_one_call_per_term(
    specs: list[SolverSpec], mixed: list[tuple[str, str]]
) -> None:
    batched = check_terms(mixed, specs, batch_size=10)
    single = check_terms(mixed, specs, batched=False)
    assert [(v.valid, sorted(v.errors)) for v in batched] == [
        (v.valid, sorted(v.errors)) for v in single
    ]
    # Messages agree once positions are normalised (batch line numbers are translated).
    assert distinct_errors(batched) == distinct_errors(single)
    z3_batched = [v.errors.get("z3") for v in batched]
    z3_single = [v.errors.get("z3") for v in single]
    assert z3_batched == z3_single


def test_validate_theory_ties_it_together(
    specs: list[SolverSpec], fixtures_dir_module: Path, tmp_path: Path
) -> None:
    entry = load_catalogue(fixtures_dir_module).entries["Ints"]
    doc = parse_theory_doc(
        "---\ntheory: Ints\nsolvers: z3, cvc5\nlogic: QF_NIA\nkind: standard\n---\n"
        "## Operators\n\n| op | syntax | signature | conditions |\n|---|---|---|---|\n"
        "| `+` | | | |\n| `div` | | | |\n| `divisible` | | | |\n",
        "Ints.md",
    )
    report = validate_theory(entry, doc, specs, n=60, seed=1)
    assert report.samples == 60 and report.sample_kind == "ok"
    assert report.validity == 1.0
    assert report.validity_by_solver == {"z3": 1.0, "cvc5": 1.0}
    assert report.coverage == pytest.approx(2 / 3) and report.missing_operators == ["divisible"]
    assert report.conformance is None and report.errors == []
    assert report.seconds_per_term > 0


def test_higher_order_terms_are_checked_under_an_ho_logic() -> None:
    from sphinxfuzz.generators.solver_check import logic_for

    assert logic_for("(declare-const f (-> Int Int))", "(= (f 1) 2)") == "HO_ALL"
    assert logic_for("", "(= (@ (lambda ((y Int)) y) 1) 1)") == "HO_ALL"
    assert logic_for("(declare-const x Int)", "(> x 0)") == "ALL"
    assert logic_for("", "(set.is_empty ((_ rel.project 0) r))") == "HO_ALL"  # maps over tuples
    # under ALL cvc5 would reject the arrow sort ("Symbol '->' not declared as a type")
    pairs = [
        ("(declare-const f (-> Int Int))", "(= (f 1) 2)"),
        ("(declare-const x Int)", "(> x 0)"),
    ]
    verdicts = check_terms(pairs, parse_specs("cvc5"))
    assert all(v.valid for v in verdicts), [v.errors for v in verdicts]


def test_a_candidate_that_lacks_the_theory_stops_at_the_floor(
    specs: list[SolverSpec], fixtures_dir_module: Path
) -> None:
    """yices has no strings: asked whether the Strings generator serves it, it stops after
    the refusals the floor allows (2 of 100, so the third ends it), not one call per term;
    a family the build never named is no shortfall of the generator."""
    entry = load_catalogue(fixtures_dir_module).entries["Strings"]
    yices = parse_specs("yices")
    samples = sample_terms(entry.source, 100, seed=3).samples
    assert candidate_share(samples, yices[0], 0.98, timeout=10.0) == (0.0, 3)
    # in a validation it judges only the few terms without a String, which it lacks
    report = validate_theory(entry, None, specs, n=100, seed=3, candidates=yices)
    assert report.within["yices"] < MIN_WITHIN and not report.serves("yices")
    assert report.candidates == {"yices": round(report.within["yices"] * 100)}
    assert report.serves("z3") and report.shortfalls() == []
    # a candidate that takes the terms judges them all
    core = sample_terms(load_catalogue(fixtures_dir_module).entries["Ints"].source, 40, 3)
    share, judged = candidate_share(core.samples, parse_specs("z3")[0], 0.98, timeout=10.0)
    assert (share, judged) == (1.0, 40)


def test_a_candidate_is_judged_on_the_terms_within_its_features() -> None:
    """bitwuzla has no Int: the shipped bit-vector generator's terms it refused all use Int
    (`ubv_to_int`, `int_to_bv`, Int comparisons), which a campaign redraws for it. Judged on
    the others, the terms a campaign gives it, it is served; judged on all it was not."""
    entry = load_catalogue(default_generators_dir()).entries["FixedSizeBitVectors"]
    bitwuzla = parse_specs("bitwuzla")
    samples = sample_terms(entry.source, 60, seed=0).samples
    everything, _judged = candidate_share(samples, bitwuzla[0], 0.98, timeout=10.0)
    assert everything < 0.9
    within = within_features(samples, bitwuzla[0])
    assert MIN_WITHIN < len(within) / len(samples) < 0.9
    assert not any("_to_int" in term or "int_to_bv" in term for _decls, term in within)
    report = validate_theory(entry, None, parse_specs("z3"), n=60, seed=0, candidates=bitwuzla)
    assert report.within == {"bitwuzla": len(within) / len(samples)}
    assert report.candidates == {"bitwuzla": len(within)}
    assert report.validity_by_solver["bitwuzla"] == 1.0 and report.serves("bitwuzla")
    # accepting every term it judged is not enough when too few were within its features
    report.within["bitwuzla"] = MIN_WITHIN / 2
    assert not report.serves("bitwuzla")


def test_a_candidate_is_not_served_terms_that_avoid_the_theory() -> None:
    """Many CVC5_Sequences terms use no sequence at all; yices, which has none, accepts those,
    but a campaign drawing the theory for it would give it none of the theory's operators."""
    entry = load_catalogue(default_generators_dir()).entries["CVC5_Sequences"]
    doc = load_theory_doc(default_docs_dir() / "CVC5_Sequences.md")
    yices = parse_specs("yices")
    report = validate_theory(entry, doc, parse_specs("cvc5"), n=60, seed=0, candidates=yices)
    assert report.within["yices"] >= MIN_WITHIN and report.validity_by_solver["yices"] == 1.0
    assert report.within_coverage == {"yices": 0.0} and not report.serves("yices")


def test_each_family_checks_a_batch_in_the_incremental_mode_its_record_names() -> None:
    """A batch's scopes need push: cvc4 takes the mode by set-option, yices only on its
    command line; without it every term of a batch was refused for the push."""
    pairs = [("(declare-const x Int)", "(> x 1)"), ("(declare-const x Int)", "(> x y)")] * 3
    for spec in parse_specs("cvc4;yices"):
        verdicts = check_terms(pairs, [spec])
        assert [v.valid for v in verdicts] == [True, False] * 3, (spec.name, verdicts[0].errors)
