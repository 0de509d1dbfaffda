"""`sphinxfuzz bisect`: the releases of a solver that have a stored bug."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sphinxfuzz import api
from sphinxfuzz.api import Bisection
from sphinxfuzz.cli.parameters import TrustFolderOption
from sphinxfuzz.errors import InputError
from sphinxfuzz.solvers.families import PACKAGES, Family
from sphinxfuzz.visible import visible

HELP = (
    "Run a stored bug's trigger on released versions of the blamed solver and report its "
    "lifespan: the first release that shows the bug, the last, and the first one after it "
    "that no longer does.\n\n"
    "Releases are installed on demand (`sphinxfuzz solvers install`, one venv per version in "
    "the cache; `sphinxfuzz solvers prune` removes them afterwards). Without --versions, the "
    "first and the last patch release of every minor version are tried (z3 from 4.8.5, cvc5 "
    "from 1.1.0), with the release the bug was found on, then the exact releases are found by "
    "bisection over every release between two tried ones where the bug comes or goes. The "
    "result, with every release tried, goes to bugs/<id>/bisect.json.\n\n"
    "\b\n"
    "Examples:\n"
    "  sphinxfuzz bisect 4-2-z3-soundness --solver z3\n"
    "  sphinxfuzz bisect 4-2-z3-soundness --solver z3 --versions 4.8.17,4.12.2,4.13.0\n"
    "  sphinxfuzz bisect --all --solver z3 --campaign campaigns/night\n"
    "  sphinxfuzz bisect 4-2-z3-crash --source ~/z3 --commits z3-4.15.4..master"
)


def _table(results: list[Bisection]) -> Table:
    table = Table(title="bug lifespans")
    for column in ("bug", "kind", "solver", "first bad", "last bad", "first good after", "tried"):
        table.add_column(column, overflow="fold")  # ids get copied: never cut with an ellipsis
    for r in results:
        table.add_row(r.bug, r.kind, r.solver, r.first_bad or "-", r.last_bad or "-",
                      r.first_good_after or "-", str(len(r.versions)))  # fmt: skip
    return table


def bisect_command(
    bug: Annotated[str | None, typer.Argument(help="Bug id (see `bugs list`) or bug folder.")] = None,
    solver: Annotated[str, typer.Option("--solver", help=f"Solver whose releases to try: {', '.join(PACKAGES)}.")] = Family.Z3,
    campaign: Annotated[str | None, typer.Option("--campaign", "-c", help="Campaign folder (default: newest in campaigns/).")] = None,
    versions: Annotated[str | None, typer.Option("--versions", help="Comma-separated releases to try instead of the default sample.")] = None,
    all_bugs: Annotated[bool, typer.Option("--all", help="Every bug and seed finding of the campaign that blames --solver; prints a lifespan table.")] = False,
    trust_folder: TrustFolderOption = False,
    source: Annotated[Path | None, typer.Option("--source", help="A git checkout of the solver: with --commits, bisect its commits instead of releases.")] = None,
    commits: Annotated[str | None, typer.Option("--commits", help="A..B: the first commit after A up to B that shows the bug, each probed commit built from --source (ccache).")] = None,
) -> None:  # fmt: skip
    console = Console(soft_wrap=True)
    if solver not in PACKAGES:
        raise InputError(f"{solver!r}: bisection knows {', '.join(PACKAGES)}", setting="solver")
    if commits is not None or source is not None:
        _commits(console, bug, solver, campaign, source, commits, trust_folder)
        return
    if (bug is None) == (not all_bugs):
        raise InputError("name one bug, or pass --all (not both)")
    chosen = [v.strip() for v in versions.split(",") if v.strip()] if versions else None
    say = lambda line: console.print(visible(line), highlight=False, markup=False)  # noqa: E731
    if not all_bugs:
        assert bug is not None
        one = api.bisect(campaign, bug, solver, versions=chosen, trust_folder=trust_folder, say=say)
        _print_results(console, [one])
        return
    results: list[Bisection] = []
    skipped = 0
    for _, outcome in api.bisect_each(campaign, solver, versions=chosen, say=say,
                                      trust_folder=trust_folder):  # fmt: skip
        if isinstance(outcome, str):
            skipped += 1
            console.print(f"[yellow]skipped[/] {escape(outcome)}", highlight=False)
        else:
            results.append(outcome)
    _print_results(console, results)
    if skipped:
        console.print(f"{skipped} bug(s) skipped (another solver blamed, or no solver blamed)")


def _commits(console: Console, bug: str | None, solver: str, campaign: str | None,
             source: Path | None, commits: str | None, trust_folder: bool) -> None:  # fmt: skip
    if bug is None or source is None or commits is None:
        raise InputError("bisecting commits takes one bug, --source DIR and --commits A..B",
                         setting="commits")  # fmt: skip
    from sphinxfuzz.api import bisect_commits

    say = lambda line: console.print(visible(line), highlight=False, markup=False)  # noqa: E731
    found = bisect_commits(campaign, bug, solver, source=source, commits=commits, say=say,
                           trust_folder=trust_folder)  # fmt: skip
    if found.first_bad is None:
        say(
            f"{found.bug}: both ends of {commits} agree ({found.tried[0].status}): no commit to name"
        )
    else:
        say(f"{found.bug}: first bad commit: {found.first_bad} ({len(found.tried)} commits built)")


def _print_results(console: Console, results: list[Bisection]) -> None:
    if results:
        console.print(_table(results))
        for result in results:  # the releases behind each lifespan, in words
            console.print(f"{result.bug}: {api.lifespan(result)}", highlight=False,
                          markup=False)  # fmt: skip


def register(app: typer.Typer) -> None:
    app.command("bisect", help=HELP)(bisect_command)
