"""Labels only from clean trusted runs, and doubt before blame (issue 25 items 1 and 2).

A fusion campaign with one real target (z3) and a stand-in trusted solver that mislabels
an unsat partner seed as sat (`mislabels.py`): fusing a sat seed with it gives an unsat
formula, which z3 rightly answers unsat against fusion's expected sat."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from campaign_helpers import FIXTURES, config_for

from sphinxfuzz.bugs import Store
from sphinxfuzz.campaign import Budget, run_campaign

MISLABELS = str(FIXTURES / "mislabels.py")
SAT_SEED = "(declare-const a Int)\n(declare-const b Int)\n(assert (> a (+ b 3)))\n(check-sat)\n"


def _unsat_seed(logic: str, status: bool) -> str:
    claim = "(set-info :status unsat)\n" if status else ""
    return (
        f"{claim}(set-logic {logic})\n(declare-const x Int)\n(declare-const y Int)\n"
        "(assert (> x (+ y 1)))\n(assert (< x y))\n(check-sat)\n"
    )


def _campaign(tmp_path: Path, partner: str) -> tuple[Path, object]:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "a_sat.smt2").write_text(SAT_SEED)
    (seeds / "b_partner.smt2").write_text(partner)
    config = replace(
        config_for(sorted(seeds.glob("*.smt2")), "z3", seed=3, per_seed=4),
        strategies="fusion",
        trusted=MISLABELS,
    )
    root = tmp_path / "c"
    return root, run_campaign(config, root, Budget())


def test_an_unsat_seed_whose_trusted_run_errs_then_says_sat_is_not_labelled(
    tmp_path: Path,
) -> None:
    """Today's false bug: the partner claims `:status unsat`, the trusted run prints an error
    line and then `sat`. Neither the unclean run nor the contradicted claim may label it."""
    root, stats = _campaign(tmp_path, _unsat_seed("QF_LIA", status=True))
    assert stats.strategies["fusion"].cases > 0  # the sat seed was fused (with itself)
    with Store(root) as store:
        assert store.bugs() == []
    assert not stats.doubts  # nothing mislabelled reached a case


def test_a_clean_but_wrong_label_is_a_construction_doubt_not_a_bug(tmp_path: Path) -> None:
    """A partner without a claim that the trusted solver cleanly (and wrongly) calls sat:
    its fusions are unsat, z3 says so, and the trusted solver on the fused formula itself
    agrees with z3, so the verdict is doubted, counted and kept in doubts/, never stored."""
    root, stats = _campaign(tmp_path, _unsat_seed("QF_NIA", status=False))
    with Store(root) as store:
        assert store.bugs() == []
        stored = store.total_stats()
    assert stats.doubts, stats
    (cause,) = stats.doubts
    assert cause == "fusion: soundness: trusted mislabels.py says unsat, expected sat"
    assert stored.doubts == stats.doubts  # the store keeps the counter for the summary
    kept = list((root / "doubts").glob("*.smt2"))
    assert len(kept) == 1 and kept[0].read_text().startswith(f"; {cause}\n")
