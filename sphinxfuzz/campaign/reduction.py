"""The campaign's own reduction: once its fuzzing ends, every stored bug and seed finding that
has no reduction yet is reduced (`bugs.reduce.reduce_bug`: ddSMT, the same-bug check of
`oracle.same_bug` that a reduction by hand, refresh, bisect and replay ask too, the options
the bug does not need left out), each for at most the campaign's `reduce_time`.

After the fuzzing, not beside it: a reduction runs solvers as hard as the fuzzer does (each
candidate is the blamed solvers and a reference), and on two cores a ddSMT beside one worker
would take the CPU its solvers wait for. So the fuzzing's rate is the rate of a campaign
without reduction, and the run's time is the fuzzing's budget plus the reductions, which
the summary counts apart (`Stats.reduce_seconds`).

Resumable: a bug with reduce.json (reduced; a time-limited one keeps ddSMT's best) or with
not-reduced.json (`bugs.record.NotReduced`: why not) is not tried again by a later run. A stop
request ends the running reduction with nothing written, and that bug waits for the next run.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.record import (
    KNOWN,
    NOT_REDUCED,
    NotReduced,
    is_reduced,
    write_not_reduced,
)
from sphinxfuzz.bugs.reduce import ReduceError, ReductionHalted, ddsmt_version, reduce_bug
from sphinxfuzz.bugs.store import Store
from sphinxfuzz.errors import SphinxfuzzError
from sphinxfuzz.solvers import reaper


@dataclass
class Reductions:
    """What one run's reduction did, and while it runs, how far it got."""

    findings: int = 0  # waiting when it started
    reduced: int = 0
    not_reduced: int = 0  # refused: each bug's not-reduced.json says why
    left: int = 0  # not tried: a stop request, or no ddSMT
    seconds: float = 0.0
    current: str | None = None  # the finding being reduced now

    def to_json(self) -> dict[str, object]:
        """The status document's `reduction` (`campaign.status_file`)."""
        return {**asdict(self), "seconds": round(self.seconds, 3)}


def waiting(store: Store, root: Path) -> list[Path]:
    """The bug folders a campaign's reduction has not dealt with yet, those a maintainer is
    likelier to take first: bugs oldest first, then seed findings (seeds of other projects,
    often known upstream), then the findings marked likely known (`bugs.known`)."""
    found = [row.folder for row in store.bugs()]
    found += [CampaignFolder(root).findings / row[0] for row in store.seed_findings()]
    left = [f for f in found if not is_reduced(f) and not (f / NOT_REDUCED).is_file()]
    return sorted(left, key=lambda f: (f / KNOWN).is_file())  # stable: the order above


def reduce_stored(
    store: Store,
    root: Path,
    *,
    per_bug: float,
    halt: threading.Event,
    say: Callable[[str], None],
    done: Reductions | None = None,
) -> Reductions:
    """Reduce every bug `waiting` names, each for at most `per_bug` seconds, until `halt`;
    `done` (returned) is kept up to date meanwhile, for the status document."""
    done = done or Reductions()
    folders = waiting(store, root)
    done.findings = len(folders)
    if not folders:
        return done
    try:
        ddsmt_version()
    except ReduceError as exc:
        done.left = len(folders)
        say(f"{len(folders)} bug(s) not reduced: {exc}")
        return done
    started = time.monotonic()
    say(f"reducing {len(folders)} stored bug(s), at most {per_bug:g} s each")
    reaper.cancel_when(halt.is_set)  # a stop cuts the solver a check runs
    try:
        for number, folder in enumerate(folders, 1):
            if halt.is_set():
                done.left = len(folders) - number + 1
                break
            tried, done.current = time.monotonic(), folder.name
            done.seconds = tried - started
            say(f"reducing {number} of {len(folders)}: {folder.name}")
            try:
                result = reduce_bug(root, str(folder), time_limit=per_bug, halt=halt)
            except SphinxfuzzError as exc:
                if isinstance(exc, ReductionHalted) or halt.is_set():
                    done.left = len(folders) - number + 1
                    break
                why = str(exc).removeprefix(f"{folder.name}: ")
                spent = round(time.monotonic() - tried, 2)
                write_not_reduced(folder, NotReduced(folder.name, why, spent))
                done.not_reduced += 1
                say(f"{folder.name}: not reduced: {why.splitlines()[0]}")
                continue
            done.reduced += 1
            before, after = result.before.bytes, result.after.bytes
            limited = "" if result.finished else " (time limit: ddSMT's best so far)"
            say(
                f"{folder.name}: reduced {before} -> {after} bytes in {result.seconds:.0f} s{limited}"
            )
    finally:
        reaper.cancel_when(None)
        done.seconds, done.current = time.monotonic() - started, None
    if done.left:
        say(f"reduction stopped: {done.left} bug(s) left for the next run")
    return done
