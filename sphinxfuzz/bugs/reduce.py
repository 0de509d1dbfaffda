"""Shrinking a stored trigger with ddSMT, keeping only candidates that are still the same bug.

ddSMT (`pip install ddsmt`, the `reduce` extra) runs a command on each candidate and keeps
those whose exit code matches the original run. The command is a script that has this process
(`bugs.check_server.CheckServer`) ask the same-bug check (`oracle.same_bug.passes`) with the
bug's check spec (`bugs.replay.check_spec`: its kind, blamed solver and signature, its stored
command lines, and the campaign's timeout) and a reference that must read every candidate.
The same check decides before ddSMT, after it, and for every option left out. The result goes
beside the original:

    bugs/<id>/reduced.smt2   the smallest candidate ddSMT found
    bugs/<id>/reduce.json    sizes before and after (bytes, S-expression nodes), time, ddSMT
                             version, the check spec (with only the options the bug needs:
                             `bugs.option_drop`), the options left out, and the lowest
                             standing of options the bug shows at

reduce.json is written last: a bug counts as reduced once it exists.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from importlib import metadata
from pathlib import Path

from sphinxfuzz.bugs.check_server import CheckServer, CheckServerError
from sphinxfuzz.bugs.newest import RefreshError, newest_specs, reference_candidates
from sphinxfuzz.bugs.option_drop import drop_options, lower_standing
from sphinxfuzz.bugs.record import (
    BugRecord,
    Reduction,
    Size,
    SolverSummary,
    is_reduced,
    load_record,
    load_reduction,
    write_reduction,
)
from sphinxfuzz.bugs.replay import CheckSpecError, check_spec, find_bug
from sphinxfuzz.bugs.store import Store, StoreError
from sphinxfuzz.errors import InputError
from sphinxfuzz.oracle import Verdict
from sphinxfuzz.oracle.same_bug import CheckSpec, accepts, check, first_reader, passes
from sphinxfuzz.smtlib import SmtParseError, parse_nodes, walk
from sphinxfuzz.solvers import Family, SolverResult, parse_specs, reaper
from sphinxfuzz.solvers.families import UNKNOWN_VERSION
from sphinxfuzz.solvers.scratch import make as scratch_folder
from sphinxfuzz.solvers.scratch import remove as remove_scratch
from sphinxfuzz.solvers.scratch import tool_env
from sphinxfuzz.solvers.versions import solver_version

INSTALL_HINT = 'pip install "sphinxfuzz[reduce]" (or: pip install ddsmt)'


class ReduceError(InputError):
    """A bug that cannot be reduced as asked; nothing was written."""


class ReductionHalted(ReduceError):
    """A stop request ended the reduction (`reduce_bug`'s `halt`); nothing was written."""


@dataclass(frozen=True)
class ReductionResult:
    bug: str
    before: Size
    after: Size
    seconds: float
    ddsmt_version: str
    folder: Path
    finished: bool  # False when the time limit stopped ddSMT early (the result still holds)
    dropped_options: tuple[str, ...] = ()  # "solver: word" the bug does not need


def formula_size(text: str) -> Size:
    try:
        nodes = sum(1 for top in parse_nodes(text, "<formula>") for _ in walk(top))
    except SmtParseError:
        nodes = 0
    return Size(len(text.encode("utf-8")), nodes)


def ddsmt_version() -> str:
    if importlib.util.find_spec("ddsmt") is None:
        raise ReduceError(f"ddSMT is not installed: {INSTALL_HINT}")
    try:
        return metadata.version("ddsmt")
    except metadata.PackageNotFoundError:
        return UNKNOWN_VERSION


def _reference(
    root: Path, record: BugRecord, spec: CheckSpec, original: str
) -> tuple[str | None, str]:
    """The reference every candidate must be read by without an error line: the newest
    release of the other family, else the newest of the blamed one (a theory only it has),
    whichever reads the stored trigger itself cleanly; (None, why) when neither does."""
    with Store(root) as store:
        config = store.config() or {}
    summary = record.summary_of(record.verdict.solver)
    family = summary.family if summary is not None else Family.OTHER
    try:
        newest = newest_specs(str(config.get("newest", "")))
    except RefreshError as exc:
        return None, str(exc)
    return first_reader(reference_candidates(family, newest), original, timeout=spec.timeout,
                        memory_mb=spec.memory_mb)  # fmt: skip


def _run_ddsmt(
    argv: list[str],
    time_limit: float | None,
    echo: Callable[[str], None] | None,
    scratch: Path | None = None,
    halt: threading.Event | None = None,
) -> tuple[int | None, str]:
    """(exit code or None when stopped by the time limit or `halt`, ddSMT's output). ddSMT's
    own temporary folders go into `scratch`, which the caller removes (unless its path is
    too long for the sockets ddSMT's worker pool makes there: 107 bytes at most)."""
    short = scratch is not None and len(str(scratch)) <= 60
    # marked as a tool: should this process die, its janitor kills ddSMT and all it started
    env = {**tool_env(), "TMPDIR": str(scratch)} if short else tool_env()
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True, env=env,
    )  # fmt: skip
    lines: list[str] = []
    watch = _Watch(process, time_limit, halt)
    try:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if echo is not None:
                echo(line.rstrip("\n"))
        code = process.wait()
    except BaseException:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise
    finally:
        watch.close()
    return (None if watch.stopped else code), "".join(lines)


class _Watch:
    """While ddSMT runs: one thread ends it at the time limit or when `halt` is set (a
    campaign's stop), another reaps the orphans of its checks (they run in its session,
    but their orphans come to this subreaper)."""

    def __init__(
        self, process: subprocess.Popen[str], time_limit: float | None, halt: threading.Event | None
    ) -> None:
        self.process, self.stopped = process, False
        self.deadline = None if time_limit is None else time.monotonic() + time_limit
        self.halt = halt or threading.Event()
        self.finished = threading.Event()
        self.threads = [
            threading.Thread(target=self._watch, name="sphinxfuzz-reduce-limit", daemon=True),
            threading.Thread(target=self._reap, name="sphinxfuzz-reduce-reaper", daemon=True),
        ]
        for thread in self.threads:
            thread.start()

    def _watch(self) -> None:
        deadline = self.deadline
        while not self.finished.is_set() and not self.halt.is_set():
            if deadline is not None and time.monotonic() >= deadline:
                break
            left = 0.2 if deadline is None else min(0.2, max(0.0, deadline - time.monotonic()))
            self.finished.wait(left)
        if not self.finished.is_set():
            self.stopped = True
            # ddSMT writes every improvement to the output file: stopping it keeps the best
            with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
                os.killpg(self.process.pid, signal.SIGTERM)

    def _reap(self) -> None:
        while not self.finished.wait(1.0):
            reaper.reap_adopted({self.process.pid})

    def close(self) -> None:
        self.finished.set()
        for thread in self.threads:
            thread.join()
        reaper.reap_adopted()


def _first_check(
    root: Path, record: BugRecord, start: str
) -> tuple[CheckSpec, Verdict, list[SolverResult]]:
    """The bug's check with its reference, and what it finds on `start`; ReduceError when no
    reference reads `start` or `start` no longer shows the bug."""
    name = record.folder.name
    try:
        spec = check_spec(root, record)
    except CheckSpecError as exc:
        raise ReduceError(str(exc)) from None
    reader, why_none = _reference(root, record, spec, start)
    if reader is None:  # nothing could tell a valid candidate from one a parser chokes on
        raise ReduceError(
            f"{name}: no reference solver reads the stored formula without an error "
            f"line ({why_none}), so no reduced formula could be shown valid; nothing written"
        )
    spec = replace(spec, parsers=(reader,))
    still, results = check(spec, start)
    if still is None:
        now = "; ".join(f"{r.spec.name}: {r.outcome} {' '.join(r.answers)}".strip()
                        for r in results)  # fmt: skip
        raise ReduceError(
            f"{name}: the stored formula no longer shows the bug ({spec.kind} in "
            f"{spec.solver}: {spec.signature}); now {now or 'nothing ran'}. The trigger is "
            "flaky or the solver changed; nothing written"
        )
    return spec, still, results


def _ddsmt(
    spec: CheckSpec,
    start: str,
    name: str,
    jobs: int,
    time_limit: float | None,
    echo: Callable[[str], None] | None,
    halt: threading.Event | None,
) -> tuple[str, int | None]:
    """(ddSMT's smallest candidate of `start` that passes the check, its exit code: None when
    the time limit stopped it). Raises ReductionHalted or ReduceError."""
    work = scratch_folder("reduce")  # its janitor removes it, should this process die
    try:
        source, target = work / "input.smt2", work / "output.smt2"
        source.write_text(start, encoding="utf-8")
        with CheckServer(partial(passes, spec), work) as server:
            # ddSMT's per-candidate limit: above a check's worst case, so ddSMT never kills
            # a check mid-way and leaves its solver processes behind
            argv = [sys.executable, "-m", "ddsmt", "--ignore-output", "-j", str(max(1, jobs)),
                    "--timeout", f"{spec.worst_case() + 10.0:.0f}", str(source), str(target),
                    str(server.script)]  # fmt: skip
            code, output = _run_ddsmt(argv, time_limit, echo, work, halt)
        if halt is not None and halt.is_set():
            raise ReductionHalted(f"{name}: reduction stopped; nothing written")
        try:
            server.raise_errors()
        except CheckServerError as exc:
            raise ReduceError(f"{name}: {exc}") from None
        if code not in (0, None):
            tail = "\n".join(output.strip().splitlines()[-8:])
            raise ReduceError(f"{name}: ddSMT failed (exit {code}):\n{tail}")
        return (target.read_text(encoding="utf-8") if target.is_file() else start), code
    finally:
        remove_scratch(work)


def _last_check(
    spec: CheckSpec, reduced: str, code: int | None, name: str
) -> tuple[Verdict, list[SolverResult]]:
    """The check's finding on ddSMT's result, run again; ReduceError when it finds nothing."""
    still, final = check(spec, reduced)
    if still is None:
        why = ("ddSMT was stopped by the time limit while writing it; allow it more time"
               if code is None else "the trigger is flaky")  # fmt: skip
        raise ReduceError(
            f"{name}: ddSMT's result no longer shows the bug when run again: {why}; "
            "nothing written",
            setting="time_limit" if code is None else None,
        )
    return still, final


def _reader_record(reader: str, spec: CheckSpec, reduced: str, name: str) -> dict[str, object]:
    """The reference's reading of the reduced formula, for the record (checked on every kept
    candidate; checked again here)."""
    reader_spec = parse_specs(reader)[0]
    accepted, detail = accepts(reader_spec, reduced, timeout=spec.timeout,
                               memory_mb=spec.memory_mb)  # fmt: skip
    if not accepted:
        raise ReduceError(
            f"{name}: {reader} no longer reads ddSMT's result without an error line "
            f"({detail}); nothing written"
        )
    return {"solver": reader, "version": solver_version(reader_spec), "accepted": accepted,
            "detail": detail}  # fmt: skip


def reduce_bug(
    root: Path,
    bug: str,
    *,
    jobs: int = 1,
    time_limit: float | None = None,
    echo: Callable[[str], None] | None = None,
    halt: threading.Event | None = None,
) -> ReductionResult:
    """Reduce one stored bug with ddSMT and store reduced.smt2 and reduce.json beside it.
    Setting `halt` ends ddSMT and raises `ReductionHalted` (a campaign's stop request).
    The result is kept only when valid: a reference solver reads it without an error line
    (the newest release of another family, `_reference`), and it shows the same bug."""
    version = ddsmt_version()
    folder = find_bug(bug, str(root))
    record = load_record(folder)
    original = record.formula()
    started = time.monotonic()
    # a time limit stopped the last reduction: go on from its result, not from the start
    start, spent = original, 0.0
    previous, earlier = load_reduction(folder), record.reduced()
    if previous is not None and not previous.finished and earlier is not None:
        start, spent = earlier, previous.seconds
    spec, still, final = _first_check(root, record, start)
    reduced, code = _ddsmt(spec, start, folder.name, jobs, time_limit, echo, halt)
    if reduced != start:
        still, final = _last_check(spec, reduced, code, folder.name)
    # the options the bug needs, then the lowest standing it shows at (no option, regular)
    lowered = lower_standing(spec, reduced, drop_options(spec, reduced, still, final))
    needed = lowered.dropped
    seconds = time.monotonic() - started + spent
    before, after = formula_size(original), formula_size(reduced)
    reference = _reader_record(spec.parsers[0], needed.spec, reduced, folder.name)
    reduction = Reduction(
        bug=folder.name, ddsmt_version=version, seconds=round(seconds, 2),
        finished=code is not None, time_limit=time_limit, before=before, after=after,
        source=record.formula_name, check=needed.spec.to_json(),
        # what the solvers said on the reduced formula: the evidence an issue report quotes
        results=[SolverSummary.of(r) for r in needed.results], verdict=needed.verdict,
        reference=reference, dropped_options=list(needed.words), standing=lowered.standing,
    )  # fmt: skip
    write_reduction(folder, reduced, reduction)
    return ReductionResult(folder.name, before, after, seconds, version, folder,
                           code is not None, needed.words)  # fmt: skip


def unreduced_bugs(root: Path) -> list[str]:
    """Ids of the campaign's bugs without reduce.json, oldest first."""
    try:
        with Store(root) as store:
            rows = store.bugs()
    except StoreError as exc:
        raise ReduceError(str(exc)) from None
    return [row.id for row in rows if not is_reduced(row.folder)]
