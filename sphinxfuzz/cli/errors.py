"""How every command reports a usage or input error: one red line on stderr, exit status 2."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape


def fail(message: str) -> typer.Exit:
    """Print `message` (escaped: paths and formulas may hold `[...]`) and return the exit to
    raise."""
    Console(stderr=True, soft_wrap=True).print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    return typer.Exit(2)
