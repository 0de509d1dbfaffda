"""The script ddSMT runs on each candidate asks the reducing process (`CheckServer`), which
judges it with the test it is given (`oracle.same_bug.passes`): exit codes as the check
says, checks at once kept apart, a killed script costing nothing, a check that raises
reported."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

import pytest
from campaign_helpers import CRASHER

from sphinxfuzz.bugs.check_server import CheckServer, CheckServerError
from sphinxfuzz.oracle import judge
from sphinxfuzz.oracle.dialect import for_family
from sphinxfuzz.oracle.same_bug import CheckSpec, passes
from sphinxfuzz.solvers import SolverResult, SolverSpec, parse_specs, run_solver

QUIET = """(set-option :produce-models true)
(declare-const x Int)
(assert (> x 3))
(check-sat)
(get-model)
"""
CRASH = QUIET.replace("x", "crash_marker")


def _run(spec: SolverSpec, text: str) -> SolverResult:
    return run_solver(spec, for_family(text, spec.family), timeout=10.0)


def _crash_spec() -> CheckSpec:
    specs = parse_specs(f"z3;{CRASHER}")
    [verdict] = judge(CRASH, [_run(s, CRASH) for s in specs], _run).verdicts
    return CheckSpec.for_verdict(verdict, [s.text for s in specs], timeout=10.0)


def _crash_test() -> Callable[[str], bool]:
    return partial(passes, _crash_spec())


def _candidates(tmp_path: Path) -> list[Path]:
    paths = []
    for k in range(6):
        path = tmp_path / f"candidate{k}.smt2"
        path.write_text(CRASH if k % 2 == 0 else QUIET)
        paths.append(path)
    return paths


def test_the_script_exits_as_the_check_says_for_checks_run_at_once(tmp_path: Path) -> None:
    candidates = _candidates(tmp_path)
    with CheckServer(_crash_test(), tmp_path) as server:
        with ThreadPoolExecutor(len(candidates)) as pool:  # as ddSMT -j runs them
            done = list(pool.map(
                lambda p: subprocess.run([str(server.script), str(p)], timeout=60), candidates
            ))  # fmt: skip
        assert [d.returncode for d in done] == [0, 1, 0, 1, 0, 1]
        assert not list((server.work / "answers").iterdir())  # every answer pipe removed
    server.raise_errors()


def test_a_killed_script_costs_nothing_and_the_server_goes_on(tmp_path: Path) -> None:
    real_test = _crash_test()

    def slow_test(text: str) -> bool:
        time.sleep(1.0)
        return real_test(text)

    crash, _ = _candidates(tmp_path)[:2]
    with CheckServer(slow_test, tmp_path) as server:
        waiting = subprocess.Popen([str(server.script), str(crash)])
        time.sleep(0.3)
        os.kill(waiting.pid, signal.SIGTERM)  # as ddSMT's time limit stops its checks
        assert waiting.wait(timeout=10) != 0
        time.sleep(1.5)  # the check of the killed script ends with nobody to answer
        again = subprocess.run([str(server.script), str(crash)], timeout=60)
        assert again.returncode == 0
        assert not list((server.work / "answers").iterdir())
    server.raise_errors()


def test_a_check_that_raises_is_reported_not_taken_for_an_answer(tmp_path: Path) -> None:
    def broken(text: str) -> bool:
        raise RuntimeError("a fault in the oracle")

    crash = _candidates(tmp_path)[0]
    with CheckServer(broken, tmp_path) as server:
        assert subprocess.run([str(server.script), str(crash)], timeout=60).returncode == 1
    with pytest.raises(CheckServerError, match="(?s)1 candidate check.*a fault in the oracle"):
        server.raise_errors()
