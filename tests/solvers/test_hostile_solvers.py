"""Solvers that hang, flood or leave processes behind are bounded (issue 14).

The fake solvers live in `tests/fixtures/hostile/solvers/`. Each test checks the time the
call took, what it was classified as, and that no process it started is left.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from sphinxfuzz.solvers import Outcome, parse_specs, reaper, run_solver, solver_version
from sphinxfuzz.solvers.persistent import PersistentSolver
from sphinxfuzz.solvers.reaper import OUTPUT_LIMIT, running
from sphinxfuzz.solvers.versions import _version_of

HOSTILE = Path(__file__).resolve().parents[1] / "fixtures" / "hostile" / "solvers"
SCRIPT = "(check-sat)\n"


def run(name: str, timeout: float = 5.0):  # type: ignore[no-untyped-def]
    spec = parse_specs(str(HOSTILE / name))[0]
    solver_version(spec)  # asked once per solver (bounded too, see below): not timed here
    started = time.monotonic()
    result = run_solver(spec, SCRIPT, timeout=timeout, memory_mb=512)
    return result, time.monotonic() - started


@pytest.mark.parametrize(
    ("name", "sleeps"),
    [("setsid_child.sh", "sleep 780"), ("setsid_env_cleared.sh", "sleep 781")],
)
def test_a_descendant_holding_stdout_neither_hangs_the_call_nor_survives_it(
    name: str, sleeps: str
) -> None:
    result, seconds = run(name, timeout=30)
    assert result.outcome == Outcome.SAT
    assert seconds < 3
    assert running(sleeps) == []


def test_a_process_another_thread_starts_during_a_run_is_not_taken_for_a_left_over() -> None:
    """A program running solvers in one thread and its own commands in another (a bench
    starting campaigns): the sweep after each solver call leaves those commands alone."""
    import subprocess
    import threading

    stop = threading.Event()
    codes: list[int] = []

    def own_commands() -> None:
        while not stop.is_set():
            codes.append(subprocess.run(["sh", "-c", "sleep 0.2; exit 7"]).returncode)

    other = threading.Thread(target=own_commands)
    other.start()
    try:
        outcomes = [run("setsid_env_cleared.sh", timeout=30)[0].outcome for _ in range(15)]
    finally:
        stop.set()
        other.join()
    assert outcomes == [Outcome.SAT] * 15
    # neither killed (-9) nor reaped behind subprocess's back (which then reads 0)
    assert len(codes) >= 2 and set(codes) == {7}
    assert running("sleep 781") == []


def test_a_hanging_solver_and_all_its_descendants_die_at_the_limit() -> None:
    result, seconds = run("hang_with_descendants.sh", timeout=1)
    assert result.outcome == Outcome.TIMEOUT
    assert seconds < 3
    assert [running(f"sleep {n}") for n in (782, 783, 784)] == [[], [], []]


def test_a_solver_that_closes_its_output_still_times_out() -> None:
    result, seconds = run("closes_output.sh", timeout=1)
    assert result.outcome == Outcome.TIMEOUT
    assert 0.9 < seconds < 3
    assert running("sleep 785") == []


@pytest.mark.parametrize("name", ["flood.sh", "flood_stderr.sh"])
def test_output_past_the_limit_is_cut_and_never_a_verdict(name: str) -> None:
    result, seconds = run(name, timeout=60)
    assert result.outcome == Outcome.UNKNOWN
    assert result.failure_line is not None and result.failure_line.startswith("output limit")
    assert len(result.stdout) <= OUTPUT_LIMIT and len(result.stderr) <= OUTPUT_LIMIT
    assert seconds < 20
    assert running(f"yes {'sat' if name == 'flood.sh' else 'warning'}") == []


def test_version_query_is_bounded_too() -> None:
    started = time.monotonic()
    assert _version_of((str(HOSTILE / "version_hang.sh"),)) == "1.0"
    assert time.monotonic() - started < 3
    assert running("sleep 786") == []


def test_persistent_process_caps_output_and_is_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reaper, "OUTPUT_LIMIT", 1_000_000)  # the same rule, a smaller limit
    spec = parse_specs("z3")[0]
    with PersistentSolver(spec) as solver:
        # z3 echoes 2 MB: past the limit, the process is killed and the answer not counted
        script = '(echo "' + "x" * 1_000_000 + '")\n'
        result = solver.run(script * 2 + "(check-sat)\n", timeout=60)
        assert result.outcome == Outcome.UNKNOWN
        assert result.failure_line is not None and result.failure_line.startswith("output limit")
        solver.settle()  # killed; its successor started ahead
        assert solver.primed and solver.starts == 2
        assert solver.run("(check-sat)\n", timeout=10).outcome == Outcome.SAT
        assert solver.starts == 2
