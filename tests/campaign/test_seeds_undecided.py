"""The seeds' own undecided share (#28: a campaign's mutants may be undecided at most 1.5
times as often as its seeds are): every seed the targets check unmutated is counted, and
those some target answered unknown to or timed out on, on real z3 and cvc5."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from campaign_helpers import config_for

from sphinxfuzz.campaign import Budget, run_campaign

DECIDED = "(declare-const x Int)\n(assert (> x 1))\n(check-sat)\n"
# cvc5 proves (f 3) = 3 by unfolding, but has no model for it: it answers unknown, z3 sat
UNKNOWN = (
    "(set-logic ALL)\n"
    "(define-fun-rec f ((n Int)) Int (ite (<= n 0) 0 (+ 1 (f (- n 1)))))\n"
    "(assert (= (f 3) 3))\n(check-sat)\n"
)
# three cubes that sum to 33 are sixteen digits long: no solver answers in a second
CUBES = (
    "(declare-const x Int)\n(declare-const y Int)\n(declare-const z Int)\n"
    "(assert (= (+ (* x x x) (* y y y) (* z z z)) 33))\n(check-sat)\n"
)


def test_seeds_a_target_leaves_undecided_are_counted(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    for name, text in (("decided", DECIDED), ("unknown", UNKNOWN), ("cubes", CUBES)):
        (seeds / f"{name}.smt2").write_text(text)
    config = replace(config_for([seeds], "z3;cvc5", per_seed=1), seed_timeout=1.0)
    stats = run_campaign(config, tmp_path / "campaign", Budget())
    # the cubes are set aside for their time-out, the recursive seed is used: both count
    assert stats.set_aside_causes == {"time-out": 1}
    assert (stats.seeds_checked, stats.seeds_undecided) == (3, 2)
    assert stats.seeds_undecided_share == 2 / 3
