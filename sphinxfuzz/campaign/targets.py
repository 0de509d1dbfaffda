"""The solvers a campaign targets and the generator theories it may use for them."""

from __future__ import annotations

from pathlib import Path

from sphinxfuzz.errors import InputError, Step, StepKind
from sphinxfuzz.generators.catalogue import Catalogue, CatalogueEntry, load_catalogue
from sphinxfuzz.generators.theory_docs import TheoryDocError, default_docs_dir, load_theory_doc
from sphinxfuzz.solvers import Family, SolverSpec


class CampaignError(InputError):
    """A campaign that cannot start or go on; the message says why and what to do.
    `setting` names the `CampaignConfig` setting (or run option) to change."""


def select_theories(catalogue: Catalogue, specs: list[SolverSpec]) -> list[str]:
    """Theories every target family supports. Targets all of one family (versions of one
    solver) get every theory of that family. An `other` solver (any binary) promises
    nothing either way, so it does not narrow the choice."""
    families = {str(spec.family) for spec in specs if spec.family != Family.OTHER}
    if not families:
        return sorted(catalogue.entries)
    return sorted(catalogue.theories_for(families))


def generator_entries(generators_dir: str, specs: list[SolverSpec]) -> list[CatalogueEntry]:
    path = Path(generators_dir)
    if not path.is_dir():
        raise CampaignError(
            f"generators folder {generators_dir}: no such folder. Build generators from the "
            "theory documents, or use a folder of them",
            setting="generators",
            step=Step(StepKind.BUILD_GENERATORS),
        )
    try:
        catalogue = load_catalogue(path)
    except ValueError as exc:
        raise CampaignError(
            f"generators folder {generators_dir}: {exc}", setting="generators"
        ) from None
    theories = select_theories(catalogue, specs)
    if not theories:
        names = ", ".join(f"{s.name} ({s.family})" for s in specs)
        have = ", ".join(sorted(catalogue.entries)) or "none"
        raise CampaignError(
            f"no generator in {path} supports every target solver: {names}. Generators "
            f"there: {have}. Build generators for them from the theory documents, or use a "
            "folder that has some",
            setting="generators",
            step=Step(StepKind.BUILD_GENERATORS),
        )
    return [catalogue.entries[theory] for theory in theories]


def theory_options(
    generators_dir: str, entries: list[CatalogueEntry]
) -> dict[str, tuple[str, ...]]:
    """The solver options each theory's document asks for (`options: sets-exp=true`), from the
    `docs_corpus/` beside the generators folder, else the repository's. A theory without a
    readable document needs none."""
    beside = Path(generators_dir).resolve().parent / "docs_corpus"
    docs = beside if beside.is_dir() else default_docs_dir()
    options: dict[str, tuple[str, ...]] = {}
    for entry in entries:
        path = docs / f"{entry.theory}.md"
        if not path.is_file():
            continue
        try:
            doc = load_theory_doc(path)
        except TheoryDocError:
            continue  # generator validation reports broken documents
        if doc.options:
            options[entry.theory] = doc.options
    return options
