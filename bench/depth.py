"""Deeper bugs: the same seeds and old releases with no options, with drawn options, on a
z3 build with assertions, and with both; the newest z3's builds with drawn options.

    python bench/depth.py [--minutes 20] [--z3 z3@4.12.2] [--cvc5 cvc5@1.1.2]
        [--rows a,b,c,d] [--options random] [--strategies MIX] [--sample 200] [--seed 1]
        [--lanes 1] [--out DIR]

Seeds: the fixed sample bench/strategies.py draws (`--sample` files from each of
../shared/seeds/bug-triggers and ../shared/seeds/regressions). Each row is one campaign
(`sphinxfuzz fuzz`, one job, the default strategy mix unless `--strategies`, default limits)
of `--minutes` against `--z3` and `--cvc5` (old releases: `sphinxfuzz solvers install
z3==4.12.2 cvc5==1.1.2`; Debian's /usr/bin/cvc5 is 1.0.3):

- (a) default: the releases as they are, `--options none`;
- (b) options: `--options random` (each seed position draws options from the releases'
  option tables, `sphinxfuzz solvers options z3@4.12.2`);
- (c) assertions: the z3 release replaced by its build with assertions (`z3@X+assert`),
  `--options none`;
- (d) both;
- (e) the newest z3 with assertions: `--newest-z3` (z3@5.4.1) built with them,
  `z3@5.4.1+assert` (`sphinxfuzz solvers build z3==5.4.1 --assertions`: clang-19 and libc++
  on Debian 12, the one apt line it prints), options drawn as in (b);
- (f) the newest z3 with sanitizers: `z3@5.4.1+asan` (`--sanitizers address,undefined`),
  options drawn as in (b).

Every row passes `--options` (`sphinxfuzz fuzz` draws options when not told: `none` is said
for rows a and c). Rows (e) and (f) are run alone (`--rows e,f --minutes 30`), as issue 54
measures them, with options drawn as `sphinxfuzz fuzz` runs by default.

A row whose build is not in the solver cache is skipped with the command that makes it
(`sphinxfuzz solvers build z3==X --assertions`, most of an hour on two cores); the other
rows run. Printed per row: stored bugs by kind, real ones and distinct real ones as
bench/strategies.py defines them (the blamed release shows it again, the newest release of its
family no longer does; distinct = triage groups), and the bugs the newest release still
shows (alive), with their distinct groups. `--lanes 2` runs two rows side by side. A JSON
file with everything is written to `--out`; a row whose campaign folder is there already is
read back, not run again: its options column gives the options that campaign ran with, as
its stored config holds them, and a kept row that ran others than the row now asks is said.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from strategies import (  # noqa: E402
    common_options,
    corpora_present,
    draw_seeds,
    in_lanes,
    real_bugs,
    run_fuzz,
    stored,
)

from sphinxfuzz.bugs import Store  # noqa: E402
from sphinxfuzz.bugs.option_use import NO_OPTIONS, sets_options  # noqa: E402
from sphinxfuzz.solvers import SolverSpecError, parse_specs  # noqa: E402
from sphinxfuzz.solvers.families import ASAN_MARK, ASSERT_MARK, split_build  # noqa: E402


@dataclass(frozen=True)
class Row:
    key: str  # a to f
    name: str
    options: bool  # --options drawn per position (`--options`), else `--options none`
    assertions: bool  # the z3 build with assertions in place of the release
    mark: str = ""  # the build's marks when not just assertions: "+asan"
    newest: bool = False  # the newest z3 (--newest-z3) in place of the old one


ROWS = (
    Row("a", "default", False, False),
    Row("b", "options", True, False),
    Row("c", "assertions", False, True),
    Row("d", "options + assertions", True, True),
    Row("e", "newest + assertions", True, True, newest=True),
    Row("f", "newest + sanitizers", True, False, ASAN_MARK, newest=True),
)
NEWEST_Z3 = "z3@5.4.1"
# what makes the build of each mark (after `solvers build z3==X`)
BUILD_SWITCHES = {ASSERT_MARK: "--assertions", ASAN_MARK: "--sanitizers address,undefined",
                  ASSERT_MARK + ASAN_MARK: "--assertions --sanitizers address,undefined"}  # fmt: skip


def z3_of(row: Row, z3: str, newest: str = NEWEST_Z3) -> str:
    """The z3 spec of a row: `z3@X+assert` where the row asks for assertions, the newest z3
    with the row's marks for rows (e) and (f)."""
    base = newest if row.newest else z3
    mark = row.mark or (ASSERT_MARK if row.assertions else "")
    return base + mark if mark and not base.endswith(mark) else base


def missing_build(spec: str) -> str | None:
    """Why `spec` cannot run and the command that makes it, or None when it can."""
    if spec.endswith(ASSERT_MARK) and "@" not in spec:
        return f"a build with assertions is of a release: --z3 NAME@VERSION, not {spec!r}"
    try:
        parse_specs(spec)
    except SolverSpecError as exc:
        release, mark = split_build(spec.partition("@")[2])
        family = spec.partition("@")[0]
        if not mark:
            return f"{exc} (`sphinxfuzz solvers install {family}=={release}`)"
        return f"{exc}: `sphinxfuzz solvers build {family}=={release} {BUILD_SWITCHES[mark]}`"
    return None


def options_of(row: Row, drawn: str) -> str:
    """The `--options` of a row: `drawn` (`random`) where it draws them, else none, said,
    since `sphinxfuzz fuzz` draws them when not told."""
    return drawn if row.options else NO_OPTIONS


def ran_options(folder: Path) -> str:
    """The `options` setting the campaign in `folder` ran with, as its stored config holds
    it (none for a config stored before options existed)."""
    with Store(folder) as store:
        setting = str((store.config() or {}).get("options", ""))
    return setting if sets_options(setting) else NO_OPTIONS


def run_row(row: Row, args: argparse.Namespace, seeds: Path, work: Path) -> dict[str, Any]:
    solvers = f"{z3_of(row, args.z3, args.newest_z3)};{args.cvc5}"
    folder = work / f"{row.key}-{row.name.replace(' + ', '-')}"
    asked = options_of(row, args.options)
    arguments = ["--solvers", solvers, "--seeds", str(seeds), "--time",
                 f"{args.minutes * 60:g}s", "--seed", str(args.seed), "--options", asked]  # fmt: skip
    if args.strategies:
        arguments += ["--strategies", args.strategies]
    wall, stats = run_fuzz(folder, arguments)
    ran = ran_options(folder)  # a row kept from an earlier --out ran what it ran
    if ran != asked:
        print(f"kept: ({row.key}) {row.name} ran with options {ran}, not {asked}: its figures "
              f"are of what ran (remove {folder} to run it as asked)", flush=True)  # fmt: skip
    result: dict[str, Any] = {
        "row": row.key,
        "name": row.name,
        "solvers": solvers,
        "options": ran,
        "wall_seconds": round(wall, 1),
        "mutants": stats.mutants,
        "verdicts": dict(stats.bugs),
        "folder": str(folder),
        **real_bugs(folder),
    }
    print(f"done: ({row.key}) {row.name}: {stats.mutants} cases, {result['real']} real, "
          f"{result['alive']} alive", flush=True)  # fmt: skip
    return result


def table(results: list[dict[str, Any]], skipped: dict[str, str], minutes: float) -> str:
    lines = ["| row | solvers | options | cases | bugs stored (by kind) | real | distinct real "
             "| alive in newest | distinct alive |",
             "|---|---|---|---:|---|---:|---:|---:|---:|"]  # fmt: skip
    for r in results:
        lines.append(
            f"| ({r['row']}) {r['name']} | {r['solvers']} | {r['options']} | "
            f"{r['mutants']} | {stored(r)} | {r['real']} | {r['distinct_real']} | "
            f"{r['alive']} | {r['distinct_alive']} |"
        )
    for row in ROWS:
        if row.key in skipped:
            lines.append(f"| ({row.key}) {row.name} | skipped: {skipped[row.key]} | | | | | | | |")
    return f"{minutes:g} minutes per row\n\n" + "\n".join(lines) + together(results)


def _real_groups(result: dict[str, Any]) -> set[tuple[str, str, str]]:
    """A row's distinct real bugs as (kind, solver, key); a build's mark is left out of the
    solver, so the release and its build with assertions name the same bug alike."""
    return {(g["kind"], split_build(str(g["solver"]))[0], g["key"])
            for g in result["groups"] if g["real"]}  # fmt: skip


def together(results: list[dict[str, Any]]) -> str:
    """Rows (b)-(d) together against row (a): their distinct real bugs as one set."""
    by_row = {r["row"]: _real_groups(r) for r in results}
    if "a" not in by_row or len(by_row) < 2:
        return ""
    deeper = set().union(*(groups for row, groups in by_row.items() if row != "a"))
    crashes = {g for g in deeper if g[0] == "crash"}
    names = ", ".join(f"({row})" for row in by_row if row != "a")
    return (f"\n\nrows {names} together: {len(deeper)} distinct real bugs ({len(crashes)} "
            f"crash signatures), {len(deeper - by_row['a'])} of them not found by row (a), "
            f"against row (a)'s {len(by_row['a'])}")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--z3", default="z3@4.12.2", help="the old z3 release (NAME@VERSION)")
    parser.add_argument("--newest-z3", default=NEWEST_Z3, help="the newest z3 of rows e and f")
    parser.add_argument("--cvc5", default="cvc5@1.1.2", help="cvc5@1.1.2, /usr/bin/cvc5, ...")
    parser.add_argument("--rows", default="a,b,c,d", help="which rows, e.g. a,b")
    parser.add_argument("--options", default="random", help="as fuzz --options, rows b, d, e, f")
    parser.add_argument("--strategies", default="", help="as fuzz --strategies (default: its)")
    common_options(parser)
    args = parser.parse_args()
    if not corpora_present():
        return 2
    chosen = {k.strip() for k in args.rows.split(",") if k.strip()}
    unknown = chosen - {row.key for row in ROWS}
    if unknown:
        print(f"--rows: no row {', '.join(sorted(unknown))} (a to f)", file=sys.stderr)
        return 2
    skipped: dict[str, str] = {}
    jobs: list[Row] = []
    for row in ROWS:
        if row.key not in chosen:
            continue
        why = missing_build(z3_of(row, args.z3, args.newest_z3)) or missing_build(args.cvc5)
        if why is None:
            jobs.append(row)
        else:  # said, not silent: the other rows run
            skipped[row.key] = why
            print(f"skipped: ({row.key}) {row.name}: {why}", flush=True)
    work = args.out or Path(tempfile.mkdtemp(prefix="sphinxfuzz-depth-"))
    seeds = draw_seeds(work, args.sample, args.seed)

    results = in_lanes(
        jobs, lambda row: run_row(row, args, seeds, work), args.lanes,
        lambda row: f"({row.key}) {row.name}",
    )  # fmt: skip
    (work / "depth.json").write_text(json.dumps({"rows": results, "skipped": skipped}, indent=2))
    print(table(results, skipped, args.minutes))
    for r in results:
        for group in r["groups"]:
            if group["alive"]:
                print(f"alive in the newest release, row ({r['row']}): {group['kind']} in "
                      f"{group['solver']}, {group['key'][:100]} (e.g. {group['example']} in "
                      f"{r['folder']})")  # fmt: skip
    print(f"\nresults: {work / 'depth.json'}")
    return 0 if len(results) == len(jobs) else 1


if __name__ == "__main__":
    sys.exit(main())
