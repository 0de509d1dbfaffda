"""Benchmark the fuzz loop on the bug-trigger seed corpus against z3 and cvc5.

    python bench/campaign.py [SECONDS] [--jobs N] [--generators DIR]

Prints mutants per second per job, the share of mutants every solver accepted (target at
least 95%), the share of worker time spent outside solver processes (target under 10%),
unknown and timeout shares, and bugs by kind. The campaign folder is a temporary one.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from sphinxfuzz.campaign import Budget, CampaignConfig, CampaignError, run_campaign

REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO.parent / "shared" / "seeds" / "bug-triggers"
SOLVERS = "z3 model_validate=true;cvc5 --check-models"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seconds", nargs="?", type=float, default=120.0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--generators", default=None, help="default: the shipped generators")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args()
    if not SEEDS.is_dir():
        print(f"skipped: seed corpus {SEEDS} is absent (see ../shared/seeds/README.md)")
        return 0
    if args.generators is None:
        from sphinxfuzz.generators.catalogue import default_generators_dir

        args.generators = str(default_generators_dir())
    config = CampaignConfig(
        reduce=False,  # the fuzzing alone, as measured before reductions
        seeds=(str(SEEDS),),
        solvers=SOLVERS,
        generators=args.generators,
        campaign_seed=args.seed,
        timeout=args.timeout,
    )
    with tempfile.TemporaryDirectory(prefix="sphinxfuzz-bench-") as folder:
        started = time.monotonic()
        try:
            stats = run_campaign(
                config, Path(folder) / "campaign", Budget(seconds=args.seconds), jobs=args.jobs
            )
        except CampaignError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        elapsed = time.monotonic() - started
    calls = max(stats.solver_calls, 1)
    print(
        f"wall time                 {elapsed:.1f} s, {args.jobs} job(s), generators {args.generators}"
    )
    print(
        f"mutants                   {stats.mutants} ({stats.mutants / elapsed / args.jobs:.2f}/s per job)"
    )
    print(
        f"seeds used/aside/bad/find {stats.seeds_used}/{stats.seeds_set_aside}/{stats.seeds_malformed}/{stats.seed_findings}"
    )
    print(f"accepted by every solver  {stats.acceptance:.1%} (target >= 95%)")
    print(f"time outside solvers      {stats.outside_share:.1%} (target < 10%)")
    print(f"unknown answers           {stats.unknowns / calls:.1%} of {stats.solver_calls} calls")
    print(f"timeouts                  {stats.timeouts / calls:.1%} of calls")
    print(f"rejected (error) answers  {stats.errors / calls:.1%} of calls")
    print(f"unconfirmed disagreements {stats.unconfirmed}")
    print(
        "bugs by kind              "
        + (", ".join(f"{k} {v}" for k, v in sorted(stats.bugs.items())) or "none")
    )
    print(
        "mutants per theory        "
        + ", ".join(f"{k} {v}" for k, v in sorted(stats.theories.items()))
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
