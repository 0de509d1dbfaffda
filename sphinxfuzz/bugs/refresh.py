"""Is a stored bug alive today? Its trigger replayed on the newest release of the blamed
solver's family (the newest installed wheel, or a spec the user names: `z3@5.4.1`), with the
blamed solver's options, judged as bisection judges a release (`bugs.bisect.try_solver`).

- alive: the same verdict shows (a crash: that release still crashes on it; `detail` is the
  signature it shows, the stack's for a silent crash where gdb is there, and starts
  "another crash: " when that is not the stored bug's signature);
- fixed: that release answers the formula without the bug;
- undecided: it rejected the formula, timed out, or could not be run.
The result goes into the bug's verdict.json (`Today`), after storing and on
`sphinxfuzz bugs refresh`; seed findings get the same check.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

from sphinxfuzz.bugs.bisect import BisectError, built_versions, try_solver
from sphinxfuzz.bugs.newest import RefreshError, newest_specs
from sphinxfuzz.bugs.record import (
    ALIVE,
    BUG,
    CLEAN,
    FIXED,
    OTHER_CRASH,
    UNDECIDED,
    BugRecord,
    Today,
    Tried,
    load_record,
    write_today,
)
from sphinxfuzz.bugs.replay import CheckSpecError, check_spec
from sphinxfuzz.errors import SphinxfuzzError
from sphinxfuzz.oracle import VerdictKind
from sphinxfuzz.oracle.crash import assertion_title
from sphinxfuzz.solvers import Family, SolverSpecError, parse_specs
from sphinxfuzz.solvers.families import ASAN_MARK, UBSAN_MARK, parse_version, split_build

__all__ = ["RefreshError", "newest_specs", "refresh_bug"]
from sphinxfuzz.solvers.versions import solver_version


def _blamed_family(record: BugRecord) -> Family | None:
    summary = record.summary_of(record.verdict.solver)
    return Family.read(summary.family) if summary is not None else None


def _told_apart(record: BugRecord, tried: Tried) -> bool:
    """Whether the crash the newest release shows is known to be another than the stored
    one: a signature left coarse (a bare signal with no debugger on one of the two runs)
    says nothing against a stack signature."""
    evidence = record.verdict.evidence
    coarse_then, stack_then = evidence.get("coarse") is True, "backtrace" in evidence
    return not ((coarse_then and tried.stack) or (stack_then and tried.coarse))


def replay_target(
    family: Family, blamed: str, signature: str, kind: VerdictKind, newest: Mapping[Family, str]
) -> tuple[str, str | None]:
    """(spec, version) of the solver that says whether a bug is alive today: the newest
    release of `family`, or, for a failed assertion that a build with assertions (`blamed` =
    `z3@4.8.11+assert`) showed, the newest such build newer than it, since a release checks
    no assertions and would call every one fixed; the blamed build itself when it is the
    newest of its kind (no newer one, and a release no older than the newest release's).
    The version is None when there is no such build (the bug stays undecided); "" when the
    release must be asked for it."""
    version = blamed.split()[0].rpartition("@")[2]
    release, mark = split_build(version)
    # a release has no sanitizer either: every report of one needs such a build to be seen
    checked = assertion_title(signature) is not None or ASAN_MARK in mark or UBSAN_MARK in mark
    if not mark or kind != VerdictKind.CRASH or not checked:
        return newest[family], ""
    named = newest[family].split()[0].rpartition("@")[2]
    if split_build(named)[1] == mark:  # a build of that kind named the newest (a checkout's)
        return newest[family], named
    try:
        built = built_versions(family, mark)
    except BisectError:  # none with that mark at all
        built = []
    builds = [v for v in built if parse_version(split_build(v)[0]) > parse_version(release)]
    if not builds and version in built and _newest_release(release, newest[family]):
        builds = [version]
    if not builds:
        return newest[family], None
    return f"{family}@{builds[-1]}", builds[-1]  # a build's binary says its release alone


def _newest_release(release: str, newest: str) -> bool:
    """Whether `release` is a release number no older than that of the newest release
    (`newest`, a spec: asked for its version)."""
    mine = parse_version(release)
    try:
        theirs = parse_version(solver_version(parse_specs(newest)[0]))
    except (SphinxfuzzError, ValueError, IndexError):  # not installed, not parsed: unknown
        return False
    return bool(mine and theirs) and mine >= theirs


def refresh_bug(root: Path, folder: Path, newest: Mapping[Family, str]) -> Today:
    """Replay the bug in `folder` on the newest release of its blamed family (or build,
    `replay_target`) and record the answer in its verdict.json. Raises RefreshError when
    the bug blames no solver."""
    record = load_record(folder)
    family = _blamed_family(record)
    if family is None or family not in newest or record.verdict.solver is None:
        raise RefreshError(f"{folder.name}: blames no solver of a known family")
    verdict = record.verdict
    solver, known = replay_target(family, str(verdict.solver), verdict.signature, verdict.kind,
                                  newest)  # fmt: skip
    if known is None:
        today = Today(UNDECIDED, solver, "", f"{solver} checks no assertions, no build with them "
                      f"of a release newer than {verdict.solver}'s is installed, and "
                      f"{verdict.solver} is no build of the newest release", time.time())  # fmt: skip
        write_today(record, today)
        return today
    try:
        version = known or solver_version(parse_specs(solver)[0]).split()[-1]
    except (SolverSpecError, ValueError, IndexError) as exc:
        today = Today(UNDECIDED, solver, "", f"cannot run: {exc}", time.time())
        write_today(record, today)
        return today
    try:
        spec = check_spec(root, record)
        tried = try_solver(spec, family, solver, record.formula(), version)
    except (CheckSpecError, BisectError, SolverSpecError, ValueError) as exc:
        today = Today(UNDECIDED, solver, version, str(exc), time.time())
    else:
        # a crash stays alive when the release crashes elsewhere, said in the detail
        other = record.verdict.kind == VerdictKind.CRASH and tried.status == OTHER_CRASH
        still = tried.status == BUG or other
        status = ALIVE if still else FIXED if tried.status == CLEAN else UNDECIDED
        detail = tried.detail if status != UNDECIDED else f"{tried.status}: {tried.detail}"
        another = other and _told_apart(record, tried)
        today = Today(status, solver, version, detail, time.time(), another)
    write_today(record, today)
    return today
