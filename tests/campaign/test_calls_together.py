"""A case's targets run at the same time, each on a lane of its own (`SolverCalls.start`): the
solver time counted is the wall time some solver ran, a lane runs what it is given in turn
whatever the other lanes do, and a stop arriving meanwhile ends every call unjudged."""

from __future__ import annotations

import threading
import time
from concurrent.futures import wait
from pathlib import Path

import pytest
from campaign_helpers import SEEDS, config_for

from sphinxfuzz.bugs.stats import Stats
from sphinxfuzz.campaign.solver_calls import SolverCalls, SolverClock, Stopped
from sphinxfuzz.solvers import Answer, Outcome, parse_specs, reaper
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


def test_the_clock_counts_overlapping_spans_once_in_any_order() -> None:
    clock = SolverClock()
    assert clock.add([]) == 0.0
    assert clock.add([(1.0, 3.0)]) == 2.0
    assert clock.add([(0.0, 2.0), (2.5, 4.0)]) == 2.0  # 0..1 and 3..4 are new
    assert clock.add([(10.0, 11.0)]) == 1.0  # apart
    assert clock.add([(5.0, 6.0)]) == 1.0  # told later, ran earlier: a slower lane's
    assert clock.add([(0.5, 10.5)]) == 5.0  # 4..5 and 6..10 are new
    assert clock.add([(0.0, 1.0), (1.0, 2.0)]) == 0.0  # all counted already


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


def test_a_lane_runs_on_while_another_target_is_busy(tmp_path: Path) -> None:
    # z3's lane is busy with a hard case; cvc5's lane answers two cases meanwhile, and a case
    # given to z3's lane after the hard one waits its turn there
    calls = _calls(tmp_path)
    z3, cvc5 = calls.specs
    try:
        hard = calls.start([z3], _pigeons(9))
        easy = calls.start([z3, cvc5], _pigeons(2))
        alone = calls.start([cvc5], _pigeons(3))
        assert [r.answers for r in calls.finish(alone)] == [[Answer.UNSAT]]
        assert not hard.calls[0].done() and easy.calls[1].done() and not easy.calls[0].done()
        assert [r.answers for r in calls.finish(hard)] == [[Answer.UNSAT]]
        assert [r.answers for r in calls.finish(easy)] == [[Answer.UNSAT], [Answer.UNSAT]]
    finally:
        calls.close()
    assert calls.stats.solver_calls == 4


def test_an_abandoned_case_that_no_lane_took_up_never_runs(tmp_path: Path) -> None:
    calls = _calls(tmp_path)
    z3, _ = calls.specs
    try:
        hard = calls.start([z3], _pigeons(9))
        queued = calls.start([z3], _pigeons(2))
        calls.abandon(queued)  # cancelled behind the hard case: returns before it ends
        assert queued.calls[0].cancelled() and not hard.calls[0].done()
        calls.finish(hard)
    finally:
        calls.close()
    assert calls.stats.solver_calls == 1


def test_a_lane_passes_over_the_next_case_after_an_undecided_answer(tmp_path: Path) -> None:
    # started before the case before was judged: a lane that timed out on that one (the seed
    # may end there) runs the next case only when `finish` gives it again
    calls = _calls(tmp_path)
    try:
        slow = calls.start(calls.specs, _pigeons(10), timeout=0.5)
        after = calls.start(calls.specs, _pigeons(2), after=slow)
        assert [r.outcome for r in calls.finish(slow)] == [Outcome.TIMEOUT, Outcome.TIMEOUT]
        wait(after.calls)
        assert [call.result() for call in after.calls] == [None, None]  # passed over
        assert calls.stats.solver_calls == 2
        assert [r.answers for r in calls.finish(after)] == [[Answer.UNSAT], [Answer.UNSAT]]
        # a decided answer lets the lane go on at once
        first = calls.start(calls.specs, _pigeons(2))
        second = calls.start(calls.specs, _pigeons(3), after=first)
        calls.finish(first)
        wait(second.calls)
        assert all(call.result() is not None for call in second.calls)
        calls.finish(second)
    finally:
        calls.close()
    assert calls.stats.solver_calls == 8
