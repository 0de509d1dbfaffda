"""The next case starts while a case's solvers still run (each target's lane takes it up when
done with this one), on real z3 and cvc5: a target that answered fast works on, the counting
and the judging cost no time outside the solvers, and the campaign makes the very mutants it
makes when every case starts only after the one before was judged."""

from __future__ import annotations

from pathlib import Path

import pytest
from campaign_helpers import config_for

from sphinxfuzz.bugs import Store
from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.campaign import case_tester as tester_module
from sphinxfuzz.campaign import solver_calls as calls_module

SEEDS = {
    "lia.smt2": """(set-logic QF_LIA)
(declare-const x Int)
(declare-const y Int)
(assert (< x y))
(assert (> (+ x y) 3))
(check-sat)
""",
    "lra.smt2": """(set-logic QF_LRA)
(declare-const a Real)
(declare-const b Real)
(assert (> (* 2.0 a) b))
(assert (or (< b 1.0) (= a b)))
(check-sat)
""",
}
# as the modules define them (`_run` wraps them, each run anew)
_START = calls_module.SolverCalls.start
_FINISH = calls_module.SolverCalls.finish
_JUDGE = tester_module.CaseTester._judge
_BEGIN = tester_module.CaseTester._start


def _run(folder: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[str, int, int]], list]:
    """The campaign's (event, position, case number) order and its mutant log."""
    (folder / "seeds").mkdir(parents=True)
    for name, text in SEEDS.items():
        (folder / "seeds" / name).write_text(text)
    events: list[tuple[str, int, int]] = []
    numbers: dict[int, tuple[int, int]] = {}  # id of a case's `Running` -> (position, number)

    def started(self, specs, script, *, timeout=None, after=None):  # type: ignore[no-untyped-def]
        events.append(("start", -1, -1))  # numbered by the case that follows in `_start`
        return _START(self, specs, script, timeout=timeout, after=after)

    def finished(self, running):  # type: ignore[no-untyped-def]
        results = _FINISH(self, running)
        events.append(("finish", *numbers.get(id(running), (-1, -1))))
        return results

    def judged(self, store, case, specs, results):  # type: ignore[no-untyped-def]
        events.append(("judge", case.origin.position, case.origin.mutant))
        return _JUDGE(self, store, case, specs, results)

    def numbered(self, made, at, number, *rest, **named):  # type: ignore[no-untyped-def]
        case = _BEGIN(self, made, at, number, *rest, **named)
        events[-1] = ("start", at.position, number)
        numbers[id(case.running)] = (at.position, number)
        return case

    monkeypatch.setattr(calls_module.SolverCalls, "start", started)
    monkeypatch.setattr(calls_module.SolverCalls, "finish", finished)
    monkeypatch.setattr(tester_module.CaseTester, "_judge", judged)
    monkeypatch.setattr(tester_module.CaseTester, "_start", numbered)
    config = config_for([folder / "seeds"], "z3;cvc5", seed=7, per_seed=6)
    run_campaign(config, folder / "campaign", Budget())
    with Store(folder / "campaign") as store:
        return events, store.mutant_log()


def test_the_next_case_starts_while_the_case_before_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events, log = _run(tmp_path / "overlapping", monkeypatch)
    tested = [(p, n) for kind, p, n in events if kind == "finish" and p >= 0]
    assert len(tested) == len(log) == 12 and tested == [(p, n) for p, n, _ in log]
    # every case tested was judged once, in order
    assert [(p, n) for kind, p, n in events if kind == "judge"] == tested
    # and the next case of a position started before the one before it finished
    order = {event: index for index, event in enumerate(events) if event[1] >= 0}
    overlapped = [
        (p, n)
        for p, n in tested
        if ("start", p, n + 1) in order and order[("start", p, n + 1)] < order[("finish", p, n)]
    ]
    assert len(overlapped) >= 8
    # the case started last, after its seed's budget ended, was abandoned: never finished
    started = [(p, n) for kind, p, n in events if kind == "start" and p >= 0]
    assert set(tested) <= set(started) and len(started) <= len(tested) + 2

    # started at its turn, after the case before was judged, every case: the same mutants
    monkeypatch.setattr(tester_module, "START_AHEAD", False)
    events_apart, log_apart = _run(tmp_path / "apart", monkeypatch)
    assert log_apart == log
    order = {event: index for index, event in enumerate(events_apart) if event[1] >= 0}
    assert all(
        order[("judge", p, n)] < order[("start", p, n + 1)]
        for p, n in tested
        if ("start", p, n + 1) in order
    )
