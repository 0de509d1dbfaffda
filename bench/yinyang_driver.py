"""Run one yinyang tool (opfuzz or typefuzz) for a fixed time and measure it from inside.

    <yinyang venv>/bin/python bench/yinyang_driver.py TOOL SECONDS RESULT.json [SEED] -- ARGS...

Started by bench/peers.py with the interpreter of yinyang's own environment. yinyang is run
unchanged, as its console script would run it; the driver only wraps its solver call
(`Solver.solve`) to time every call and keep what the solver printed, and stops the run
with SIGALRM. yinyang draws its seeds with the module-level `random`, unseeded; SEED seeds it
so that a run picks the same seeds again. Timing from inside the process adds no process per
call, unlike a wrapper script on the solver command line. Standard library and yinyang only.
"""

from __future__ import annotations

import json
import os
import random
import re
import runpy
import signal
import sys
import time


class TimeUp(BaseException):
    """Raised by SIGALRM; a BaseException so yinyang's `except Exception` lets it through."""


def main() -> int:
    tool, seconds, result_path = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    split = sys.argv.index("--")
    args = sys.argv[split + 1 :]
    if split > 4:  # the seed order is the one thing yinyang leaves to chance
        random.seed(int(sys.argv[4]))
    from yinyang.src.core import Fuzzer as fuzzer_module
    from yinyang.src.core import Solver as solver_module
    from yinyang.src.core.FuzzerUtil import in_crash_list, in_ignore_list

    calls: list[dict[str, object]] = []
    fuzzers: list[object] = []
    original_solve = solver_module.Solver.solve
    original_init = fuzzer_module.Fuzzer.__init__

    def timed_solve(self, file, timeout, debug=False):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        stdout, stderr, exitcode = original_solve(self, file, timeout, debug)
        seconds = time.perf_counter() - started
        calls.append(
            {
                "file": file,
                "cli": self.cil,
                "seconds": seconds,
                "exitcode": exitcode,
                "ignored": bool(in_ignore_list(stdout, stderr)),
                # yinyang's own crash rule: its list, a segfault (-11 or 245 from a wrapper)
                "crashed": bool(in_crash_list(stdout, stderr)) or exitcode in (-11, 245),
                "answered": bool(re.search(r"^(sat|unsat|unknown)$", stdout, flags=re.MULTILINE)),
                # undecided as sphinxfuzz counts it: an `unknown` answer, or the limit reached
                # (yinyang's Solver.solve returns 137 when its own time limit struck)
                "undecided": bool(re.search(r"^unknown$", stdout, flags=re.MULTILINE))
                or exitcode == 137
                or seconds >= float(timeout),
            }
        )
        return stdout, stderr, exitcode

    def keep_fuzzer(self, *a, **k):  # type: ignore[no-untyped-def]
        fuzzers.append(self)
        original_init(self, *a, **k)

    solver_module.Solver.solve = timed_solve
    fuzzer_module.Fuzzer.__init__ = keep_fuzzer

    def time_up(signum, frame):  # type: ignore[no-untyped-def]
        raise TimeUp

    script = os.path.join(sys.prefix, "bin", tool)
    if not os.path.isfile(script):
        print(f"yinyang_driver: {tool} is not installed in {sys.prefix}", file=sys.stderr)
        return 2
    sys.argv = [script, *args]
    started = time.perf_counter()
    signal.signal(signal.SIGALRM, time_up)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    outcome = "time limit"
    try:
        runpy.run_path(script, run_name="__main__")
        outcome = "finished"
    except TimeUp:
        pass
    except SystemExit as exc:
        outcome = f"exit {exc.code}"
    wall = time.perf_counter() - started
    signal.setitimer(signal.ITIMER_REAL, 0)
    statistic = getattr(fuzzers[0], "statistic", None) if fuzzers else None
    counters = {
        name: getattr(statistic, name)
        for name in ("mutants", "solver_calls", "invalid_mutants", "crashes", "soundness",
                     "duplicates", "timeout", "total_seeds", "invalid_seeds")
    } if statistic is not None else {}  # fmt: skip
    with open(result_path, "w", encoding="utf-8") as handle:
        json.dump({"tool": tool, "wall": wall, "outcome": outcome, "calls": calls,
                   "statistic": counters}, handle)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
