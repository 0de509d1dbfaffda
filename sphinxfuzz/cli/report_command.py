"""`sphinxfuzz report`: one self-contained HTML page about a campaign."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from sphinxfuzz import api
from sphinxfuzz.cli.parameters import CampaignOption, OldCampaignArgument, campaign_from

HELP = (
    "Write an HTML report of a campaign: summary, throughput and bugs over time, validity "
    "by theory, the stored bugs per solver option (a campaign with --options), the distinct "
    "bugs with their (reduced) formulas, bisection results and an issue text ready to paste. "
    "One file, no external resources.\n\n"
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
    target = api.report(campaign_from(campaign, old_campaign), out)
    Console(soft_wrap=True).print(f"report written to {target}", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("report", help=HELP)(report_command)
