"""`sphinxfuzz report`: one self-contained HTML page about a campaign."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from sphinxfuzz.bugs import StoreError
from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.record import BugFileError
from sphinxfuzz.bugs.replay import resolve_campaign
from sphinxfuzz.bugs.report import write_report
from sphinxfuzz.cli.errors import message_for
from sphinxfuzz.cli.options import CampaignOption, OldCampaignArgument, campaign_from
from sphinxfuzz.errors import SphinxfuzzError
from sphinxfuzz.visible import visible

HELP = (
    "Write an HTML report of a campaign: summary, throughput and bugs over time, validity "
    "by theory, the distinct bugs with their (reduced) formulas, bisection results and an "
    "issue text ready to paste. One file, no external resources.\n\n"
    "\b\n"
    "Examples:\n"
    "  sphinxfuzz report                              (newest campaign in campaigns/)\n"
    "  sphinxfuzz report -c campaigns/night --out night.html"
)


def report_command(
    old_campaign: OldCampaignArgument = None,
    campaign: CampaignOption = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="HTML file to write (default: CAMPAIGN/report.html)."),
    ] = None,
) -> None:
    try:
        root = resolve_campaign(campaign_from(campaign, old_campaign))
        target = write_report(root, out if out is not None else CampaignFolder(root).report)
    except (StoreError, BugFileError, OSError) as exc:
        Console(stderr=True, soft_wrap=True).print(
            f"[bold red]error:[/] {escape(visible(_message(exc)))}", highlight=False
        )
        raise typer.Exit(2) from None
    Console(soft_wrap=True).print(f"report written to {target}", highlight=False)


def _message(exc: Exception) -> str:
    return message_for(exc) if isinstance(exc, SphinxfuzzError) else str(exc)


def register(app: typer.Typer) -> None:
    app.command("report", help=HELP)(report_command)
