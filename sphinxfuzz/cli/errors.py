"""How every command reports a usage or input error: one red line on stderr, exit status 2."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape

UNCONFINED_HELP = (
    "Run generator code even where the kernel confinement (seccomp, Landlock) cannot be set "
    "up. Only for generators you have read: the static check alone is not a sandbox."
)


def fail(message: str) -> typer.Exit:
    """Print `message` (escaped: paths and formulas may hold `[...]`) and return the exit to
    raise."""
    Console(stderr=True, soft_wrap=True).print(
        f"[bold red]error:[/] {escape(message)}", highlight=False
    )
    return typer.Exit(2)
