"""sphinxfuzz against yinyang's opfuzz and typefuzz: same seeds, solvers, time and timeout.

    python bench/peers.py [--time 120] [--sample 300] [--timeout 10] [--tools ...] [--jobs-scaling]
        [--corpus DIR] [--solvers SPECS] [--side-by-side]

Each tool runs one job for `--time` seconds on the same seed folder: a fixed random sample of
../shared/seeds/bug-triggers (`--corpus` for another, e.g. ../shared/seeds/regressions;
`--sample N`, drawn with random.Random(--seed); 0 for the whole corpus). Tools run one after
the other, or all started together with `--side-by-side` (each then shares the machine with
the others, as the 3x comparison of issue #28 asks). The solvers are the same for every tool:
`--solvers` in sphinxfuzz's spec syntax (default "z3 model_validate=true;cvc5 --check-models":
the z3 binary of the z3-solver wheel and cvc5, the wheel behind sphinxfuzz's shim, a child
Python that behaves like the binary; "z3@4.12.2 model_validate=true;/usr/bin/cvc5
--check-models" for old releases). sphinxfuzz gets the specs, yinyang the command lines they
resolve to.

yinyang 0.3.0 (with antlr4-python3-runtime 4.9.2, its pinned dependency) is installed from
PyPI into its own virtual environment, ~/.cache/sphinxfuzz/yinyang-env (`--yinyang-env`),
on first use, so the project's environment is untouched; by hand:
`python -m venv ~/.cache/sphinxfuzz/yinyang-env && ~/.cache/sphinxfuzz/yinyang-env/bin/pip
install yinyang==0.3.0`. It runs unchanged through bench/yinyang_driver.py, which times each
solver call from inside yinyang's process. sphinxfuzz's figures come from its own campaign
statistics.

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
  runs (totals over totals) and the ratios are taken against the pooled row. With
  `--side-by-side` the K runs take turns in the tool's lane, `--time`/K seconds each, so the
  pooled row has the time sphinxfuzz had;
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
  rejected mutant tests the parser only;
- settled/s: mutants per second both accepted and decided, the figure issue #28 compares
  (3x opfuzz's). yinyang: every target answered sat or unsat (a mutant cut short by the
  time limit is not settled; one stopped at a crash is, as for sphinxfuzz). sphinxfuzz keeps
  no count of the two together, so its share is accepted - undecided, a lower bound (a mutant
  both rejected and undecided is taken off twice).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "seeds" / "bug-triggers"
DRIVER = Path(__file__).resolve().with_name("yinyang_driver.py")
DEFAULT_ENV = Path.home() / ".cache" / "sphinxfuzz" / "yinyang-env"
YINYANG = "yinyang==0.3.0"
SOLVERS = "z3 model_validate=true;cvc5 --check-models"


def solver_lines(specs: str = SOLVERS) -> list[str]:
    """The command lines sphinxfuzz's `specs` resolve to, for yinyang (which splits them on
    spaces, so no word may hold one)."""
    from sphinxfuzz.solvers.spec import parse_specs

    lines = []
    for spec in parse_specs(specs):
        if any(" " in word for word in spec.argv):
            raise SystemExit(f"yinyang cannot run {spec.argv}: a word holds a space")
        lines.append(" ".join(spec.argv))
    return lines


def yinyang_mutants(calls: list[dict[str, Any]], targets: int) -> dict[str, int]:
    """Mutants, and how many were rejected, undecided and settled, from the driver's calls
    (one per solver call, in order; a mutant is one scratch file). Rejected: yinyang's
    ignore list, or exit 0 without an answer. Undecided: `unknown` or the time limit.
    Settled: neither, and every target answered, or a crash stopped the mutant."""
    by_file: dict[str, list[dict[str, Any]]] = {}
    for call in calls:
        by_file.setdefault(call["file"], []).append(call)
    counts = Counter[str]()
    for group in by_file.values():
        rejected = any(c["ignored"] or (c["exitcode"] == 0 and not c["answered"]) for c in group)
        undecided = any(c["undecided"] for c in group)
        crashed = any(c.get("crashed", False) for c in group)
        answered = len(group) >= targets and all(
            c["exitcode"] == 0 and c["answered"] for c in group
        )
        counts["rejected"] += rejected
        counts["undecided"] += undecided
        counts["settled"] += not rejected and not undecided and (crashed or answered)
    return {"mutants": len(by_file), **{k: counts[k] for k in ("rejected", "undecided", "settled")}}


def sample_seeds(folder: Path, size: int, seed: int, corpus: Path = CORPUS) -> int:
    """Links to a fixed random sample of `corpus` (0: all of it) in `folder`."""
    files = sorted(p for p in corpus.rglob("*.smt2") if p.is_file())
    chosen = files if size <= 0 or size >= len(files) else random.Random(seed).sample(files, size)
    folder.mkdir(parents=True)
    for index, path in enumerate(chosen):
        (folder / f"{index:05d}-{path.name}").symlink_to(path.resolve())
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
    lines = solvers or solver_lines()
    for sub in ("bugs", "scratch", "logs"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    result_file = folder / "result.json"
    args = [
        ";".join(lines), str(seeds), "-t", str(int(timeout)),
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
    counts = yinyang_mutants(calls, len(lines))
    mutants = counts["mutants"]
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
        "mutants": mutants,
        "calls": len(calls),
        "accepted": (mutants - counts["rejected"]) / mutants if mutants else 0.0,
        "decided": (mutants - counts["undecided"]) / mutants if mutants else 0.0,
        "settled": counts["settled"] / mutants if mutants else 0.0,
        "solver_seconds": sum(c["seconds"] for c in calls),
        "bugs": {k: v for k, v in bugs.items() if v},
        "own_counters": stat,
        "outcome": data["outcome"],
    }


def run_sphinxfuzz(
    seeds: Path, work: Path, seconds: float, timeout: float, jobs: int, campaign_seed: int,
    persistent: bool = True, calibrated: bool = True, solvers: str = SOLVERS,
) -> dict[str, Any]:  # fmt: skip
    from sphinxfuzz.campaign import Budget, CampaignConfig, run_campaign
    from sphinxfuzz.generators.catalogue import default_generators_dir
    from sphinxfuzz.solvers.persistent import SCRIPTS_PER_PROCESS

    config = CampaignConfig(
        reduce=False,  # the fuzzing alone, as measured before reductions
        seeds=(str(seeds),),
        solvers=solvers,
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
        config, work / name, Budget(seconds=seconds), jobs=jobs,
        persistent=SCRIPTS_PER_PROCESS if persistent else 0,  # True would be one script each
    )  # fmt: skip
    wall = time.monotonic() - started
    return {
        "tool": name,
        "wall": wall,
        "mutants": stats.mutants,
        "calls": stats.solver_calls,
        "accepted": stats.acceptance,
        "decided": 1.0 - stats.undecided_share if stats.mutants else 0.0,
        "settled": max(0.0, stats.acceptance - stats.undecided_share),
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
        "settled": sum(r["settled"] * r["mutants"] for r in runs) / mutants if mutants else 0.0,
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
    ref_settled = ref_rate * reference["settled"] if ref_rate and reference else None
    header = (
        f"{'tool':<26}{'mutants/s':>10}{'calls/s':>9}{'accepted':>10}{'decided':>9}{'outside':>9}"
        f"{'vs opfuzz':>11}{'accepted/s':>12}{'vs opfuzz':>11}{'settled/s':>11}{'vs opfuzz':>11}"
        "  bugs"
    )
    lines = [header, "-" * len(header)]
    for row in rows:
        rate = row["mutants"] / row["wall"]
        valid = rate * row["accepted"]
        settled = rate * row["settled"]
        ratio = f"{rate / ref_rate:.2f}x" if ref_rate else "-"
        valid_ratio = f"{valid / ref_valid:.2f}x" if ref_valid else "-"
        settled_ratio = f"{settled / ref_settled:.2f}x" if ref_settled else "-"
        bugs = ", ".join(f"{k} {v}" for k, v in sorted(row["bugs"].items())) or "none"
        lines.append(
            f"{row['tool']:<26}{rate:>10.2f}{row['calls'] / row['wall']:>9.2f}"
            f"{row['accepted']:>10.1%}{row['decided']:>9.1%}{outside_share(row):>9.1%}{ratio:>11}"
            f"{valid:>12.2f}{valid_ratio:>11}{settled:>11.2f}{settled_ratio:>11}  {bugs}"
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
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="folder the seeds come from")
    parser.add_argument("--solvers", default=SOLVERS, help="sphinxfuzz solver specs, ';'-separated")
    parser.add_argument(
        "--side-by-side", action="store_true", help="start every tool at the same time"
    )
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
    if args.side_by_side and (args.jobs_scaling or args.fresh_too or args.fixed_too):
        parser.error("--side-by-side runs one sphinxfuzz row: no extra sphinxfuzz rows")
    if not args.corpus.is_dir():
        print(f"skipped: seed corpus {args.corpus} is absent")
        return 0
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    work = args.out or Path(tempfile.mkdtemp(prefix="sphinxfuzz-peers-"))
    work.mkdir(parents=True, exist_ok=True)
    seeds = work / "seeds"
    if seeds.exists():
        shutil.rmtree(seeds)
    count = sample_seeds(seeds, args.sample, args.seed, args.corpus)
    lines = solver_lines(args.solvers)
    how = "started together" if args.side_by_side else "one after the other"
    print(f"{count} seeds from {args.corpus}, {args.time:.0f} s per tool ({how}), "
          f"timeout {args.timeout:g} s, solvers {args.solvers!r}, for yinyang:")  # fmt: skip
    for line in lines:
        print(f"  {line}")
    python = yinyang_env(args.yinyang_env) if {"opfuzz", "typefuzz"} & set(tools) else None

    def sphinxfuzz_rows() -> list[dict[str, Any]]:
        def run(jobs: int = 1, **how: bool) -> dict[str, Any]:
            return run_sphinxfuzz(seeds, work, args.time, args.timeout, jobs, args.seed,
                                  solvers=args.solvers, **how)  # fmt: skip

        rows = [run()]
        if args.fresh_too:
            rows.append(run(persistent=False))
        if args.fixed_too:
            rows.append(run(calibrated=False))
        if args.jobs_scaling:
            rows.append(run(jobs=2))
        return rows

    def peer_rows(tool: str) -> list[dict[str, Any]]:
        assert python is not None
        # side by side, the runs share the tool's lane one after the other: the pooled row
        # then has the time sphinxfuzz had, over K seed draws instead of one
        seconds = args.time / args.peer_runs if args.side_by_side else args.time
        runs = [
            run_yinyang(tool, python, seeds, work, seconds, args.timeout, args.seed + i,
                        tool if args.peer_runs == 1 else f"{tool} run {i + 1}", solvers=lines)
            for i in range(args.peer_runs)
        ]  # fmt: skip
        return runs + ([pooled(tool, runs)] if args.peer_runs > 1 else [])

    def rows_of(tool: str) -> list[dict[str, Any]]:
        print(f"running {tool} ...", flush=True)
        return sphinxfuzz_rows() if tool == "sphinxfuzz" else peer_rows(tool)

    if args.side_by_side:
        # yinyang runs are child processes, waited on by threads; sphinxfuzz's campaign
        # keeps the main thread (it installs signal handlers)
        with ThreadPoolExecutor(max_workers=len(tools)) as pool:
            peers = {t: pool.submit(rows_of, t) for t in tools if t != "sphinxfuzz"}
            own = rows_of("sphinxfuzz") if "sphinxfuzz" in tools else []
            done = {t: f.result() for t, f in peers.items()}
        rows = [r for t in tools for r in (own if t == "sphinxfuzz" else done[t])]
    else:
        rows = [r for t in tools for r in rows_of(t)]
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
