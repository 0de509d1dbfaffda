"""What a campaign leaves a maintainer can file: every finding reduced, valid, at the lowest
option standing, known ones recognised, grouped and queued; and what the reduction costs the
fuzzing (issue 51, What 7).

    python bench/fileable.py MINUTES [--seeds DIR ...] [--sample 300] [--seed 13]
                             [--rounds 1] [--reduce-time 120] [--known DIR] [--keep DIR]
                             [-- FUZZ-OPTIONS...]

Each round runs the same campaign twice, as `sphinxfuzz fuzz` processes of this tree, one
job, newest wheels (the CLI's default solvers and `--options random`): once as a user runs
it (the campaign reduces every stored finding after its MINUTES of fuzzing, at most
`--reduce-time` each) and once with `--no-reduce`. Round r gives both campaign seed
`--seed` + r, and the order alternates (reducing first in even rounds), as bench/versus.py
pairs its arms: this shared machine's speed drifts by more than the difference looked for.

The seeds: `--seeds` (repeatable; default ../shared/seeds/regressions and
../shared/seeds/bug-triggers together) sampled as bench/realworld.py samples them (`--sample
N` files with random.Random(--seed); 0: all). `--known` (default the bug triggers; '' for
none) goes to both arms: findings in the place of an upstream reproducer are marked known.

Printed per round and arm: accepted mutants, seconds of fuzzing (the worker's, which the
reduction after it is not part of), accepted mutants per second; the reducing arm's rate
against the other's (target: at most 10% fewer). Then for each reducing campaign: stored
findings (bugs and seed findings), reduced, valid (the reference read the reduced formula
without an error line), by standing, known, groups, the filing queue's length (`bugs queue
--json`, where the tree has it), the reductions' time, and one line per finding: id, kind,
signature, bytes before and after (or why it was not reduced), standing, known label, group.
The campaign folders are temporary unless --keep.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from realworld import REGRESSIONS, REPO

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.record import load_known, load_not_reduced, load_reduction
from sphinxfuzz.bugs.stats import Stats
from sphinxfuzz.bugs.store import BugRow
from sphinxfuzz.bugs.triage import group_bugs

TRIGGERS = REPO.parent / "shared" / "seeds" / "bug-triggers"
TARGET_LOSS = 0.10  # the reducing arm may fuzz at most this much slower


@dataclass(frozen=True)
class Arm:
    reduce: bool
    folder: Path
    stats: Stats
    wall: float  # seconds of the whole `fuzz` process: fuzzing, then reductions

    @property
    def rate(self) -> float:
        """Accepted mutants per second of fuzzing (one job: the worker's wall time)."""
        return self.stats.accepted / self.stats.wall_time if self.stats.wall_time else 0.0


def union_sample(corpora: list[Path], folder: Path, size: int, seed: int) -> int:
    """Links to a fixed sample of the corpora's files together in `folder` (0: all), drawn
    as bench/peers.py's `sample_seeds` draws from one corpus."""
    files = sorted(p for corpus in corpora for p in corpus.rglob("*.smt2") if p.is_file())
    chosen = files if size <= 0 or size >= len(files) else random.Random(seed).sample(files, size)
    folder.mkdir(parents=True)
    for index, path in enumerate(chosen):
        (folder / f"{index:05d}-{path.name}").symlink_to(path.resolve())
    return len(chosen)


def run_arm(folder: Path, seeds: Path, args: argparse.Namespace, seed: int, reduce: bool) -> Arm:
    command = [sys.executable, "-m", "sphinxfuzz", "fuzz", "-c", str(folder), "--seeds",
               str(seeds), "--time", f"{args.minutes:g}m", "--seed", str(seed), "--jobs", "1",
               "--log-every", "60", "--reduce-time", f"{args.reduce_time:g}s"]  # fmt: skip
    command += ["--known", args.known] if args.known else []
    command += [] if reduce else ["--no-reduce"]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH")))),
    }
    log = folder.with_suffix(".log")
    started = time.monotonic()
    with open(log, "w", encoding="utf-8") as out:
        done = subprocess.run([*command, *args.fuzz], env=env, stdout=out, stderr=subprocess.STDOUT,
                              check=False)  # fmt: skip
    wall = time.monotonic() - started
    if done.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-5:]
        raise SystemExit(f"sphinxfuzz fuzz exited {done.returncode} ({log}):\n" + "\n".join(tail))
    with Store(folder) as store:
        return Arm(reduce, folder, store.total_stats(), wall)


def queue_state(folder: Path) -> tuple[str, dict[str, str]]:
    """The filing queue (`sphinxfuzz bugs queue --json`, where the tree has it): its lengths,
    and each finding's place in it ("queued", "waiting", "held: why")."""
    done = subprocess.run(
        [sys.executable, "-m", "sphinxfuzz", "bugs", "queue", "-c", str(folder), "--json"],
        capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    try:
        data: Any = json.loads(done.stdout) if done.returncode == 0 else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        line = (done.stderr.strip().splitlines() or ["no JSON"])[-1]
        return f"not available ({line[:100]})", {}
    places: dict[str, str] = {}
    lengths = []
    for part in ("queued", "waiting", "held"):
        entries = [e for e in data.get(part) or [] if isinstance(e, dict)]
        lengths.append(f"{len(entries)} {part}")
        for entry in entries:
            why = f": {entry.get('reason')}" if part == "held" and entry.get("reason") else ""
            places[str(entry.get("id"))] = f"{part}{why}"
    return ", ".join(lengths), places


def finding_lines(folder: Path, places: dict[str, str]) -> tuple[list[str], Counter[str]]:
    """One line per finding (`places`: where the queue put each), and the summary's counts."""
    with Store(folder, read_only=True) as store:
        rows: list[BugRow] = store.bugs() + store.seed_finding_rows()
    group_of = {row.id: group.id for group in group_bugs(rows) for row in group.bugs}
    counts: Counter[str] = Counter(stored=len(rows), groups=len(set(group_of.values())))
    lines = []
    for row in rows:
        reduction, refused = load_reduction(row.folder), load_not_reduced(row.folder)
        known = load_known(row.folder)
        if reduction is not None:
            counts["reduced"] += 1
            valid = bool(reduction.reference and reduction.reference.get("accepted"))
            counts["valid"] += valid
            standing = str(reduction.standing) if reduction.standing else "?"
            counts[f"standing {standing}"] += 1
            counts["reduction seconds"] += round(reduction.seconds)
            size = f"{reduction.before.bytes}->{reduction.after.bytes} B" + (
                "" if valid else " INVALID"
            )
        else:
            counts["not reduced"] += 1
            standing = "-"
            size = f"not reduced: {refused.why.splitlines()[0][:80]}" if refused else "not reduced"
        counts["known"] += known is not None
        where = "seed" if row.position < 0 else "bug"
        lines.append(
            f"  {row.id[:40]:<40} {where:<4} {row.kind:<13} {size:<22} {standing:<8} "
            f"{known.label if known else '-':<16} {group_of.get(row.id, '-'):<10} {row.signature[:70]}"
            f"\n      queue: {places.get(row.id, '-')}"
        )
    return lines, counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("minutes", type=float, help="fuzzing minutes per campaign")
    parser.add_argument("--seeds", type=Path, action="append", default=None)
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--reduce-time", type=float, default=120.0, help="seconds per finding")
    parser.add_argument("--known", default=str(TRIGGERS), help="reproducer folder ('': none)")
    parser.add_argument("--keep", type=Path, default=None, help="keep the campaign folders here")
    # what follows `--` goes to both `sphinxfuzz fuzz` commands as it is
    cut = sys.argv.index("--") if "--" in sys.argv else len(sys.argv)
    args = parser.parse_args(sys.argv[1:cut])
    args.fuzz = sys.argv[cut + 1 :]
    corpora = args.seeds or [REGRESSIONS, TRIGGERS]
    missing = [c for c in corpora if not c.is_dir()]
    if missing:
        print(f"skipped: seed folder {missing[0]} is absent (see ../shared/seeds/README.md)")
        return 0
    work = args.keep or Path(tempfile.mkdtemp(prefix="sphinxfuzz-fileable-"))
    work.mkdir(parents=True, exist_ok=True)
    seeds = work / "seeds"
    count = union_sample(corpora, seeds, args.sample, args.seed)
    print(
        f"seeds     {count} of {', '.join(map(str, corpora))} (sample drawn with seed {args.seed})"
    )
    print(f"campaigns {args.minutes:g} min of fuzzing each, one job, {args.rounds} round(s); "
          f"reductions at most {args.reduce_time:g} s each; known: {args.known or 'none'}")  # fmt: skip
    print("note: a shared machine: rates drift with the load of others' work\n", flush=True)
    ratios: list[float] = []
    reducing: list[Arm] = []
    for round_ in range(args.rounds):
        order = (True, False) if round_ % 2 == 0 else (False, True)
        arms = {}
        for reduce in order:
            folder = work / f"round{round_}-{'reduce' if reduce else 'no-reduce'}"
            arm = run_arm(folder, seeds, args, args.seed + round_, reduce)
            arms[reduce] = arm
            print(f"round {round_} {'reduce   ' if reduce else 'no-reduce'}: {arm.stats.accepted} "
                  f"accepted mutants in {arm.stats.wall_time:.0f} s of fuzzing = {arm.rate:.2f}/s; "
                  f"process {arm.wall:.0f} s, reductions {arm.stats.reduce_seconds:.0f} s",
                  flush=True)  # fmt: skip
        with_, without = arms[True], arms[False]
        if without.rate:
            ratios.append(with_.rate / without.rate)
            print(f"round {round_}: reducing arm at {ratios[-1]:.1%} of the other's rate")
        reducing.append(with_)
    if ratios:
        mean = statistics.mean(ratios)
        spread = (
            f" +- {statistics.stdev(ratios) / len(ratios) ** 0.5:.1%}" if len(ratios) > 1 else ""
        )
        verdict = "within" if mean >= 1 - TARGET_LOSS else "NOT within"
        print(f"\nfuzzing rate with reduction: {mean:.1%}{spread} of without ({verdict} the "
              f"{TARGET_LOSS:.0%} target)")  # fmt: skip
    for arm in reducing:
        queue, places = queue_state(arm.folder)
        lines, counts = finding_lines(arm.folder, places)
        standings = ", ".join(
            f"{k[9:]} {v}" for k, v in sorted(counts.items()) if k.startswith("standing ")
        )
        print(f"\n{arm.folder.name}: stored {counts['stored']}, reduced {counts['reduced']}, "
              f"valid {counts['valid']}, not reduced {counts['not reduced']}; standing: "
              f"{standings or '-'}; known {counts['known']}; groups {counts['groups']}; "
              f"queue: {queue}")  # fmt: skip
        print(f"reductions: {arm.stats.reduce_seconds:.0f} s after the fuzzing "
              f"({arm.stats.reduced} reduced, {arm.stats.not_reduced} refused this run; "
              f"{counts['reduction seconds']} s in the reduce.json files)")  # fmt: skip
        print(f"  {'id':<40} {'':<4} {'kind':<13} {'reduced':<22} {'standing':<8} {'known':<16} "
              f"{'group':<10} signature")  # fmt: skip
        print("\n".join(lines))
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"\ncampaigns kept in {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
