"""Ray with 2 actors against `--jobs 2`: mutants per second of each, measured in one run.

    python bench/ray_scaling.py [SECONDS]

Runs the same campaign (bug-trigger seeds, z3 and cvc5, same campaign seed) twice for
SECONDS each: with two local worker processes, then as two actors on a Ray cluster started
here beforehand (its start is not counted; connecting to it is). Prints both rates and
their ratio (target: Ray at least 90% of `--jobs 2`).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from sphinxfuzz.campaign import Budget, CampaignConfig, run_campaign
from sphinxfuzz.generators.catalogue import default_generators_dir

REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO.parent / "shared" / "seeds" / "bug-triggers"
SOLVERS = "z3 model_validate=true;cvc5 --check-models"


def rate(config: CampaignConfig, seconds: float, ray: str | None) -> float:
    with tempfile.TemporaryDirectory(prefix="sphinxfuzz-bench-") as folder:
        started = time.monotonic()
        stats = run_campaign(config, Path(folder) / "c", Budget(seconds=seconds), jobs=2, ray=ray)
        return stats.mutants / (time.monotonic() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seconds", nargs="?", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    if not SEEDS.is_dir():
        print(f"skipped: seed corpus {SEEDS} is absent (see ../shared/seeds/README.md)")
        return 0
    from ray.cluster_utils import Cluster

    config = CampaignConfig(
        reduce=False,  # the fuzzing alone, as measured before reductions
        seeds=(str(SEEDS),),
        solvers=SOLVERS,
        generators=str(default_generators_dir()),
        campaign_seed=args.seed,
    )
    local = rate(config, args.seconds, None)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 2})
    try:
        on_ray = rate(config, args.seconds, str(cluster.address))
    finally:
        cluster.shutdown()
    print(f"--jobs 2          {local:.2f} mutants/s")
    print(f"--ray, 2 actors   {on_ray:.2f} mutants/s")
    print(f"ratio             {on_ray / local:.0%} (target >= 90%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
