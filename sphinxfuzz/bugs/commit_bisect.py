"""The first commit of a solver's checkout that has a stored bug (`bisect --commits A..B`):
the correcting-commit (here: introducing-commit) method by which a bug is told apart from
another and a report names the change that made it.

Each probed commit is built from the user's checkout (solvers/checkouts.py: one work tree in
the cache, so ccache serves what the commit did not change) with the marks of the build the
bug was found on (`z3@git-1a2b3c4+assert`: assertions; `+asan`: the sanitizers; a release
without marks: assertions), and the trigger runs on it through the same-bug check release
bisection uses (`bugs.bisect.try_version`). Both ends are tried first: when they agree there
is nothing to bisect; else a binary search finds the first commit on B's side, with each
commit's verdict in `bisect-commits.json` of the bug's folder.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from sphinxfuzz.bugs.bisect import BisectError, blamed_build_mark, try_version
from sphinxfuzz.bugs.record import BUG, Tried, load_record
from sphinxfuzz.bugs.replay import CheckSpecError, check_spec
from sphinxfuzz.fileio import write_atomic
from sphinxfuzz.solvers.build_plans import read_sanitizers
from sphinxfuzz.solvers.builds import build
from sphinxfuzz.solvers.checkouts import check_out, commits_between
from sphinxfuzz.solvers.families import ASAN_MARK, ASSERT_MARK, UBSAN_MARK, Family
from sphinxfuzz.solvers.installs import Installed, InstallError

COMMITS_FILE = "bisect-commits.json"
Builder = Callable[[Path], Installed]  # a work tree at a commit -> its build


@dataclass
class CommitBisection:
    bug: str
    solver: str  # the family
    span: str  # A..B as given
    tried: list[Tried]  # `version` is the commit's full hash, in commit order
    first_bad: str | None  # the first commit on B's side, when the ends differ
    builds: dict[str, str]  # commit -> the build's name (git-1a2b3c4+assert)

    def to_json(self) -> dict[str, object]:
        return {"bug": self.bug, "solver": self.solver, "range": self.span,
                "first_bad": self.first_bad, "builds": self.builds,
                "tried": [asdict(t) for t in self.tried]}  # fmt: skip


def marks_of(mark: str) -> tuple[bool, tuple[str, ...]]:
    """(assertions, sanitizers) of a build mark: "+assert+asan" -> (True, address+undefined);
    no mark (a release's bug) is built with assertions."""
    sanitizers = "address" if ASAN_MARK in mark else "undefined" if UBSAN_MARK in mark else None
    return ASSERT_MARK in mark or not mark, read_sanitizers(sanitizers)


def bisect_commits(
    folder: Path, family: Family, checkout: Path, span: str, *,
    say: Callable[[str], object] = print, builder: Builder | None = None,
) -> CommitBisection:  # fmt: skip
    """Find the first commit of `span` (A..B in `checkout`) whose build shows the bug
    stored in `folder` where the other end does not (or the reverse); writes
    bisect-commits.json in `folder`."""
    record = load_record(folder)
    text = record.formula()
    try:
        spec = check_spec(folder.parent.parent, record)
    except CheckSpecError as exc:
        raise BisectError(str(exc)) from None
    assertions, sanitizers = marks_of(blamed_build_mark(spec, family))
    commits = commits_between(checkout, span)
    make = builder or (lambda tree: build(family, source=tree, say=say, assertions=assertions,
                                          sanitizers=sanitizers))  # fmt: skip
    tried: dict[str, Tried] = {}
    names: dict[str, str] = {}

    def run(commit: str) -> bool:
        if commit not in tried:
            try:
                made = make(check_out(checkout, family, commit))
            except InstallError as exc:
                raise BisectError(f"commit {commit[:12]} does not build: {exc}") from None
            names[commit] = made.version
            tried[commit] = Tried(commit, *_verdict(try_version(spec, family, made.version, text)))
            say(f"  {commit[:12]} ({made.version}): {tried[commit].status}")
        return tried[commit].status == BUG

    first_bad = _search(commits, run)
    result = CommitBisection(folder.name, str(family), span,
                             [tried[c] for c in commits if c in tried], first_bad, names)  # fmt: skip
    write_atomic(folder / COMMITS_FILE, json.dumps(result.to_json(), indent=2))
    return result


def _verdict(found: Tried) -> tuple[str, str]:
    return found.status, found.detail


def _search(commits: list[str], bad: Callable[[str], bool]) -> str | None:
    """The first commit on the last one's side, when the ends differ (one build a step)."""
    left, right = bad(commits[0]), bad(commits[-1])
    if left == right:
        return None
    lo, hi = 0, len(commits) - 1  # commits[lo] is on the first's side, commits[hi] the last's
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if bad(commits[mid]) == left:
            lo = mid
        else:
            hi = mid
    return commits[hi]
