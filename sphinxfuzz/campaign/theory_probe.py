"""Which theories the target solvers take: a few sampled terms per theory, checked once at
the start of a run, weigh how often each theory is drawn.

Old releases lack newer operators and one solver lacks whole theories; a mutant one solver
rejects tests only its parser. The probe depends on nothing but the campaign seed, the
generators and the solvers, so the same campaign draws the same mutants every time.

A term of the probe is `generate(Random(s))` for its own seed s, exactly the term
`sphinxfuzz generators validate THEORY -n 1 --seed s` samples, and it is checked the same way
(`check_terms`): given the campaign's solvers (`--solvers`, same options), validation judges
the same term alike. The first rejection names that seed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from sphinxfuzz.campaign.rngs import rng_for
from sphinxfuzz.generators.pool import GeneratorFailure, GeneratorPool
from sphinxfuzz.generators.solver_check import check_terms
from sphinxfuzz.solvers.spec import SolverSpec

PROBE_TERMS = 20  # per theory: enough to see an operator that is missing in one term in ten


@dataclass
class Probe:
    """The share of each theory's sampled terms that every solver accepted."""

    accepted: dict[str, float] = field(default_factory=dict)
    # theory -> "solver, term seed S: error" (S reproduces it with `generators validate`)
    first_error: dict[str, str] = field(default_factory=dict)
    # Time inside check_terms (solver processes, mostly). Its calls are not counted: a batch
    # with a rejected term is split and re-run, and check_terms does not say how often.
    solver_seconds: float = 0.0

    def weights(self) -> dict[str, float] | None:
        """Draw weights for `mutate`: a theory no term of which passed is never drawn (None
        when no theory passed: then every theory is drawn evenly)."""
        return dict(self.accepted) if any(self.accepted.values()) else None


def probe_theories(
    pool: GeneratorPool,
    specs: Sequence[SolverSpec],
    campaign_seed: int,
    *,
    terms: int = PROBE_TERMS,
    timeout: float = 10.0,
) -> Probe:
    rng = rng_for(campaign_seed, "probe")
    probe = Probe()
    for theory in sorted(pool.theories):
        samples: list[tuple[str, str]] = []
        seeds: list[int] = []
        for _ in range(terms):
            seed = rng.getrandbits(32)
            try:
                samples.append(pool.generate(theory, seed))
                seeds.append(seed)
            except GeneratorFailure:
                pass  # a failing call counts as a rejected term
        started = time.monotonic()
        verdicts = check_terms(samples, specs, timeout=timeout) if samples else []
        probe.solver_seconds += time.monotonic() - started
        passed = [v for v in verdicts if not v.errors]
        probe.accepted[theory] = len(passed) / terms
        failed = next((i for i, v in enumerate(verdicts) if v.errors), None)
        if failed is not None:
            name, error = next(iter(verdicts[failed].errors.items()))
            probe.first_error[theory] = f"{name}, term seed {seeds[failed]}: {error}"
    return probe
