"""Paths and helpers shared by the campaign tests (real solvers, stand-ins around z3)."""

from __future__ import annotations

from pathlib import Path

from sphinxfuzz.campaign import CampaignConfig

TESTS = Path(__file__).resolve().parent
FIXTURES = TESTS / "fixtures" / "campaign"
SEEDS = FIXTURES / "seeds"
GENERATORS = TESTS / "fixtures" / "generators"
CRASHER = str(FIXTURES / "crash_on_marker.py")
LIAR_UNSAT = str(FIXTURES / "liar_unsat.py")
LIAR_SAT = str(FIXTURES / "liar_sat.py")


def config_for(
    seeds: list[Path],
    solvers: str,
    *,
    seed: int = 1,
    per_seed: int = 3,
    timeout: float = 5.0,
    fast_factor: int = 1,  # exact mutant counts unless a test is about fast seeds
    timeout_factor: float = 0.0,  # the given timeout unless a test is about calibration
) -> CampaignConfig:
    return CampaignConfig(
        seeds=tuple(str(s) for s in seeds),
        solvers=solvers,
        generators=str(GENERATORS),
        campaign_seed=seed,
        mutants_per_seed=per_seed,
        timeout=timeout,
        fast_seed_factor=fast_factor,
        timeout_factor=timeout_factor,
    )
