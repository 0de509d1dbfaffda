"""How many seeds a campaign would use, without fuzzing: each seed's check alone.

    python bench/seed_check.py [--seeds DIR] [--sample 200] [--seed 28] [--solvers "A;B"]
                               [--trusted "A;B"] [--seed-timeout 2]

`--seeds` defaults to ../shared/seeds/bug-triggers; `--sample N` draws a fixed sample of N
files with random.Random(--seed) (0: every file). Each seed is checked once as a campaign's
first pass would (`campaign.seedcheck.SeedChecker`: run unmutated by the targets and the
trusted solvers, tried again trimmed and upgraded when rejected), in a temporary campaign
folder. Printed: seeds used in full, in part and set aside, the causes of each, and the share
set aside for any cause but a time-out (issue #28's target: at most 3%). A minute or a few
for 200 seeds, against the many minutes of `bench/realworld.py`, which also fuzzes.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from peers import sampled_corpus
from realworld import NEWEST, _counts

from sphinxfuzz.bugs import Store
from sphinxfuzz.campaign import CampaignConfig
from sphinxfuzz.campaign.coordinator import prepare, validate
from sphinxfuzz.campaign.worker import Worker
from sphinxfuzz.generators.catalogue import default_generators_dir

REPO = Path(__file__).resolve().parents[1]
BUG_TRIGGERS = REPO.parent / "shared" / "seeds" / "bug-triggers"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=Path, default=BUG_TRIGGERS)
    parser.add_argument("--sample", type=int, default=200)
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--solvers", default=NEWEST)
    parser.add_argument("--trusted", default="z3;cvc5")
    parser.add_argument("--seed-timeout", type=float, default=2.0)
    args = parser.parse_args()
    with sampled_corpus(args.seeds, args.sample, args.seed, "sphinxfuzz-seedcheck-") as sample:
        work, count = sample
        config = CampaignConfig(
            reduce=False,  # the fuzzing alone, as measured before reductions
            seeds=(str(work / "seeds"),),
            solvers=args.solvers,
            generators=str(default_generators_dir()),
            campaign_seed=args.seed,
            seed_timeout=args.seed_timeout,
            trusted=args.trusted,
        )
        print(f"seeds   {count} of {args.seeds} (sample drawn with seed {args.seed})")
        print(
            f"solvers {args.solvers} (trusted {args.trusted}), seed timeout {args.seed_timeout} s"
        )
        root = work / "campaign"
        prepare(root, config, resume=False).close()
        campaign = validate(config)
        worker = Worker(campaign, root)
        started = time.monotonic()
        with worker.open_sink() as sink:
            for seed_file in campaign.seed_files:
                worker.seeds.usable(sink, seed_file)
        worker.calls.close()
        with Store(root) as store:
            statuses = store.seed_status_counts()
        print(f"wall time {time.monotonic() - started:.0f} s\n")
        stats = worker.stats
        seeds = sum(statuses.values())
        print(
            f"seeds checked {seeds}: {', '.join(f'{k} {v}' for k, v in sorted(statuses.items()))}"
        )
        _counts("used in part, by cause (a target that rejects it)", stats.partial_causes, seeds)
        causes = dict(stats.set_aside_causes)
        _counts("set aside, by cause", causes, seeds, limit=40)
        not_timeout = sum(n for cause, n in causes.items() if cause != "time-out")
        share = not_timeout / seeds if seeds else 0.0
        print(f"set aside, not a time-out  {not_timeout} ({share:.1%}; target <= 3%)")
        print(f"set aside, time-out        {causes.get('time-out', 0)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
