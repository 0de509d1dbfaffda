"""REVIEW.md: what a reviewer reads before committing a rebuilt generator.

Both versions, the committed one (before) and the new one (after), are sampled with the same
seed and checked by the same solver releases; the report puts side by side the validity per
solver and release, the document's operators the terms reach, term depth and size, five
sample terms and the build's cost, and ends in a recommendation (better, same or worse, with
the reason). It is short enough to paste into a pull request.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sphinxfuzz.generators.catalogue import CatalogueEntry
from sphinxfuzz.generators.theory_docs import TheoryDoc
from sphinxfuzz.generators.theory_validation import validate_theory
from sphinxfuzz.smtlib.lexer import lexemes
from sphinxfuzz.solvers import SolverSpec, solver_version

SAMPLES_SHOWN = 5
SAMPLE_CHARS = 240  # a longer sample term is cut: the report must stay pasteable
# differences smaller than these are noise over a few hundred terms
VALIDITY_MARGIN = 0.01
COVERAGE_MARGIN = 0.02


@dataclass
class Cost:
    rounds: int | None = None
    tokens: int | None = None
    seconds: float | None = None

    @classmethod
    def of_manifest(cls, manifest: dict[str, Any] | None) -> Cost:
        if not manifest:
            return cls()
        rounds = manifest.get("rounds")
        return cls(
            len(rounds) if isinstance(rounds, list) else None,
            manifest.get("tokens"),
            manifest.get("build_seconds"),
        )


@dataclass
class Side:
    """One version's figures."""

    validity: dict[str, float]  # "z3 5.4.1" -> share of terms that release accepts
    reached: int  # operators of the document found in the terms
    operators: int  # operators in the document's table
    missing: list[str]
    depth_mean: float
    depth_max: int
    size_mean: float
    size_max: int
    samples: list[str]
    cost: Cost = field(default_factory=Cost)

    @property
    def worst(self) -> float:
        return min(self.validity.values()) if self.validity else 0.0

    @property
    def worst_release(self) -> str | None:
        """The release that accepts the smallest share of the terms (None: none checked)."""
        return min(self.validity, key=lambda name: self.validity[name]) if self.validity else None

    @property
    def coverage(self) -> float | None:
        return self.reached / self.operators if self.operators else None


def term_shape(term: str) -> tuple[int, int]:
    """(depth, size) of a term: deepest parenthesis nesting, and atoms (symbols, literals,
    keywords) it holds."""
    depth = deepest = size = 0
    for kind, text, _start in lexemes(term):
        if kind == "paren":
            depth += 1 if text == "(" else -1
            deepest = max(deepest, depth)
        elif kind != "comment":
            size += 1
    return deepest, size


def measure(
    entry: CatalogueEntry,
    doc: TheoryDoc | None,
    specs: Sequence[SolverSpec],
    *,
    terms: int,
    seed: int,
    cost: Cost,
    unconfined: bool = False,
) -> Side:
    """Sample `terms` terms of `entry` and take its figures (the validation of
    `generators validate -n TERMS --seed SEED` with the same solvers)."""
    report = validate_theory(entry, doc, specs, n=terms, seed=seed, unconfined=unconfined)
    labels = {spec.name: f"{spec.name} {solver_version(spec)}" for spec in specs}
    shapes = [term_shape(v.term) for v in report.verdicts] or [(0, 0)]
    operators = len(doc.operators) if doc is not None else 0
    return Side(
        validity={labels[name]: share for name, share in report.validity_by_solver.items()},
        reached=operators - len(report.missing_operators),
        operators=operators,
        missing=list(report.missing_operators),
        depth_mean=statistics.fmean(d for d, _ in shapes),
        depth_max=max(d for d, _ in shapes),
        size_mean=statistics.fmean(s for _, s in shapes),
        size_max=max(s for _, s in shapes),
        samples=[v.term for v in report.verdicts[:SAMPLES_SHOWN]],
        cost=cost,
    )


def recommend(before: Side | None, after: Side) -> tuple[str, str]:
    """better, same or worse, and why: the worst solver's validity decides, then operator
    coverage."""
    if before is None:
        return "better", "there was no generator before"
    if after.worst > before.worst + VALIDITY_MARGIN:
        return (
            "better",
            f"the worst solver accepts {_pct(after.worst)} of terms, was {_pct(before.worst)}",
        )
    if after.worst < before.worst - VALIDITY_MARGIN:
        return (
            "worse",
            f"the worst solver accepts {_pct(after.worst)} of terms, was {_pct(before.worst)}",
        )
    cov_before, cov_after = before.coverage or 0.0, after.coverage or 0.0
    if cov_after > cov_before + COVERAGE_MARGIN:
        return (
            "better",
            f"validity is level and the terms reach {after.reached} operators, was {before.reached}",
        )
    if cov_after < cov_before - COVERAGE_MARGIN:
        return (
            "worse",
            f"validity is level but the terms reach {after.reached} operators, was {before.reached}",
        )
    return "same", "validity and operator coverage are level (within 1 and 2 points)"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _num(value: float | int | None, unit: str = "") -> str:
    if value is None:
        return "-"
    return f"{value:.0f}{unit}" if isinstance(value, float) else f"{value}{unit}"


def render(
    theory: str, before: Side | None, after: Side, *, terms: int, seed: int, model: str
) -> str:
    verdict, reason = recommend(before, after)

    def cells(pick: Any) -> str:
        return f"{pick(before) if before is not None else '-'} | {pick(after)}"

    lines = [
        f"# Review: {theory}",
        "",
        f"Rebuilt by {model}. Both versions sampled {terms} terms (seed {seed}), checked by "
        "the same releases; reproduce a column with "
        f"`sphinxfuzz generators validate {theory} -n {terms} --seed {seed}`.",
        "",
        "| | before (committed) | after (this build) |",
        "|---|---|---|",
    ]
    labels = list(after.validity) + [
        k for k in (before.validity if before else {}) if k not in after.validity
    ]
    for label in labels:
        lines.append(
            f"| valid {label} | " + cells(lambda s, label=label: _pct(s.validity.get(label))) + " |"
        )
    lines += [
        "| operators reached | " + cells(lambda s: f"{s.reached}/{s.operators}") + " |",
        "| term depth mean / max | "
        + cells(lambda s: f"{s.depth_mean:.1f} / {s.depth_max}")
        + " |",
        "| term size mean / max | " + cells(lambda s: f"{s.size_mean:.1f} / {s.size_max}") + " |",
        "| build rounds | " + cells(lambda s: _num(s.cost.rounds)) + " |",
        "| build tokens | " + cells(lambda s: _num(s.cost.tokens)) + " |",
        "| build time | " + cells(lambda s: _num(s.cost.seconds, " s")) + " |",
        "",
    ]
    if after.missing:
        lines += [f"Operators no sampled term reaches after: {' '.join(after.missing)}", ""]
    for name, side in (("before", before), ("after", after)):
        if side is None:
            continue
        lines += [f"Five sample terms {name}:", "", "```smt2"]
        lines += [t if len(t) <= SAMPLE_CHARS else t[:SAMPLE_CHARS] + " ..." for t in side.samples]
        lines += ["```", ""]
    lines.append(f"**Recommendation: {verdict}** ({reason}).")
    return "\n".join(lines) + "\n"
