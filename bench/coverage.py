"""z3 line and function coverage reached by each strategy, and by yinyang's opfuzz and typefuzz.

    python bench/coverage.py [--minutes 5] [--lanes 2] [--tools default,sphinx,opfuzz,
        typefuzz,grammar,yinyang-opfuzz,yinyang-typefuzz] [--sample 300] [--seed 1]
        [--out DIR] [--build-only]

The z3 under test is built with gcov instrumentation (`--coverage`, `-O1`) from a `z3-solver`
sdist (`--z3-version`, default 4.12.2.0: newer sources need GCC 13), once: the build is
cached in ~/.cache/sphinxfuzz/coverage/z3-<version>/ and the bench says how long it took
(under `nice -n 19`, `-j2`). Then every tool runs, one job, for `--minutes` on the same
fixed sample of ../shared/seeds/bug-triggers (drawn as bench/peers.py draws it), against the
instrumented z3 (with model_validate=true) and cvc5 (the wheel behind sphinxfuzz's shim,
with --check-models). A sphinxfuzz tool is `--strategies NAME` (`default`: the default mix,
today `sphinx` alone; `sphinx+opfuzz` a mix of several); a yinyang tool runs through
bench/yinyang_driver.py as bench/peers.py runs it. Each tool's z3 writes its counters
(`*.gcda`) into a folder of its own (`GCOV_PREFIX`), which gets the build's notes files
(`*.gcno`) beside them and is read with gcovr after the tool. So tools can run side by side:
`--lanes 2` runs two at a time (on a 2-core machine each gets about one core, and every
tool has a neighbour when their number is even), halving the wall time of the bench.

sphinxfuzz draws solver options per seed position by default (`--options random`): the
targets' option tables are built before any tool starts, and the probe's counters are
thrown away, so each tool is measured by its own campaign.

A solver process writes its counters when it exits normally: a z3 killed at its time limit
adds nothing. yinyang starts a process per call, so a killed z3 loses one script's counters.
sphinxfuzz keeps its solver processes as it does for its users, but replaced every
PROCESS_SCRIPTS scripts (`--process-scripts`; 500 by default): a replaced process is asked
to exit and writes its counters, and one killed at a time-out or at the deadline loses at
most that many scripts' counters. With the default 500 a killed z3 took hundreds of scripts'
counters with it, which measured sphinxfuzz's strategies by little more than their seed
checks; with a process per script (`--fresh-processes`) the default made 1,635 mutants in
10 minutes (29.7% of z3's lines), with 20 scripts a process 5,592 (31.4%).

Printed: tool, mutants, z3 line and function coverage, and the difference to the best
yinyang tool in percentage points.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import CORPUS, DEFAULT_ENV, run_yinyang, sample_seeds, yinyang_env  # noqa: E402

from sphinxfuzz.solvers.builds import BuildError, fetch_sdist, z3_tree  # noqa: E402
from sphinxfuzz.solvers.families import Family  # noqa: E402

CACHE = Path.home() / ".cache" / "sphinxfuzz" / "coverage"
TOOLS = "default,sphinx,opfuzz,typefuzz,grammar,yinyang-opfuzz,yinyang-typefuzz"
NEEDED = ("cmake", "ninja", "g++", "gcov")
PROCESS_SCRIPTS = 20  # scripts a sphinxfuzz solver process answers (see the docstring)


class BenchError(Exception):
    pass


# The z3 built with coverage: the newest sources include C++20's <format> (GCC 13 or
# later); 4.12.2 builds with the GCC 12 of Debian 12. Any release serves: the tools are
# compared on the same one.
Z3_VERSION = "4.12.2.0"


def build_z3(version: str, cache: Path = CACHE) -> tuple[Path, Path, dict[str, Any]]:
    """(the instrumented z3 binary, its build folder, what the build took); built once."""
    home = cache / f"z3-{version}"
    build = home / "build"
    binary = build / "z3"
    record = home / "build.json"
    if binary.is_file() and record.is_file():
        return binary, build, {**json.loads(record.read_text()), "cached": True}
    missing = [tool for tool in NEEDED if shutil.which(tool) is None]
    if missing:
        raise BenchError(f"building z3 with coverage needs {', '.join(missing)}: install them")
    home.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    source = _source(version, home)
    build.mkdir(exist_ok=True)
    flags = "--coverage -O1 -g0"
    configure = ["cmake", "-G", "Ninja", str(source), "-DCMAKE_BUILD_TYPE=Release",
                 f"-DCMAKE_CXX_FLAGS={flags}", f"-DCMAKE_C_FLAGS={flags}",
                 "-DCMAKE_EXE_LINKER_FLAGS=--coverage", "-DCMAKE_SHARED_LINKER_FLAGS=--coverage",
                 "-DZ3_BUILD_LIBZ3_SHARED=OFF", "-DZ3_BUILD_PYTHON_BINDINGS=OFF",
                 "-DZ3_BUILD_TEST_EXECUTABLES=OFF", "-DZ3_ENABLE_EXAMPLE_TARGETS=OFF",
                 "-DCMAKE_CXX_FLAGS_RELEASE=-DNDEBUG",
                 # CMake 4 refuses projects that ask for CMake < 3.5, as z3 4.12 does
                 "-DCMAKE_POLICY_VERSION_MINIMUM=3.5"]  # fmt: skip
    _quiet(configure, build, home / "configure.log")
    _quiet(["nice", "-n", "19", "ninja", "-j2", "shell"], build, home / "build.log")
    if not binary.is_file():
        raise BenchError(f"the build made no z3 binary; see {home / 'build.log'}")
    facts = {"version": version, "seconds": round(time.monotonic() - started, 1), "flags": flags}
    record.write_text(json.dumps(facts))
    return binary, build, {**facts, "cached": False}


def _source(version: str, home: Path) -> Path:
    found = list(home.glob("z3*/core/CMakeLists.txt"))
    if found:
        return found[0].parent
    try:
        return z3_tree(fetch_sdist("z3-solver", version, home))
    except BuildError as exc:
        raise BenchError(str(exc)) from None


def _quiet(command: list[str], cwd: Path, log: Path) -> None:
    with open(log, "w") as out:
        done = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        raise BenchError(f"{' '.join(command[:3])} ... failed; see {log}")


def counters_folder(build: Path, prefix: Path) -> Path:
    """Where a z3 run with GCOV_PREFIX=prefix writes the counters of `build`."""
    return prefix / build.resolve().relative_to("/")


def coverage(build: Path, prefix: Path) -> dict[str, float]:
    """z3's line and function coverage from the counters under `prefix`, by gcovr."""
    gcovr = shutil.which("gcovr")
    if gcovr is None:
        raise BenchError("gcovr is not installed (pip install gcovr)")
    source = next(build.parent.glob("z3*/core"))
    mirror = counters_folder(build, prefix)
    for notes in build.rglob("*.gcno"):  # gcov reads the notes beside the counters
        target = mirror / notes.relative_to(build)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(notes, target)
    done = subprocess.run(
        [gcovr, "--root", str(source / "src"), "--object-directory", str(mirror),
         "--json-summary", "-", "-j", "2", "--gcov-ignore-errors=no_working_dir_found",
         # a hot loop of z3 counts past 2**32 in minutes (opfuzz's mutants reach it): gcovr
         # takes such counts for gcov's old overflow bug and stops, but they are real here
         "--gcov-ignore-parse-errors=suspicious_hits.warn_once_per_file",
         str(mirror)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise BenchError(f"gcovr failed: {done.stderr[-1500:]}")
    return summary_figures(json.loads(done.stdout))


def summary_figures(summary: dict[str, Any]) -> dict[str, float]:
    """Line and function coverage (percent) from gcovr's `--json-summary` document."""
    return {
        "line_percent": float(summary["line_percent"]),
        "function_percent": float(summary["function_percent"]),
        "lines_covered": float(summary["line_covered"]),
        "lines_total": float(summary["line_total"]),
    }


def target_solvers(z3: Path) -> list[str]:
    cvc5 = " ".join(Family.CVC5.record.shim_argv(sys.executable))  # as `cvc5` resolves
    return [f"{z3} model_validate=true", f"{cvc5} --check-models"]


def option_tables(z3: Path, work: Path) -> None:
    """Build the targets' option tables (sphinxfuzz draws options by default) before any tool
    runs, with the probe's counters thrown away: a tool's counters are its campaign's alone,
    and no tool's minutes pay for the probe."""
    environment = {**os.environ, "GCOV_PREFIX": str(work / "gcov-option-probe")}
    for solver in target_solvers(z3):
        subprocess.run([sys.executable, "-m", "sphinxfuzz", "solvers", "options", solver],
                       capture_output=True, check=True, env=environment)  # fmt: skip
    shutil.rmtree(work / "gcov-option-probe", ignore_errors=True)


def run_tool(
    tool: str, z3: Path, seeds: Path, work: Path, seconds: float, seed: int, env: Path
) -> dict[str, Any]:
    """Run one tool against the instrumented z3; its counters land in work/gcov-<tool>."""
    prefix = work / f"gcov-{tool}"
    shutil.rmtree(prefix, ignore_errors=True)
    environment = {**os.environ, "GCOV_PREFIX": str(prefix)}
    solvers = target_solvers(z3)
    if tool.startswith("yinyang-"):
        # yinyang stops at the first seed its own type checker refuses (typefuzz often does,
        # at once): it is started again with the next seed until its minutes are spent, so
        # every tool gets the same time; the counters add up in the same folder
        python = yinyang_env(env)
        mutants, runs, started = 0, 0, time.monotonic()
        while (left := seconds - (time.monotonic() - started)) > 5:
            row = run_yinyang(tool.removeprefix("yinyang-"), python, seeds, work, left, 10.0,
                              seed + runs, f"{tool}-{runs}", solvers=solvers,
                              env=environment)  # fmt: skip
            mutants, runs = mutants + row["mutants"], runs + 1
        return {"tool": tool, "mutants": mutants, "runs": runs, "prefix": prefix}
    folder = work / tool
    command = [sys.executable, "-m", "sphinxfuzz", "fuzz", "--solvers", ";".join(solvers),
               "--seeds", str(seeds), "--time", f"{seconds:g}s", "--seed", str(seed),
               "-c", str(folder), "-q", "--process-scripts", str(PROCESS_SCRIPTS),
               "--no-reduce"]  # fmt: skip
    if tool != "default":  # a mix is written with "+": sphinx+opfuzz+typefuzz
        command[4:4] = ["--strategies", tool.replace("+", ",")]
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=environment)
    if done.returncode != 0:
        raise BenchError(f"{tool}: {done.stdout[-1500:]}{done.stderr[-1500:]}")
    from sphinxfuzz.bugs import Store

    with Store(folder) as store:
        return {"tool": tool, "mutants": store.total_stats().mutants, "prefix": prefix}


def measure(
    tool: str, z3: Path, build: Path, seeds: Path, work: Path, seconds: float, seed: int,
    env: Path,
) -> dict[str, Any]:  # fmt: skip
    row = run_tool(tool, z3, seeds, work, seconds, seed, env)
    row.update(coverage(build, row.pop("prefix")))
    print(f"{tool}: {row['mutants']} mutants, {row['line_percent']:.2f}% lines", flush=True)
    return row


def table(rows: list[dict[str, Any]]) -> str:
    peers = [r["line_percent"] for r in rows if r["tool"].startswith("yinyang-")]
    best = max(peers) if peers else None
    lines = ["| tool | mutants | z3 lines | z3 functions | vs best yinyang |",
             "|---|---:|---:|---:|---:|"]  # fmt: skip
    for row in rows:
        delta = "-" if best is None else f"{row['line_percent'] - best:+.2f} pp"
        lines.append(f"| {row['tool']} | {row['mutants']} | {row['line_percent']:.2f}% | "
                     f"{row['function_percent']:.2f}% | {delta} |")  # fmt: skip
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--tools", default=TOOLS)
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--yinyang-env", type=Path, default=DEFAULT_ENV)
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("--lanes", type=int, default=1, help="tools run side by side")
    parser.add_argument("--z3-version", default=Z3_VERSION, help="z3-solver sdist to build")
    args = parser.parse_args()
    try:
        z3, build, facts = build_z3(args.z3_version)
        how = "cached" if facts["cached"] else "built now"
        print(f"instrumented z3 {facts['version']}: {z3} ({how}; the build took "
              f"{facts['seconds'] / 60:.1f} min)", flush=True)  # fmt: skip
        if args.build_only:
            return 0
        if not CORPUS.is_dir():
            raise BenchError(f"seed corpus {CORPUS} is missing")
        work = args.out or Path(tempfile.mkdtemp(prefix="sphinxfuzz-coverage-"))
        seeds = work / "seeds"
        if not seeds.is_dir():
            sample_seeds(seeds, args.sample, args.seed)
        tools = [t.strip() for t in args.tools.split(",") if t.strip()]
        if any(t.startswith("yinyang-") for t in tools):
            yinyang_env(args.yinyang_env)  # installed once, before lanes start
        if any(not t.startswith("yinyang-") for t in tools):
            option_tables(z3, work)
        with ThreadPoolExecutor(max_workers=max(1, args.lanes)) as pool:
            rows = list(pool.map(
                lambda tool: measure(tool, z3, build, seeds, work, args.minutes * 60,
                                     args.seed, args.yinyang_env),
                tools,
            ))  # fmt: skip
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    (work / "coverage.json").write_text(json.dumps({"build": facts, "rows": rows}, indent=2))
    print(f"\n{args.minutes:g} minutes per tool ({args.lanes} at a time), z3 {facts['version']} "
          "with gcov\n")  # fmt: skip
    print(table(rows))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
