"""The verdict of the solvers on one generated term (shared by checking and metrics)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class TermVerdict:
    """How the solvers took one generated term."""

    decls: str
    term: str
    valid: bool = False  # accepted by at least one solver
    errors: dict[str, str] = field(default_factory=dict)  # solver name -> first error
    timeouts: list[str] = field(default_factory=list)  # solvers that ran out of time (accepted)
    crashed: list[str] = field(default_factory=list)  # solvers it crashed (their error: how)
