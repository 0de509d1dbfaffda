"""`sphinxfuzz build-generators`: the LLM pipeline, theory documents in, generators out."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sphinxfuzz.cli.errors import UNCONFINED_HELP
from sphinxfuzz.generators.theory_folder import GeneratorFolder
from sphinxfuzz.visible import visible

if TYPE_CHECKING:  # the build pipeline is imported when a build runs, not for every command
    from sphinxfuzz.synthesis.batch import TheoryOutcome

HELP = """Build term generators from the theory documents with an LLM.

\b
For each theory (default: every document in docs_corpus/) the model distils a Lark grammar,
writes a generator module, and refines it from the solvers' errors for up to --rounds
rounds; the best version goes to --out/<Theory>/ with its grammar, transcript and manifest,
for review.

\b
Where the model lives (--llm):
  openai          any OpenAI-compatible endpoint, through the openai SDK:
                    OpenAI:  export OPENAI_API_KEY=sk-...; --model gpt-4o
                    vLLM:    export OPENAI_BASE_URL=http://localhost:8000/v1; --model <served model>
                    Ollama:  export OPENAI_BASE_URL=http://localhost:11434/v1; --model qwen2.5-coder
                  or an \\[llm] table (model, base_url, api_key_env, temperature) in
                  ./sphinxfuzz.toml or ~/.config/sphinxfuzz/config.toml
                  (local servers need no key; 429, time-outs and 5xx are retried,
                  a rejected key (401/403) stops at once)
  replay:PATH     answer from a recorded transcript.jsonl (offline, reproducible)
  exchange:DIR    write each prompt to DIR/NNNN-<theory>-<step>.prompt.md and wait for
                  the matching .answer.md: any model or person can answer, offline;
                  --model names who answers (it goes into the manifest)

\b
Examples (each writes to a temporary folder; --out generated_generators writes in place):
  sphinxfuzz build-generators Ints --llm openai --model gpt-4o --out /tmp/sphinxfuzz-build
  sphinxfuzz build-generators Ints --out /tmp/sphinxfuzz-build \\
      --llm replay:generated_generators/Ints/transcript.jsonl
                  (offline, in a checkout: replays the recorded build of Ints)
  sphinxfuzz build-generators Strings --llm exchange:/tmp/answers --model qwen2.5-coder:32b \\
      --out /tmp/sphinxfuzz-build

\b
--stale rebuilds only the theories whose document or templates changed since their build
(`sphinxfuzz generators list` shows which). Each rebuilt theory gets a REVIEW.md, before
and after (`sphinxfuzz generators review THEORY`).

\b
A generator edited by hand is not overwritten: record the edit with
`sphinxfuzz record-hand-edit THEORY --by NAME --what TEXT`, or pass --force to rebuild.
More: docs/building-generators.md
"""


RECORD_HELP = """Record a hand edit of a built generator in its manifest.

\b
Edit generated_generators/<Theory>/generator.py, then run
  sphinxfuzz record-hand-edit <Theory> --by "Ada" --what "cap bit-vector widths at 64"
The entry (date, who, what, the file's new sha256) goes into hand_edits in manifest.json.
An edit of grammar.lark (e.g. dropping an operator the generator leaves out) is recorded
the same way with --file grammar.lark.
build-generators refuses to overwrite a hand-edited generator unless --force is given.
"""


def register(app: typer.Typer) -> None:
    app.command("build-generators", help=HELP)(build_generators)
    app.command("record-hand-edit", help=RECORD_HELP)(record_hand_edit)


def record_hand_edit(
    theory: Annotated[str, typer.Argument(help="The theory whose generator.py was edited.")],
    by: Annotated[str, typer.Option("--by", help="Who edited it.")],
    what: Annotated[str, typer.Option("--what", help="What the edit changed, and why.")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Generators folder (default generated_generators/)."),
    ] = None,
    file: Annotated[
        str, typer.Option("--file", help="The file edited: generator.py or grammar.lark.")
    ] = GeneratorFolder.GENERATOR,
) -> None:
    from sphinxfuzz.generators.catalogue import default_generators_dir
    from sphinxfuzz.synthesis.hand_edits import record_hand_edit as record

    folder = GeneratorFolder.of(out or default_generators_dir(), theory)
    entry = record(folder.path, by, what, file=file)
    Console().print(
        f"recorded in {folder.manifest}: {entry['date']} {entry['by']}: {entry['what']}",
        highlight=False,
    )


def build_generators(
    theories: Annotated[
        list[str] | None, typer.Argument(help="Theories to build (default: all).")
    ] = None,
    llm: Annotated[
        str, typer.Option("--llm", help="openai, replay:PATH or exchange:DIR.")
    ] = "openai",
    model: Annotated[
        str | None, typer.Option("--model", help="Model name for the endpoint.")
    ] = None,
    rounds: Annotated[
        int, typer.Option("--rounds", min=1, help="Self-correction rounds at most.")
    ] = 10,
    samples: Annotated[int, typer.Option("--samples", min=1, help="Terms sampled per round.")] = 20,
    docs: Annotated[
        Path | None, typer.Option("--docs", help="Theory documents (default docs_corpus/).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Output folder (default generated_generators/).")
    ] = None,
    prompts_dir: Annotated[
        Path | None, typer.Option("--prompts", help="Prompt templates (default prompts/).")
    ] = None,
    transcript: Annotated[
        Path | None, typer.Option("--transcript", help="Also append every exchange here.")
    ] = None,
    exchange_timeout: Annotated[
        float | None, typer.Option("--exchange-timeout", help="Seconds to wait for an answer file.")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the sampled terms.")] = 0,
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite generators that were edited by hand.")
    ] = False,
    stale: Annotated[
        bool,
        typer.Option(
            "--stale",
            help="Only the theories whose document or prompt templates changed since their "
            "build (see `sphinxfuzz generators list`).",
        ),
    ] = False,
    review_terms: Annotated[
        int, typer.Option("--review-terms", min=1, help="Terms each version samples for REVIEW.md.")
    ] = 200,
    unconfined: Annotated[bool, typer.Option("--unconfined", help=UNCONFINED_HELP)] = False,
) -> None:
    from sphinxfuzz.synthesis.batch import BuildOptions
    from sphinxfuzz.synthesis.generator_build import BuildRequest
    from sphinxfuzz.synthesis.generator_build import build_generators as build

    console = Console()
    options = BuildOptions(rounds=rounds, samples=samples, seed=seed, unconfined=unconfined,
                           review_terms=review_terms)  # fmt: skip
    request = BuildRequest(theories, llm, model, docs, out, prompts_dir, transcript,
                           exchange_timeout, stale, force, options)  # fmt: skip
    outcomes = build(
        request,
        notify=lambda line: console.print(line, highlight=False, markup=False),
        on_start=lambda theory, specs: console.print(
            f"[bold]{theory}[/]: solvers {', '.join(s.text for s in specs)}"
        ),
        progress=lambda theory, line: console.print(
            f"  {theory}: {visible(line)}", highlight=False, markup=False
        ),
    )  # fmt: skip
    summary = Table(title="build-generators")
    for column in ("theory", "status", "valid before", "valid after", "rounds", "tokens", "time"):
        summary.add_column(column)
    built = [_summary_row(summary, outcome) for outcome in outcomes]
    if built:  # nothing chosen (all fresh, with --stale): no table
        console.print(summary)
    if not all(built):
        raise typer.Exit(1)


def _summary_row(summary: Table, outcome: TheoryOutcome) -> bool:
    """Add the theory's row (an error also goes to stderr); whether it was built."""
    if outcome.result is None or outcome.folder is None:
        error = escape(visible(str(outcome.error)))
        summary.add_row(outcome.theory, f"[red]failed: {error}[/]", "-", "-", "-", "-", "-")
        Console(stderr=True).print(f"[bold red]error:[/] {error}", highlight=False)
        return False
    after = outcome.after
    summary.add_row(
        outcome.theory,
        f"built ({outcome.recommendation}; see REVIEW.md)",
        _worst(outcome.before),
        _worst(after),
        str(len(outcome.result.rounds)),
        "-" if after is None or after.cost.tokens is None else str(after.cost.tokens),
        "-" if after is None or after.cost.seconds is None else f"{after.cost.seconds:.0f} s",
    )
    return True


def _worst(side: Any) -> str:
    """The share of terms the least accepting solver release takes, with its name."""
    if side is None or side.worst_release is None:
        return "-"
    return f"{side.worst:.1%} ({side.worst_release})"
