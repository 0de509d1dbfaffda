"""Run many test scripts in one solver call, each from a fresh state (`(reset)`).

Every script is announced by an `(echo ...)` marker and has its own time-out inside the
batch (`run_marked`): a script the solver is stuck on costs `PER_SCRIPT` seconds, then the
batch goes on after it in a new process, so one hard script never stalls a test for the
whole batch's limit (a cvc5 batch of 500 scripts once waited 300 s on one).
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from sphinxfuzz.smtlib import Script, print_node, print_script
from sphinxfuzz.solvers import SolverSpec, run_solver

_SKIP = {"set-logic", "reset", "set-info", "exit", "get-model", "set-option"}


# a time limit per check-sat, so one hard query costs an `unknown`, not the batch
_PER_QUERY = {"z3": "(set-option :timeout {ms})", "cvc5": "(set-option :tlimit-per {ms})"}


def scoped(scripts: list[Script], logic: str = "ALL", family: str = "", ms: int = 3000) -> str:
    """One script answering each of `scripts`' check-sats in order (one check-sat each)."""
    lines = []
    for script in scripts:
        if family in _PER_QUERY:
            lines.append(_PER_QUERY[family].format(ms=ms))
        lines.append(f"(set-logic {logic})")
        lines += [print_node(c) for c in script.commands if c.head_name() not in _SKIP]
        lines.append("(reset)")  # not push/pop: z3 solves incremental scripts differently
    return "\n".join(lines) + "\n"


PER_SCRIPT = 10.0  # seconds a script may run inside a batch (per-query limits are 3 s or less)
STARTUP = 30.0  # ... plus this for the process to start (the cvc5 shim imports cvc5)
MARK = "@@ "


def run_marked(
    spec: SolverSpec, texts: list[str], per_script: float = PER_SCRIPT
) -> list[list[str] | None]:
    """Each script's output lines (None: it ran past `per_script` seconds and was cut).
    `texts` are self-contained scripts ending in `(reset)`. A solver that stops early (cvc5
    after an error, a crash) is started again after the script it stopped in."""
    out: list[list[str] | None] = [[] for _ in texts]
    start = 0
    while start < len(texts):
        body = "".join(f'(echo "{MARK}{i}")\n{texts[i]}' for i in range(start, len(texts)))
        last, cut = _run_streaming(spec, body, out, start, per_script)
        if cut:
            out[last] = None
        start = last + 1
    return out


def _run_streaming(
    spec: SolverSpec, body: str, out: list[list[str] | None], start: int, per_script: float
) -> tuple[int, bool]:
    """Run one batch, filing lines under the last marker; (last script seen, cut by time)."""
    with tempfile.NamedTemporaryFile("w", suffix=".smt2", delete=False) as handle:
        handle.write(body)
    proc = subprocess.Popen([*spec.argv, handle.name], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    assert proc.stdout is not None
    current, pending = start, b""
    deadline = time.monotonic() + STARTUP + per_script
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(proc.stdout, selectors.EVENT_READ)
            while True:
                if not selector.select(max(0.0, deadline - time.monotonic())):
                    return current, True  # the script in hand ran out of time
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    return current, False
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for raw in lines:
                    line = raw.decode("utf-8", "replace").strip().strip('"')
                    if line.startswith(MARK):
                        current = int(line[len(MARK) :])
                        deadline = time.monotonic() + per_script
                    elif line:
                        target = out[current]
                        assert target is not None
                        target.append(line)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        os.unlink(handle.name)


def answers(spec: SolverSpec, text: str, timeout: float = 60) -> list[str]:
    result = run_solver(spec, text, timeout=timeout)
    assert result.outcome.value not in ("crash", "error"), (
        spec.name,
        result.stderr[-2000:],
        result.stdout[-500:],
    )
    return result.answers


def mismatches(
    spec: SolverSpec, scripts: list[Script], expected: list[str | None], timeout: float = 60
) -> tuple[list[tuple[int, str]], list[int]]:
    """The (index, answer) of every script whose decided answer contradicts the expected one,
    and the indices of scripts left undecided (`unknown`, or no answer: a time-out cuts the
    batch)."""
    texts = [scoped([script], family=spec.family) for script in scripts]
    outputs = run_marked(spec, texts)
    wrong, undecided = [], []
    for i, want in enumerate(expected):
        lines = outputs[i]
        assert lines is None or not any(line.startswith("(error") for line in lines), (
            spec.name, lines, print_script(scripts[i]))  # fmt: skip
        found = [a for a in lines or [] if a in ("sat", "unsat", "unknown")]
        answer = found[0] if found else "none"
        if answer not in ("sat", "unsat"):
            undecided.append(i)
        elif want is not None and answer != want:
            wrong.append((i, answer))
    return wrong, undecided


def assert_expected(
    specs: list[SolverSpec],
    scripts: list[Script],
    expected: list[str | None],
    undecided_share: float = 0.1,
) -> dict[str, int]:
    """No solver contradicts an expected answer; few are left undecided. Returns the
    undecided count per solver, for the figures."""
    counts = {}
    # one thread per solver: each waits on its own solver process, so they overlap
    with ThreadPoolExecutor(len(specs)) as pool:
        found = list(pool.map(lambda spec: mismatches(spec, scripts, expected), specs))
    for spec, (wrong, undecided) in zip(specs, found, strict=True):
        assert wrong == [], (spec.name, [(i, a, print_script(scripts[i])) for i, a in wrong[:3]])
        assert len(undecided) <= undecided_share * len(scripts), (spec.name, undecided)
        counts[spec.name] = len(undecided)
    return counts
