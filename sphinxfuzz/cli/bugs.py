"""`sphinxfuzz bugs`: list, show and replay the bugs a campaign stored."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from sphinxfuzz import api
from sphinxfuzz.api import PER_WEEK, CampaignFolder, ShownBug, TextTable
from sphinxfuzz.api import describe_verdict as describe
from sphinxfuzz.cli.parameters import (
    CampaignOption,
    JsonOption,
    OldCampaignArgument,
    TrustFolderOption,
    campaign_from,
    print_json,
)
from sphinxfuzz.visible import visible

bugs_app = typer.Typer(
    help="""List, show and replay stored bugs.

\b
Examples:
  sphinxfuzz bugs list                    (newest campaign in campaigns/)
  sphinxfuzz bugs list -c campaigns/night --json
  sphinxfuzz bugs show 17-3-cvc5-crash
  sphinxfuzz bugs replay 17-3-cvc5-crash  (does it still happen?)
  sphinxfuzz bugs replay campaigns/night/bugs/17-3-cvc5-crash
  sphinxfuzz bugs refresh                 (alive or fixed in the newest release?)
  sphinxfuzz bugs issue 17-3-cvc5-crash   (the issue text to file, Markdown)
  sphinxfuzz bugs queue                   (what to file this week, in order)
  sphinxfuzz bugs list --alive
  sphinxfuzz bugs reindex -c campaigns/night  (rebuild a damaged index)""",
    no_args_is_help=True,
)

BugArgument = Annotated[
    str, typer.Argument(help="Bug id (see `bugs list`) or path to a bug folder.")
]


@bugs_app.command("list")
def list_bugs(
    old_campaign: OldCampaignArgument = None,
    campaign: CampaignOption = None,
    as_json: JsonOption = False,
    alive: Annotated[
        bool,
        typer.Option("--alive", help="Only bugs alive in the newest release (see `bugs refresh`)."),
    ] = False,
) -> None:
    """Distinct bugs (triage groups) first, then every stored bug with its signature; alive
    bugs (still shown by the newest release) first, then unknown, then fixed, slow last."""
    if as_json:
        print_json(api.list_bugs_json(campaign_from(campaign, old_campaign), alive=alive))
        return
    listed = api.list_bugs(campaign_from(campaign, old_campaign), alive=alive)
    console = Console(soft_wrap=True)
    # plain aligned lines, never truncated: ids get copied and lines get grepped
    if listed.groups.rows:
        _print_table(console, listed.groups)
    _print_table(console, listed.bugs, always=True)
    if listed.findings.rows:
        _print_table(console, listed.findings)
    if listed.empty:
        console.print("no bugs stored yet")


def _print_table(console: Console, table: TextTable, *, always: bool = False) -> None:
    if table.rows or always:
        console.print(table.title, style="bold", highlight=False)
    _print_rows(console, table.header, table.rows)


@bugs_app.command("reindex")
def reindex_bugs(campaign: CampaignOption = None) -> None:
    """Rebuild the campaign's index (campaign.sqlite) from its bug folders, which are the
    source of truth; what the old index still reads (configuration, progress) is kept, so
    `fuzz --resume` goes on. The old file stays beside it as campaign.sqlite.damaged-<time>."""
    done = api.reindex(campaign or "")
    root = Path(campaign or "")
    console = Console(soft_wrap=True)
    kept = f"; the old index is kept as {done.kept_as.name}" if done.kept_as else ""
    carried = ", ".join(done.carried) or "nothing"
    console.print(
        f"{CampaignFolder(root).index}: rebuilt from {done.bugs} bug folder(s) and {done.findings} seed "
        f"finding(s); carried over from the old index: {carried}{kept}",
        highlight=False,
        markup=False,
    )
    for problem in done.skipped:
        console.print(f"skipped {visible(problem)}", highlight=False, markup=False)


def _print_rows(console: Console, header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    if not rows:
        return
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        line = visible("  ".join([*cells, row[-1]]), one_line=True)
        console.print(line, highlight=False, markup=False, soft_wrap=True)


@bugs_app.command("show")
def show_bug(
    bug: BugArgument,
    campaign: CampaignOption = None,
    as_json: JsonOption = False,
) -> None:
    """The bug's verdict, formula and every solver's command line, version and output."""
    shown = api.show(campaign, bug)
    if as_json:
        print_json(shown.to_json())
        return
    _show(Console(soft_wrap=True), shown)


def _show(console: Console, shown: ShownBug) -> None:
    """Every text here was written by a solver, a generator or a seed: shown `visible`."""
    record = shown.record
    verdict = record.verdict
    console.print(f"[bold]{escape(visible(record.id))}[/]  {escape(visible(str(record.folder)))}",
                  highlight=False)  # fmt: skip
    console.print(visible(f"kind: {verdict.kind}   blamed: {verdict.solver}"), highlight=False,
                  markup=False)  # fmt: skip
    console.print(visible(f"signature: {verdict.signature}"), highlight=False, markup=False)
    today = record.today
    if today is not None:
        # what identifies the bug on the newest release: the signature it showed there
        shows = f": {shown.alive_as}" if shown.alive_as else ""
        console.print(visible(f"today: {today.sentence()}{shows}"), highlight=False, markup=False)
    # where the options the bug needs stand with the maintainers (docs/triage.md#reduce)
    console.print(f"standing: {shown.standing or 'not told'}", highlight=False)
    if not shown.seed_finding:
        console.print(
            visible(f"seed file: {record.seed_file}   campaign seed {record.campaign_seed}, "
                    f"position {record.position}, mutant {record.mutant}   theories: "
                    f"{', '.join(record.theories) or '-'}"),
            highlight=False, markup=False,
        )  # fmt: skip
    if verdict.evidence:
        evidence = {k: v for k, v in verdict.evidence.items() if k != "model"}
        console.print("evidence: " + visible(json.dumps(evidence, indent=1)), highlight=False,
                      markup=False)  # fmt: skip
    console.rule(record.formula_name)
    console.print(visible(record.formula()), highlight=False, markup=False)
    reduced = record.reduced()
    if reduced is not None:
        console.rule(f"{record.reduced_path.name} (sphinxfuzz reduce)")
        console.print(visible(reduced), highlight=False, markup=False)
    for solver in record.solvers:
        console.rule(escape(visible(f"{solver.name} ({solver.version})", one_line=True)))
        console.print(visible(f"spec: {solver.spec}   (replay runs this; stored command: "
                              f"{' '.join(solver.argv)} <formula>)"), highlight=False,
                      markup=False)  # fmt: skip
        console.print(f"outcome: {solver.outcome}  exit {solver.exit_code}  "
                      f"{solver.elapsed} s", highlight=False)  # fmt: skip
        for stream in ("stdout", "stderr"):
            text = record.output(solver.name, stream)
            if text.strip():
                console.print(f"{stream}:\n{visible(text.rstrip())}", highlight=False,
                              markup=False)  # fmt: skip


@bugs_app.command("issue")
def issue_command(
    bug: BugArgument,
    campaign: CampaignOption = None,
    as_json: JsonOption = False,
) -> None:
    """The finding's issue text as Markdown, ready to file: its title (the newest release
    that shows the bug), formula (reduced when it was), the minimal command line, versions,
    lifespan and the other findings of its root cause."""
    text = api.issue(campaign, bug)
    if as_json:
        print_json(text.to_json())
        return
    # the Markdown as it is, for a file or a paste: no markup, no wrapping
    typer.echo(visible(text.markdown).rstrip("\n"))


@bugs_app.command("queue")
def queue_command(
    old_campaign: OldCampaignArgument = None,
    campaign: CampaignOption = None,
    as_json: JsonOption = False,
    per_week: Annotated[
        int,
        typer.Option("--per-week", min=1, help="Reports per solver family a week (cvc5 asks for at most 3)."),
    ] = PER_WEEK,
    expert: Annotated[
        bool,
        typer.Option("--expert", help="Also findings that need an expert option (maintainers decline most), marked."),
    ] = False,
    known: Annotated[
        str | None,
        typer.Option("--known", metavar="DIR", help="A folder of upstream reproducers (<tracker>_<issue>_<n>.smt2): findings in the place of one are held back as likely known (the campaign's --known by default)."),
    ] = None,
) -> None:  # fmt: skip
    """What to file this week: per solver family, in the maintainers' order (wrong unsat,
    wrong sat, invalid model, crash under default options, then regular options), the
    findings alive in the newest release, reduced, valid, not known and one per root cause.
    Queued ones are recorded in the campaign's queue.json; the rest are listed with why."""
    found = api.queue(campaign_from(campaign, old_campaign), per_week=per_week, expert=expert,
                  known=known)  # fmt: skip
    root = found.campaign
    if as_json:
        print_json(found.to_json())
        return
    console = Console(soft_wrap=True)
    say = lambda line: console.print(visible(line, one_line=True), highlight=False, markup=False)  # noqa: E731
    console.print(f"filing queue of {root} (at most {per_week} per family a week)", style="bold",
                  highlight=False)  # fmt: skip
    for entry in found.queued:
        when = time.strftime("%Y-%m-%d", time.gmtime(entry.queued_at or 0))
        mark = "  [EXPERT option]" if entry.expert else ""
        title = entry.issue.title if entry.issue else ""
        say(f"{entry.family}  {entry.category}{mark}  {entry.id}  (queued {when}): {title}")
    if not found.queued:
        console.print("nothing to file this week")
    for heading, entries in (("waiting for next week", found.waiting),
                             ("held back", found.held)):  # fmt: skip
        if entries:
            console.print(heading, style="bold")
            for entry in entries:
                say(f"{entry.family}  {entry.id}: {entry.reason}")
    if found.queued:
        console.print("print one's issue text with `sphinxfuzz bugs issue ID`", highlight=False)


@bugs_app.command("replay")
def replay_bug(
    bug: BugArgument,
    campaign: CampaignOption = None,
    timeout: Annotated[
        float | None,
        typer.Option("--timeout", help="Seconds per solver call (default: the campaign's)."),
    ] = None,
    trust_folder: TrustFolderOption = False,
) -> None:
    """Re-run the stored formula on the stored command lines; exit 0 if it reproduces, 1 if not."""
    console = Console(soft_wrap=True)
    say = lambda line: console.print(visible(line), highlight=False, markup=False)  # noqa: E731
    outcome = api.replay(campaign, bug, timeout=timeout, trust_folder=trust_folder, say=say)
    for result in outcome.results:
        console.print(visible(f"{result.spec.name}: {result.outcome} {' '.join(result.answers)}"
                              + (f"  [{result.failure_line}]" if result.failure_line else ""),
                              one_line=True), highlight=False, markup=False)  # fmt: skip
    original = outcome.original
    now = outcome.judgement.verdicts
    if outcome.reproduced:
        console.print(f"[bold green]reproduces[/]: {describe(original.kind, original.solver)}: "
                      f"{original.signature}", highlight=False)  # fmt: skip
        return
    found = "; ".join(f"{describe(v.kind, v.solver)}: {v.signature}" for v in now) or "no bug"
    console.print(f"[bold yellow]does not reproduce[/]: stored "
                  f"{describe(original.kind, original.solver)}; now {found}", highlight=False)  # fmt: skip
    raise typer.Exit(1)


@bugs_app.command("refresh")
def refresh_bugs(
    old_campaign: OldCampaignArgument = None,
    campaign: CampaignOption = None,
    newest: Annotated[
        str | None,
        typer.Option(
            "--newest",
            help="Newest release per family, e.g. 'z3@5.4.1;cvc5' (default: the campaign's --newest, else the newest installed wheels).",
        ),
    ] = None,
    trust_folder: TrustFolderOption = False,
) -> None:
    """Replay every stored bug and seed finding on the newest release of its blamed family
    and record it as alive or fixed (in its verdict.json)."""
    console = Console(soft_wrap=True)
    seen = 0
    for folder, today in api.refresh(campaign_from(campaign, old_campaign), newest=newest,
                                 trust_folder=trust_folder):  # fmt: skip
        seen += 1
        line = f"skipped: {today}" if isinstance(today, str) else today.sentence()
        console.print(f"{folder.name}: {line}", highlight=False, markup=False)
    if not seen:
        console.print("no bugs stored yet")


def register(app: typer.Typer) -> None:
    app.add_typer(bugs_app, name="bugs")
