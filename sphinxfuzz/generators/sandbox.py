"""Sampling terms from an untrusted generator in a limited child process.

`sample_terms` is what the LLM build loop calls on each candidate: the report says whether
the code ran, and if not, why, in words (and a traceback with the generator's own line
numbers) that can be fed back to the model.
"""

from __future__ import annotations

import math
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

from sphinxfuzz.generators.child_process import (
    PROTOCOL_REFUSAL,
    REFUSAL,
    close,
    describe_exit,
    header,
    refused,
    send_header,
    spawn,
    stderr_tail,
    unconfined_error,
)
from sphinxfuzz.generators.protocol import DEFAULT_LIMITS, Limits, ProtocolViolation, Reader
from sphinxfuzz.generators.static_check import require_safe
from sphinxfuzz.generators.theory_folder import GeneratorFolder

# "refused": the kernel confinement killed the child for a forbidden system call.
KINDS = ("ok", "exception", "timeout", "memory", "bad-output", "refused")


@dataclass
class SampleReport:
    """What sampling a generator produced; `samples` holds every pair made before a failure."""

    samples: list[tuple[str, str]] = field(default_factory=list)
    kind: str = "ok"
    failure: str | None = None
    elapsed: float = 0.0  # wall-clock seconds, child start-up included
    per_term_seconds: float = 0.0  # mean time inside generate() per produced sample

    @property
    def ok(self) -> bool:
        return self.kind == "ok"


def sample_terms(
    source: str,
    n: int,
    seed: int,
    *,
    timeout: float = 30.0,
    memory_mb: int = 1024,
    filename: str = GeneratorFolder.GENERATOR,
    unconfined: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> SampleReport:
    """Call `generate(random.Random(seed))` n times in a sandboxed child process.

    Raises `UnsafeGenerator` (and runs nothing) if the static check refuses the source, and
    `ConfinementError` if the kernel confinement cannot be set up (unless `unconfined`).
    `timeout` bounds the whole run (wall clock); CPU time is limited to the same budget.
    `limits`: characters per text and per run. The child's output is read as a stream and
    held to the protocol (`protocol.py`): whatever it writes, the parent keeps no more than
    the samples within `limits`, and a message against the protocol refuses the generator.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    require_safe(source, filename)
    request = header(
        "sample",
        memory_mb,
        math.ceil(timeout) + 1,
        source=source,
        filename=filename,
        n=n,
        seed=seed,
        unconfined=unconfined,
        limits=limits,
    )
    start = time.monotonic()
    with tempfile.TemporaryFile() as stderr:
        process = spawn(stderr)
        try:
            report, finished = _read_run(process, request, n, timeout, limits, start)
            if finished and report.kind != "timeout":
                _wait_briefly(process)  # a kernel kill after the last message still counts
        finally:
            close(process)
        if not finished or report.kind == "timeout" or refused(process.returncode):
            report = _from_exit(process.returncode, stderr_tail(stderr, 4000), n, timeout, report)
    report.elapsed = time.monotonic() - start
    if report.kind == "unconfined":
        raise unconfined_error(report.failure or "")
    return report


SAMPLE_ANSWERS = frozenset({"sample", "end", "end-timed", "done"})


def _read_run(
    process: subprocess.Popen[bytes],
    request: dict[str, object],
    n: int,
    timeout: float,
    limits: Limits,
    start: float,
) -> tuple[SampleReport, bool]:
    """The report from the child's messages, and whether it is final: not when the pipe
    closed before the last message (the exit status then tells why). A timeout is a report
    of kind "timeout"."""
    send_header(process, request)
    assert process.stdout is not None
    reader = Reader(process.stdout.fileno(), limits, total_bytes=limits.total_bytes)
    report = SampleReport()
    spent = 0.0
    while True:
        try:
            message = reader.receive(SAMPLE_ANSWERS, start + timeout)
        except TimeoutError:
            report.kind = "timeout"
            return _per_term(report, spent), True
        except ProtocolViolation as exc:
            report.kind = "refused"
            report.failure = f"{PROTOCOL_REFUSAL}: {exc.cause}"
            report.samples.clear()  # any of them may be a line the generator wrote
            return _per_term(report, spent), True
        if message is None:
            return _per_term(report, spent), False
        if message.spent is not None:
            spent = message.spent
        if message.pair is not None:
            if len(report.samples) >= n:
                report.kind = "refused"
                report.failure = f"{PROTOCOL_REFUSAL}: more than the {n} samples asked for"
                return _per_term(report, spent), True
            report.samples.append(message.pair)
            continue
        report.kind = message.kind
        report.failure = None if message.kind == "ok" else message.failure
        if message.kind == "ok" and len(report.samples) != n:
            report.kind = "refused"
            report.failure = (
                f"{PROTOCOL_REFUSAL}: the run ended after {len(report.samples)} of {n} samples"
            )
        return _per_term(report, spent), True


def _wait_briefly(process: subprocess.Popen[bytes]) -> None:
    try:
        process.wait(timeout=2.0)
    except subprocess.TimeoutExpired:
        pass


def _per_term(report: SampleReport, spent: float) -> SampleReport:
    report.per_term_seconds = spent / len(report.samples) if report.samples else 0.0
    return report


def _from_exit(
    returncode: int,
    stderr: str,
    n: int,
    timeout: float,
    partial: SampleReport | None = None,
) -> SampleReport:
    """The report of a child that gave no final message (or timed out): from its exit."""
    report = partial or SampleReport()
    made = f"after {len(report.samples)} of {n} samples"
    if refused(returncode):
        report.kind = "refused"
        report.failure = f"{REFUSAL} ({made})"
    elif report.kind == "timeout" or returncode == -signal.SIGXCPU:
        report.kind = "timeout"
        report.failure = f"generate did not finish within the {timeout:g} s limit ({made})"
    elif "MemoryError" in stderr:
        report.kind = "memory"
        report.failure = f"generate exhausted the memory limit ({made})"
    else:
        tail = stderr[-2000:]
        report.kind = "exception"
        report.failure = f"sandbox child {describe_exit(returncode)} {made}" + (
            f":\n{tail}" if tail else ""
        )
    return report
