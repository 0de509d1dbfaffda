"""A campaign stores no false crash (issue 51): a seed whose model names a variable `Aborted`
and echoes a crash message, and a seed the target's own options refuse (cvc5 1.4.2 under
--no-uf-ho-exp on a higher-order logic, exit 1), on the real z3 and cvc5."""

from __future__ import annotations

from pathlib import Path

from campaign_helpers import config_for

from sphinxfuzz.bugs import Store
from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.campaign.seedcheck import SEED_OK, SEED_PARTIAL

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
