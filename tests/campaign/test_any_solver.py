"""Any solver runs (issue 55): a program of no known family, or one named like a family whose
options cannot be listed, runs without drawn options beside targets that draw theirs, and the
campaign says so once."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from campaign_helpers import SEEDS, TESTS, config_for

from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.campaign.config_text import read_options
from sphinxfuzz.campaign.position_options import PositionOptions
from sphinxfuzz.solvers import Family, Outcome, parse_specs, run_solver

WRAPPER = TESTS / "fixtures" / "hostile" / "solvers" / "cvc5-dev"


@pytest.fixture
def wrapper_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPHINXFUZZ_TEST_PYTHON", sys.executable)  # the one with cvc5


@pytest.mark.usefixtures("wrapper_python")
def test_the_cvc5_dev_wrapper_runs_as_given_beside_z3_s_drawn_options() -> None:
    z3, wrapper = parse_specs(f"z3 model_validate=true;{WRAPPER}")
    assert wrapper.family is Family.CVC5 and wrapper.guessed and not z3.guessed
    assert run_solver(wrapper, "(check-sat)\n", timeout=30).outcome == Outcome.SAT
    said: list[str] = []
    options = PositionOptions.prepare(read_options("random"), [z3, wrapper], 7, said.append)
    assert [line for line in said if "no option table" in line] == [
        f"no option table for {WRAPPER} ({WRAPPER}: its help text lists no options; cvc5-dev "
        "was taken for cvc5 by its file name): it runs as given"
    ]
    drawn = [options.words(position) for position in range(12)]
    assert any(words[z3.name] for words in drawn)  # z3 draws from its table
    assert all(words[wrapper.name] == () for words in drawn)


@pytest.mark.usefixtures("wrapper_python")
def test_a_campaign_with_the_wrapper_runs_to_its_end_and_says_so_once(tmp_path: Path) -> None:
    config = config_for(
        [SEEDS / "plain.smt2"], f"z3 model_validate=true;{WRAPPER}", per_seed=2, options="random"
    )
    messages: list[str] = []
    stats = run_campaign(config, tmp_path / "c", Budget(mutants=2), on_message=messages.append)
    assert stats.mutants == 2
    assert sum("no option table for" in str(m) for m in messages) == 1, messages
