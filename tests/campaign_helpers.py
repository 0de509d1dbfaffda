"""Paths and helpers shared by the campaign tests (real solvers, stand-ins around z3)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from sphinxfuzz.campaign import Budget, CampaignConfig, run_campaign

TESTS = Path(__file__).resolve().parent
FIXTURES = TESTS / "fixtures" / "campaign"
SEEDS = FIXTURES / "seeds"
GENERATORS = TESTS / "fixtures" / "generators"
CRASHER = str(FIXTURES / "crash_on_marker.py")
LIAR_UNSAT = str(FIXTURES / "liar_unsat.py")
LIAR_SAT = str(FIXTURES / "liar_sat.py")
# killed by SIGSEGV without a word, where depends on the formula's `{site}`: run through the
# interpreter's binary so gdb can start it
SEGFAULTER = f"{sys.executable} {FIXTURES / 'segfault_on_marker.py'}"
SEGV_SEED = """(declare-const segv_marker Int)
(declare-const {site} Int)
(declare-const x Int)
(assert (> x segv_marker))
(assert (or (= {site} (+ x 1)) (< x 3)))
(check-sat)
"""


def config_for(
    seeds: list[Path],
    solvers: str,
    *,
    seed: int = 1,
    per_seed: int = 3,
    timeout: float = 5.0,
    fast_factor: int = 1,  # exact mutant counts unless a test is about fast seeds
    timeout_factor: float = 0.0,  # the given timeout unless a test is about calibration
    options: str = "none",  # the targets as named unless a test is about solver options
    reduce: bool = False,  # no ddSMT after the fuzzing unless a test is about it
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
        options=options,
        reduce=reduce,
    )


def campaign_on_seeds(
    base: Path, seeds: dict[str, str], solvers: str, *, seed: int, newest: str
) -> Path:
    """A finished two-mutants-a-seed campaign in `base`/c over the seed texts `seeds` (by file
    stem), with `newest` as the newest release that `bugs` commands compare with."""
    folder = base / "seeds"
    folder.mkdir()
    for stem, text in seeds.items():
        (folder / f"{stem}.smt2").write_text(text)
    root = base / "c"
    config = replace(config_for([folder], solvers, seed=seed, per_seed=2), newest=newest)
    run_campaign(config, root, Budget())
    return root
