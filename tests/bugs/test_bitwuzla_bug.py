"""A real Bitwuzla bug, bisected and refreshed over its wheels: bitwuzla 0.9.0 and 0.9.1 answer
unsat to a satisfiable bit-vector formula (the shifts of bitwuzla's regression
preprocess/normalize24, with a model asked for), 0.10.0 answers sat. The old release is
installed on first use into the solver cache, as the z3 releases of the other tests are."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from campaign_helpers import config_for

from sphinxfuzz import api
from sphinxfuzz.bugs.record import FIXED, load_record
from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.solvers.families import Family
from sphinxfuzz.solvers.installs import install

FORMULA = """(set-option :produce-models true)
(declare-const v0 (_ BitVec 3))
(assert (= (_ bv0 3) (bvadd (bvshl (bvshl (_ bv7 3) v0) v0) (bvshl (_ bv7 3) v0))))
(check-sat)
(get-model)
"""


@pytest.fixture(scope="module")
def bitwuzla_0_9_0() -> None:
    install(Family.BITWUZLA, "0.9.0", say=lambda _: None, by="tests")


@pytest.mark.usefixtures("bitwuzla_0_9_0")
def test_a_soundness_bug_of_bitwuzla_0_9_is_stored_bisected_and_refreshed(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "shifts.smt2").write_text(FORMULA, encoding="utf-8")
    root = tmp_path / "campaign"
    # the unmutated seed shows it: a strategy without generated terms (none serve bitwuzla
    # among the test fixtures) is enough
    config = replace(config_for([seeds], "bitwuzla@0.9.0;z3", per_seed=1), strategies="histfuzz")
    run_campaign(config, root, Budget(mutants=1))
    [finding] = api.finding_folders(root)
    record = load_record(finding)
    assert record.verdict.kind == "soundness" and record.verdict.solver == "bitwuzla@0.9.0"
    bisection = api.bisect(
        root, finding.name, "bitwuzla", versions=["0.9.0"], say=lambda _: None, trust_folder=True
    )
    assert bisection.first_bad == "0.9.0" and bisection.solver == "bitwuzla"
    # the newest release, bitwuzla 0.10.0 (the built-in wheel), answers sat with a model
    [(folder, today)] = list(api.refresh(root, newest="bitwuzla;z3", trust_folder=True))
    assert folder == finding and not isinstance(today, str)
    assert today.status == FIXED and today.version == "0.10.0"
