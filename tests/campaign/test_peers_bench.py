"""bench/peers.py reads yinyang's solver calls, as bench/yinyang_driver.py records them, into
mutants accepted, decided and settled (#28 compares settled mutants per second). The calls
are real ones, captured from yinyang 0.3.0 runs (the runs themselves take minutes: by hand,
docs/benchmarks.md)."""

from __future__ import annotations

import json
from pathlib import Path

from bench_helpers import load_bench

peers = load_bench("peers")
CALLS = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "yinyang" / "driver_calls.json").read_text()
)["calls"]


def test_a_time_out_an_unknown_and_a_mutant_cut_short_are_not_settled() -> None:
    # settled; z3 timed out (137), cvc5 answered; z3 said unknown; the last, one call of two
    assert peers.yinyang_mutants(CALLS, targets=2) == {
        "mutants": 4, "rejected": 0, "undecided": 2, "settled": 1
    }  # fmt: skip


def test_one_call_settles_a_mutant_when_there_is_one_target() -> None:
    assert peers.yinyang_mutants(CALLS[-1:], targets=1)["settled"] == 1
