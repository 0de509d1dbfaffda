"""Persistent solver processes: one process answers many scripts (which process answers a
script is `solvers.processes`'s choice).

Starting a solver costs more than many mutants take to solve (the cvc5 shim imports cvc5 in
a fresh Python, ~0.1 s; z3 ~10 ms), so a campaign keeps one process per solver and worker:

- z3 reads the script from standard input (`-in`), preceded by `(reset)` and followed by
  `(echo "<marker>")`; the marker line (a random token per process and a counter) ends the
  answer. The script text is never rewritten: it is cut at its first top-level `(exit)`
  (where a file run stops reading), found by a scan that knows strings, quoted symbols and
  comments; a script whose parentheses, strings or quoted symbols do not close would
  swallow the marker, so it runs in a fresh process instead. `(reset)` forgets assertions and
  declarations but not global parameters (`(set-option :pp.decimal true)` survives it), so
  after a script that sets any option but `:produce-models` the process is replaced. Nor
  does it forget datatypes cleanly: z3 5.4.0 segfaults on a parametric datatype after
  `(reset)` of a script with another datatype, so a script with datatypes ends its process
  too.
- the cvc5 shim serves scripts itself (`--sphinxfuzz-serve`), each in a fresh `cvc5.Solver`
  with the spec's options, which come with each script (so a campaign's options, new at each
  seed position, cost no new process: starting Python and cvc5 takes ~0.3 s), and ends each
  answer with `;; sphinxfuzz-end <token> <exit code>` on both output streams.

Output is capped like a fresh run's (`reaper.OUTPUT_LIMIT`), and the processes are started
and ended by `reaper`, so nothing they start outlives them. A process replaced because of the
state a script left, or because the solver is to run with other command-line options
(`serve`: a campaign's options change per seed position), is asked to exit and reaped later
(`_retire`): waiting for it would cost the campaign more time than most mutants take to
solve.

A time-out, a crash, a dead process or anything unexpected on the pipes kills the process
group. Whenever a process ends so, for the state a script left, or after its `max_scripts`,
its successor is started at once, on a thread that lets the answer go back meanwhile, and
sent an empty script (`_start_ahead`), so the next script finds it ready: z3's start
(~12 ms) came after one mutant in three with datatypes among the generated terms. The
answers are classified like a fresh run's. What persistence could still change (state left
in the solver by an earlier script) is why the campaign confirms every verdict in fresh
processes before it stores a bug.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import select
import subprocess
import threading
import time
from itertools import accumulate
from pathlib import Path

from sphinxfuzz.smtlib.lexer import blotted
from sphinxfuzz.solvers import reaper
from sphinxfuzz.solvers.families import options_argv, program_argv
from sphinxfuzz.solvers.fresh_process import read_output, run_solver
from sphinxfuzz.solvers.result import SolverResult
from sphinxfuzz.solvers.spec import SolverSpec
from sphinxfuzz.solvers.string_escapes import misread
from sphinxfuzz.solvers.vanished import SolverVanished
from sphinxfuzz.solvers.versions import solver_version

EXIT_WAIT = 1.0  # seconds an idle process is given to exit when closed, before it is killed
# scripts a process answers before a new one replaces it (`max_scripts`): bounds the memory a
# long-lived solver may accumulate, and what a process killed at a time-out takes with it
SCRIPTS_PER_PROCESS = 500
READY_LIMIT = 10.0  # seconds a new process is given to answer an empty script (`_ready`)
_EXIT = re.compile(r"\(\s*exit\s*\)")
# options that a later script sets again itself (every mutant turns models on)
_HARMLESS_OPTIONS = re.compile(r"\(\s*set-option\s+:produce-models\b")
_ANY_OPTION = re.compile(r"\(\s*set-option\b")
_DATATYPES = re.compile(r"\(\s*declare-(?:co)?datatypes?\b")
# `stream_form`: what is left of a string or quoted symbol that never closes, once blotted
_UNCLOSED = re.compile(r'["|]')
_NOT_PAREN = re.compile(r"[^()]+")
_STEP = {"(": 1, ")": -1}


def stream_form(text: str) -> str | None:
    """`text` up to its first top-level `(exit)` (all of it when there is none), or None
    when a string, quoted symbol or parenthesis does not close: sent to a process that
    reads on, such a script would swallow whatever follows it."""
    # read by its parentheses, counted in C: this runs on every call of a mutant (`x`s, not
    # blanks, for what is blotted: `("" exit)` is no `(exit)`)
    plain = blotted(text)
    unclosed = _UNCLOSED.search(plain)  # a string or quoted symbol that never closes
    end = len(plain) if unclosed is None else unclosed.start()
    for found in _EXIT.finditer(plain, 0, end):
        start = found.start()
        if plain.count("(", 0, start) == plain.count(")", 0, start):  # a top-level (exit)
            return text[:start] if _never_below_zero(plain[:start]) else None
    if unclosed is not None or plain.count("(") != plain.count(")"):
        return None
    return text if _never_below_zero(plain) else None


def _never_below_zero(text: str) -> bool:
    """No prefix of `text` closes more parentheses than it opens."""
    steps = map(_STEP.__getitem__, _NOT_PAREN.sub("", text))
    return min(accumulate(steps), default=0) >= 0


def _shim_spec(spec: SolverSpec) -> bool:
    record = spec.family.record
    return (
        record.persistent
        and record.shim is not None
        and any(record.is_shim(word) for word in spec.argv)
    )


def _binary_spec(spec: SolverSpec) -> bool:
    record = spec.family.record
    return (
        record.persistent
        and record.binary is not None
        and Path(spec.argv[0]).name.startswith(record.binary)
    )


def supports_persistence(spec: SolverSpec) -> bool:
    """Whether `spec` can serve many scripts from one process (a family's shim, or its
    binary under any path, when the family says it can; other command lines run fresh)."""
    return _shim_spec(spec) or _binary_spec(spec)


class PersistentSolver:
    """One long-lived process of `spec`. Not thread-safe; one per worker."""

    def __init__(
        self, spec: SolverSpec, *, memory_mb: int = 4096, max_scripts: int = SCRIPTS_PER_PROCESS
    ) -> None:
        if not supports_persistence(spec):
            raise ValueError(f"solver {spec.text!r} cannot run persistently")
        self.spec = spec
        self.memory_mb = memory_mb
        self.max_scripts = max(1, max_scripts)
        self.shim = _shim_spec(spec)
        self.process: subprocess.Popen[bytes] | None = None
        self.served = 0
        self.starts = 0
        self.count = 0
        self.token = secrets.token_hex(8)  # in end markers: no script can print it by chance
        self.idle = False  # the process has finished every script it was given
        # the process was sent the empty script `_ready` waits for: started ahead of need
        # (`_start_ahead`), so its start overlaps whatever the campaign does meanwhile
        self.primed = False
        # idle processes asked to exit, with the time they are killed at if still running
        self.retiring: list[tuple[subprocess.Popen[bytes], float]] = []
        # the housekeeping after a script (`_tidy_later`), running while its answer is judged
        self.tidying: threading.Thread | None = None

    # -- process lifetime -------------------------------------------------------------------
    def _argv(self) -> list[str]:
        if self.shim:  # the options come with each script (`_frame`)
            return [*program_argv(self.spec.argv), "--sphinxfuzz-serve"]
        return [*self.spec.argv, "-in"]

    def _start(self) -> subprocess.Popen[bytes]:
        self.process = reaper.start(self._argv(), self.memory_mb, subprocess.PIPE)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            assert stream is not None
            os.set_blocking(stream.fileno(), False)
        self.served = 0
        self.starts += 1
        self.idle = True
        self.primed = False
        return self.process

    def _tidy_later(self, start: bool) -> None:
        """After a script: its successor started ahead (`start`) and the retired processes
        that exited reaped, on a thread of its own, so that the answer goes back at once.
        Both take milliseconds (a start passes the spawner thread, ending a process sweeps
        its descendants), which on this thread came after one z3 answer in three (datatypes
        among the terms) while the campaign waited for it: 2% of a regressions campaign's
        time. Every other method waits for it first (`settle`)."""
        if not start and not self.retiring:
            return
        name = "sphinxfuzz-solver-tidy"
        self.tidying = threading.Thread(target=self._tidy, args=(start,), name=name, daemon=True)
        self.tidying.start()

    def _tidy(self, start: bool) -> None:
        if start:
            try:
                self._start_ahead()
            except OSError:  # no process could start: the next script starts one itself
                self._retire()
        self._reap()

    def settle(self) -> None:
        """Wait for the housekeeping of the last script (`_tidy_later`)."""
        if self.tidying is not None:
            self.tidying.join()
            self.tidying = None

    def _start_ahead(self) -> None:
        """Start the next process now and send it the empty script, without waiting: a
        script that leaves state (z3 with datatypes), a time-out or a crash ends a process,
        and the next script, often only milliseconds later, finds its successor started."""
        if reaper.cancelled():
            return
        process = self._start()
        assert process.stdin is not None
        try:
            os.write(process.stdin.fileno(), self._frame("", self._ready_marker()))
            self.primed = True
        except OSError:  # a full or broken pipe
            self._retire()  # the next script starts one as it did before

    def serve(self, spec: SolverSpec) -> None:
        """Answer as `spec` from now on: the same solver with another position's options on
        its command line (`campaign.position_options`). The shim takes options with each script, so
        its process stays; a z3 process of another command line is retired (its options are
        the process's own and survive `(reset)`), so the next script starts one of `spec`."""
        self.settle()
        same_shim = (
            self.shim
            and _shim_spec(spec)
            and (program_argv(spec.argv) == program_argv(self.spec.argv))
        )
        if spec.argv != self.spec.argv and not same_shim:
            if not supports_persistence(spec):
                raise ValueError(f"solver {spec.text!r} cannot run persistently")
            self._retire()
            self.shim = _shim_spec(spec)
        self.spec = spec  # results carry the spec they ran (stored bugs keep its text)

    def _ready(self, process: subprocess.Popen[bytes]) -> subprocess.Popen[bytes]:
        """`process` once it has answered an empty script (z3 started, the shim imported
        cvc5): on a loaded machine the shim's start takes a second, which would otherwise
        count against a first script's limit of a second. A process not ready within
        READY_LIMIT is killed and started again, to answer the script on its own clock (an
        answer to the empty script still to come would be read as the script's)."""
        marker = self._ready_marker()
        deadline = time.perf_counter() + READY_LIMIT
        frame = b"" if self.primed else self._frame("", marker)  # primed: sent already
        self.primed = False
        try:
            complete, _, _ = self._read(process, marker, frame, bytearray(), bytearray(), deadline)
        except (BrokenPipeError, ConnectionResetError):  # it died at once: the script says why
            complete = False
        if complete or reaper.cancelled():
            return process
        self.idle = False  # killed, not asked to exit
        self._retire()
        return self._start()

    def _ready_marker(self) -> str:
        return f"sphinxfuzz-ready-{self.token}-{self.starts}"

    def close(self) -> None:
        """End the process: an idle one is asked to exit first (a z3 built with coverage
        writes its counters only on a normal exit), a busy or hung one is killed at once.
        Processes retired earlier get what is left of their EXIT_WAIT."""
        self.settle()
        self._retire()
        for process, kill_at in self.retiring:
            try:
                process.wait(timeout=max(0.0, kill_at - time.perf_counter()))
            except subprocess.TimeoutExpired:
                pass  # killed below like any other
            _end(process)
        self.retiring = []

    def _retire(self) -> None:
        """Let the process go without waiting for it: an idle one is asked to exit and
        reaped later (`_reap`, `close`), at most EXIT_WAIT from now; a busy one is killed."""
        process, self.process = self.process, None
        idle, self.idle, self.primed = self.idle, False, False
        if process is None:
            return
        if idle and process.poll() is None:
            try:
                assert process.stdin is not None
                if not self.shim:
                    process.stdin.write(b"(exit)\n")
                process.stdin.close()  # the shim's serve loop ends at the end of its input
                self.retiring.append((process, time.perf_counter() + EXIT_WAIT))
                return
            except (OSError, ValueError):
                pass  # killed below like any other
        _end(process)

    def _reap(self) -> None:
        """End the retired processes that exited or had their EXIT_WAIT; never waits."""
        now, left = time.perf_counter(), []
        for process, kill_at in self.retiring:
            if process.poll() is None and now < kill_at:
                left.append((process, kill_at))
            else:
                _end(process)
        self.retiring = left

    def __enter__(self) -> PersistentSolver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one script -----------------------------------------------------------------------
    def _frame(self, text: str, marker: str) -> bytes:
        if self.shim:
            data = text.encode("utf-8")
            words = json.dumps(options_argv(self.spec.argv))
            return f"{len(data)} {marker} {words}\n".encode() + data
        return f'(reset)\n{text}\n(echo "{marker}")\n'.encode()

    def run(self, text: str, *, timeout: float) -> SolverResult:
        """Run one script; the result is classified as a fresh run's would be."""
        if not self.shim:
            body = stream_form(text)
            if body is None:  # run_solver asks `misread` itself
                return run_solver(self.spec, text, timeout=timeout, memory_mb=self.memory_mb)
            text = body
        rejected = misread(self.spec, text)
        if rejected is not None:
            return rejected
        self.settle()  # the last script's housekeeping: not this script's time
        # a (re)start is part of the call's time, as it is of a fresh run, but not of its
        # limit: the script's clock starts once the process has answered an empty script
        started = time.perf_counter()
        process, starting = self._process_ready(started)
        self.count += 1
        self.idle = False
        out, err = bytearray(), bytearray()
        complete, exit_code, timed_out = self._answer(process, text, out, err, timeout)
        elapsed = time.perf_counter() - started
        self._after(text, complete, timed_out)
        stdout = out.decode("utf-8", "replace")
        stderr = err.decode("utf-8", "replace")
        found = read_output(  # its program gone: SolverVanished, no answer of it
            self.spec, stdout, stderr, exit_code, timed_out=timed_out, over_limit=self.over_limit
        )
        return SolverResult.classified(
            self.spec, found, stdout=stdout, stderr=stderr, exit_code=exit_code,
            elapsed=elapsed, version=solver_version(self.spec), starting=starting,
        )  # fmt: skip

    def _process_ready(self, started: float) -> tuple[subprocess.Popen[bytes], float]:
        """The process to answer the next script, ready, and the seconds since `started`
        its start took (0 when it was ready before)."""
        process, starting = self.process, 0.0
        # (a process that served its `max_scripts` was replaced when it answered the last)
        try:
            if process is None or process.poll() is not None:
                self._retire()
                process = self._ready(self._start())
                starting = time.perf_counter() - started
            elif self.primed:  # started ahead (`_start_ahead`): most often ready by now
                process = self._ready(process)
                starting = time.perf_counter() - started
        except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:  # no `setpriv`
            raise SolverVanished(self.spec, str(exc)) from exc
        return process, starting

    def _answer(
        self,
        process: subprocess.Popen[bytes],
        text: str,
        out: bytearray,
        err: bytearray,
        timeout: float,
    ) -> tuple[bool, int, bool]:
        """`process`'s answer to `text` read into `out` and `err`: (complete, exit code,
        timed out). A process that went over the output limit or died mid-script is
        retired (`over_limit` says which)."""
        marker = f"sphinxfuzz-done-{self.token}-{self.count}"
        timed_out, exit_code, complete = False, 0, False
        self.over_limit = False
        try:
            deadline = time.perf_counter() + timeout  # the limit is for the script alone
            frame = self._frame(text, marker)
            complete, exit_code, timed_out = self._read(process, marker, frame, out, err, deadline)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the process died: read what it left below
        if self.over_limit:
            self._retire()
            exit_code = -9
        elif not complete and not timed_out:
            # died mid-script: its exit status and last words tell what happened
            self._drain(process, out, err)
            self._retire()
            exit_code = process.returncode if process.returncode is not None else -9
        return complete, exit_code, timed_out

    def _after(self, text: str, complete: bool, timed_out: bool) -> None:
        """After an answer: the process retired on a time-out, the state `text` left in it
        or its `max_scripts`, and its successor started ahead (`_tidy_later`)."""
        if timed_out or self.over_limit:
            self._retire()
        else:
            self.served += 1
            self.idle = complete
            if complete and not self.shim and self._leaves_state(text):
                self._retire()  # z3 keeps global parameters across (reset)
        replace = self.process is None or self.served >= self.max_scripts
        if replace:
            self._retire()
        self._tidy_later(replace)

    @staticmethod
    def _leaves_state(text: str) -> bool:
        if _DATATYPES.search(text):
            return True
        options = len(_ANY_OPTION.findall(text))
        return options > len(_HARMLESS_OPTIONS.findall(text))

    def _read(
        self,
        process: subprocess.Popen[bytes],
        marker: str,
        frame: bytes,
        out: bytearray,
        err: bytearray,
        deadline: float,
    ) -> tuple[bool, int, bool]:
        """Write `frame` and read until the end marker: (complete, exit code, timed out).
        Writing never blocks (a solver busy with a check-sat stops reading its input)."""
        assert process.stdout is not None and process.stderr is not None
        assert process.stdin is not None
        streams = {process.stdout.fileno(): out, process.stderr.fileno(): err}
        pending = memoryview(frame)
        stdin = process.stdin.fileno()
        ending = _Ending(marker, self.shim)
        exited_at: float | None = None
        while True:
            if max(len(out), len(err)) > reaper.OUTPUT_LIMIT:
                self.over_limit = True
                return False, 0, False
            code = ending.found(out, err)
            if code is not None:
                return True, code, False
            now = time.perf_counter()
            if now >= deadline or reaper.cancelled():
                return False, 0, True
            if exited_at is None and process.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at > reaper.EXIT_GRACE:
                return False, process.returncode or 0, False
            writers = [stdin] if pending else []
            ready, writable, _ = select.select(
                list(streams), writers, [], min(deadline - now, 0.25)
            )
            if writable:
                try:
                    pending = pending[os.write(stdin, pending[:65536]) :]
                except BlockingIOError:
                    pass
            for fd in ready:
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                streams[fd].extend(chunk)

    @staticmethod
    def _drain(process: subprocess.Popen[bytes], out: bytearray, err: bytearray) -> None:
        try:
            process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            reaper.kill_group(process)
            process.wait()
        for stream, buffer in ((process.stdout, out), (process.stderr, err)):
            if stream is None:
                continue
            try:
                while chunk := os.read(stream.fileno(), 65536):
                    buffer.extend(chunk)
            except (BlockingIOError, OSError):
                pass


class _Ending:
    """Finds the end of one script's answer: the shim's end line on both streams (with the
    script's exit code), or z3's echoed marker on stdout (quoted by some releases)."""

    def __init__(self, marker: str, shim: bool) -> None:
        self.marker = marker
        self.endings = [f"\n{marker}\n".encode(), f'\n"{marker}"\n'.encode()]
        # compiled per call (the marker is new each time): only where the shim answers
        self.shim_end = (
            re.compile(rb"\n?;; sphinxfuzz-end " + marker.encode() + rb" (-?\d+)\n")
            if shim
            else None
        )
        self.shim_out: re.Match[bytes] | None = None
        self.shim_err: re.Match[bytes] | None = None
        self.searched = 0  # z3: where the marker search of `out` resumes

    def found(self, out: bytearray, err: bytearray) -> int | None:
        """The exit code once the answer is complete (cut off the buffers before its end
        marker), else None."""
        if self.shim_end is not None:
            self.shim_out = self.shim_out or self.shim_end.search(out)
            self.shim_err = self.shim_err or self.shim_end.search(err)
            if self.shim_out is None or self.shim_err is None:
                return None
            code = int(self.shim_out.group(1))  # (read before the buffer is cut)
            del out[self.shim_out.start() :]
            del err[self.shim_err.start() :]
            return code
        offset = max(0, self.searched - 64 - len(self.marker))
        view = b"\n" + out[offset:]
        for ending in self.endings:
            position = view.find(ending)
            if position >= 0:
                del out[offset + position :]  # keeps the answer's last newline
                return 0
        self.searched = len(out)
        return None


def _end(process: subprocess.Popen[bytes]) -> None:
    """Kill what is left of `process` (its group, its descendants) and close its pipes."""
    reaper.end(process)
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            stream.close()
