"""sphinxfuzz against yinyang's opfuzz and typefuzz: same seeds, solvers, time and timeout.

    python bench/peers.py [--time 120] [--sample 300] [--timeout 10] [--tools ...] [--jobs-scaling]

Each tool runs alone, one job, for `--time` seconds on the same seed folder: a fixed random
sample of ../shared/seeds/bug-triggers (`--sample N`, drawn with random.Random(--seed); 0 for
the whole corpus). The solvers are the same command lines for every tool: the z3 binary of the
z3-solver wheel with model_validate=true, and cvc5 (the wheel behind sphinxfuzz's shim, a
child Python that behaves like the binary) with --check-models.

yinyang 0.3.0 is installed from PyPI into its own environment (`--yinyang-env`, created on
first use) and run unchanged through bench/yinyang_driver.py, which times each solver call from
inside yinyang's process. sphinxfuzz's figures come from its own campaign statistics.

Printed per tool: mutants tested per second, solver calls per second, the share of mutants
every solver accepted, the share decided by every solver (none answered `unknown` or reached
the time limit), the share of wall time outside solver processes, bug triggers by kind, and
the ratios against opfuzz from this one run; below, for each sphinxfuzz row, its seeds used in
full, in part (by the targets that accept them alone) and set aside (yinyang does not say).
`--jobs-scaling` also runs sphinxfuzz
with 2 jobs and prints the speed-up over 1 job. A JSON file with everything is written to
`--out` (default: a temporary folder, removed unless --keep).

What is counted (asymmetries stated, not hidden):
- a mutant is tested when at least one solver ran on it; yinyang stops a mutant after a
  crash and moves on after a seed's 32nd timeout, sphinxfuzz runs every solver on each
  and leaves a seed at its first mutant timeout;
- yinyang picks its seeds with an unseeded `random`; the driver seeds it (--seed, then
  --seed+1, ... for `--peer-runs K`). In a few minutes opfuzz reaches only a handful of seeds
  (300 mutants each), so one slow seed can take its whole run: `--peer-runs 3` pools three
  runs (totals over totals) and the ratios are taken against the pooled row;
- accepted: no solver rejected it (yinyang: its own ignore list or no answer; sphinxfuzz: an
  `error` outcome). Time-outs count as accepted for both;
- decided: no solver answered `unknown` or timed out on it (sphinxfuzz: `Stats.undecided`;
  yinyang: the driver reads each call's output and time, a call as long as the limit being a
  time-out). A rejected mutant is not undecided, for both;
- sphinxfuzz checks every seed once before mutating it and re-runs a disagreement's model
  check; those calls count as solver calls, not mutants;
- yinyang mutates 300 times per seed (its default), sphinxfuzz 10 times, up to 30 for a
  seed whose mutants answer fast (its defaults);
- every yinyang call gets --timeout; sphinxfuzz calibrates each seed's mutant limit (10 times
  the seed's own check time, between 0.5 s and --timeout), as AFL does. `--fixed-too` adds a
  sphinxfuzz row with every call given --timeout, to show what calibration is worth;
- accepted/s (mutants every solver accepted, per second) is printed beside mutants/s: a
  rejected mutant tests the parser only.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "seeds" / "bug-triggers"
DRIVER = Path(__file__).resolve().with_name("yinyang_driver.py")
DEFAULT_ENV = Path.home() / ".cache" / "sphinxfuzz" / "yinyang-env"
YINYANG = "yinyang==0.3.0"


def solver_lines() -> list[str]:
    """The same two command lines for every tool (yinyang splits them on spaces)."""
    z3 = Path(sysconfig.get_path("scripts")) / "z3"
    if not z3.is_file():
        z3 = Path(shutil.which("z3") or "z3")
    return [
        f"{z3} model_validate=true",
        f"{sys.executable} -m sphinxfuzz.solvers.cvc5_shim --check-models",
    ]


def sample_seeds(folder: Path, size: int, seed: int, corpus: Path = CORPUS) -> int:
    """Links to a fixed random sample of `corpus` (0: all of it) in `folder`."""
    files = sorted(p for p in corpus.rglob("*.smt2") if p.is_file())
    chosen = files if size <= 0 or size >= len(files) else random.Random(seed).sample(files, size)
    folder.mkdir(parents=True)
    for index, path in enumerate(chosen):
        (folder / f"{index:05d}-{path.name}").symlink_to(path)
    return len(chosen)


@contextlib.contextmanager
def sampled_corpus(corpus: Path, size: int, seed: int, prefix: str) -> Iterator[tuple[Path, int]]:
    """A temporary folder whose `seeds/` links to a fixed sample of `corpus` (`sample_seeds`),
    with the sample's size; removed afterwards. `SystemExit(0)` when the corpus is absent."""
    if not corpus.is_dir():
        print(f"skipped: seed folder {corpus} is absent (see ../shared/seeds/README.md)")
        raise SystemExit(0)
    work = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield work, sample_seeds(work / "seeds", size, seed, corpus=corpus)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def seed_use(root: Path) -> dict[str, int]:
    """How a sphinxfuzz campaign's seeds were used: by every target (`full`), by the targets
    that accept them alone (`partial`: a theory another family lacks), or `set_aside`
    (malformed, no target accepts them, a time-out); seed findings apart."""
    from sphinxfuzz.bugs import Store
    from sphinxfuzz.campaign import seedcheck

    with Store(root) as store:
        statuses = store.seed_status_counts()
    return {
        "full": statuses.get(seedcheck.SEED_OK, 0),
        "partial": statuses.get(seedcheck.SEED_PARTIAL, 0),
        "set_aside": statuses.get(seedcheck.SEED_SET_ASIDE, 0)
        + statuses.get(seedcheck.SEED_MALFORMED, 0),
        "findings": statuses.get(seedcheck.SEED_FINDING, 0),
    }


def seed_table(rows: list[dict[str, Any]]) -> str:
    """Seeds used in full, in part and set aside, per sphinxfuzz row (yinyang says nothing)."""
    header = f"{'tool':<26}{'seeds in full':>14}{'in part':>9}{'set aside':>11}{'findings':>10}"
    lines = [header, "-" * len(header)]
    for row in rows:
        if "seeds" in row:
            use = row["seeds"]
            lines.append(
                f"{row['tool']:<26}{use['full']:>14}{use['partial']:>9}{use['set_aside']:>11}"
                f"{use['findings']:>10}"
            )
    return "\n".join(lines)


def yinyang_env(env: Path) -> Path:
    python = env / "bin" / "python"
    if not (env / "bin" / "opfuzz").is_file():
        print(f"installing {YINYANG} into {env} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", YINYANG], check=True)
    return python


def run_yinyang(
    tool: str, python: Path, seeds: Path, work: Path, seconds: float, timeout: float, seed: int, name: str,
    solvers: list[str] | None = None, env: dict[str, str] | None = None,
) -> dict[str, Any]:  # fmt: skip
    folder = work / name.replace(" ", "-")
    for sub in ("bugs", "scratch", "logs"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    result_file = folder / "result.json"
    args = [
        ";".join(solvers or solver_lines()), str(seeds), "-t", str(int(timeout)),
        "-b", str(folder / "bugs"), "-s", str(folder / "scratch"), "-l", str(folder / "logs"),
    ]  # fmt: skip
    with open(folder / "output.txt", "w") as output:
        subprocess.run(
            [str(python), str(DRIVER), tool, str(seconds), str(result_file), str(seed), "--", *args],
            cwd=folder, stdout=output, stderr=subprocess.STDOUT, timeout=seconds + 4 * timeout + 120,
            env=env,
        )  # fmt: skip
    if not result_file.is_file():
        tail = (folder / "output.txt").read_text(errors="replace")[-2000:]
        raise SystemExit(f"{tool} produced no result; its output ends with:\n{tail}")
    data = json.loads(result_file.read_text())
    calls = data["calls"]
    by_file: dict[str, list[dict[str, Any]]] = {}
    for call in calls:
        by_file.setdefault(call["file"], []).append(call)
    rejected = sum(
        any(c["ignored"] or (c["exitcode"] == 0 and not c["answered"]) for c in group)
        for group in by_file.values()
    )
    undecided = sum(any(c["undecided"] for c in group) for group in by_file.values())
    stat = data["statistic"]
    bugs = Counter({"crash": stat.get("crashes", 0), "soundness": stat.get("soundness", 0)})
    if data["outcome"] != "time limit":  # it stopped by itself: say why (its own message)
        said = (folder / "output.txt").read_text(errors="replace").splitlines()
        found = [line for line in said if line.startswith("msg:")] or [
            line for line in said if "error" in line.lower()
        ]
        why = found[0] if found else data["outcome"]
        print(f"  {name} stopped after {data['wall']:.1f} s ({data['outcome']}): {why}", flush=True)
    return {
        "tool": name,
        "seed": seed,
        "wall": data["wall"],
        "mutants": len(by_file),
        "calls": len(calls),
        "accepted": (len(by_file) - rejected) / len(by_file) if by_file else 0.0,
        "decided": (len(by_file) - undecided) / len(by_file) if by_file else 0.0,
        "solver_seconds": sum(c["seconds"] for c in calls),
        "bugs": {k: v for k, v in bugs.items() if v},
        "own_counters": stat,
        "outcome": data["outcome"],
    }


def run_sphinxfuzz(
    seeds: Path, work: Path, seconds: float, timeout: float, jobs: int, campaign_seed: int,
    persistent: bool = True, calibrated: bool = True,
) -> dict[str, Any]:  # fmt: skip
    from sphinxfuzz.campaign import Budget, CampaignConfig, run_campaign
    from sphinxfuzz.generators.catalogue import default_generators_dir

    config = CampaignConfig(
        seeds=(str(seeds),),
        solvers=";".join(solver_lines()),
        generators=str(default_generators_dir()),
        campaign_seed=campaign_seed,
        timeout=timeout,
        **({} if calibrated else {"timeout_factor": 0.0}),
    )
    name = (
        f"sphinxfuzz-{jobs}job"
        + ("" if persistent else "-fresh")
        + ("" if calibrated else "-fixed")
    )
    started = time.monotonic()
    stats = run_campaign(
        config, work / name, Budget(seconds=seconds), jobs=jobs, persistent=persistent
    )
    wall = time.monotonic() - started
    return {
        "tool": name,
        "wall": wall,
        "mutants": stats.mutants,
        "calls": stats.solver_calls,
        "accepted": stats.acceptance,
        "decided": 1.0 - stats.undecided_share if stats.mutants else 0.0,
        # summed over workers, like the solver time: the share is per worker
        "worker_seconds": stats.wall_time,
        "solver_seconds": stats.solver_time,
        "bugs": dict(stats.bugs),
        "own_counters": stats.to_json(),
        "seeds": seed_use(work / name),
    }


def pooled(tool: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Several runs of one tool as one: totals over totals (a rate per second of all their time)."""
    mutants = sum(r["mutants"] for r in runs)
    bugs: Counter[str] = Counter()
    for r in runs:
        bugs.update(r["bugs"])
    return {
        "tool": tool,
        "runs": len(runs),
        "wall": sum(r["wall"] for r in runs),
        "mutants": mutants,
        "calls": sum(r["calls"] for r in runs),
        "accepted": sum(r["accepted"] * r["mutants"] for r in runs) / mutants if mutants else 0.0,
        "decided": sum(r["decided"] * r["mutants"] for r in runs) / mutants if mutants else 0.0,
        "solver_seconds": sum(r["solver_seconds"] for r in runs),
        "bugs": dict(bugs),
    }


def outside_share(row: dict[str, Any]) -> float:
    busy = row.get("worker_seconds") or row["wall"]
    return max(0.0, 1.0 - row["solver_seconds"] / busy) if busy else 0.0


def table(rows: list[dict[str, Any]]) -> str:
    reference = next((r for r in rows if r["tool"] == "opfuzz"), None)
    ref_rate = (
        reference["mutants"] / reference["wall"] if reference and reference["mutants"] else None
    )
    ref_valid = ref_rate * reference["accepted"] if ref_rate and reference else None
    header = (
        f"{'tool':<26}{'mutants/s':>10}{'calls/s':>9}{'accepted':>10}{'decided':>9}{'outside':>9}"
        f"{'vs opfuzz':>11}{'accepted/s':>12}{'vs opfuzz':>11}  bugs"
    )
    lines = [header, "-" * len(header)]
    for row in rows:
        rate = row["mutants"] / row["wall"]
        valid = rate * row["accepted"]
        ratio = f"{rate / ref_rate:.2f}x" if ref_rate else "-"
        valid_ratio = f"{valid / ref_valid:.2f}x" if ref_valid else "-"
        bugs = ", ".join(f"{k} {v}" for k, v in sorted(row["bugs"].items())) or "none"
        lines.append(
            f"{row['tool']:<26}{rate:>10.2f}{row['calls'] / row['wall']:>9.2f}"
            f"{row['accepted']:>10.1%}{row['decided']:>9.1%}{outside_share(row):>9.1%}{ratio:>11}"
            f"{valid:>12.2f}{valid_ratio:>11}  {bugs}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time", type=float, default=120.0, help="seconds per tool")
    parser.add_argument(
        "--sample", type=int, default=300, help="seeds drawn from the corpus (0: all)"
    )
    parser.add_argument(
        "--seed", type=int, default=2026, help="seed of the sample and of sphinxfuzz"
    )
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per solver call")
    parser.add_argument("--tools", default="opfuzz,typefuzz,sphinxfuzz")
    parser.add_argument(
        "--jobs-scaling", action="store_true", help="also run sphinxfuzz with 2 jobs"
    )
    parser.add_argument(
        "--fresh-too", action="store_true", help="also run sphinxfuzz with fresh processes"
    )
    parser.add_argument(
        "--fixed-too", action="store_true",
        help="also run sphinxfuzz with every call given --timeout (no calibrated limits)",
    )  # fmt: skip
    parser.add_argument(
        "--peer-runs", type=int, default=1,
        help="run each yinyang tool this many times (seeds --seed, --seed+1, ...) and pool them",
    )  # fmt: skip
    parser.add_argument("--yinyang-env", type=Path, default=DEFAULT_ENV)
    parser.add_argument("--out", type=Path, default=None, help="keep per-tool folders here")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"skipped: seed corpus {CORPUS} is absent")
        return 0
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    work = args.out or Path(tempfile.mkdtemp(prefix="sphinxfuzz-peers-"))
    work.mkdir(parents=True, exist_ok=True)
    seeds = work / "seeds"
    if seeds.exists():
        shutil.rmtree(seeds)
    count = sample_seeds(seeds, args.sample, args.seed)
    print(f"{count} seeds, {args.time:.0f} s per tool, timeout {args.timeout:g} s, solvers:")
    for line in solver_lines():
        print(f"  {line}")
    rows: list[dict[str, Any]] = []
    python = yinyang_env(args.yinyang_env) if {"opfuzz", "typefuzz"} & set(tools) else None
    for tool in tools:
        print(f"running {tool} ...", flush=True)
        if tool == "sphinxfuzz":
            rows.append(run_sphinxfuzz(seeds, work, args.time, args.timeout, 1, args.seed, True))
            if args.fresh_too:
                rows.append(
                    run_sphinxfuzz(
                        seeds, work, args.time, args.timeout, 1, args.seed, persistent=False
                    )
                )
            if args.fixed_too:
                rows.append(
                    run_sphinxfuzz(
                        seeds, work, args.time, args.timeout, 1, args.seed, calibrated=False
                    )
                )
            if args.jobs_scaling:
                rows.append(
                    run_sphinxfuzz(seeds, work, args.time, args.timeout, 2, args.seed, True)
                )
        else:
            assert python is not None
            runs = [
                run_yinyang(tool, python, seeds, work, args.time, args.timeout, args.seed + i,
                            tool if args.peer_runs == 1 else f"{tool} run {i + 1}")
                for i in range(args.peer_runs)
            ]  # fmt: skip
            rows.extend(runs)
            if args.peer_runs > 1:
                rows.append(pooled(tool, runs))
    print()
    print(table(rows))
    print()
    print(seed_table(rows))
    one = next((r for r in rows if r["tool"] == "sphinxfuzz-1job"), None)
    two = next((r for r in rows if r["tool"] == "sphinxfuzz-2job"), None)
    if one and two and one["mutants"]:
        speedup = (two["mutants"] / two["wall"]) / (one["mutants"] / one["wall"])
        print(f"\nsphinxfuzz 2 jobs / 1 job: {speedup:.2f}x mutants per second")
    result = work / "peers.json"
    result.write_text(
        json.dumps(
            {"seeds": count, "args": {k: str(v) for k, v in vars(args).items()}, "rows": rows},
            indent=2,
        )
    )
    print(f"\ndetails: {result}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
