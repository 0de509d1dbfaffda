"""Validating a generator: sample it, ask the solvers, measure grammar fit and doc coverage.

The building blocks live in `solver_check` (solver verdicts) and `term_metrics` (errors,
conformance, coverage); this module re-exports them and ties them together.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from sphinxfuzz.generators.catalogue import CatalogueEntry
from sphinxfuzz.generators.sandbox import sample_terms
from sphinxfuzz.generators.solver_check import check_terms
from sphinxfuzz.generators.term_metrics import (
    GrammarLoadError,
    distinct_errors,
    error_counts,
    grammar_conformance,
    normalise_error,
    operator_coverage,
)
from sphinxfuzz.generators.theory_docs import TheoryDoc
from sphinxfuzz.generators.verdict import TermVerdict
from sphinxfuzz.solvers import SolverSpec

__all__ = [
    "GrammarLoadError",
    "TermVerdict",
    "ValidationReport",
    "check_terms",
    "distinct_errors",
    "error_counts",
    "grammar_conformance",
    "normalise_error",
    "operator_coverage",
    "validate_theory",
]

# What a shipped generator must reach over 1000 terms (issue #5; the method reports about
# 100% valid for standard theories and over 80% for extensions).
MIN_VALID = {"standard": 0.98, "extension": 0.90}
MIN_COVERAGE = 0.90
MAX_MS_PER_TERM = 5.0


@dataclass
class ValidationReport:
    theory: str
    requested: int
    sample_kind: str  # SampleReport.kind: "ok" unless the generator failed part-way
    sample_failure: str | None
    validity: float  # share of sampled terms accepted by at least one solver
    validity_by_solver: dict[str, float]
    conformance: float | None  # None when there is no grammar.lark (or it does not load)
    grammar_error: str | None
    coverage: float | None  # None without a theory document
    missing_operators: list[str]
    seconds_per_term: float  # mean time inside generate()
    check_seconds: float  # wall time of the solver checks
    errors: list[str]  # distinct normalised error messages, most frequent first
    verdicts: list[TermVerdict] = field(repr=False, default_factory=list)

    kind: str = "standard"  # the document's kind: standard or extension

    @property
    def samples(self) -> int:
        return len(self.verdicts)

    def shortfalls(self) -> list[str]:
        """The targets this generator misses (empty: it meets them all)."""
        missed: list[str] = []
        floor = MIN_VALID.get(self.kind, MIN_VALID["standard"])
        for name, share in self.validity_by_solver.items():
            if share < floor:
                missed.append(f"{name} valid {share:.1%} < {floor:.0%}")
        if self.coverage is not None and self.coverage < MIN_COVERAGE:
            missed.append(f"coverage {self.coverage:.1%} < {MIN_COVERAGE:.0%}")
        if self.seconds_per_term * 1000 >= MAX_MS_PER_TERM:
            missed.append(f"{self.seconds_per_term * 1000:.2f} ms/term >= {MAX_MS_PER_TERM:g}")
        if self.sample_kind != "ok":
            missed.append(f"sampling stopped: {self.sample_kind}")
        return missed


def validate_theory(
    entry: CatalogueEntry,
    doc: TheoryDoc | None,
    specs: Sequence[SolverSpec],
    n: int = 1000,
    seed: int = 0,
    *,
    timeout: float = 10.0,
    sample_timeout: float = 120.0,
    unconfined: bool = False,
) -> ValidationReport:
    """Sample `n` terms from `entry` (seeded), judge them with `specs`, and measure them."""
    sampled = sample_terms(
        entry.source, n, seed, timeout=sample_timeout, filename=str(entry.path),
        unconfined=unconfined,
    )  # fmt: skip
    start = time.monotonic()
    verdicts = check_terms(sampled.samples, specs, timeout=timeout)
    check_seconds = time.monotonic() - start
    terms = [term for _, term in sampled.samples]
    total = len(verdicts)
    by_solver = {
        spec.name: (sum(spec.name not in v.errors for v in verdicts) / total if total else 0.0)
        for spec in specs
    }
    conformance: float | None = None
    grammar_error: str | None = None
    grammar_path = entry.grammar_path
    if grammar_path is not None:
        try:
            conformance = grammar_conformance(grammar_path.read_text(encoding="utf-8"), terms)
        except GrammarLoadError as exc:
            grammar_error = f"{grammar_path}: {exc}"
    coverage, missing = operator_coverage(doc, terms) if doc is not None else (None, [])
    return ValidationReport(
        theory=entry.theory,
        requested=n,
        sample_kind=sampled.kind,
        sample_failure=sampled.failure,
        validity=(sum(v.valid for v in verdicts) / total) if total else 0.0,
        validity_by_solver=by_solver,
        conformance=conformance,
        grammar_error=grammar_error,
        coverage=coverage,
        missing_operators=missing,
        seconds_per_term=sampled.per_term_seconds,
        check_seconds=check_seconds,
        errors=distinct_errors(verdicts),
        verdicts=verdicts,
        kind=doc.kind if doc is not None else "standard",
    )
