"""Is a stored bug alive today? Its trigger replayed on the newest release of the blamed
solver's family (the newest installed wheel, or a spec the user names: `z3@5.4.1`), with the
blamed solver's options, judged as bisection judges a release (`bugs.bisect.try_solver`).

- alive: the same verdict shows (a crash: that release still crashes on it, with the same
  signature or another one, named in `detail`);
- fixed: that release answers the formula without the bug;
- undecided: it rejected the formula, timed out, or could not be run.
The result goes into the bug's verdict.json (`Today`), after storing and on
`sphinxfuzz bugs refresh`; seed findings get the same check.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

from sphinxfuzz.bugs.bisect import BisectError, try_solver
from sphinxfuzz.bugs.newest import RefreshError, newest_specs
from sphinxfuzz.bugs.record import (
    ALIVE,
    BUG,
    CLEAN,
    FIXED,
    UNDECIDED,
    BugRecord,
    Today,
    load_record,
    write_today,
)
from sphinxfuzz.bugs.reduce import ReduceError, check_spec
from sphinxfuzz.oracle import VerdictKind
from sphinxfuzz.solvers import Family, SolverSpecError, parse_specs

__all__ = ["RefreshError", "newest_specs", "refresh_bug"]
from sphinxfuzz.solvers.versions import solver_version


def _blamed_family(record: BugRecord) -> Family | None:
    summary = record.summary_of(record.verdict.solver)
    return Family.read(summary.family) if summary is not None else None


def refresh_bug(root: Path, folder: Path, newest: Mapping[Family, str]) -> Today:
    """Replay the bug in `folder` on the newest release of its blamed family and record the
    answer in its verdict.json. Raises RefreshError when the bug blames no solver."""
    record = load_record(folder)
    family = _blamed_family(record)
    if family is None or family not in newest or record.verdict.solver is None:
        raise RefreshError(f"{folder.name}: blames no solver of a known family")
    solver = newest[family]
    try:
        version = solver_version(parse_specs(solver)[0]).split()[-1]
    except (SolverSpecError, ValueError, IndexError) as exc:
        today = Today(UNDECIDED, solver, "", f"cannot run: {exc}", time.time())
        write_today(record, today)
        return today
    try:
        spec = check_spec(root, record)
        tried = try_solver(spec, family, solver, record.formula(), version)
    except (ReduceError, BisectError, SolverSpecError, ValueError) as exc:
        today = Today(UNDECIDED, solver, version, str(exc), time.time())
    else:
        still = tried.status == BUG or (
            record.verdict.kind == VerdictKind.CRASH and tried.status == "other crash"
        )
        status = ALIVE if still else FIXED if tried.status == CLEAN else UNDECIDED
        detail = tried.detail if status != UNDECIDED else f"{tried.status}: {tried.detail}"
        today = Today(status, solver, version, detail, time.time())
    write_today(record, today)
    return today
