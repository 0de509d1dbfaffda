"""Seeds by target, on real z3 and cvc5: a seed only cvc5 accepts serves cvc5 alone, under an
expected-answer strategy when the mix has one, else under a differential one judged on cvc5
alone (two cvc5 releases compare), and seeds every target accepts make the mutants they made
before."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from campaign_helpers import config_for

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.campaign.config import SeedCheck
from sphinxfuzz.campaign.config_text import read_strategies
from sphinxfuzz.campaign.strategy_bench import StrategyBench
from sphinxfuzz.mutate import load_seed

# `int.pow2` is cvc5's alone: z3 rejects it ("unknown constant")
CVC5_ONLY = """(set-info :status sat)
(set-logic ALL)
(declare-const x Int)
(declare-const y Int)
(assert (> x 2))
(assert (= (int.pow2 x) (+ y 8)))
(assert (< y 100))
(check-sat)
"""
EVERYONES = """(set-info :status sat)
(set-logic QF_LIA)
(declare-const x Int)
(declare-const y Int)
(assert (< x y))
(assert (> (+ x y) 3))
(check-sat)
"""
TARGETS = "z3;cvc5"


def _campaign(seeds: dict[str, str], folder: Path, strategies: str) -> Path:
    """A one-pass campaign over `seeds` (name -> text) with the sampled-label mix."""
    (folder / "seeds").mkdir(parents=True)
    for name, text in seeds.items():
        (folder / "seeds" / name).write_text(text)
    config = replace(
        config_for([folder / "seeds"], TARGETS, seed=7, per_seed=2),
        strategies=strategies,
        trusted="z3;cvc5",  # cvc5 labels what z3 rejects
        adapt_theories=False,
    )
    root = folder / "campaign"
    run_campaign(config, root, Budget())
    return root


def test_a_seed_one_family_rejects_serves_the_other_alone(tmp_path: Path) -> None:
    root = _campaign({"pow2.smt2": CVC5_ONLY}, tmp_path, "sphinx,sae")
    with Store(root) as store:
        status, detail = store.seed_status(str(tmp_path / "seeds" / "pow2.smt2")) or ("", "")
        stats = store.total_stats()
    assert status == "partial" and SeedCheck.from_detail(detail).serves == ("cvc5",)
    assert stats.seeds_partial == 1 and stats.seeds_used == 0 and stats.seeds_set_aside == 0
    [(cause, count)] = stats.partial_causes.items()
    assert cause.startswith("z3: ") and "unknown constant int.pow" in cause and count == 1
    # sphinx compares solvers: with cvc5 alone only the expected-answer strategy is drawn
    assert set(stats.strategies) == {"sae"} and stats.strategies["sae"].cases == 2
    # the mutants ran on cvc5 alone: z3 would have rejected every one
    assert stats.mutants == stats.accepted == 2 and not stats.rejections
    assert stats.bugs.total() == 0
    # status.json says so too, in its schema
    status = json.loads(CampaignFolder(root).status.read_text())
    schema = Path(__file__).parents[2] / "sphinxfuzz" / "schemas" / "status.schema.json"
    jsonschema.validate(status, json.loads(schema.read_text()))
    seeds = status["seeds"]
    assert (seeds["used"], seeds["partial"], seeds["set_aside"], seeds["done"]) == (0, 1, 0, 1)
    assert seeds["partial_causes"] == {cause: 1}


@pytest.mark.skipif(not shutil.which("/usr/bin/cvc5"), reason="needs a second cvc5 release")
def test_two_releases_that_accept_a_seed_are_compared(tmp_path: Path) -> None:
    """Debian's cvc5 1.0.3 takes `int.pow2` too: the seed is a differential of two releases."""
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "pow2.smt2").write_text(CVC5_ONLY)
    config = replace(
        config_for([tmp_path / "seeds"], "z3;cvc5;/usr/bin/cvc5", seed=7, per_seed=2),
        strategies="opfuzz",  # compares solvers
    )
    stats = run_campaign(config, tmp_path / "campaign", Budget())
    with Store(tmp_path / "campaign") as store:
        [(status, detail)] = store.seed_statuses().values()
    assert status == "partial" and SeedCheck.from_detail(detail).serves == ("cvc5", "cvc5#2")
    assert stats.seeds_partial == 1 and stats.strategies["opfuzz"].cases == 2
    assert stats.mutants == 2 and not stats.rejections  # z3 ran none of them


def test_seeds_every_target_accepts_make_the_same_mutants(tmp_path: Path) -> None:
    """The partial seed's position draws nothing the full seed's position depends on: its
    mutants are those of a campaign where that file is unusable."""
    logs = []
    for name, other in (("with", CVC5_ONLY), ("without", "(assert (> x\n")):
        seeds = {"everyone.smt2": EVERYONES, "pow2.smt2": other}
        root = _campaign(seeds, tmp_path / name, "sphinx,sae")
        with Store(root) as store:
            logs.append(store.mutant_log())
            statuses = store.seed_status_counts()
        assert statuses.get("ok") == 1
    with_partial, without = logs
    full_positions = {position for position, _, _ in without}
    assert without and [row for row in with_partial if row[0] in full_positions] == without
    assert any(row[0] not in full_positions for row in with_partial)  # the partial seed's


def test_one_target_alone_prefers_expected_answer_strategies(tmp_path: Path) -> None:
    path = tmp_path / "everyone.smt2"
    path.write_text(EVERYONES)
    bench = StrategyBench(read_strategies("sphinx,strings"), [])
    seed = load_seed(path)
    assert set(bench.applicable(seed, 0)) == {"sphinx", "strings"}
    assert bench.applicable(seed, 0, compares=False) == ["strings"]
    # without one that carries its answer, the differential strategies serve the seed
    alone = StrategyBench(read_strategies("sphinx,opfuzz"), [])
    assert alone.applicable(seed, 0, compares=False) == ["sphinx", "opfuzz"]


def test_a_differential_strategy_runs_a_seed_one_family_accepts_on_it_alone(
    tmp_path: Path,
) -> None:
    """The default strategy (sphinx, differential) with z3 and cvc5: the cvc5-only seed's
    mutants run on cvc5 alone, each sat one's model checked by cvc5 (z3 rejects the theory),
    and a normal run stores no verdict."""
    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "pow2.smt2").write_text(CVC5_ONLY)
    config = config_for([tmp_path / "seeds"], TARGETS, seed=7, per_seed=4)
    root = tmp_path / "campaign"
    stats = run_campaign(config, root, Budget())
    assert stats.seeds_partial == 1 and stats.seeds_used == 0 and stats.seeds_set_aside == 0
    assert not any("no strategy applies" in cause for cause in stats.set_aside_causes)
    assert set(stats.strategies) == {"sphinx"} and stats.strategies["sphinx"].cases > 0
    assert stats.mutants == stats.strategies["sphinx"].cases
    # z3 ran none of the mutants: it would have rejected every one
    assert stats.accepted == stats.mutants and not stats.rejections
    with Store(root) as store:
        logged = store.mutant_log()
        assert store.bugs() == []
    assert len(logged) == stats.mutants
    assert stats.bugs.total() == 0 and stats.unconfirmed == 0


def test_which_targets_a_seed_serves_is_stored_and_old_details_serve_all() -> None:
    check = SeedCheck(0.5, serves=("cvc5", "cvc5@1.1.2"))
    assert SeedCheck.from_detail(check.to_detail()) == check
    assert SeedCheck.from_detail(SeedCheck(0.5).to_detail()).serves is None
    assert SeedCheck.from_detail("slowest solver 0.250 s").serves is None
