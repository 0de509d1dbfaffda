"""A persistent sandboxed child process that hosts several generators (fuzz-loop hot path).

One child per pool; requests and answers are single JSON lines over pipes. `generate` is
deterministic in its seed: the child calls `generate(random.Random(seed))` and, by default,
re-executes the generator module first so no state leaks from one call into the next. A call
that raises is reported and the child keeps serving; a call that hangs past `timeout`, or
that kills the child, is reported and the child is restarted on the next call. A generator
the kernel confinement kills (a forbidden system call, while loading or in a call) is
refused for good: it is dropped from `theories` and every later call fails at once.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import IO, Any, Protocol

from sphinxfuzz.errors import ExternalError
from sphinxfuzz.generators.child_process import (
    PROTOCOL_REFUSAL,
    REFUSAL,
    describe_exit,
    header,
    kill,
    refused,
    spawn,
    stderr_tail,
    unconfined_error,
)
from sphinxfuzz.generators.protocol import (
    DEFAULT_LIMITS,
    Limits,
    Message,
    ProtocolViolation,
    Reader,
)
from sphinxfuzz.generators.static_check import require_safe

START_TIMEOUT = 20.0  # seconds for the child to start and execute every module once
LOADING = frozenset({"loading", "ready", "end"})
ANSWERS = frozenset({"answer", "end"})


class PoolEntry(Protocol):
    """What the pool needs of a catalogue entry."""

    @property
    def theory(self) -> str: ...

    @property
    def source(self) -> str: ...

    @property
    def path(self) -> os.PathLike[str] | str: ...


class GeneratorFailure(ExternalError):
    """A generator raised, hung, exhausted memory, returned bad output or failed to load."""

    def __init__(self, theory: str, kind: str, detail: str, seed: int | None = None) -> None:
        self.theory = theory
        self.kind = kind
        self.detail = detail
        self.seed = seed
        where = f" (seed {seed})" if seed is not None else ""
        super().__init__(f"generator {theory!r} failed{where}: {kind}: {detail}")


class GeneratorPool:
    """Serve `generate(theory, seed)` from one sandboxed child. Not thread-safe."""

    def __init__(
        self,
        entries: Iterable[PoolEntry] | Mapping[str, PoolEntry],
        *,
        timeout: float = 5.0,
        memory_mb: int = 1024,
        fresh_state: bool = True,
        unconfined: bool = False,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        items = list(entries.values()) if isinstance(entries, Mapping) else list(entries)
        self._sources: dict[str, tuple[str, str]] = {}
        for entry in items:
            filename = str(entry.path)
            require_safe(entry.source, filename)
            if entry.theory in self._sources:
                raise ValueError(f"{filename}: theory {entry.theory!r} is given twice")
            self._sources[entry.theory] = (filename, entry.source)
        self.timeout = timeout
        self.memory_mb = memory_mb
        self.fresh_state = fresh_state
        self.unconfined = unconfined
        self.limits = limits
        self.refused: dict[str, str] = {}  # theory -> why the confinement killed it
        self.load_failures: dict[str, str] = {}  # theory -> traceback of module-level code
        self.restarts = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._reader: Reader | None = None
        self._start()

    @property
    def theories(self) -> list[str]:
        """Theories that loaded and can be asked for terms, sorted."""
        return sorted(t for t in self._sources if t not in self.load_failures)

    def source(self, theory: str) -> str:
        """The source text of `theory`'s generator (what answers to its terms are keyed by)."""
        return self._sources[theory][1]

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        """`(declarations, term)` from `theory`'s generator seeded with `seed`."""
        if theory not in self._sources:
            raise KeyError(f"no generator for theory {theory!r}; pool has {sorted(self._sources)}")
        if theory in self.refused:
            raise GeneratorFailure(theory, "refused", self.refused[theory], seed)
        if theory in self.load_failures:
            raise GeneratorFailure(theory, "exception", self.load_failures[theory], seed)
        if self._process is None or self._process.poll() is not None:
            self._restart()
        try:
            answer = self._ask({"t": theory, "s": seed}, self.timeout, theory, seed)
        except GeneratorFailure as failure:
            if failure.kind == "refused":
                self.refused[theory] = failure.detail
                self.load_failures[theory] = failure.detail
            raise
        if answer.pair is not None:
            return answer.pair
        if answer.kind == "memory":
            self._stop()  # the child's heap may be fragmented to the limit; start clean
        if answer.kind not in ("exception", "memory", "bad-output"):
            self._stop()
            detail = f"{PROTOCOL_REFUSAL}: an answer of kind {answer.kind!r}"
            self.refused[theory] = self.load_failures[theory] = detail
            raise GeneratorFailure(theory, "refused", detail, seed)
        raise GeneratorFailure(theory, answer.kind, answer.failure, seed)

    def close(self) -> None:
        self._stop()

    def __enter__(self) -> GeneratorPool:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __del__(self) -> None:
        self._stop()

    def _start(self) -> None:
        """Start the child with every generator not refused yet; a module whose loading gets
        the child killed by the confinement is refused and the child starts without it."""
        while True:
            self._stderr = tempfile.TemporaryFile()
            self._process = spawn(self._stderr)
            assert self._process.stdout is not None
            self._reader = Reader(self._process.stdout.fileno(), self.limits)
            generators = [[t, f, s] for t, (f, s) in self._sources.items() if t not in self.refused]
            first = header(
                "pool", self.memory_mb, None, unconfined=self.unconfined,
                generators=generators, fresh=self.fresh_state, limits=self.limits,
            )  # fmt: skip
            limit = START_TIMEOUT + self.timeout * len(generators)
            loading = "(all)"
            try:
                answer = self._ask(first, limit, loading, None, LOADING)
                while answer.shape == "loading":
                    if answer.theory not in self._sources or answer.theory in self.refused:
                        raise self._violation(loading, f"loading unknown {answer.theory!r}")
                    loading = answer.theory
                    answer = self._ask(None, limit, loading, None, LOADING)
                if answer.shape == "end" and answer.kind == "unconfined":
                    self._stop()
                    raise unconfined_error(answer.failure)
                if answer.shape != "ready" or not set(answer.ready) | set(answer.failed) <= set(
                    self._sources
                ):
                    raise self._violation(loading, f"message {answer.number} is not the ready list")
            except GeneratorFailure as failure:
                if failure.kind != "refused" or loading == "(all)":
                    raise
                self.refused[loading] = failure.detail
                continue
            self.load_failures = {**answer.failed, **self.refused}
            return

    def _restart(self) -> None:
        self._stop()
        self.restarts += 1
        self._start()

    def _stop(self) -> None:
        process = getattr(self, "_process", None)
        self._reader = None
        if process is not None:
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    stream.close()
            kill(process)
            self._process = None
        stderr = getattr(self, "_stderr", None)
        if stderr is not None:
            stderr.close()
            self._stderr = None

    def _ask(
        self,
        message: dict[str, Any] | None,
        timeout: float,
        theory: str,
        seed: int | None,
        expected: frozenset[str] = ANSWERS,
    ) -> Message:
        """Send `message` (None: only read) and read one answer of an `expected` shape."""
        process, reader = self._process, self._reader
        assert process is not None and process.stdin is not None and reader is not None
        try:
            if message is not None:
                process.stdin.write(json.dumps(message).encode() + b"\n")
                process.stdin.flush()
            answer = reader.receive(expected, time.monotonic() + timeout)
        except TimeoutError:
            self._stop()
            raise GeneratorFailure(
                theory, "timeout", f"no answer within {timeout:g} s; child restarted", seed
            ) from None
        except ProtocolViolation as exc:
            raise self._violation(theory, exc.cause, seed) from None
        except BrokenPipeError:
            answer = None
        if answer is None:
            detail = self._death_notice(process)
            self._stop()
            kind = "refused" if refused(process.returncode) else "crash"
            raise GeneratorFailure(theory, kind, REFUSAL if kind == "refused" else detail, seed)
        return answer

    def _violation(self, theory: str, cause: str, seed: int | None = None) -> GeneratorFailure:
        """The child wrote what the protocol forbids while `theory` ran: stop the child and
        refuse the generator (`generate` records it), with the cause."""
        self._stop()
        return GeneratorFailure(theory, "refused", f"{PROTOCOL_REFUSAL}: {cause}", seed)

    def _death_notice(self, process: subprocess.Popen[bytes]) -> str:
        process.wait()
        text = stderr_tail(self._stderr, 2000) if self._stderr is not None else ""
        return f"generator child {describe_exit(process.returncode)}" + (
            f":\n{text}" if text else ""
        )
