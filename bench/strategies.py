"""Each strategy alone against old releases: what it costs and which real bugs it finds.

    python bench/strategies.py [--minutes 10] [--strategies sphinx,fusion,...]
        [--solvers "z3@4.8.8;cvc5@1.1.2"] [--single z3@4.8.8] [--sample 200] [--seed 1]
        [--out DIR] [--seeds DIR] [--history DIR]

Seeds: the same fixed sample for every strategy, `--sample` files from each of
../shared/seeds/bug-triggers and ../shared/seeds/regressions (drawn as bench/peers.py draws
its sample). Each strategy runs alone (`fuzz --strategies NAME`, one job, the default
timeouts) for `--minutes` against `--solvers` (old releases: `sphinxfuzz solvers install
z3==4.8.8 cvc5==1.1.2`); labels, STORM's models and references come from the trusted z3
(pip's, the newest). `--single SPEC` adds a row per expected-answer strategy against that
one solver alone. `--seeds DIR` runs on that folder instead of the sample (the shipped
`skeletons/`); `--history DIR` is every row's history of bug triggers (histfuzz's material,
default ../shared/seeds/bug-triggers when it is there; the other strategies do not read it).

A stored bug is *real* when the blamed release still shows it (`sphinxfuzz bugs replay`
reproduces it with today's code) and the newest release of its family (pip's z3 or cvc5) no
longer does: the stored formula runs with the blamed solver replaced by the
newest release, the other solvers as stored, and is judged as replay judges it
(`oracle.judge_again`); the bug is real when the newest release is not blamed for the same
kind. Real bugs are counted once per triage group (`sphinxfuzz bugs list` groups: crash
signature, or kind, solver, theories and operators), which is what "distinct" means here.

Printed per strategy: cases/s, the share of cases with an expected answer, the share every
solver accepted, construction doubts (verdicts the trusted z3 contradicted: the strategy's own
wrong expected answers, kept in the campaign's doubts/ and never stored; the unit tests check a
hundred cases of each, this counts them over whole campaigns), stored bugs by kind, real ones
and distinct real ones. Strategies run one after the other (`--lanes 2`: two at a time, on a
2-core machine each about one core; the rates of rows that ran beside each other are then
comparable, not those of a row that ran alone). A JSON file with everything is written to
`--out`. Run again with the same `--out`, a row whose campaign folder is there already is read
back, not run again (its wall time is the campaign's own); a row that fails is named with the
campaign's output and the others go on.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import REPO, sample_seeds  # noqa: E402

SHARED = REPO.parent / "shared" / "seeds"
CORPORA = (SHARED / "bug-triggers", SHARED / "regressions")
DEFAULT_SOLVERS = "z3@4.8.8;cvc5@1.1.2"
NEWEST = {"z3": "z3", "cvc5": "cvc5", "yices": "yices"}


Job = TypeVar("Job")


class BenchError(Exception):
    pass


def real_bugs(root: Path) -> dict[str, Any]:
    """Which stored bugs the newest releases no longer show (real), which they still show
    (alive), and their distinct groups."""
    from sphinxfuzz.bugs import Store, load_record
    from sphinxfuzz.bugs.replay import replay
    from sphinxfuzz.bugs.triage import group_bugs
    from sphinxfuzz.oracle import judge_again
    from sphinxfuzz.oracle.run import run_in_dialect
    from sphinxfuzz.solvers import SolverResult, SolverSpec, parse_specs

    with Store(root) as store:
        rows = store.bugs()
        timeout = float(str((store.config() or {}).get("timeout", 10.0)))

    def run(spec: SolverSpec, text: str) -> SolverResult:
        return run_in_dialect(spec, text, timeout=timeout)

    real: dict[str, bool] = {}
    alive: dict[str, bool] = {}  # the newest release is blamed for the same kind still
    inherited: dict[str, bool] = {}  # real, and the old release is wrong on the seed too
    for row in rows:
        record = load_record(root / row.folder)
        blamed = next((s for s in record.solvers if s.name == record.verdict.solver), None)
        # the old release must still show it as sphinxfuzz judges today (a verdict a later
        # fix of sphinxfuzz itself no longer makes is no solver bug)
        if blamed is None or blamed.family not in NEWEST or not replay(record.folder).reproduced:
            real[row.id] = alive[row.id] = False
            continue
        (newest,) = parse_specs(NEWEST[blamed.family])
        specs = [
            newest if summary.name == blamed.name else parse_specs(summary.spec)[0]
            for summary in record.solvers
        ]
        if len({s.name for s in specs}) < len(specs):  # the newest was a target already
            specs = [s for s in specs if s is newest or s.name != newest.name]
        text = record.formula()
        results = [run(spec, text) for spec in specs]
        judgement = judge_again(record.verdict, text, results, run)
        again = [
            v
            for v in judgement.verdicts
            if v.solver == newest.name and v.kind == record.verdict.kind
        ]
        # a newest release that rejects the formula is not a fix: not counted as real
        rejected = any(r.spec.name == newest.name and str(r.outcome) == "error" for r in results)
        real[row.id] = not again and not rejected
        alive[row.id] = bool(again)
        if real[row.id]:
            inherited[row.id] = _seed_differs(record.seed_file, parse_specs(blamed.spec)[0],
                                              newest, run)  # fmt: skip
    groups = group_bugs(rows)
    return {
        "bugs": len(rows),
        "real": sum(real.values()),
        "distinct_real": sum(any(real[b.id] for b in g.bugs) for g in groups),
        "alive": sum(alive.values()),
        "distinct_alive": sum(any(alive[b.id] for b in g.bugs) for g in groups),
        # groups with a real bug the old release does not show on the seed alone
        "distinct_new": sum(
            any(real[b.id] and not inherited[b.id] for b in g.bugs) for g in groups
        ),
        "groups": [
            {
                "kind": g.kind,
                "solver": g.solver,
                "key": g.key,
                "real": any(real[b.id] for b in g.bugs),
                "alive": any(alive[b.id] for b in g.bugs),
                "example": g.bugs[0].id,
            }
            for g in groups
        ],  # fmt: skip
    }


def _seed_differs(seed_file: str, old: Any, newest: Any, run: Any) -> bool:
    """The old release and the newest give different definite answers on the seed itself:
    the bug may be the seed's own (the bug-trigger corpus is made of known bugs)."""
    try:
        text = Path(seed_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    answers = [run(spec, text).answers[:1] for spec in (old, newest)]
    definite = [a[0] for a in answers if a and a[0] in ("sat", "unsat")]
    return len(definite) == 2 and definite[0] != definite[1]


def run_fuzz(folder: Path, arguments: list[str]) -> tuple[float, Any]:
    """`sphinxfuzz fuzz ARGUMENTS -c FOLDER -q` in a process of its own (lanes side by side
    share no solver reaper), or the campaign already in FOLDER, kept: (wall seconds, the
    folder's total statistics)."""
    from sphinxfuzz.bugs import Store
    from sphinxfuzz.bugs.folder import CampaignFolder

    command = [sys.executable, "-m", "sphinxfuzz", "fuzz", *arguments, "-c", str(folder), "-q",
               "--no-reduce"]  # fmt: skip
    if (folder / CampaignFolder.INDEX).is_file():
        # a row of an earlier run into the same --out: kept, its wall time is the campaign's
        print(f"kept: {folder} (remove it to run it again)", flush=True)
        with Store(folder) as store:
            stats = store.total_stats()
        return stats.wall_time, stats
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.monotonic() - started
    if done.returncode != 0 or not (folder / CampaignFolder.INDEX).is_file():
        raise BenchError(
            f"{' '.join(command)} exited {done.returncode} leaving no campaign in {folder}:"
            f"\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    with Store(folder) as store:
        return wall, store.total_stats()


def draw_seeds(work: Path, sample: int, seed: int) -> Path:
    """`work/seeds`: `sample` files of each corpus (drawn once; kept for a later run)."""
    seeds = work / "seeds"
    if not seeds.is_dir():
        for corpus in CORPORA:
            sample_seeds(seeds / corpus.name, sample, seed, corpus=corpus)
    return seeds


def run_strategy(
    name: str, solvers: str, seeds: Path, work: Path, seconds: float, campaign_seed: int,
    history: str = "",
) -> dict[str, Any]:  # fmt: skip
    label = f"{name}@{solvers}".replace(";", "+").replace("/", "_")
    folder = work / label
    extra = ["--history", history] if history else []
    wall, stats = run_fuzz(folder, ["--strategies", name, "--solvers", solvers, "--seeds",
                                    str(seeds), "--time", f"{seconds:g}s",
                                    "--seed", str(campaign_seed), *extra])  # fmt: skip
    mine = stats.strategies.get(name)
    cases = mine.cases if mine else 0
    row: dict[str, Any] = {
        "strategy": name,
        "solvers": solvers,
        "wall_seconds": round(wall, 1),
        "cases": cases,
        "cases_per_second": round(cases / wall, 3) if wall else 0.0,
        "expected_share": round(mine.expected / cases, 3) if mine and cases else 0.0,
        "accepted_share": round(mine.accepted / cases, 3) if mine and cases else 0.0,
        "seed_positions": mine.positions if mine else 0,
        "verdicts": dict(stats.bugs),
        # verdicts the trusted solver contradicted, so not stored: the strategy's own wrong
        # constructions (a fusion label, an SAE rewrite, a STORM model) show here
        "doubts": sum(stats.doubts.values()),
        "folder": str(folder),
    }
    row.update(real_bugs(folder))
    print(f"done: {name} on {solvers}: {cases} cases, {row['real']} real bugs", flush=True)
    return row


def stored(row: dict[str, Any]) -> str:
    """A row's stored bugs with their kinds: "3 (crash 1, soundness 2)"."""
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(row["verdicts"].items()) if n) or "-"
    return f"{row['bugs']} ({kinds})"


def table(rows: list[dict[str, Any]], minutes: float) -> str:
    head = ("| strategy | solvers | cases/s | expected answer | accepted | construction doubts "
            "| bugs stored (by kind) | real | distinct real | ... not on the seed alone |\n"
            "|---|---|---:|---:|---:|---:|---|---:|---:|---:|")  # fmt: skip
    lines = [head]
    for row in rows:
        lines.append(
            f"| {row['strategy']} | {row['solvers']} | {row['cases_per_second']:.2f} | "
            f"{row['expected_share']:.0%} | {row['accepted_share']:.0%} | "
            f"{row.get('doubts', '-')} | {stored(row)} | "
            f"{row['real']} | {row['distinct_real']} | {row['distinct_new']} |"
        )
    return f"{minutes:g} minutes per row\n\n" + "\n".join(lines)


def common_options(parser: argparse.ArgumentParser) -> None:
    """The options every bench of this kind takes: the seed sample, the lanes, the folder."""
    parser.add_argument("--sample", type=int, default=200, help="seeds from each corpus")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lanes", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None)


def corpora_present() -> bool:
    missing = [c for c in CORPORA if not c.is_dir()]
    if missing:
        print(f"seed corpora missing: {', '.join(map(str, missing))}", file=sys.stderr)
    return not missing


def in_lanes(
    jobs: Sequence[Job], run: Callable[[Job], dict[str, Any]], lanes: int,
    name: Callable[[Job], str],
) -> list[dict[str, Any]]:  # fmt: skip
    """`run` on every job, `lanes` at a time; a job that fails is named with its error and
    left out, the others go on."""

    def attempt(job: Job) -> dict[str, Any] | None:
        try:
            return run(job)
        except BenchError as exc:
            print(f"error: {name(job)}: {exc}", file=sys.stderr, flush=True)
            return None

    with ThreadPoolExecutor(max_workers=max(1, lanes)) as pool:
        return [row for row in pool.map(attempt, jobs) if row is not None]


def main() -> int:
    from sphinxfuzz.strategies import OracleKind, get, names

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--strategies", default=",".join(names()))
    parser.add_argument("--solvers", default=DEFAULT_SOLVERS)
    parser.add_argument("--single", default="", help="one solver for the expected-answer rows")
    parser.add_argument("--seeds", type=Path, default=None, help="these seeds, not the sample")
    history = CORPORA[0] if CORPORA[0].is_dir() else ""
    parser.add_argument("--history", default=str(history), help="bug triggers (histfuzz)")
    common_options(parser)
    args = parser.parse_args()
    if args.seeds is None and not corpora_present():
        return 2
    work = args.out or Path(tempfile.mkdtemp(prefix="sphinxfuzz-strategies-"))
    seeds = args.seeds or draw_seeds(work, args.sample, args.seed)
    chosen = [s.strip() for s in args.strategies.split(",") if s.strip()]
    jobs = [(name, args.solvers) for name in chosen]
    if args.single:
        jobs += [(name, args.single) for name in chosen if get(name).oracle == OracleKind.EXPECTED]
    seconds = args.minutes * 60

    rows = in_lanes(
        jobs, lambda job: run_strategy(*job, seeds, work, seconds, args.seed, args.history),
        args.lanes,
        lambda job: f"{job[0]} on {job[1]}",
    )  # fmt: skip
    (work / "strategies.json").write_text(json.dumps(rows, indent=2))
    print(table(rows, args.minutes))
    print(f"\nresults: {work / 'strategies.json'}")
    return 0 if len(rows) == len(jobs) else 1


if __name__ == "__main__":
    sys.exit(main())
