"""Options several commands share: how a campaign is named, --time, and --json."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any, get_args, get_origin

import typer
from rich.console import Console

from sphinxfuzz.campaign.config import parse_duration
from sphinxfuzz.errors import InputError

CAMPAIGN_HELP = "Campaign folder (default: the newest in campaigns/)."

# Every command names a campaign the same way: -c/--campaign DIR.
CampaignOption = Annotated[str | None, typer.Option("--campaign", "-c", help=CAMPAIGN_HELP)]
# Kept from earlier releases, where `bugs list` and `report` took the folder as an argument.
OldCampaignArgument = Annotated[
    str | None, typer.Argument(help="Deprecated: use -c/--campaign.", show_default=False)
]
# A bug folder's command lines are data (bugs/trust.py): this runs those naming no known solver.
TrustFolderOption = Annotated[
    bool,
    typer.Option(
        "--trust-folder",
        help="Run stored command lines that name no solver found as a campaign finds one "
        "(a path, a script): only for a bug folder you made or read.",
    ),
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


def duration(text: str | None) -> float | None:
    """Seconds from a --time value (90s, 10m, 2h); None when none was given."""
    if text is None:
        return None
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise InputError(f"time: {exc}", setting="time") from None


def print_json(data: Any) -> None:
    """One JSON document on stdout (plain text: no colours, no wrapping)."""
    typer.echo(json.dumps(data, indent=2, sort_keys=False, default=str))


# What an option's value is called in --help, where its name alone does not say it (typer's
# own labels are Python types: `<list[str]>`, `<int range>`).
VALUE_NAMES = {
    "--seeds": "DIR|FILE",
    "--solvers": "SPECS",
    "--solver": "NAME",
    "--trusted": "SPEC",
    "--generators": "DIR",
    "--campaign": "DIR",
    "--time": "DURATION",
    "--timeout": "SECONDS",
    "--seed-timeout": "SECONDS",
    "--log-every": "SECONDS",
    "--every": "SECONDS",
    "--strategies": "NAMES",
    "--options": "PLAN",
    "--max-seed-bytes": "BYTES",
    "--llm": "BACKEND",
    "--out": "PATH",
}
_BY_TYPE: dict[object, str] = {int: "N", float: "NUMBER", str: "TEXT", Path: "PATH"}


def _value_name(param: Any) -> str:
    """A name from the option's type: `N`, `NUMBER`, `TEXT`, `PATH`, or its choices."""
    described = getattr(param, "type_descriptor", None)  # typer >= 0.24; older: click's type
    if described is None:
        return str(param.type.name).upper().replace(" RANGE", "")
    if described.is_choice:
        return "|".join(str(c) for c in described.choices or ())
    annotation = described.annotation
    if get_origin(annotation) is list:
        (annotation,) = get_args(annotation)
    return _BY_TYPE.get(annotation, "VALUE")


def first_sentence(text: str) -> str:
    """The first sentence of a help text: what a command list shows of it, whole."""
    paragraph = " ".join(text.strip().split("\n\n")[0].split())
    # (an abbreviation's stop ends no sentence: "weights, e.g. sphinx=2" stays whole)
    return re.split(r"(?<=[.!?])(?<!e\.g\.)(?<!i\.e\.)\s", paragraph, maxsplit=1)[0]


def name_values(command: Any) -> None:
    """Give every option of `command` (and of its sub-commands) a plain value name for
    --help: `--time DURATION`, `--jobs N`, instead of typer's type labels (`<list[str]>`);
    and every command a short help of its first sentence, which command lists wrap instead
    of cutting with "..."."""
    if getattr(command, "short_help", None) is None and getattr(command, "help", None):
        command.short_help = first_sentence(command.help)
    for param in command.params:
        if param.metavar is not None:
            continue
        if param.param_type_name == "argument":
            param.metavar = str(param.name).upper()  # `bugs show BUG`, not `bug <str>`
            # typer labels an argument with its type whatever its metavar: the name says it
            param.display_type_rich = lambda ctx: None
            continue
        if param.is_flag:
            continue
        long = next((o for o in param.opts if o.startswith("--")), "")
        param.metavar = VALUE_NAMES.get(long) or _value_name(param)
    for sub in getattr(command, "commands", {}).values():
        name_values(sub)
