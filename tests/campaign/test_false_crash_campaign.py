"""A campaign stores no false crash (issue 51): a seed whose model names a variable `Aborted`
and echoes a crash message, and a seed the target's own options refuse (cvc5 1.4.2 under
--no-uf-ho-exp on a higher-order logic, exit 1), on the real z3 and cvc5."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from campaign_helpers import config_for

from sphinxfuzz.bugs import Store
from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.campaign.config_text import read_options
from sphinxfuzz.campaign.position_options import PositionOptions
from sphinxfuzz.campaign.seedcheck import SEED_OK, SEED_PARTIAL
from sphinxfuzz.solvers import parse_specs
from sphinxfuzz.solvers.options.declared import Declared, Kind
from sphinxfuzz.solvers.options.table import build_table, save_table

SEEDS = {
    "aborted.smt2": """(set-logic QF_LIA)
(set-option :produce-models true)
(echo "terminate called after throwing")
(declare-const Aborted Int)
(declare-const y Int)
(assert (> Aborted y))
(check-sat)
(get-model)
""",
    "higher_order.smt2": "(set-logic HO_UFIDL)\n(declare-const p Bool)\n(assert p)\n(check-sat)\n",
}


def test_words_of_a_model_and_a_refused_option_store_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "seeds"
    folder.mkdir()
    for name, text in SEEDS.items():
        (folder / name).write_text(text)
    config = config_for([folder], "z3;cvc5 --check-models --no-uf-ho-exp", per_seed=2)
    stats = run_campaign(config, tmp_path / "c", Budget())
    with Store(tmp_path / "c") as store:
        assert store.bugs() == [] and store.seed_findings() == []
        statuses = store.seed_statuses()
    assert stats.seed_findings == 0 and stats.bugs.total() == 0
    status = {Path(seed).name: found[0] for seed, found in statuses.items()}
    # cvc5 refused the higher-order seed under its option: z3 uses it alone
    assert status == {"aborted.smt2": SEED_OK, "higher_order.smt2": SEED_PARTIAL}
    assert stats.mutants > 0


def test_a_drawn_option_refusing_a_higher_order_seed_leaves_the_target_plain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The option drawn at a position (cvc5's table holds uf-ho-exp alone here) makes cvc5
    refuse the case, exit 1: a rejection, so the seed is run once on that command line,
    refused again, and cvc5 runs plainly for the rest of the position. No bug is stored."""
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    cvc5 = parse_specs("cvc5 --check-models")[0]
    save_table(cvc5, build_table(cvc5, declared=[Declared("uf-ho-exp", Kind.BOOL, "true")]))
    folder = tmp_path / "seeds"
    folder.mkdir()
    for k in range(3):
        (folder / f"h{k}.smt2").write_text(
            "(set-logic HO_UFIDL)\n(declare-const p Bool)\n(declare-const x Int)\n"
            f"(assert (or p (> x {k})))\n(check-sat)\n"
        )
    config = dataclasses.replace(
        config_for([folder], "z3;cvc5 --check-models", per_seed=3), options="random:1"
    )
    plan = PositionOptions.prepare(
        read_options("random:1"), parse_specs(config.solvers), config.campaign_seed
    )
    text = (folder / "h0.smt2").read_text()
    drawn = [plan.words(position, text)["cvc5"] for position in range(3)]
    assert drawn.count(("--no-uf-ho-exp",)) == 1, drawn
    stats = run_campaign(config, tmp_path / "c", Budget())
    assert dict(stats.options_refused) == {"cvc5 --no-uf-ho-exp": 1}
    assert stats.bugs.total() == 0 and stats.seed_findings == 0
