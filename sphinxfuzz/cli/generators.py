"""`sphinxfuzz generators`: list, sample and validate the generator catalogue."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from sphinxfuzz.cli.errors import UNCONFINED_HELP
from sphinxfuzz.cli.parameters import JsonOption, print_json
from sphinxfuzz.errors import InputError
from sphinxfuzz.generators.catalogue import (
    Catalogue,
    default_generators_dir,
    load_catalogue,
)
from sphinxfuzz.generators.sandbox import sample_terms
from sphinxfuzz.generators.theory_docs import TheoryDoc, default_docs_dir, load_corpus
from sphinxfuzz.generators.theory_folder import GeneratorFolder
from sphinxfuzz.visible import visible

generators_app = typer.Typer(
    help="""List, sample and validate the term generators.

\b
Examples:
  sphinxfuzz generators list --json
  sphinxfuzz generators sample Ints -n 5 --seed 7
  sphinxfuzz generators validate Core Reals -n 100 --markdown   each with its own solvers
                  (no theory named: every theory; -n 1000 terms each by default)
  sphinxfuzz generators validate Ints Strings -n 100 --solvers 'z3;cvc5'
  sphinxfuzz generators validate ArraysEx -n 1 --seed 1234 \\
      --solvers 'z3 model_validate=true;cvc5 --check-models'
                  the term a campaign's theory probe named ("term seed 1234"),
                  checked with the campaign's solvers: the same verdict""",
    no_args_is_help=True,
)

GeneratorsOption = Annotated[
    Path | None,
    typer.Option(
        "--generators", help="Generators folder (default: the repo's generated_generators/)."
    ),
]
UnconfinedOption = Annotated[bool, typer.Option("--unconfined", help=UNCONFINED_HELP)]
DocsOption = Annotated[
    Path | None,
    typer.Option("--docs", help="Theory documents folder (default: the repo's docs_corpus/)."),
]


def register(app: typer.Typer) -> None:
    app.add_typer(generators_app, name="generators")


def _catalogue(directory: Path | None, *, strict: bool) -> Catalogue:
    return load_catalogue(directory or default_generators_dir(), strict=strict)


def _corpus(directory: Path | None) -> dict[str, TheoryDoc]:
    root = directory or default_docs_dir()
    if directory is None and not root.is_dir():
        return {}
    return load_corpus(root)


def _manifest_validity(manifest: dict[str, Any] | None) -> str:
    """The validity the build recorded last, under the names a manifest may use."""
    if not manifest:
        return "-"
    for holder in (manifest.get("final"), manifest.get("validation"), manifest):
        if isinstance(holder, dict):
            for key in ("validity", "final_validity", "valid_ratio"):
                value = holder.get(key)
                if isinstance(value, int | float):
                    return f"{value:.0%}"
    return "-"


@generators_app.command("list")
def list_generators(
    generators: GeneratorsOption = None,
    docs: DocsOption = None,
    as_json: JsonOption = False,
    prompts: Annotated[
        Path | None,
        typer.Option("--prompts", help="Prompt templates (default: the repo's prompts/)."),
    ] = None,
) -> None:
    """Every generator: theory, the solver families it serves, kind, the validity its build
    recorded, and its status: fresh, or stale with the reasons (a changed document or prompt
    template, a newer solver release than it was validated on, an unrecorded edit)."""
    catalogue = _catalogue(generators, strict=False)
    corpus = _corpus(docs)
    statuses = _statuses(catalogue, corpus, prompts)  # imported late: it reads solver releases
    if as_json:
        print_json({
            "schema": "sphinxfuzz/generators-list/1",
            "directory": str(catalogue.directory),
            "generators": [
                {"theory": theory, "solvers": list(entry.solvers), "serves": list(entry.families),
                 "kind": corpus[theory].kind if theory in corpus else None,
                 "path": str(entry.path), "manifest": entry.manifest,
                 "freshness": statuses[theory].to_json()}
                for theory, entry in sorted(catalogue.entries.items())
            ],
            "skipped": dict(sorted(catalogue.errors.items())),
        })  # fmt: skip
        return
    console = Console()
    table = Table(title=f"generators in {catalogue.directory}")
    for column in ("theory", "serves", "kind", "validity", "status"):
        table.add_column(column)
    for theory, entry in sorted(catalogue.entries.items()):
        doc = corpus.get(theory)
        table.add_row(
            theory,
            ", ".join(entry.families),  # its SOLVERS, then the candidates it proved fit for
            doc.kind if doc else "-",
            _manifest_validity(entry.manifest),
            statuses[theory].status,
        )
    console.print(table)
    for name, problem in sorted(catalogue.errors.items()):
        console.print(f"[yellow]skipped {name}:[/] {problem}", highlight=False)
    if not catalogue.entries and not catalogue.errors:
        console.print("no generators yet (run `sphinxfuzz build-generators`)")


def _statuses(
    catalogue: Catalogue, corpus: dict[str, TheoryDoc], prompts_dir: Path | None
) -> dict[str, Any]:
    from sphinxfuzz.synthesis.freshness import catalogue_staleness
    from sphinxfuzz.synthesis.prompts import Prompts

    return catalogue_staleness(catalogue, corpus, Prompts(prompts_dir))


@generators_app.command("review")
def review(
    theory: Annotated[str, typer.Argument(help="Theory name, e.g. Ints.")],
    generators: GeneratorsOption = None,
) -> None:
    """Print the REVIEW.md the last build-generators wrote for THEORY (before and after)."""
    path = GeneratorFolder.of(generators or default_generators_dir(), theory).review
    if not path.is_file():
        raise InputError(
            f"{path}: no review (build-generators writes one when it rebuilds {theory})"
        )
    typer.echo(path.read_text(encoding="utf-8"), nl=False)


@generators_app.command("sample")
def sample(
    theory: Annotated[str, typer.Argument(help="Theory name, e.g. Ints.")],
    n: Annotated[int, typer.Option("-n", help="Number of terms.")] = 5,
    seed: Annotated[int, typer.Option("--seed", help="Seed of random.Random.")] = 0,
    generators: GeneratorsOption = None,
    unconfined: UnconfinedOption = False,
) -> None:
    """Print the declarations and terms of N samples (run in the sandbox)."""
    catalogue = _catalogue(generators, strict=True)
    entry = catalogue.entries.get(theory)
    if entry is None:
        raise InputError(
            f"no generator for {theory!r}; known: {', '.join(sorted(catalogue.entries))}",
            setting="theory",
        )
    report = sample_terms(entry.source, n, seed, filename=str(entry.path), unconfined=unconfined)
    for index, (decls, term) in enumerate(report.samples):
        typer.echo(f"; sample {index} (seed {seed})")
        if decls.strip():
            typer.echo(visible(decls))
        typer.echo(visible(term))
        typer.echo()
    if not report.ok:
        raise InputError(f"{report.kind}: {report.failure}")  # printed `visible`


@generators_app.command("validate")
def validate(
    theories: Annotated[
        list[str] | None, typer.Argument(help="Theories to validate (default: all).")
    ] = None,
    n: Annotated[int, typer.Option("-n", help="Terms per theory.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of random.Random.")] = 0,
    solvers: Annotated[
        str | None,
        typer.Option(
            "--solvers", help='Solver spec, e.g. "z3;cvc5" (default: each theory\'s own).'
        ),
    ] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds per solver call.")] = 10.0,
    generators: GeneratorsOption = None,
    docs: DocsOption = None,
    markdown: Annotated[
        bool, typer.Option("--markdown", help="Print the table as Markdown (for the README).")
    ] = False,
    as_json: JsonOption = False,
    unconfined: UnconfinedOption = False,
    against: Annotated[
        str | None,
        typer.Option(
            "--against",
            help="newest: check on the newest installed release of each of the theory's "
            "solvers and record the result in its manifest (a validation entry; no rebuild).",
        ),
    ] = None,
) -> None:
    """Sample each generator, check the terms with solvers, and report quality measures.

    The `meets` column checks the targets: every solver accepts at least 98% of the terms
    (90% for extension theories), at least 90% of the document's operators are used, and a
    term takes under 5 ms. The exit status is 1 when a generator misses a target."""
    # Imported here: validation runs solvers, the other commands do not need that layer.
    from sphinxfuzz.synthesis.catalogue_validation import validate_generators

    catalogue = _catalogue(generators, strict=True)
    console = Console(stderr=as_json)  # the progress spinner stays off a JSON stdout
    with console.status("validating") as status:
        done = validate_generators(
            catalogue, _corpus(docs), theories, n=n, seed=seed, timeout=timeout,
            solvers=solvers, against=against, unconfined=unconfined,
            on_theory=lambda theory: status.update(f"validating {theory} ({n} terms)"),
        )  # fmt: skip
    reports = done.reports
    for manifest, releases in done.recorded.values():
        shown = ", ".join(f"{name} {version}" for name, version in releases.items())
        console.print(f"recorded in {manifest}: validated on {shown}", highlight=False)
    if as_json:
        print_json({"schema": "sphinxfuzz/generators-validate/1", "seed": seed,
                    "theories": [_report_json(r) for r in reports]})  # fmt: skip
    else:
        if markdown:
            typer.echo(_markdown_table(reports))
        else:
            console.print(_report_table(reports))
        _print_notes(console, reports)
    if any(report.shortfalls() for report in reports):
        raise typer.Exit(1)


def _print_notes(console: Console, reports: list[Any]) -> None:
    """What each report found beyond its table row: failures, unused operators, misses."""
    for report in reports:
        notes = []
        if report.sample_kind != "ok":
            notes.append(
                f"generator stopped after {report.samples} terms: {report.sample_kind}: {report.sample_failure}"
            )
        if report.grammar_error:
            notes.append(report.grammar_error)
        if report.missing_operators:
            notes.append("operators never used: " + " ".join(report.missing_operators))
        notes += [f"error: {message}" for message in report.errors]
        notes += [
            _candidate_note(report, name, judged) for name, judged in report.candidates.items()
        ]
        notes += [f"misses target: {missed}" for missed in report.shortfalls()]
        if notes:
            console.print(f"[bold]{report.theory}[/]", highlight=False)
            for note in notes:
                console.print(f"  {note}", highlight=False, markup=False)


def _candidate_note(report: Any, name: str, judged: int) -> str:
    """What a family the build did not name made of the terms (`ValidationReport.serves`)."""
    share, within = report.validity_by_solver[name], report.within.get(name, 1.0)
    judged_text = f"{judged} terms within its features ({within:.1%} of the sample"
    coverage = report.within_coverage.get(name)
    judged_text += ")" if coverage is None else f", using {coverage:.0%} of the operators)"
    if report.serves(name):
        return f"serves {name} ({share:.1%} of {judged_text} accepted)"
    return f"does not serve {name} ({share:.1%} of the {judged_text} it judged accepted)"


def _report_json(report: Any) -> dict[str, Any]:
    return {
        "theory": report.theory,
        "kind": report.kind,
        "terms": report.samples,
        "requested": report.requested,
        "validity": report.validity,
        "validity_by_solver": dict(report.validity_by_solver),
        "conformance": report.conformance,
        "coverage": report.coverage,
        "missing_operators": list(report.missing_operators),
        "ms_per_term": report.seconds_per_term * 1000,
        "check_seconds": report.check_seconds,
        "errors": list(report.errors),
        "sampling": {"kind": report.sample_kind, "failure": report.sample_failure},
        "grammar_error": report.grammar_error,
        "candidates": {
            name: {
                "judged": judged,
                "within": report.within.get(name, 1.0),
                "serves": report.serves(name),
            }
            for name, judged in report.candidates.items()
        },
        "shortfalls": report.shortfalls(),
        "meets": not report.shortfalls(),
    }


def _solver_names(reports: list[Any]) -> list[str]:
    names: list[str] = []
    for report in reports:
        names += [name for name in report.validity_by_solver if name not in names]
    return names


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _cells(report: Any, solver_names: list[str], *, kind: bool = True) -> list[str]:
    return [
        report.theory,
        *([report.kind] if kind else []),
        *(_share(report.validity_by_solver.get(name)) for name in solver_names),
        _share(report.validity),
        _share(report.conformance),
        _share(report.coverage),
        f"{report.seconds_per_term * 1000:.3f}",
        str(report.samples),
        "no" if report.shortfalls() else "yes",
    ]


_COLUMNS = ("any", "grammar", "ops", "ms/term", "terms", "meets")


def _markdown_table(reports: list[Any]) -> str:
    names = _solver_names(reports)
    header = ["theory", "kind", *names, *_COLUMNS]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cells(r, names)) + " |" for r in reports]
    return "\n".join(lines)


def _report_table(reports: list[Any]) -> Table:
    solver_names = _solver_names(reports)
    table = Table(
        title="generator validation",
        caption="share of terms each solver accepts; any: at least one; grammar: parsed by "
        "grammar.lark; ops: doc operators used; meets: the targets in --help",
    )
    table.add_column("theory", overflow="fold", min_width=8)
    for name in solver_names:
        table.add_column(name, justify="right")
    for column in _COLUMNS:
        table.add_column(column, justify="right")
    for report in reports:
        table.add_row(*_cells(report, solver_names, kind=False))
    return table
