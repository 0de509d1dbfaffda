"""The `sphinxfuzz` command line: a thin typer app.

Each sub-module owns one command group and exposes `register(app)`; the modules only parse
options and call into the library packages. A `SphinxfuzzError` from any of them is printed
by `errors.SphinxfuzzGroup` (exit status 2).
"""

from __future__ import annotations

import importlib

import typer

from sphinxfuzz import __version__
from sphinxfuzz.cli.errors import SphinxfuzzGroup

app = typer.Typer(
    name="sphinxfuzz",
    cls=SphinxfuzzGroup,
    help=(
        "Find bugs in SMT solvers: fill skeletons of seed formulas with terms from "
        "LLM-built generators, run every solver, and keep what disagrees or crashes."
    ),
    no_args_is_help=True,
    add_completion=True,
    rich_markup_mode=None,  # plain help: Rich reads `[ray]` as markup and cuts cells with …
    pretty_exceptions_show_locals=False,
)

# Command modules, in the order `--help` lists their commands (a module whose name another
# package uses for something else carries `_command`)
_COMMAND_MODULES = (
    "fuzz",
    "status_command",
    "bugs",
    "reduce_command",
    "bisect_command",
    "report_command",
    "solvers",
    "generators",
    "build",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"sphinxfuzz {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """sphinxfuzz: skeleton-guided SMT solver fuzzing."""


for _name in _COMMAND_MODULES:
    importlib.import_module(f"sphinxfuzz.cli.{_name}").register(app)


def main() -> None:
    app()
