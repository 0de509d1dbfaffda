"""This working tree against another commit, on one machine, in alternating rounds.

    python bench/versus.py --control REF [--rounds 4] [--time 120] [--seeds DIR | --shipped]
                           [--sample 300] [--seed 13] [-- FUZZ-OPTIONS...]

A change that saves a few percent of a campaign's time cannot be seen by running the old and
the new code one after the other: this shared machine's speed drifts by more than that within
the hour (a realworld run made 8,495 mutants, then 7,121 forty minutes later with the same
code). So both trees run the same campaign in turns, `--rounds` times: round r gives both the
campaign seed `--seed` + r, and the order alternates (candidate first in even rounds, control
first in odd ones: a steady drift then favours neither). Each round pairs two campaigns that
ran minutes apart, and the figures compared are the rounds' differences.

The control is `git worktree add --detach` of REF (removed afterwards); the candidate is the
tree this file is in, with what is not committed. Each campaign is a fresh `sphinxfuzz fuzz`
process (`python -m sphinxfuzz` with that tree first on PYTHONPATH) for `--time` seconds, one
job, and its figures are read back from its store (`Store.total_stats`).

The seeds: `--seeds DIR` (default ../shared/seeds/regressions) sampled as bench/realworld.py
samples them (`--sample N` with random.Random(--seed)), or `--shipped` for the README's
campaign (the CLI's default seeds). Anything after `--` goes to both `sphinxfuzz fuzz`
commands as it is (`-- --solvers "z3@4.12.2;/usr/bin/cvc5"`).

Printed per round and arm: mutants per second, the share of time outside solvers (#28's
target under 5%), the share of mutants some target left undecided (the README campaign's
target at most 5%); then per figure the candidate's mean, the control's, the mean of the
rounds' differences with its standard error, and how many rounds the candidate won.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from peers import sampled_corpus
from realworld import REGRESSIONS, REPO

from sphinxfuzz.bugs import Store


@dataclass(frozen=True)
class Figures:
    rate: float  # mutants per second of wall time
    outside: float  # share of wall time with no solver running
    undecided: float  # share of mutants some target left undecided
    mutants: int


# (name, how it is printed, whether lower is better, whether it is a share)
SHOWN = (("rate", "mutants/s", False, False), ("outside", "outside solvers", True, True),
         ("undecided", "undecided", True, True))  # fmt: skip


def campaign(tree: Path, folder: Path, seconds: float, seed: int, seeds: Path | None,
             extra: list[str]) -> Figures:  # fmt: skip
    """One `sphinxfuzz fuzz` run of the code in `tree`; its figures from its store."""
    command = [sys.executable, "-m", "sphinxfuzz", "fuzz", "-c", str(folder),
               "--time", f"{seconds:g}s", "--seed", str(seed), "--jobs", "1"]  # fmt: skip
    if seeds is not None:
        command += ["--seeds", str(seeds)]
    if (tree / "sphinxfuzz" / "campaign" / "reduction.py").is_file():
        command.append("--no-reduce")  # the fuzzing alone, in trees that reduce after it
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, (str(tree), os.environ.get("PYTHONPATH")))),
    }
    log = folder.with_suffix(".log")
    with open(log, "w", encoding="utf-8") as out:
        done = subprocess.run([*command, *extra], cwd=folder.parent, env=env, stdout=out,
                              stderr=subprocess.STDOUT, timeout=seconds + 900, check=False)  # fmt: skip
    if done.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-5:]
        raise SystemExit(f"{tree}: sphinxfuzz fuzz exited {done.returncode}:\n" + "\n".join(tail))
    with Store(folder) as store:
        stats = store.total_stats()
    return Figures(
        stats.mutants / stats.wall_time if stats.wall_time else 0.0,
        stats.outside_share,
        stats.undecided_share,
        stats.mutants,
    )


def compare(candidate: list[Figures], control: list[Figures]) -> None:
    print(
        f"\n{'figure':16s} {'candidate':>10s} {'control':>10s} {'difference':>20s}  candidate better"
    )
    for name, shown, lower, share in SHOWN:
        ours = [getattr(f, name) for f in candidate]
        theirs = [getattr(f, name) for f in control]
        diffs = [a - b for a, b in zip(ours, theirs, strict=True)]
        error = statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else float("nan")
        better = sum((d < 0) if lower else (d > 0) for d in diffs)
        scale, unit = (100.0, " pt") if share else (1.0, "")
        mean = statistics.mean(diffs) * scale
        print(
            f"{shown:16s} {statistics.mean(ours) * scale:10.2f} {statistics.mean(theirs) * scale:10.2f}"
            f" {mean:+10.2f} ± {error * scale:5.2f}{unit:3s}  {better} of {len(diffs)} rounds"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--control", required=True, help="git ref of the control tree")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--time", type=float, default=120.0, help="seconds per campaign")
    parser.add_argument("--seeds", type=Path, default=REGRESSIONS)
    parser.add_argument(
        "--shipped", action="store_true", help="the README's seeds (the CLI's default)"
    )
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "fuzz", nargs=argparse.REMAINDER, help="-- then options for sphinxfuzz fuzz"
    )
    args = parser.parse_args()
    extra = args.fuzz[1:] if args.fuzz[:1] == ["--"] else args.fuzz
    work = Path(tempfile.mkdtemp(prefix="sphinxfuzz-versus-"))
    control_tree = work / "control"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "-q", "--detach", str(control_tree),
                    args.control], check=True)  # fmt: skip
    try:
        return run(args, extra, work, control_tree)
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(control_tree)],
                       check=False)  # fmt: skip
        shutil.rmtree(work, ignore_errors=True)


def run(args: argparse.Namespace, extra: list[str], work: Path, control_tree: Path) -> int:
    with ExitStack() as stack:
        seeds = None
        if not args.shipped:
            corpus = sampled_corpus(args.seeds, args.sample, args.seed, "sphinxfuzz-versus-seeds-")
            sample, count = stack.enter_context(corpus)
            seeds = sample / "seeds"
            print(f"seeds      {count} of {args.seeds} (sample drawn with seed {args.seed})")
        results = rounds(args, extra, work, control_tree, seeds)
    compare(results["candidate"], results["control"])
    return 0


def rounds(
    args: argparse.Namespace, extra: list[str], work: Path, control_tree: Path, seeds: Path | None
) -> dict[str, list[Figures]]:
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], text=True,
                          capture_output=True, check=True).stdout.strip()  # fmt: skip
    print(f"candidate  {REPO} (HEAD {head} and what is not committed)")
    print(f"control    {args.control}")
    print(
        f"rounds     {args.rounds} of {args.time:g} s each arm; options: {' '.join(extra) or 'none'}"
    )
    arms = {"candidate": REPO, "control": control_tree}
    results: dict[str, list[Figures]] = {"candidate": [], "control": []}
    for round_ in range(args.rounds):
        order = ["candidate", "control"] if round_ % 2 == 0 else ["control", "candidate"]
        for arm in order:
            folder = work / f"{arm}-{round_}"
            figures = campaign(arms[arm], folder, args.time, args.seed + round_, seeds, extra)
            results[arm].append(figures)
            print(
                f"round {round_} {arm:9s} seed {args.seed + round_}: {figures.mutants} mutants,"
                f" {figures.rate:.2f}/s, outside {figures.outside:.1%},"
                f" undecided {figures.undecided:.1%}",
                flush=True,
            )
    return results


if __name__ == "__main__":
    raise SystemExit(main())
