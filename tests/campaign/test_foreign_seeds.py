"""Seeds from other tools' regression suites, run by real z3 and cvc5: annotations never
become bugs, and commands only their own tool reads do not cost the seed."""

from __future__ import annotations

from pathlib import Path

from campaign_helpers import config_for

from sphinxfuzz.bugs import Store
from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.campaign.config import SeedCheck
from sphinxfuzz.mutate import load_seed
from sphinxfuzz.mutate.trim import trimmed

# bitwuzla style: its own option and interpolation syntax, which cvc5 rejects
BITWUZLA = """(set-info :status sat)
(set-option :bv-solver prop)
(set-logic QF_BV)
(declare-const a (_ BitVec 8))
(declare-const b (_ BitVec 8))
(assert (! (bvult a b) :named a1))
(assert (! (= (bvadd a #x01) b) :named a2))
(check-sat)
(get-interpolant (a1 a2))
"""
# unsat as annotated; most mutants are sat: the annotation would abort cvc5 on each
ANNOTATED = """(set-info :status unsat)
(set-logic QF_LIA)
(declare-const x Int)
(declare-const y Int)
(assert (and (< x y) (< y x)))
(check-sat)
"""


def test_trimmed_seed_keeps_what_is_asserted(tmp_path: Path) -> None:
    path = tmp_path / "bw.smt2"
    path.write_text(BITWUZLA)
    seed = trimmed(load_seed(path))
    assert seed is not None
    assert ":bv-solver" not in seed.text and "get-interpolant" not in seed.text
    assert seed.text.count("(assert") == 2 and "(check-sat)" in seed.text


def test_foreign_and_annotated_seeds_in_a_campaign(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "bw.smt2").write_text(BITWUZLA)
    (seeds / "annotated.smt2").write_text(ANNOTATED)
    root = tmp_path / "campaign"
    config = config_for([seeds], "z3 model_validate=true;cvc5 --check-models", per_seed=4)
    stats = run_campaign(config, root, Budget())
    with Store(root) as store:
        statuses = {Path(f).name: store.seed_status(str(f)) for f in sorted(seeds.iterdir())}
        bugs = store.bugs()
    assert statuses["bw.smt2"][0] == "ok" and SeedCheck.from_detail(statuses["bw.smt2"][1]).trimmed
    assert statuses["annotated.smt2"][0] == "ok"
    assert stats.mutants == 8 and stats.accepted == 8
    assert bugs == [] and stats.bugs.total() == 0
