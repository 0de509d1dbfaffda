"""Reliability bench (issue 14): the hostile generators, solvers and seeds of the tests.

    PYTHONPATH=. python bench/hostile.py

Per area it prints: tried, handled cleanly, tracebacks (an exception the code did not turn
into a report), data lost (bugs a campaign announced but did not store), escapes (a file
a hostile module managed to create), orphans (processes left running), and the peak memory
of this process and of its largest child.

- generators: every module of tests/fixtures/hostile/generators through the normal path
  (static check + kernel), and again with the static check taken out (kernel alone);
- solvers: every fake solver of tests/fixtures/hostile/solvers, fresh and (for the hanging
  ones) within a 2 s limit; "handled" = returned within limit + 3 s, no verdict claimed;
- seeds: a 50 MB seed, a seed that is not UTF-8, an unbalanced one, an empty one;
- campaign: `fuzz` with z3 and a crashing stand-in, stopped by SIGTERM mid-run; lost = bugs
  it announced minus bugs in the store.
"""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sphinxfuzz.generators import pool as pool_module  # noqa: E402
from sphinxfuzz.generators import sandbox  # noqa: E402
from sphinxfuzz.generators.static_check import UnsafeGenerator  # noqa: E402
from sphinxfuzz.mutate.seed import SeedError, load_seed  # noqa: E402
from sphinxfuzz.solvers import Outcome, parse_specs, run_solver, solver_version  # noqa: E402
from sphinxfuzz.solvers.reaper import running  # noqa: E402

HOSTILE = ROOT / "tests" / "fixtures" / "hostile"
rows: list[tuple[str, int, int, int, int, int, int]] = []


def generators() -> None:
    tried = handled = tracebacks = escapes = 0
    folder = Path(tempfile.mkdtemp())
    folder.chmod(0o777)
    for static in (True, False):
        if not static:  # the kernel alone
            sandbox.require_safe = lambda source, filename="": None  # type: ignore[assignment]
            pool_module.require_safe = lambda source, filename="": None  # type: ignore[assignment]
        for path in sorted((HOSTILE / "generators").glob("*.py")):
            target = folder / f"{path.stem}-{static}"
            source = path.read_text().replace("@TARGET@", str(target))
            tried += 1
            try:
                report = sandbox.sample_terms(source, 3, 0, timeout=20)
                ok = report.kind == "refused" or (path.stem == "escape_format" and report.ok)
            except UnsafeGenerator:
                ok = True
            except Exception:  # noqa: BLE001 - counted
                traceback.print_exc()
                tracebacks += 1
                ok = False
            escapes += target.exists()
            handled += ok and not target.exists()
    rows.append(("generators", tried, handled, tracebacks, 0, escapes, 0))


def solvers() -> None:
    tried = handled = tracebacks = 0
    for path in sorted((HOSTILE / "solvers").glob("*.sh")):
        tried += 1
        spec = parse_specs(str(path))[0]
        try:
            solver_version(spec)
            started = time.monotonic()
            result = run_solver(spec, "(assert true)\n(check-sat)\n", timeout=2.0, memory_mb=1024)
            quick = time.monotonic() - started < 5.0
            honest = result.outcome in (
                Outcome.SAT,
                Outcome.UNKNOWN,
                Outcome.TIMEOUT,
                Outcome.ERROR,
            )
            handled += quick and honest
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            tracebacks += 1
    orphans = len(running(r"sleep 78\d|yes (sat|warning)"))
    rows.append(("solvers", tried, handled, tracebacks, 0, 0, orphans))


def seeds() -> None:
    folder = Path(tempfile.mkdtemp())
    (folder / "huge.smt2").write_text("(declare-const x Int)\n" + "(assert (> x 0))\n" * 3_000_000)
    (folder / "latin1.smt2").write_bytes(b"(declare-const x Int)\n(assert (= x \xe9))\n")
    (folder / "unbalanced.smt2").write_text("(declare-const x Int)\n(assert (> x 0)\n")
    (folder / "empty.smt2").write_text("")
    tried = handled = tracebacks = 0
    for path in sorted(folder.iterdir()):
        tried += 1
        try:
            load_seed(path)
        except SeedError:
            handled += 1
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            tracebacks += 1
    rows.append(("seeds", tried, handled, tracebacks, 0, 0, 0))


def campaign() -> None:
    out = Path(tempfile.mkdtemp()) / "c"
    crasher = ROOT / "tests" / "fixtures" / "campaign" / "crash_on_marker.py"
    command = [
        sys.executable, "-c", "from sphinxfuzz.cli import main; main()", "fuzz",
        "--seeds", str(ROOT / "tests" / "fixtures" / "campaign" / "seeds"),
        "--solvers", f"z3;{crasher}", "--generators", str(ROOT / "tests" / "fixtures" / "generators"),
        "--time", "10m", "--seed", "3", "--out", str(out),
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    time.sleep(25)
    process.send_signal(signal.SIGTERM)
    started = time.monotonic()
    output = process.communicate(timeout=60)[0].decode()
    stopped_in = time.monotonic() - started
    announced = set(re.findall(r"-> bugs/(\S+)", output))
    stored = {p.name for p in (out / "bugs").iterdir()} if (out / "bugs").is_dir() else set()
    findings = (
        len(list((out / "seed-findings").iterdir())) if (out / "seed-findings").is_dir() else 0
    )
    tracebacks = output.count("Traceback")
    handled = int(process.returncode == 0 and stopped_in < 8 and not tracebacks)
    rows.append(("campaign (SIGTERM)", 1, handled, tracebacks, len(announced - stored), 0, 0))
    print(
        f"campaign: stopped {stopped_in:.1f} s after SIGTERM, {len(stored)} bug(s) and "
        f"{findings} seed finding(s) stored, {len(announced)} bug(s) announced"
    )


def main() -> None:
    generators()
    solvers()
    seeds()
    campaign()
    header = ("area", "tried", "handled", "tracebacks", "lost", "escapes", "orphans")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(v) for v in row) + " |")
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak memory: this process {own:.0f} MB, largest child {kids:.0f} MB")


if __name__ == "__main__":
    main()
