"""Is a built generator still what its inputs would give? A comparison, never a guess.

The manifest holds the sha256 of everything the build read (the theory document, each
prompt template, the grammar it wrote) and the solver releases it was validated on (the
build's `solver_versions`, then each `validations` entry). `staleness` compares them with
today's files and the newest installed releases and names each difference. Changed inputs
call for a rebuild (`build-generators --stale`); a newer release calls for a re-validation
(`generators validate --against newest`), which `record_validation` appends to the manifest.

Releases are compared per family (`generators.catalogue.family_validations`): a family
keeps the release of the last validation that named it. A built-in family never validated
on is due (one installed after the build: yices, bitwuzla); once validated, it is due again
only for a newer release of a family the generator serves
(`generators.catalogue.served_families`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sphinxfuzz.fileio import write_atomic
from sphinxfuzz.generators.catalogue import (
    Catalogue,
    CatalogueEntry,
    family_validations,
    served_families,
)
from sphinxfuzz.generators.theory_docs import TheoryDoc
from sphinxfuzz.generators.theory_folder import GeneratorFolder
from sphinxfuzz.generators.theory_solvers import builtin_families, spec_text_for
from sphinxfuzz.solvers import BUILTINS, SolverSpec, parse_specs, solver_version
from sphinxfuzz.solvers.families import UNKNOWN_VERSION, parse_version
from sphinxfuzz.solvers.installs import installed_versions
from sphinxfuzz.synthesis.hand_edits import HandEditError, read_manifest, unrecorded_edit
from sphinxfuzz.synthesis.output import sha256_text, validate_manifest
from sphinxfuzz.synthesis.prompts import Prompts


@dataclass(frozen=True)
class Release:
    """One solver release a generator can be validated on."""

    family: str
    version: str
    spec_text: str  # `z3` for the built-in wheel, `z3@4.8.17` for an installed release


@dataclass
class Staleness:
    """Why a generator is not what today's inputs and releases would give (empty: fresh)."""

    theory: str
    inputs: list[str] = field(default_factory=list)  # a rebuild is due
    releases: list[str] = field(default_factory=list)  # a re-validation is due
    edits: list[str] = field(default_factory=list)  # human work a rebuild would lose

    @property
    def reasons(self) -> list[str]:
        return self.inputs + self.releases + self.edits

    @property
    def fresh(self) -> bool:
        return not self.reasons

    @property
    def status(self) -> str:
        return "fresh" if self.fresh else "stale: " + "; ".join(self.reasons)

    def to_json(self) -> dict[str, Any]:
        return {
            "status": "fresh" if self.fresh else "stale",
            "reasons": self.reasons,
            "inputs": self.inputs,
            "releases": self.releases,
            "edits": self.edits,
        }


def newest_releases(families: Iterable[str]) -> dict[str, Release]:
    """The newest release of each built-in family: the wheel in this environment, or an
    installed release (`sphinxfuzz solvers install`) when that one is newer."""
    found: dict[str, Release] = {}
    wanted = [f for f in families if f in BUILTINS]
    for family in wanted:
        try:
            version = solver_version(parse_specs(family)[0])
        except ValueError:  # not installed here (a missing binary): nothing to compare with
            continue
        if version != UNKNOWN_VERSION:  # the wheel is missing or broken: nothing to compare with
            found[family] = Release(family, version, family)
    for installed in installed_versions():
        if installed.family not in wanted:
            continue
        current = found.get(installed.family)
        if current is None or parse_version(installed.version) > parse_version(current.version):
            found[installed.family] = Release(
                installed.family, installed.version, f"{installed.family}@{installed.version}"
            )
    return found


def release_specs(
    doc: TheoryDoc | None, families: Iterable[str], releases: Mapping[str, Release]
) -> list[SolverSpec]:
    """The specs that check a theory on the given releases, with the options its document
    asks of cvc5 (as `solvers_for_theory` gives them for the built-in solvers)."""
    texts = []
    for family in builtin_families(families):
        release = releases.get(family)
        if release is None:
            continue
        options = spec_text_for([family], doc)[len(family) :]
        texts.append(release.spec_text + options)
    return parse_specs(";".join(texts)) if texts else []


def validated_releases(manifest: Mapping[str, Any]) -> dict[str, str]:
    """Family -> release the generator was last validated on (the last validation entry
    naming the family, else the build's own check)."""
    found = {
        name.split("@")[0]: str(version)
        for name, version in (manifest.get("solver_versions") or {}).items()
    }
    for family, entry in family_validations(manifest).items():
        for name, version in entry["releases"].items():
            if name.split("@")[0] == family:
                found[family] = str(version)
    return found


def staleness(
    folder: Path,
    doc: TheoryDoc | None,
    prompts: Prompts,
    newest: Mapping[str, Release],
) -> Staleness:
    """Compare `folder`'s manifest with today's document, templates and releases."""
    theory = folder.name
    result = Staleness(theory)
    files = GeneratorFolder(folder)
    if not files.manifest.is_file():
        result.inputs.append("never built" if not files.generator.is_file()
                             else "no manifest (built without a record)")  # fmt: skip
        return result
    manifest = read_manifest(folder)
    if doc is None:
        result.inputs.append("no theory document")
    elif manifest.get("document_sha256") is None:
        result.inputs.append("document hash not recorded")
    elif manifest["document_sha256"] != sha256_text(doc.text):
        result.inputs.append("document changed")
    recorded = manifest.get("prompt_hashes") or {}
    for step, digest in prompts.hashes().items():
        if step not in recorded:
            result.inputs.append(f"prompt {step}.md not recorded")
        elif recorded[step] != digest:
            result.inputs.append(f"prompt {step}.md changed")
    result.releases += _release_reasons(manifest, newest)
    try:
        if unrecorded_edit(folder, manifest):
            result.edits.append("edited without a record")
    except HandEditError as exc:
        result.edits.append(str(exc))
    return result


def _release_reasons(manifest: Mapping[str, Any], newest: Mapping[str, Release]) -> list[str]:
    """Each family of `newest` the generator is due to be validated on: never validated on
    it, or served and validated on an older release."""
    validated = validated_releases(manifest)
    served = served_families(tuple(manifest.get("solvers", ())), manifest)
    reasons = []
    for family, release in newest.items():
        before = validated.get(family)
        if before is None:
            reasons.append(f"never validated on {family}, {family} {release.version} installed")
        elif before != release.version and family in served:
            reasons.append(f"validated on {family} {before}, {family} {release.version} installed")
    return reasons


def catalogue_staleness(
    catalogue: Catalogue, corpus: Mapping[str, TheoryDoc], prompts: Prompts
) -> dict[str, Staleness]:
    """Each generator's staleness against today's documents, templates and the newest
    release of each built-in family it is validated on: its SOLVERS' and those no generator
    of the catalogue names (`synthesis.catalogue_validation`'s candidates)."""
    newest = newest_releases(BUILTINS)
    named = {family for entry in catalogue.entries.values() for family in entry.solvers}
    return {
        theory: staleness(
            entry.folder.path, corpus.get(theory), prompts, _due(newest, entry, named)
        )
        for theory, entry in catalogue.entries.items()
    }


def _due(
    newest: Mapping[str, Release], entry: CatalogueEntry, named: set[str]
) -> dict[str, Release]:
    """The releases `entry` is validated on: its SOLVERS' and the candidates'."""
    return {f: r for f, r in newest.items() if f in entry.solvers or f not in named}


def record_validation(
    folder: Path,
    releases: Mapping[str, str],
    validity_by_solver: Mapping[str, float],
    *,
    terms: int,
    seed: int,
    date: str | None = None,
    serves: Sequence[str] = (),
    judged: Mapping[str, int] | None = None,
    within: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """Append a validation entry to `folder`'s manifest (atomically) and return it. `serves`:
    the families outside its SOLVERS the generator proved fit for; `judged`: the terms a
    solver judged when it stopped short of `terms` (`generators.theory_validation.candidate_share`);
    `within`: the share of the terms whose every feature a candidate accepts (it judged those)."""
    manifest = read_manifest(folder)
    entry: dict[str, Any] = {
        "date": date or datetime.now(UTC).isoformat(timespec="seconds"),
        "releases": dict(releases),
        "validity_by_solver": {name: round(share, 4) for name, share in validity_by_solver.items()},
        "terms": terms,
        "seed": seed,
    }
    if serves:
        entry["serves"] = sorted(serves)
    if judged:
        entry["judged"] = dict(judged)
    if within:  # a candidate judged only the terms within its features
        entry["within"] = {name: round(share, 4) for name, share in within.items()}
    manifest.setdefault("validations", []).append(entry)
    manifest_path = GeneratorFolder(folder).manifest
    validate_manifest(manifest, str(manifest_path))
    write_atomic(manifest_path, json.dumps(manifest, indent=2) + "\n")
    return entry


def stale_inputs(
    out_dir: Path, corpus: Mapping[str, TheoryDoc], prompts: Prompts, theories: Iterable[str]
) -> tuple[list[str], dict[str, str]]:
    """The theories of `theories` whose inputs changed (a rebuild is due), and the others
    with why they are skipped. Releases never call for a rebuild: a re-validation does."""
    rebuild: list[str] = []
    skipped: dict[str, str] = {}
    for theory in theories:
        found = staleness(out_dir / theory, corpus.get(theory), prompts, {})
        if found.inputs:
            rebuild.append(theory)
        elif found.edits:
            skipped[theory] = "inputs unchanged (" + "; ".join(found.edits) + ")"
        else:
            skipped[theory] = "inputs unchanged"
    return rebuild, skipped
