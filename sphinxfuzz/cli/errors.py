"""How every command reports a usage or input error: one red line on stderr, exit status 2.

Commands and the library raise `SphinxfuzzError`; it reaches the user in one place,
`reported` (wrapped around every command by `SphinxfuzzGroup`): the message as the library
wrote it, then the command for its `step`, and the option its `setting` maps to. The option
is found among the running command's own parameters (by name or flag), and worded from them:
its flags, value name and the first sentence of its help, so no table of hints drifts from
the options.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from sphinxfuzz.cli.parameters import first_sentence, name_values
from sphinxfuzz.errors import SphinxfuzzError, Step, StepKind
from sphinxfuzz.visible import visible

UNCONFINED_HELP = (
    "Run generator code even where the kernel confinement (seccomp, Landlock) cannot be set "
    "up. Only for generators you have read: the static check alone is not a sandbox."
)

# The command that takes each step the library suggests; `{name}` is the step's value.
STEP_COMMANDS = {
    StepKind.REINDEX: "sphinxfuzz bugs reindex -c {folder}",
    StepKind.RESUME: "sphinxfuzz fuzz --resume -c {folder}",
    StepKind.START_CAMPAIGN: "sphinxfuzz fuzz -c DIR",
    StepKind.INSTALL_RELEASE: "sphinxfuzz solvers install {family}=={version}",
    StepKind.BUILD_RELEASE: "sphinxfuzz solvers build {family}=={version} --assertions",
    StepKind.BUILD_GENERATORS: "sphinxfuzz build-generators",
    StepKind.RECORD_HAND_EDIT: "sphinxfuzz record-hand-edit {theory} --by NAME --what TEXT",
    StepKind.VALIDATE_GENERATORS: "sphinxfuzz generators validate --generators {folder}",
}
_UNNAMED = {"theory": "THEORY", "folder": "DIR"}  # a value the step left to the user
_REPORTING: set[Callable[..., Any]] = set()  # command callbacks `reported` made already


def fail(message: str) -> typer.Exit:
    """Print `message` (escaped: paths and formulas may hold `[...]`) and return the exit to
    raise."""
    Console(stderr=True, soft_wrap=True).print(
        f"[bold red]error:[/] {escape(visible(message))}", highlight=False
    )
    return typer.Exit(2)


def step_command(step: Step) -> str:
    return STEP_COMMANDS[step.kind].format_map({**_UNNAMED, **step.values})


def _parameter(command: Any, setting: str) -> Any:
    """The parameter of `command` that sets `setting`: same name, or a flag `--setting`."""
    flag = "--" + setting.replace("_", "-")
    for param in getattr(command, "params", ()):
        if param.name == setting or flag in param.opts:
            return param
    return None


def option_hint(command: Any, setting: str) -> str | None:
    """`-c/--campaign DIR: campaign folder (...)`: the option that sets `setting` in
    `command`, from its own flags, value name and help; None when it has none."""
    param = _parameter(command, setting)
    if param is None:
        return None
    if param.param_type_name == "argument":
        label = str(param.metavar or param.name).upper()
    else:
        flags = "/".join(sorted(param.opts, key=lambda o: o.startswith("--")))  # -c first
        label = flags if param.is_flag or not param.metavar else f"{flags} {param.metavar}"
    about = first_sentence(getattr(param, "help", None) or "").rstrip(".")
    if about[:2].istitle():  # "Seed .smt2 files" reads as part of the line: "seed .smt2 files"
        about = about[0].lower() + about[1:]
    return f"{label}: {about}" if about else label


def message_for(exc: SphinxfuzzError, command: Any = None) -> str:
    """The library's message, the command for its step, and the option for its setting."""
    text = str(exc)
    if exc.step is not None:
        text += f" (`{step_command(exc.step)}`)"
    hint = option_hint(command, exc.setting) if exc.setting and command is not None else None
    return f"{text} (see {hint})" if hint else text


def reported(command: Any) -> None:
    """Make `command` (and its sub-commands) print a `SphinxfuzzError` as one red line
    and exit with status 2, naming the command's own option for the error's setting."""
    for sub in getattr(command, "commands", {}).values():
        reported(sub)
    callback: Callable[..., Any] | None = command.callback
    if callback is None or callback in _REPORTING:
        return

    @functools.wraps(callback)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return callback(*args, **kwargs)
        except SphinxfuzzError as exc:
            raise fail(message_for(exc, command)) from None

    _REPORTING.add(run)
    command.callback = run


class SphinxfuzzGroup(TyperGroup):
    """The root command group: every command reports a `SphinxfuzzError` with `reported`,
    and every option's value gets a plain name in --help (`options.name_values`)."""

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            name_values(command)
            reported(command)
        return command
