"""Seeds nobody here wrote: a campaign over public regression suites, and whether its bugs
are real.

    python bench/realworld.py [--seeds DIR] [--sample 300] [--solvers "A;B"] [--time 600]
                              [--timeout 10] [--seed-timeout 2] [--jobs 1] [--seed 13]
                              [--strategies MIX] [--trusted "A;B"] [--mutants-per-seed N]

`--seeds` defaults to ../shared/seeds/regressions (bitwuzla's and yices2's regression
suites, most with `:status`); `--sample N` draws a fixed sample of N files with
random.Random(--seed) (0: every file). `--solvers` defaults to the newest wheels (z3 with
model_validate=true, cvc5 with --check-models); name old releases by path or NAME@VERSION.

Printed: mutants per worker-second and the share of the workers' time with no solver
running (target under 5%); the share of mutants every solver accepted (target at least 95%)
and the share every solver decided (none answered `unknown` or timed out: `Stats.undecided`), against the share
of seeds some target left undecided unmutated (`Stats.seeds_undecided`: the mutants' share
at most 1.5 times it, #28); rejections by
cause (the solver and its normalised first error line); operators left out per release;
seeds used in full (by every target), in part (by the targets that accept them: a theory
another family lacks) and set aside, each by cause, and the share set aside for any cause
but a time-out (target at most 3%; a seed one target alone serves takes the mix's
expected-answer strategies, else its differential ones on that target alone); every stored bug replayed from its folder in fresh processes,
the share that reproduces (target 100%) and how many mutants still carry an expected-answer
annotation or met an annotation check (target none). The campaign folder is temporary
unless --keep.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from peers import sampled_corpus, seed_use

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.replay import replay
from sphinxfuzz.bugs.stats import Stats
from sphinxfuzz.campaign import Budget, CampaignConfig, CampaignError, run_campaign
from sphinxfuzz.campaign.config import default_of
from sphinxfuzz.generators.catalogue import default_generators_dir

REPO = Path(__file__).resolve().parents[1]
REGRESSIONS = REPO.parent / "shared" / "seeds" / "regressions"
NEWEST = "z3 model_validate=true;cvc5 --check-models"


def _counts(title: str, counter: dict[str, int], total: int, limit: int = 12) -> None:
    print(f"{title}:")
    if not counter:
        print("  none")
    ranked = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
    for what, count in ranked[:limit]:
        share = f" ({count / total:.1%})" if total else ""
        print(f"  {count:6d}{share}  {what[:150]}")
    if len(ranked) > limit:
        print(f"  ... and {len(ranked) - limit} more causes ({sum(c for _, c in ranked[limit:])})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=Path, default=REGRESSIONS)
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--solvers", default=NEWEST)
    parser.add_argument("--time", type=float, default=600.0, help="seconds")
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--seed-timeout", type=float, default=2.0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--strategies", default=default_of("strategies"))
    parser.add_argument("--trusted", default=default_of("trusted"))
    parser.add_argument("--mutants-per-seed", type=int, default=default_of("mutants_per_seed"))
    parser.add_argument("--keep", type=Path, default=None, help="keep the campaign folder here")
    args = parser.parse_args()
    with sampled_corpus(args.seeds, args.sample, args.seed, "sphinxfuzz-realworld-") as sample:
        work, count = sample
        root = args.keep or work / "campaign"
        config = CampaignConfig(
            reduce=False,  # the fuzzing alone, as measured before reductions
            seeds=(str(work / "seeds"),),
            solvers=args.solvers,
            generators=str(default_generators_dir()),
            campaign_seed=args.seed,
            timeout=args.timeout,
            seed_timeout=args.seed_timeout,
            strategies=args.strategies,
            trusted=args.trusted,
            mutants_per_seed=args.mutants_per_seed,
        )
        print(f"seeds      {count} of {args.seeds} (sample drawn with seed {args.seed})")
        print(f"solvers    {args.solvers}")
        print(f"strategies {args.strategies} (trusted {args.trusted})")
        print(
            f"budget     {args.time:.0f} s, {args.jobs} job(s), timeout {args.timeout} s",
            flush=True,
        )
        started = time.monotonic()
        try:
            stats = run_campaign(config, root, Budget(seconds=args.time), jobs=args.jobs)
        except CampaignError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(f"wall time  {time.monotonic() - started:.0f} s")
        report(root, stats)
    return 0


def report(root: Path, stats: Stats) -> None:
    print(f"\nmutants                    {stats.mutants}")
    print(f"accepted by every solver   {stats.acceptance:.1%} (target >= 95%)")
    decided = 1.0 - stats.undecided_share if stats.mutants else 0.0
    print(f"decided by every solver    {decided:.1%} ({stats.undecided} undecided)")
    seeds_share = stats.seeds_undecided_share
    print(
        f"seeds undecided unmutated  {seeds_share:.1%} ({stats.seeds_undecided} of"
        f" {stats.seeds_checked} checked: some target answered unknown or timed out)"
    )
    if seeds_share:
        ratio = stats.undecided_share / seeds_share
        print(f"undecided, mutants/seeds   {ratio:.2f}x (target <= 1.5x)")
    rate = stats.mutants / stats.wall_time if stats.wall_time else 0.0
    print(f"mutants per worker-second  {rate:.2f}")
    print(f"time outside solvers       {stats.outside_share:.1%} (target < 5%)")
    rejected = sum(stats.rejections.values())
    _counts(f"rejections by cause ({rejected} solver calls)", dict(stats.rejections), rejected)
    _counts("left out (terms drawn again)", dict(stats.left_out), 0)
    with Store(root) as store:
        statuses = store.seed_status_counts()
        bugs = store.bugs()
    seeds = sum(statuses.values())
    causes = dict(stats.set_aside_causes)
    not_timeout = sum(n for cause, n in causes.items() if cause != "time-out")
    print(
        f"\nseeds examined             {seeds} ({', '.join(f'{k} {v}' for k, v in sorted(statuses.items()))})"
    )
    use = seed_use(root)
    print(f"seeds used in full         {use['full']}")
    print(f"seeds used in part         {use['partial']} (by some targets alone)")
    print(f"seeds set aside            {use['set_aside']}")
    _counts("seeds used in part by cause", dict(stats.partial_causes), seeds)
    _counts("seeds set aside by cause", causes, seeds)
    share = not_timeout / seeds if seeds else 0.0
    print(f"set aside, not a time-out  {not_timeout} ({share:.1%}; target <= 3%)")
    print(f"\nstored bugs                {len(bugs)}")
    reproduced = annotated = conflicts = 0
    for bug in bugs:
        mutant = (bug.folder / "mutant.smt2").read_text(encoding="utf-8")
        annotated += ":status" in mutant
        again = replay(bug.folder)
        reproduced += again.reproduced
        conflicts += any(r.annotation_conflict for r in again.results)
        mark = "reproduces" if again.reproduced else "DOES NOT REPRODUCE"
        print(f"  {bug.id}: {bug.kind} in {bug.solver} ({bug.count} hits): {mark}")
        print(f"      {bug.signature[:140]}")
    if bugs:
        print(
            f"reproduce from their folders {reproduced}/{len(bugs)} ({reproduced / len(bugs):.0%}; target 100%)"
        )
    print(
        f"mutants with an annotation {annotated}; annotation checks met in replays {conflicts} (target 0)"
    )


if __name__ == "__main__":
    raise SystemExit(main())
