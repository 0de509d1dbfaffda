"""Fixtures every test folder may use."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# pytest runs with --import-mode=importlib: make the shared helpers importable by every test
sys.path.insert(0, str(Path(__file__).resolve().parent))

from campaign_helpers import CRASHER, LIAR_UNSAT, SEEDS, config_for  # noqa: E402

from sphinxfuzz.campaign import Budget, run_campaign  # noqa: E402
from sphinxfuzz.solvers.families import Family  # noqa: E402
from sphinxfuzz.solvers.installs import install  # noqa: E402


# Old releases with known bugs, installed from PyPI on first use into the solver cache (a
# lock lets parallel workers share one install): what these tests prove is that sphinxfuzz
# finds those bugs, so a machine without them installs them rather than skipping. Recorded
# as installed by the tests: `sphinxfuzz solvers` marks them as test fixtures (README).
@pytest.fixture(scope="session")
def z3_4_8_8() -> None:
    install(Family.Z3, "4.8.8", say=lambda _: None, by="tests")


@pytest.fixture(scope="session")
def z3_4_12_2() -> None:
    install(Family.Z3, "4.12.2", say=lambda _: None, by="tests")


@pytest.fixture(scope="session")
def crash_campaign(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """One campaign over every fixture seed with the crashing stand-in next to z3."""
    root = tmp_path_factory.mktemp("crash") / "campaign"
    messages: list[str] = []
    config = config_for([SEEDS], f"z3;{CRASHER}", per_seed=3)
    run_campaign(config, root, Budget(), on_message=messages.append)
    return root, messages


LIE_SEED = """(declare-const lie_marker Int)
(declare-const x Int)
(assert (> x lie_marker))
(assert (< lie_marker 100))
(check-sat)
"""


@pytest.fixture(scope="session")
def lie_campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A campaign whose mutants the lying stand-in calls unsat while z3 finds a model."""
    base = tmp_path_factory.mktemp("lie")
    seed = base / "lie.smt2"
    seed.write_text(LIE_SEED)
    root = base / "campaign"
    run_campaign(config_for([seed], f"z3;{LIAR_UNSAT}", seed=2, per_seed=6), root, Budget())
    return root
