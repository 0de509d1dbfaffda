"""Persistent solver processes: one process answers many scripts.

Starting a solver costs more than many mutants take to solve (the cvc5 shim imports cvc5 in
a fresh Python, ~0.1 s; z3 ~10 ms), so a campaign keeps one process per solver and worker:

- z3 reads the script from standard input (`-in`), preceded by `(reset)` and followed by
  `(echo "<marker>")`; the marker line ends the answer. `(reset)` forgets assertions and
  declarations but not global parameters (`(set-option :pp.decimal true)` survives it), so
  after a script that sets any option but `:produce-models` the process is replaced. Nor
  does it forget datatypes cleanly: z3 5.4.0 segfaults on a parametric datatype after
  `(reset)` of a script with another datatype, so a script with datatypes ends its process
  too.
- the cvc5 shim serves scripts itself (`--sphinxfuzz-serve`), each in a fresh `cvc5.Solver`,
  and ends each answer with `;; sphinxfuzz-end <exit code>` on both output streams.

A time-out, a crash, a dead process or anything unexpected on the pipes kills the process
group; the next script starts a new one. The answers are classified like a fresh run's. What
persistence could still change (state left in the solver by an earlier script) is why the
campaign confirms every verdict in fresh processes before it stores a bug.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import time
from pathlib import Path

from sphinxfuzz.solvers.classify import classify
from sphinxfuzz.solvers.result import SolverResult
from sphinxfuzz.solvers.runner import kill_group, limit_memory
from sphinxfuzz.solvers.spec import SolverSpec
from sphinxfuzz.solvers.versions import solver_version

SHIM_MODULE = "sphinxfuzz.solvers.cvc5_shim"
_SHIM_END = re.compile(rb"\n?;; sphinxfuzz-end (-?\d+)\n")
_EXIT = re.compile(r"\(\s*exit\s*\)")
# options that a later script sets again itself (every mutant turns models on)
_HARMLESS_OPTIONS = re.compile(r"\(\s*set-option\s+:produce-models\b")
_ANY_OPTION = re.compile(r"\(\s*set-option\b")
_DATATYPES = re.compile(r"\(\s*declare-(?:co)?datatypes?\b")


def _shim_spec(spec: SolverSpec) -> bool:
    return spec.family == "cvc5" and (
        SHIM_MODULE in spec.argv or any(Path(a).name == "cvc5_shim.py" for a in spec.argv)
    )


def _z3_spec(spec: SolverSpec) -> bool:
    return spec.family == "z3" and Path(spec.argv[0]).name.startswith("z3")


def supports_persistence(spec: SolverSpec) -> bool:
    """Whether `spec` can serve many scripts from one process (the built-in z3 and cvc5,
    or any other z3 binary; arbitrary command lines always run fresh)."""
    return _shim_spec(spec) or _z3_spec(spec)


class PersistentSolver:
    """One long-lived process of `spec`. Not thread-safe; one per worker."""

    def __init__(self, spec: SolverSpec, *, memory_mb: int = 4096, max_scripts: int = 500) -> None:
        if not supports_persistence(spec):
            raise ValueError(f"solver {spec.text!r} cannot run persistently")
        self.spec = spec
        self.memory_mb = memory_mb
        self.max_scripts = max_scripts  # bounds memory a long-lived solver may accumulate
        self.shim = _shim_spec(spec)
        self.process: subprocess.Popen[bytes] | None = None
        self.served = 0
        self.starts = 0
        self.count = 0

    # -- process lifetime -------------------------------------------------------------------
    def _argv(self) -> list[str]:
        if self.shim:
            return [*self.spec.argv, "--sphinxfuzz-serve"]
        return [*self.spec.argv, "-in"]

    def _start(self) -> subprocess.Popen[bytes]:
        self.process = subprocess.Popen(
            self._argv(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=limit_memory(self.memory_mb),
        )
        for stream in (self.process.stdout, self.process.stderr):
            assert stream is not None
            os.set_blocking(stream.fileno(), False)
        self.served = 0
        self.starts += 1
        return self.process

    def close(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        kill_group(process)
        process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> PersistentSolver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one script -----------------------------------------------------------------------
    def _frame(self, text: str, marker: str) -> bytes:
        if self.shim:
            data = text.encode("utf-8")
            return f"{len(data)}\n".encode() + data
        body = _EXIT.sub("", text)  # `(exit)` would end the process, not the script
        return f'(reset)\n{body}\n(echo "{marker}")\n'.encode()

    def run(self, text: str, *, timeout: float) -> SolverResult:
        """Run one script; the result is classified as a fresh run's would be."""
        # a (re)start is part of the call, as it is of a fresh run
        started = time.perf_counter()
        process = self.process
        if process is None or process.poll() is not None or self.served >= self.max_scripts:
            self.close()
            process = self._start()
        self.count += 1
        marker = f"sphinxfuzz-done-{os.getpid()}-{self.count}"
        out, err = bytearray(), bytearray()
        timed_out, exit_code, complete = False, 0, False
        try:
            assert process.stdin is not None
            process.stdin.write(self._frame(text, marker))
            process.stdin.flush()
            deadline = time.perf_counter() + timeout  # the limit is for the script alone
            complete, exit_code, timed_out = self._read(process, marker, out, err, deadline)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the process died: read what it left below
        if not complete and not timed_out:
            # died mid-script: its exit status and last words tell what happened
            self._drain(process, out, err)
            self.close()
            exit_code = process.returncode if process.returncode is not None else -9
        elapsed = time.perf_counter() - started
        if timed_out:
            self.close()
        else:
            self.served += 1
            if complete and not self.shim and self._leaves_state(text):
                self.close()  # z3 keeps global parameters across (reset)
        stdout = out.decode("utf-8", "replace")
        stderr = err.decode("utf-8", "replace")
        found = classify(stdout, stderr, exit_code, timed_out)
        return SolverResult(
            spec=self.spec,
            outcome=found.outcome,
            answers=found.answers,
            stdout=stdout,
            stderr=stderr,
            exit_code=exit_code,
            elapsed=elapsed,
            model=found.model,
            version=solver_version(self.spec),
            failure_line=found.failure_line,
            model_check_failed=found.model_check_failed,
            annotation_conflict=found.annotation_conflict,
        )

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
        out: bytearray,
        err: bytearray,
        deadline: float,
    ) -> tuple[bool, int, bool]:
        """Read until the end marker: (complete, exit code, timed out)."""
        assert process.stdout is not None and process.stderr is not None
        streams = {process.stdout.fileno(): out, process.stderr.fileno(): err}
        z3_end = f"\n{marker}\n".encode()
        shim_err_done = False
        while True:
            if self.shim:
                found = _SHIM_END.search(out)
                if found is not None and (shim_err_done or _SHIM_END.search(err)):
                    code = int(found.group(1))
                    del out[found.start():]
                    if (tail := _SHIM_END.search(err)) is not None:
                        del err[tail.start():]
                    return True, code, False
            else:
                # z3 echoes the string as is (some versions keep the quotes)
                for ending in (z3_end, f'\n"{marker}"\n'.encode()):
                    position = (b"\n" + out).find(ending)
                    if position >= 0:
                        del out[position:]
                        return True, 0, False
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                return False, 0, True
            ready, _, _ = select.select(list(streams), [], [], remaining)
            closed = 0
            for fd in ready:
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    closed += 1
                streams[fd].extend(chunk)
            if closed and process.poll() is not None:
                return False, process.returncode or 0, False
            shim_err_done = shim_err_done or (self.shim and _SHIM_END.search(err) is not None)

    @staticmethod
    def _drain(process: subprocess.Popen[bytes], out: bytearray, err: bytearray) -> None:
        try:
            process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            kill_group(process)
            process.wait()
        for stream, buffer in ((process.stdout, out), (process.stderr, err)):
            if stream is None:
                continue
            try:
                while chunk := os.read(stream.fileno(), 65536):
                    buffer.extend(chunk)
            except (BlockingIOError, OSError):
                pass
