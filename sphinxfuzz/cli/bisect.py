"""`sphinxfuzz bisect`: the releases of a solver that have a stored bug."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sphinxfuzz.api import bisect
from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.bisect import BisectError
from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.issue_text import bisect_summary
from sphinxfuzz.bugs.record import Bisection, BugFileError
from sphinxfuzz.bugs.replay import find_bug, resolve_campaign
from sphinxfuzz.bugs.trust import UntrustedCommand
from sphinxfuzz.cli.options import TrustFolderOption
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
    "  sphinxfuzz bisect --all --solver z3 --campaign campaigns/night"
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
) -> None:  # fmt: skip
    console = Console(soft_wrap=True)
    if solver not in PACKAGES:
        raise InputError(f"{solver!r}: bisection knows {', '.join(PACKAGES)}", setting="solver")
    if (bug is None) == (not all_bugs):
        raise InputError("name one bug, or pass --all (not both)")
    chosen = [v.strip() for v in versions.split(",") if v.strip()] if versions else None
    if all_bugs:
        root = resolve_campaign(campaign)
        with Store(root) as store:
            folders = [row.folder for row in store.bugs()]
            # seeds that already showed a bug on these releases have a lifespan too
            folders += [CampaignFolder(root).finding(str(f[0])) for f in store.seed_findings()]
    else:
        assert bug is not None
        folder = find_bug(bug, campaign)
        root, folders = folder.parent.parent, [folder]
    results: list[Bisection] = []
    skipped = 0
    for folder in folders:
        console.print(f"bisecting {folder.name} on {solver} releases ...", highlight=False)
        try:
            result = bisect(root, str(folder), solver, versions=chosen, trust_folder=trust_folder,
                            say=lambda line: console.print(visible(line), highlight=False, markup=False))  # fmt: skip
        except (BisectError, BugFileError, UntrustedCommand) as exc:
            if not all_bugs:
                raise
            skipped += 1
            console.print(f"[yellow]skipped[/] {escape(str(exc))}", highlight=False)
            continue
        results.append(result)
    if results:
        console.print(_table(results))
        for result in results:  # the releases behind each lifespan, in words
            console.print(f"{result.bug}: {bisect_summary(result)}", highlight=False,
                          markup=False)  # fmt: skip
    if skipped:
        console.print(f"{skipped} bug(s) skipped (another solver blamed, or no solver blamed)")


def register(app: typer.Typer) -> None:
    app.command("bisect", help=HELP)(bisect_command)
