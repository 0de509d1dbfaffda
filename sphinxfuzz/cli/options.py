"""Options several commands share: how a campaign is named, and --json."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console

CAMPAIGN_HELP = "Campaign folder (default: the newest in campaigns/)."

# Every command names a campaign the same way: -c/--campaign DIR.
CampaignOption = Annotated[str | None, typer.Option("--campaign", "-c", help=CAMPAIGN_HELP)]
# Kept from earlier releases, where `bugs list` and `report` took the folder as an argument.
OldCampaignArgument = Annotated[
    str | None, typer.Argument(help="Deprecated: use -c/--campaign.", show_default=False)
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print JSON instead of a table (docs/json-output.md).")
]


def campaign_from(option: str | None, positional: str | None) -> str | None:
    """The campaign a command was given, by -c/--campaign or the deprecated argument."""
    if positional is None:
        return option
    if option is not None and option != positional:
        raise typer.BadParameter(
            f"two campaigns given: {positional!r} and --campaign {option!r}; keep --campaign"
        )
    Console(stderr=True).print(
        f"note: naming the campaign as an argument is deprecated; write -c {positional}",
        highlight=False,
        markup=False,
    )
    return positional


def print_json(data: Any) -> None:
    """One JSON document on stdout (plain text: no colours, no wrapping)."""
    typer.echo(json.dumps(data, indent=2, sort_keys=False, default=str))
