"""`sphinxfuzz reduce`: shrink stored triggers with ddSMT."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from sphinxfuzz import api
from sphinxfuzz.api import REDUCED, ReductionResult
from sphinxfuzz.cli.parameters import TrustFolderOption, duration
from sphinxfuzz.errors import InputError
from sphinxfuzz.visible import visible

HELP = (
    "Shrink a stored bug's formula with ddSMT, keeping only candidates that still show the "
    "same bug (same crash signature; same solvers disagreeing with the same solver blamed by "
    "the model check; same model failing its check). Then leaves out, one at a time, the "
    "solvers' options the bug does not need on the reduced formula.\n\n"
    "Writes bugs/<id>/reduced.smt2 and reduce.json (sizes before and after, time, ddSMT "
    # `\\[` keeps rich from reading [reduce] as markup
    'version). Needs ddSMT: pip install "sphinxfuzz\\[reduce]".\n\n'
    "\b\n"
    "Examples:\n"
    "  sphinxfuzz reduce 17-3-cvc5-crash                (newest campaign in campaigns/)\n"
    "  sphinxfuzz reduce 17-3-cvc5-crash --campaign campaigns/night --jobs 2\n"
    "  sphinxfuzz reduce --all --campaign campaigns/night --time 5m\n"
    "    every bug not reduced yet, at most five minutes each\n"
    "  sphinxfuzz reduce campaigns/night/bugs/17-3-cvc5-crash --time 10m\n"
    "    a bug whose last reduction --time stopped goes on from its best result\n"
    "(reduced.smt2 and reduce.json go into each bug's folder)"
)


def _describe(result: ReductionResult) -> str:
    b, a = result.before, result.after
    share = a.bytes / b.bytes if b.bytes else 1.0
    stopped = "" if result.finished else " (time limit: best so far; reduce it again to go on)"
    dropped = result.dropped_options
    unneeded = f"; options not needed, left out: {', '.join(dropped)}" if dropped else ""
    return (f"{result.bug}: {b.bytes} -> {a.bytes} bytes ({share:.0%}), {b.nodes} -> {a.nodes} "
            f"nodes in {result.seconds:.1f} s{stopped} -> {result.folder / REDUCED}"
            f"{unneeded}")  # fmt: skip


def reduce_command(
    bug: Annotated[
        str | None, typer.Argument(help="Bug id (see `bugs list`) or path to a bug folder.")
    ] = None,
    campaign: Annotated[
        str | None,
        typer.Option("--campaign", "-c", help="Campaign folder (default: newest in campaigns/)."),
    ] = None,
    all_bugs: Annotated[
        bool, typer.Option("--all", help="Reduce every bug of the campaign not reduced yet.")
    ] = False,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Candidates ddSMT checks at once.")] = 1,
    time_limit: Annotated[
        str | None,
        typer.Option(
            "--time",
            help="Stop ddSMT after this long per bug and keep its best result (e.g. 90s, 5m).",
        ),  # fmt: skip
    ] = None,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Show ddSMT's progress.")
    ] = False,
    trust_folder: TrustFolderOption = False,
) -> None:
    console = Console(soft_wrap=True)
    if (bug is None) == (not all_bugs):
        raise InputError("name one bug, or pass --all (not both)")
    limit = duration(time_limit or None)
    say = lambda line: console.print(visible(line), highlight=False, markup=False)  # noqa: E731
    echo = say if verbose else None
    if bug is not None:  # as bisect finds it: a bug folder's path names its campaign too
        one = api.reduce(campaign, bug, jobs=jobs, time_limit=limit, echo=echo,
                         trust_folder=trust_folder, say=say)  # fmt: skip
        console.print(_describe(one), highlight=False, markup=False)
        return
    root, targets = api.reducible(campaign)
    if not targets:
        console.print(f"every bug of {root} is reduced already")
        return
    failures = 0
    for _, outcome in api.reduce_each(root, targets, jobs=jobs, time_limit=limit, echo=echo,
                                      trust_folder=trust_folder, say=say):  # fmt: skip
        if isinstance(outcome, str):
            failures += 1
            console.print(f"[yellow]skipped[/] {escape(outcome)}", highlight=False)
        else:
            console.print(_describe(outcome), highlight=False, markup=False)
    if failures:
        console.print(f"{failures} of {len(targets)} bugs could not be reduced")
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("reduce", help=HELP)(reduce_command)
