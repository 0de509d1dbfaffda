"""A case's targets run at the same time (`SolverCalls.run_together`): the solver time counted
is the wall time some solver ran, and a stop arriving meanwhile ends every call unjudged."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from campaign_helpers import SEEDS, config_for

from sphinxfuzz.bugs.stats import Stats
from sphinxfuzz.campaign.calls import SolverCalls, Stopped, covered
from sphinxfuzz.solvers import Answer, parse_specs, reaper
from sphinxfuzz.solvers.persistent import SCRIPTS_PER_PROCESS


def _pigeons(holes: int) -> str:
    """holes + 1 pigeons in `holes` holes: unsat, and exponentially harder for resolution."""
    pigeons = range(holes + 1)
    lines = [f"(declare-const p{i}_{j} Bool)" for i in pigeons for j in range(holes)]
    lines += [f"(assert (or {' '.join(f'p{i}_{j}' for j in range(holes))}))" for i in pigeons]
    lines += [
        f"(assert (not (and p{a}_{j} p{b}_{j})))"
        for j in range(holes)
        for a in pigeons
        for b in pigeons
        if a < b
    ]
    return "\n".join([*lines, "(check-sat)"]) + "\n"


def _calls(tmp_path: Path, stopping: threading.Event | None = None) -> SolverCalls:
    config = config_for([SEEDS], "z3;cvc5", timeout=60)
    return SolverCalls(
        config, parse_specs("z3;cvc5"), Stats(), tmp_path, persistent=SCRIPTS_PER_PROCESS, deadline=None,
        stopping=(lambda: False) if stopping is None else stopping.is_set, say=lambda _: None,
    )  # fmt: skip


def test_covered_counts_overlapping_spans_once() -> None:
    assert covered([]) == 0.0
    assert covered([(1.0, 3.0)]) == 2.0
    assert covered([(0.0, 2.0), (1.0, 3.0)]) == 3.0  # overlapping: 0..3
    assert covered([(5.0, 6.0), (0.0, 1.0)]) == 2.0  # apart, in any order
    assert covered([(0.0, 4.0), (1.0, 2.0), (3.0, 5.0)]) == 5.0  # one inside another
    assert covered([(0.0, 1.0), (1.0, 2.0)]) == 2.0  # touching


def test_targets_run_at_once_and_count_the_time_some_solver_ran(tmp_path: Path) -> None:
    calls = _calls(tmp_path)
    try:
        results = calls.run_together(calls.specs, _pigeons(8))
    finally:
        calls.close()
    assert [r.spec.name for r in results] == ["z3", "cvc5"]  # in the specs' order
    assert all(r.answers == [Answer.UNSAT] for r in results)
    assert calls.stats.solver_calls == 2
    # one after the other the spans would not overlap, and the time would be their sum
    seconds = [r.elapsed for r in results]
    assert max(seconds) <= calls.stats.solver_time < sum(seconds)


def test_a_stop_while_targets_run_together_ends_them_and_judges_nothing(tmp_path: Path) -> None:
    stop = threading.Event()
    calls = _calls(tmp_path, stop)
    reaper.cancel_when(stop.is_set)  # as a campaign's worker does
    timer = threading.Timer(1.0, stop.set)
    timer.start()
    started = time.monotonic()
    try:
        with pytest.raises(Stopped):
            calls.run_together(calls.specs, _pigeons(12))  # minutes for either solver
    finally:
        reaper.cancel_when(None)
        timer.cancel()
        calls.close()
    assert time.monotonic() - started < 10
    assert calls.stats.solver_calls == 0 and calls.stats.solver_time == 0.0


def test_a_solver_run_while_a_case_runs_is_counted_once_with_its_calls(tmp_path: Path) -> None:
    # a strategy's capability probe reports its span (`busy`): while a case's calls run it
    # joins their union, else it is solver time of its own
    calls = _calls(tmp_path)
    try:
        calls.busy(10.0, 12.5)
        assert calls.stats.solver_time == 2.5
        before = time.perf_counter()
        running = calls.start(calls.specs, _pigeons(6))
        calls.busy(before, before + 1000.0)  # spans every call of the case
        results = calls.finish(running)
    finally:
        calls.close()
    assert [r.answers for r in results] == [[Answer.UNSAT], [Answer.UNSAT]]
    assert calls.stats.solver_calls == 2
    assert calls.stats.solver_time == pytest.approx(2.5 + 1000.0)  # not 1000 + the calls'
