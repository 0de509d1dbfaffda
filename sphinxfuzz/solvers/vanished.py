"""A solver whose program can no longer be started: removed, moved or made unreadable while
a campaign ran (issue 52 defect 4). The solver never ran, so nothing it printed is an
answer, a rejection or a crash of it; the run raises `SolverVanished` instead, and a
campaign stops with that one line.

`solvers.reaper.start` runs the program through util-linux's `setpriv`, which says
"setpriv: failed to execute <program>: <reason>" and exits 127 (not found) or 126 (found,
not executable); without `setpriv` the start itself raises the `OSError`.
"""

from __future__ import annotations

import re

from sphinxfuzz.errors import ExternalError
from sphinxfuzz.solvers.spec import SolverSpec

_EXEC_STATUSES = (126, 127)
_EXEC_FAILED = re.compile(r"\Asetpriv: failed to execute [^\n]*")


class SolverVanished(ExternalError):
    """The program of a solver spec could not be started."""

    def __init__(self, spec: SolverSpec, reason: str) -> None:
        super().__init__(
            f"solver {spec.name} cannot be started any more ({reason}): its program was "
            "removed, moved or made unreadable",
            setting="solvers",
        )
        self.spec, self.reason = spec, reason


def exec_failure(exit_code: int, stderr: str) -> str | None:
    """What the launcher said when it could not execute the program, else None."""
    if exit_code not in _EXEC_STATUSES:
        return None
    found = _EXEC_FAILED.match(stderr.lstrip())
    return found.group(0).removeprefix("setpriv: ") if found else None


def check_started(spec: SolverSpec, exit_code: int, stderr: str) -> None:
    """Raise `SolverVanished` when the run of `spec` never started its program."""
    reason = exec_failure(exit_code, stderr)
    if reason is not None:
        raise SolverVanished(spec, reason)
