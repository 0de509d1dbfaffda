"""The one base of every error sphinxfuzz raises on purpose.

A `SphinxfuzzError` is a refusal with a message meant for the user: malformed input, a
configuration that cannot be used, an external tool that failed. The CLI prints it and exits
with status 2; anything else that escapes is a defect and keeps its traceback.

Messages speak in library terms (a seed file, a solver spec, a campaign folder), never in
command-line flags: the CLI is one caller among several.
"""

from __future__ import annotations


class SphinxfuzzError(Exception):
    """Base of sphinxfuzz's deliberate errors. `setting` names the setting or option to
    change when one is to blame (`solvers`, `model`, ...): the CLI turns it into the flag."""

    def __init__(self, *args: object, setting: str | None = None) -> None:
        super().__init__(*args)
        self.setting = setting


class InputError(SphinxfuzzError, ValueError):
    """Input that cannot be used as given: a file, a spec, a table or a folder."""


class ExternalError(SphinxfuzzError, RuntimeError):
    """An outside party failed: a solver, an installer, an LLM endpoint, the kernel."""
