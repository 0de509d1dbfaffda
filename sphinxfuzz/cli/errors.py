"""How every command reports a usage or input error: one red line on stderr, exit status 2.

Library errors (`SphinxfuzzError`) reach the user in one place, `SphinxfuzzGroup.invoke`: the
message as the library wrote it, plus the flag to change when the error names its setting.
"""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from sphinxfuzz.cli.options import name_values
from sphinxfuzz.errors import SphinxfuzzError
from sphinxfuzz.generators.confine import ConfinementError
from sphinxfuzz.visible import visible

UNCONFINED_HELP = (
    "Run generator code even where the kernel confinement (seccomp, Landlock) cannot be set "
    "up. Only for generators you have read: the static check alone is not a sandbox."
)

# A library error's `setting` (a `CampaignConfig` setting or run option) -> what to change.
SETTING_HINTS = {
    "seeds": "name seed files or folders with --seeds",
    "solvers": "change --solvers",
    "generators": "change --generators",
    "campaign_folder": "name a campaign with -c/--campaign DIR, or start one with "
    "`sphinxfuzz fuzz -c DIR`",
    "campaign": "choose another --campaign folder, or continue this one with --resume",
    "resume": "leave out the options that differ, or start a new campaign",
    "jobs": "change --jobs",
    "time": "give --time as 90s, 10m or 2h",
    "ray": "check --ray ADDRESS, or leave --ray out",
    "strategies": "change --strategies",
    "scheduler": "use --scheduler fixed or bandit",
    "trusted": "change --trusted",
    "newest": "change --newest",
    "unconfined": "--unconfined runs generators without it (only generators you have read)",
    "force": "pass --force",
    "model": "name it with --model",
    "llm": "change --llm",
    "by": "give --by and --what",
    "file": "change --file",
}


def fail(message: str) -> typer.Exit:
    """Print `message` (escaped: paths and formulas may hold `[...]`) and return the exit to
    raise."""
    Console(stderr=True, soft_wrap=True).print(
        f"[bold red]error:[/] {escape(visible(message))}", highlight=False
    )
    return typer.Exit(2)


def message_for(exc: Exception) -> str:
    """The library's message, and the flag to change when the error names its setting."""
    setting = "unconfined" if isinstance(exc, ConfinementError) else getattr(exc, "setting", None)
    hint = SETTING_HINTS.get(setting) if setting else None
    return f"{exc} ({hint})" if hint else str(exc)


class SphinxfuzzGroup(TyperGroup):
    """The root command group: a `SphinxfuzzError` from any command becomes `fail`, and
    every option's value gets a plain name in --help (`options.name_values`)."""

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            name_values(command)
        return command

    def invoke(self, ctx: Any) -> Any:  # typer's own (vendored) click.Context
        try:
            return super().invoke(ctx)
        except SphinxfuzzError as exc:
            raise fail(message_for(exc)) from None
