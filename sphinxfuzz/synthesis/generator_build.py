"""One build of generators as a caller asks for it: plan the theories (`batch.plan_build`),
open the model and its transcript, then build each theory (`batch.build_theories`).

The CLI's `generators build` and a script make the same call; they differ only in how they
show what it yields."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sphinxfuzz.generators.catalogue import default_generators_dir
from sphinxfuzz.solvers import SolverSpec
from sphinxfuzz.synthesis.batch import BuildOptions, TheoryOutcome, build_theories, plan_build
from sphinxfuzz.synthesis.llm import make_llm
from sphinxfuzz.synthesis.transcript import Transcript


@dataclass(frozen=True)
class BuildRequest:
    """Which theories to build, from which inputs, with which model, into which folder."""

    theories: list[str] | None = None  # None: every theory document
    llm: str = "openai"  # openai, replay:PATH or exchange:DIR (`llm.make_llm`)
    model: str | None = None
    docs: Path | None = None  # theory documents (None: the shipped docs_corpus/)
    out: Path | None = None  # generators folder (None: the shipped generated_generators/)
    prompts: Path | None = None  # prompt templates (None: the shipped prompts/)
    transcript: Path | None = None  # also append every exchange here
    exchange_timeout: float | None = None  # seconds to wait for an answer file
    stale: bool = False  # only theories whose document or prompts changed since their build
    force: bool = False  # overwrite generators edited by hand
    options: BuildOptions = field(default_factory=BuildOptions)


def build_generators(
    request: BuildRequest,
    *,
    notify: Callable[[str], None] = lambda line: None,
    on_start: Callable[[str, list[SolverSpec]], None] = lambda theory, specs: None,
    progress: Callable[[str, str], None] = lambda theory, line: None,
) -> Iterator[TheoryOutcome]:
    """Each chosen theory's outcome, in turn (none when nothing is to be built). Everything
    that can be refused (inputs, hand edits, confinement) is, before the model is asked
    anything; `notify` hears what was skipped and what the model's exchange waits for."""
    out_dir = request.out or default_generators_dir()
    corpus, prompts, chosen = plan_build(
        request.docs, request.prompts, request.theories, out_dir, stale=request.stale,
        force=request.force, unconfined=request.options.unconfined, notify=notify,
    )  # fmt: skip
    if not chosen:
        return
    log = Transcript(request.transcript)
    backend = make_llm(
        request.llm, log, model=request.model, exchange_timeout=request.exchange_timeout,
        notify=notify,
    )  # fmt: skip
    yield from build_theories(
        corpus, chosen, backend, prompts, log, out_dir, request.options,
        on_start=on_start, progress=progress,
    )  # fmt: skip
