"""Sampling terms from an untrusted generator in a limited child process.

`sample_terms` is what the LLM build loop calls on each candidate: the report says whether
the code ran, and if not, why, in words (and a traceback with the generator's own line
numbers) that can be fed back to the model.
"""

from __future__ import annotations

import json
import math
import signal
import subprocess
import time
from dataclasses import dataclass, field

from sphinxfuzz.generators.child_process import (
    REFUSAL,
    describe_exit,
    header,
    kill,
    refused,
    spawn,
    unconfined_error,
)
from sphinxfuzz.generators.static_check import require_safe

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
    filename: str = "generator.py",
    unconfined: bool = False,
) -> SampleReport:
    """Call `generate(random.Random(seed))` n times in a sandboxed child process.

    Raises `UnsafeGenerator` (and runs nothing) if the static check refuses the source, and
    `ConfinementError` if the kernel confinement cannot be set up (unless `unconfined`).
    `timeout` bounds the whole run (wall clock); CPU time is limited to the same budget.
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
    )
    start = time.monotonic()
    process = spawn(subprocess.PIPE)
    timed_out = False
    try:
        stdout, stderr = process.communicate(json.dumps(request).encode() + b"\n", timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill(process)
        stdout, stderr = process.communicate()
    finally:
        if process.poll() is None:
            kill(process)
    elapsed = time.monotonic() - start
    return _report(stdout, stderr, process.returncode, timed_out, n, timeout, elapsed)


def _report(
    stdout: bytes,
    stderr: bytes,
    returncode: int,
    timed_out: bool,
    n: int,
    timeout: float,
    elapsed: float,
) -> SampleReport:
    report = SampleReport(elapsed=elapsed)
    spent = 0.0
    final: dict[str, object] | None = None
    for line in stdout.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue  # a line cut short by the kill
        if "sample" in message:
            decls, term = message["sample"]
            report.samples.append((decls, term))
            spent = float(message["spent"])
        elif "kind" in message:
            final = message
            spent = float(message.get("spent", spent))
    report.per_term_seconds = spent / len(report.samples) if report.samples else 0.0
    made = f"after {len(report.samples)} of {n} samples"
    if final is not None and final["kind"] == "unconfined":
        raise unconfined_error(str(final["failure"]))
    if refused(returncode):
        report.kind = "refused"
        report.failure = f"{REFUSAL} ({made})"
    elif final is not None:
        report.kind = str(final["kind"])
        report.failure = None if report.kind == "ok" else str(final["failure"])
    elif timed_out or returncode == -signal.SIGXCPU:
        report.kind = "timeout"
        report.failure = f"generate did not finish within the {timeout:g} s limit ({made})"
    elif b"MemoryError" in stderr:
        report.kind = "memory"
        report.failure = f"generate exhausted the memory limit ({made})"
    else:
        tail = stderr.decode("utf-8", "replace").strip()[-2000:]
        report.kind = "exception"
        report.failure = f"sandbox child {describe_exit(returncode)} {made}" + (
            f":\n{tail}" if tail else ""
        )
    if report.kind == "memory" and report.failure and "limit" not in report.failure:
        report.failure = f"generate exhausted the memory limit ({made}):\n{report.failure}"
    return report
