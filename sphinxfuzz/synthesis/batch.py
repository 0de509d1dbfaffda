"""Building several theories in one go: the LLM pipeline over a corpus of theory documents.

`load_inputs` and `refuse_hand_edited` fail before the model is asked anything;
`build_theories` builds each theory with the built-in solvers its document names and
writes what the build leaves for review (`output.write_theory`), one outcome per theory.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from sphinxfuzz.errors import InputError, Step, StepKind
from sphinxfuzz.fileio import write_atomic
from sphinxfuzz.generators.catalogue import CatalogueEntry, CatalogueError, load_entry
from sphinxfuzz.generators.child_process import probe_confinement
from sphinxfuzz.generators.theory_docs import TheoryDoc, default_docs_dir, load_corpus
from sphinxfuzz.generators.theory_folder import GeneratorFolder
from sphinxfuzz.generators.theory_solvers import builtin_families, solvers_for_theory
from sphinxfuzz.solvers import BUILTINS, SolverSpec, solver_version
from sphinxfuzz.synthesis.freshness import stale_inputs
from sphinxfuzz.synthesis.hand_edits import (
    HandEditError,
    hand_edited,
    read_manifest,
    unrecorded_edit,
)
from sphinxfuzz.synthesis.llm import LLM, LLMError
from sphinxfuzz.synthesis.output import make_manifest, sha256_text, transcript_tokens, write_theory
from sphinxfuzz.synthesis.pipeline import BuildError, BuildResult, TheoryBuilder
from sphinxfuzz.synthesis.prompts import Prompts
from sphinxfuzz.synthesis.review import Cost, Side, measure, recommend, render
from sphinxfuzz.synthesis.transcript import Transcript


class BuildInputError(InputError):
    """Theories, documents or prompts a build cannot start from. `setting` names the option
    to change (`force`: rebuild hand-edited generators anyway)."""


@dataclass(frozen=True)
class BuildOptions:
    rounds: int = 10  # self-correction rounds at most
    samples: int = 20  # terms sampled per round
    seed: int = 0  # seed of the sampled terms
    unconfined: bool = False  # generator code may run without kernel confinement
    review_terms: int = 200  # terms each version samples for REVIEW.md


@dataclass
class TheoryOutcome:
    """One theory's build: its result and folder, or why there is none."""

    theory: str
    result: BuildResult | None = None
    folder: Path | None = None
    error: str | None = None
    before: Side | None = None  # the committed version's figures (None: there was none)
    after: Side | None = None  # the new version's figures
    recommendation: str | None = None  # better / same / worse


def load_inputs(
    docs: Path | None, prompts_dir: Path | None, theories: list[str] | None
) -> tuple[dict[str, TheoryDoc], Prompts, list[str]]:
    """The theory documents, the prompt templates and the theories to build (default:
    every documented one)."""
    try:
        corpus = load_corpus(docs or default_docs_dir())
        prompts = Prompts(prompts_dir)
    except OSError as exc:
        raise BuildInputError(str(exc)) from None
    chosen = theories or sorted(corpus)
    unknown = [t for t in chosen if t not in corpus]
    if unknown:
        raise BuildInputError(
            f"no document for {', '.join(unknown)}; known: {', '.join(sorted(corpus))}"
        )
    return corpus, prompts, chosen


def refuse_hand_edited(out_dir: Path, theories: list[str]) -> None:
    """Fail when rebuilding would overwrite a generator edited by hand."""
    try:
        kept = {t: reason for t in theories if (reason := hand_edited(out_dir / t))}
        unrecorded = [t for t in kept if unrecorded_edit(out_dir / t)]
    except HandEditError as exc:
        kept, unrecorded = {"": str(exc)}, []
    if kept:
        # an unrecorded edit is best recorded first: a rebuild with --force loses it for good
        step = Step(StepKind.RECORD_HAND_EDIT, {"theory": unrecorded[0]} if len(unrecorded) == 1
                    else {}) if unrecorded else None  # fmt: skip
        raise BuildInputError(
            "\n".join(kept.values()) + "\nrebuilding would discard that work: merge it into the "
            "document or prompts, or rebuild anyway",
            setting="force",
            step=step,
        )


def plan_build(
    docs: Path | None,
    prompts_dir: Path | None,
    theories: list[str] | None,
    out_dir: Path,
    *,
    stale: bool = False,
    force: bool = False,
    unconfined: bool = False,
    notify: Callable[[str], None] = lambda line: None,
) -> tuple[dict[str, TheoryDoc], Prompts, list[str]]:
    """Everything a build checks before the model is asked anything: the inputs
    (`load_inputs`); with `stale`, only the theories whose inputs changed (the others are
    told to `notify` with why); no hand-edited generator unless `force`; confinement unless
    `unconfined` (the model's code could not run otherwise). The theories may end up none."""
    corpus, prompts, chosen = load_inputs(docs, prompts_dir, theories)
    if stale:
        chosen, skipped = stale_inputs(out_dir, corpus, prompts, chosen)
        for theory, why in skipped.items():
            notify(f"skipped {theory}: {why}")
        notify(f"rebuilding {', '.join(chosen)}" if chosen else "nothing to rebuild")
    if chosen:
        if not force:
            refuse_hand_edited(out_dir, chosen)
        probe_confinement(unconfined=unconfined)
    return corpus, prompts, chosen


def build_theories(
    corpus: dict[str, TheoryDoc],
    theories: list[str],
    backend: LLM,
    prompts: Prompts,
    log: Transcript,
    out_dir: Path,
    options: BuildOptions,
    *,
    on_start: Callable[[str, list[SolverSpec]], None] = lambda theory, specs: None,
    progress: Callable[[str, str], None] = lambda theory, line: None,
) -> Iterator[TheoryOutcome]:
    """Build each theory in turn. A theory that fails gives an outcome with its error; an
    LLM failure ends the run after its outcome (the next theory would fail alike). A
    ConfinementError propagates: no theory can be built without confinement."""
    for theory in theories:
        doc = corpus[theory]
        specs = solvers_for_theory(doc.solvers, doc)
        if not specs:
            # validity means "some solver of the theory accepts it": nothing could say so
            reason = (
                f"{doc.path or theory}: solvers: lists no built-in solver ({', '.join(BUILTINS)})"
            )
            yield TheoryOutcome(theory, error=reason)
            continue
        on_start(theory, specs)
        first = len(log.records)
        committed = _committed(GeneratorFolder.of(out_dir, theory).path)
        builder = TheoryBuilder(
            doc, backend, prompts, specs,
            rounds=options.rounds, samples=options.samples, seed=options.seed,
            progress=partial(progress, theory),
            unconfined=options.unconfined,
        )  # fmt: skip
        started = time.monotonic()
        try:
            result = builder.build()
        except (BuildError, LLMError) as exc:
            yield TheoryOutcome(theory, error=str(exc))
            if isinstance(exc, LLMError):
                return
            continue
        seconds = time.monotonic() - started
        written = _write(out_dir, result, doc, specs, backend, prompts, log, first, seconds)
        outcome = TheoryOutcome(theory, result, written)
        progress(theory, f"reviewing: {options.review_terms} terms of each version")
        _review(outcome, committed, doc, specs, options, backend.model)
        yield outcome


def _committed(folder: Path) -> tuple[CatalogueEntry, dict[str, Any] | None] | None:
    """The version in `folder` before the build overwrites it (None: none usable)."""
    try:
        entry = load_entry(folder)
    except CatalogueError:
        return None
    try:
        manifest = read_manifest(folder)
    except HandEditError:
        manifest = None
    return entry, manifest


def _review(
    outcome: TheoryOutcome,
    committed: tuple[CatalogueEntry, dict[str, Any] | None] | None,
    doc: TheoryDoc,
    specs: list[SolverSpec],
    options: BuildOptions,
    model: str,
) -> None:
    """Measure both versions alike and write REVIEW.md beside the new one."""
    assert outcome.folder is not None
    terms, seed = options.review_terms, options.seed

    def side(entry: CatalogueEntry, manifest: dict[str, Any] | None) -> Side:
        return measure(entry, doc, specs, terms=terms, seed=seed, cost=Cost.of_manifest(manifest),
                       unconfined=options.unconfined)  # fmt: skip

    outcome.before = side(*committed) if committed is not None else None
    outcome.after = side(load_entry(outcome.folder), read_manifest(outcome.folder))
    text = render(
        outcome.theory, outcome.before, outcome.after, terms=terms, seed=seed, model=model
    )
    outcome.recommendation = recommend(outcome.before, outcome.after)[0]
    write_atomic(GeneratorFolder(outcome.folder).review, text)


def _write(
    out_dir: Path,
    result: BuildResult,
    doc: TheoryDoc,
    specs: list[SolverSpec],
    backend: LLM,
    prompts: Prompts,
    log: Transcript,
    first: int,
    seconds: float,
) -> Path:
    """The theory's folder with the best version, its grammar, its own part of the
    transcript and its manifest."""
    own = Transcript(None)
    own.records = log.records[first:]
    manifest = make_manifest(
        result,
        solvers=builtin_families(doc.solvers),
        model=backend.model,
        backend=backend.backend,
        prompt_hashes=prompts.hashes(),
        solver_versions={s.name: solver_version(s) for s in specs},
        document_sha256=sha256_text(doc.text),
        build_seconds=seconds,
        tokens=transcript_tokens(own.records),
    )
    return write_theory(out_dir, result, manifest, own.text())
