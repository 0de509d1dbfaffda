"""Which of a bug folder's stored command lines may run without the user vouching for them.

Bug folders travel (attached to issues, copied between machines), so the solver specs in their
`verdict.json` are data: replay, reduce, bisect and refresh run a stored spec only when it
names a solver as a campaign finds one (a built-in name, an installed release or build, or a
program of a known family found on PATH by its bare name) with options that name no file.
Anything else (`sh -c '...'`, a path, an interpreter and a script) runs only when the caller
trusts the folder, and is then shown in full first.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence

from sphinxfuzz.errors import InputError
from sphinxfuzz.solvers import SolverSpecError, parse_specs
from sphinxfuzz.solvers.families import BUILTINS, PACKAGES, Family, family_of

# An option that may name a file to write or read (z3's trace_file_name=, proof.log=, cvc5's
# --regular-output-channel=, --diagnostic-output-channel=): it could overwrite any file.
_NAMES_FILE = re.compile(r"file|channel|trace|(?<![a-z])log(?!ic)", re.I)


class UntrustedCommand(InputError):
    """A stored command line that is not a solver found as a campaign finds one."""


def untrusted_reason(text: str) -> str | None:
    """Why the stored spec `text` is not a known solver found as a campaign finds one, or
    None when it is."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        return f"unreadable ({exc})"
    if not words:
        return "empty"
    program, options = words[0], words[1:]
    name, at, version = program.partition("@")
    if os.sep in program:
        return "a program given by its path"
    if at and (name not in PACKAGES or not version):
        return f"{program!r} names no installable release"
    if not at and program not in BUILTINS and family_of(program) == Family.OTHER:
        return f"{program!r} is no solver of a known family"
    for word in options:
        if os.sep in word or _NAMES_FILE.search(word.partition("=")[0]):
            return f"option {word!r} may name a file"
    return None


def runnable(texts: Sequence[str], where: str, *, trust_folder: bool) -> list[str]:
    """The exact command lines (the formula's path comes last) that running the stored specs
    `texts` of the bug folder `where` starts, to show before running them. Raises
    `UntrustedCommand` naming each refused spec in full unless `trust_folder`."""
    refused = [f"`{text}` ({why})" for text in texts if (why := untrusted_reason(text))]
    if refused and not trust_folder:
        raise UntrustedCommand(
            f"{where}: not run: a bug folder's command lines are data, and "
            f"{'; '.join(refused)} is not a solver found as a campaign finds one; trust the "
            "folder to run it",
            setting="trust_folder",
        )
    try:
        specs = [spec for text in texts for spec in parse_specs(text)]
    except SolverSpecError as exc:
        raise UntrustedCommand(f"{where}: {exc}") from None
    return [shlex.join(spec.argv) + " <formula>" for spec in specs]
