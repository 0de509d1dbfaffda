"""Validating a catalogue's generators: which theories, checked by which solvers, and the
record of a validation on the newest releases in each theory's manifest. One theory's
report is `generators.theory_validation.validate_theory`'s.

The solvers of a theory are, in this order: the ones the caller names; with
`against="newest"`, the newest installed release of each of the theory's families
(`freshness.release_specs`); else the theory's own (`theory_solvers.solvers_for_theory`).
Against the newest releases, every built-in family that no generator of the catalogue
names (one added after the builds: yices, bitwuzla, cvc4) is a candidate of every theory:
the record says whether the generator serves it (`ValidationReport.serves`), and a campaign
then draws the theory for it (`generators.catalogue.served_families`). Families a build
named are never candidates, so the theories a campaign on them draws stay what the builds
decided. Every refusal happens before the first term is sampled.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sphinxfuzz.errors import InputError
from sphinxfuzz.generators.catalogue import Catalogue
from sphinxfuzz.generators.theory_docs import TheoryDoc
from sphinxfuzz.generators.theory_solvers import solvers_for_theory
from sphinxfuzz.generators.theory_validation import ValidationReport, validate_theory
from sphinxfuzz.solvers import BUILTINS, SolverSpec, parse_specs
from sphinxfuzz.synthesis.freshness import (
    Release,
    newest_releases,
    record_validation,
    release_specs,
)

AGAINST = ("newest",)  # what a validation may be checked against besides the theory's solvers


@dataclass(frozen=True)
class TheoryPlan:
    """The solvers that check one theory, and the candidates asked whether it serves them."""

    specs: list[SolverSpec]
    candidates: list[SolverSpec] = field(default_factory=list)


@dataclass
class Validation:
    """What `validate_generators` did: a report per theory, and for `against="newest"` the
    releases it used and where each theory's validation was recorded."""

    reports: list[ValidationReport] = field(default_factory=list)
    recorded: dict[str, tuple[Path, dict[str, str]]] = field(default_factory=dict)


def chosen_theories(catalogue: Catalogue, theories: list[str] | None) -> list[str]:
    """`theories` (default: every theory of the catalogue); refuses a theory it lacks."""
    chosen = theories or sorted(catalogue.entries)
    unknown = [t for t in chosen if t not in catalogue.entries]
    if unknown:
        raise InputError(
            f"no generator for {', '.join(unknown)}; known: {', '.join(sorted(catalogue.entries))}",
            setting="theories",
        )
    return chosen


def _fixed_specs(solvers: str | None, against: str | None) -> list[SolverSpec] | None:
    if against is not None and against not in AGAINST:
        raise InputError(
            f"against {against!r}: the one choice is {', '.join(AGAINST)}", setting="against"
        )
    if against and solvers:
        raise InputError(
            "a validation against the newest releases chooses the solvers itself: name none",
            setting="solvers",
        )
    if not solvers:
        return None
    try:
        return parse_specs(solvers)
    except InputError as exc:
        raise InputError(f"solvers: {exc}", setting="solvers", step=exc.step) from None


def validate_generators(
    catalogue: Catalogue,
    corpus: Mapping[str, TheoryDoc],
    theories: list[str] | None,
    *,
    n: int,
    seed: int,
    timeout: float,
    solvers: str | None = None,
    against: str | None = None,
    unconfined: bool = False,
    on_theory: Callable[[str], None] = lambda theory: None,
) -> Validation:
    """Validate each theory's generator (`validate_theory`) with its solvers (see the module
    doc); with `against="newest"`, record each result in the theory's manifest."""
    chosen = chosen_theories(catalogue, theories)
    fixed = _fixed_specs(solvers, against)
    newest = newest_releases(BUILTINS) if against else {}
    plan = {theory: _plan(catalogue, corpus, theory, fixed, newest) for theory in chosen}
    done = Validation()
    for theory, planned in plan.items():
        on_theory(theory)
        done.reports.append(
            validate_theory(
                catalogue.entries[theory],
                corpus.get(theory),
                planned.specs,
                n=n,
                seed=seed,
                timeout=timeout,
                unconfined=unconfined,
                candidates=planned.candidates,
            )  # fmt: skip
        )
    if against:
        for report in done.reports:
            done.recorded[report.theory] = _record(catalogue, report, newest, seed=seed)
    return done


def _plan(
    catalogue: Catalogue,
    corpus: Mapping[str, TheoryDoc],
    theory: str,
    fixed: list[SolverSpec] | None,
    newest: Mapping[str, Release],
) -> TheoryPlan:
    """The solvers of one theory (see the module doc); refuses a theory none would check."""
    entry, doc = catalogue.entries[theory], corpus.get(theory)
    if fixed is not None:
        return TheoryPlan(fixed)
    if not newest:
        specs = solvers_for_theory(entry.solvers, doc)
    else:
        specs = release_specs(doc, entry.solvers, newest)
    if not specs:
        raise InputError(
            f"{entry.path}: SOLVERS {entry.solvers} names no built-in solver; name the "
            "solvers to check with",
            setting="solvers",
        )
    named = {family for e in catalogue.entries.values() for family in e.solvers}
    candidates = [family for family in newest if family not in named]
    return TheoryPlan(specs, release_specs(doc, candidates, newest) if candidates else [])


def _record(
    catalogue: Catalogue, report: ValidationReport, newest: Mapping[str, Release], *, seed: int
) -> tuple[Path, dict[str, str]]:
    """A validation entry in the theory's manifest: the releases and their validity."""
    folder = catalogue.entries[report.theory].folder
    releases = {
        name: newest[name.split("@")[0]].version
        for name in report.validity_by_solver
        if name.split("@")[0] in newest
    }
    record_validation(
        folder.path, releases, report.validity_by_solver, terms=report.samples, seed=seed,
        serves=[name.split("@")[0] for name in report.candidates if report.serves(name)],
        judged={name: n for name, n in report.candidates.items() if n < report.samples},
        within=report.within,
    )  # fmt: skip
    return folder.manifest, releases
