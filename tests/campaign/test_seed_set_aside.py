"""Why the seed check sets a seed aside, on real z3 and cvc5: a seed the solvers reject as
written, whose declared form they read but cannot answer in time, is set aside for that
time-out (the seed is usable in syntax: only its hardness keeps it out)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from campaign_helpers import config_for

from sphinxfuzz.bugs import Store
from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.smtlib.infer import READ_DEPTH

# x, y and z are left undeclared (Ints: they are summed and compared with 33); three cubes
# that sum to 33 exist, but are sixteen digits long: no solver finds them in a second
CUBES = "(assert (= (+ (* x x x) (* y y y) (* z z z)) 33))\n(check-sat)\n"


def test_a_declared_form_that_times_out_is_set_aside_for_the_time_out(tmp_path: Path) -> None:
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "cubes.smt2").write_text(CUBES)
    config = replace(
        config_for([tmp_path / "seeds"], "z3;cvc5", per_seed=1),
        seed_timeout=1.0,
        trusted="z3;cvc5",
    )
    stats = run_campaign(config, tmp_path / "campaign", Budget())
    with Store(tmp_path / "campaign") as store:
        [(status, detail)] = store.seed_statuses().values()
    assert status == "set-aside" and "timeout" in detail
    assert stats.set_aside_causes == {"time-out": 1}


def test_a_seed_nested_too_deeply_to_read_is_set_aside_once_saying_so(tmp_path: Path) -> None:
    # z3 and cvc5 answer it; the typing walk of a mutant's atoms cannot read that deep
    depth = 20_000
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "deep.smt2").write_text(
        f"(declare-const p Bool)\n(assert {'(not ' * depth}p{')' * depth})\n(check-sat)\n"
    )
    messages: list[str] = []
    config = config_for([tmp_path / "seeds"], "z3;cvc5", per_seed=1)
    stats = run_campaign(config, tmp_path / "campaign", Budget(), on_message=messages.append)
    with Store(tmp_path / "campaign") as store:
        [(status, detail)] = store.seed_statuses().values()
    why = f"terms nested 20,000 deep, too deeply to read (the limit is about {READ_DEPTH:,} levels)"
    assert status == "set-aside" and detail.endswith(why)
    assert any(why in message for message in messages)
    assert (stats.seeds_used, stats.seeds_partial, stats.seeds_set_aside) == (0, 0, 1)
    assert stats.set_aside_causes == {"nested too deeply": 1}
