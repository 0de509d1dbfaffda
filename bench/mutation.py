"""Mutation run: would the tests notice if a rule that decides a bug were broken?

    pip install -e ".[mutation]"
    PYTHONPATH=. python bench/mutation.py --paths sphinxfuzz/oracle/crash.py \
        --tests tests/oracle/test_oracle.py [--max 200] [--jobs 2] [--out mutation.json]

cosmic-ray (from the package index) makes the mutants: one small change each (an operator
swapped, a comparison turned, a constant changed, a condition negated, a loop skipped, ...).
For each mutant this script copies nothing twice: it works in private copies of the tree (one
per job, the working tree as it is, untracked files included), applies the mutant there, runs
the given tests with `PYTHONPATH` set to the copy (so solver and sandbox children run the
mutated code too), and puts the file back. A failing or timed-out test run kills the mutant;
a passing one means it survived.

Mutants that cannot change behaviour (a log text, an equivalent bound) are listed in
`bench/mutation_equivalent.json`, each with the reason; they are left out of the score:

    [{"path": "sphinxfuzz/oracle/crash.py", "operator": "core/NumberReplacer",
      "line": "return text[:200]", "reason": "a display cut; no verdict reads past it"}]

`line` is the original source line, stripped; `operator` may be "*" for every operator on
that line. `--max` draws a sample with `random.Random(--seed)` and says so: its score is an
estimate over the sample. Prints a row per module (mutants, killed, survived, equivalent,
score) and every survivor with its diff, so each can be killed with a test or listed.
`--again OLD.json` (an earlier `--out`) re-tests only that run's survivors, keeping its kills:
tests only added since cannot revive a killed mutant, and a survivor now listed as equivalent
leaves the score. `--functions label status_of` keeps only the mutants inside those functions (a rule that is one
function of a bigger module).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENT = ROOT / "bench" / "mutation_equivalent.json"

try:
    import cosmic_ray.plugins
    from cosmic_ray.ast import ast_nodes, get_ast_from_path
    from cosmic_ray.mutating import use_mutation
except ImportError:  # pragma: no cover - a message, not a feature
    sys.exit('bench/mutation.py needs cosmic-ray: pip install -e ".[mutation]"')


@dataclass(frozen=True)
class Mutant:
    path: str  # relative to the tree
    operator: str
    occurrence: int
    line_no: int
    line: str  # the original source line, stripped


@dataclass
class Outcome:
    mutant: Mutant
    result: str  # killed, survived, timeout, incompetent
    seconds: float
    diff: str = ""


def _operators() -> list[tuple[str, object]]:
    found = []
    for name in cosmic_ray.plugins.operator_names():
        cls = cosmic_ray.plugins.get_operator(name)
        if not cls.arguments():  # operators that need arguments are not drawn
            found.append((name, cls()))
    return found


def enumerate_mutants(tree: Path, paths: list[str]) -> list[Mutant]:
    """Every mutant cosmic-ray can make in the given files (folders: their *.py files)."""
    files: list[Path] = []
    for given in paths:
        full = tree / given
        files.extend(sorted(full.rglob("*.py")) if full.is_dir() else [full])
    mutants: list[Mutant] = []
    operators = _operators()
    for file in files:
        rel = str(file.relative_to(tree))
        lines = file.read_text(encoding="utf-8").splitlines()
        module = get_ast_from_path(file)
        for name, operator in operators:
            positions = [
                start
                for node in ast_nodes(module)
                for start, _end in operator.mutation_positions(node)  # type: ignore[attr-defined]
            ]
            for occurrence, (row, _col) in enumerate(positions):
                text = lines[row - 1].strip() if 0 < row <= len(lines) else ""
                mutants.append(Mutant(rel, name, occurrence, row, text))
    return mutants


def within_functions(tree: Path, mutants: list[Mutant], names: list[str]) -> list[Mutant]:
    """The mutants whose line lies inside a function (or method) of one of the given names."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for path in {m.path for m in mutants}:
        module = ast.parse((tree / path).read_text(encoding="utf-8"))
        spans[path] = [
            (node.lineno, node.end_lineno or node.lineno)
            for node in ast.walk(module)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in names
        ]
    return [m for m in mutants if any(a <= m.line_no <= b for a, b in spans[m.path])]


def load_equivalent(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    entries = json.loads(path.read_text(encoding="utf-8"))
    for number, entry in enumerate(entries):
        missing = {"path", "operator", "line", "reason"} - set(entry)
        if missing or not entry["reason"].strip():
            sys.exit(f"{path}: entry {number} lacks {sorted(missing) or ['a reason']}")
    return entries


def is_equivalent(mutant: Mutant, entries: list[dict[str, str]]) -> str | None:
    for entry in entries:
        if (
            entry["path"] == mutant.path
            and entry["operator"] in ("*", mutant.operator)
            and entry["line"].strip() == mutant.line
        ):
            return entry["reason"]
    return None


def _tracked_files(repo: Path) -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=repo,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [name for name in listed.split("\0") if name and (repo / name).is_file()]


def copy_tree(repo: Path, into: Path) -> Path:
    for name in _tracked_files(repo):
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / name, target)
    return into


def run_tests(tree: Path, command: list[str], timeout: float) -> tuple[str, float]:
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    started = time.monotonic()
    proc = subprocess.Popen(
        command,
        cwd=tree,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return "timeout", time.monotonic() - started
    return ("survived" if code == 0 else "killed"), time.monotonic() - started


def test_mutant(tree: Path, mutant: Mutant, command: list[str], timeout: float) -> Outcome:
    operator = cosmic_ray.plugins.get_operator(mutant.operator)()
    with ExitStack() as stack:
        try:
            before, after = stack.enter_context(
                use_mutation(tree / mutant.path, operator, mutant.occurrence)
            )
        except Exception:  # noqa: BLE001 - cosmic-ray fails on some shapes (a dotted name in
            # an `except` tuple): a mutant it cannot make is not scored, the run goes on
            return Outcome(mutant, "incompetent", 0.0)
        if after is None:
            return Outcome(mutant, "incompetent", 0.0)
        diff = _diff(before, after)
        result, seconds = run_tests(tree, command, timeout)
    return Outcome(mutant, result, seconds, diff)


def _diff(before: str, after: str) -> str:
    old, new = before.splitlines(), after.splitlines()
    changed = [f"-{a.strip()}\n+{b.strip()}" for a, b in zip(old, new, strict=False) if a != b]
    return "\n".join(changed[:4])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--paths", nargs="+", required=True, help="files or folders to mutate")
    parser.add_argument("--tests", nargs="+", required=True, help="pytest paths that should notice")
    parser.add_argument(
        "--repo", type=Path, default=ROOT, help="the tree to test (default: this one)"
    )
    parser.add_argument(
        "--max", type=int, default=0, help="draw at most this many mutants (0: all)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the sample's random.Random")
    parser.add_argument("--jobs", type=int, default=1, help="mutants tested side by side")
    parser.add_argument("--timeout-factor", type=float, default=3.0)
    parser.add_argument("--out", type=Path, help="write every outcome here as JSON")
    parser.add_argument(
        "--functions", nargs="+", help="only mutants inside functions of these names"
    )
    parser.add_argument(
        "--again", type=Path, help="an earlier --out: re-test its survivors, keep its kills"
    )
    parser.add_argument("--list", action="store_true", help="only count the mutants")
    args = parser.parse_args(argv)

    repo = args.repo.resolve()
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-n", "0", "-p", "no:cacheprovider"]
    command += args.tests
    entries = load_equivalent(EQUIVALENT)
    mutants = enumerate_mutants(repo, args.paths)
    if args.functions:
        mutants = within_functions(repo, mutants, args.functions)
    equivalent = [m for m in mutants if is_equivalent(m, entries)]
    candidates = [m for m in mutants if not is_equivalent(m, entries)]
    kept: list[Outcome] = []
    if args.again:
        kept, candidates = _earlier(args.again, repo, entries)
    sampled = args.max and len(candidates) > args.max and not args.again
    if sampled:
        candidates = sorted(random.Random(args.seed).sample(candidates, args.max), key=_order)
    print(
        f"{len(mutants)} mutants, {len(equivalent)} listed as equivalent, testing {len(candidates)}"
        + (f" (a sample drawn with seed {args.seed})" if sampled else "")
        + (f" (the survivors of {args.again}; {len(kept)} of its outcomes kept)" if kept else "")
    )
    if args.list:
        return 0

    scratch = Path(tempfile.mkdtemp(prefix="sphinxfuzz-mutation-"))
    try:
        trees = [copy_tree(repo, scratch / f"tree{n}") for n in range(max(1, args.jobs))]
        baseline, seconds = run_tests(trees[0], command, timeout=3600)
        if baseline != "survived":
            print(f"the tests fail on the unmutated tree ({baseline}); fix that first")
            return 1
        timeout = max(30.0, seconds * args.timeout_factor)
        print(
            f"baseline: tests pass in {seconds:.1f} s; a mutant's run times out at {timeout:.0f} s"
        )
        outcomes = sorted(
            kept + _run_all(trees, candidates, command, timeout), key=lambda o: _order(o.mutant)
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    _print_table(outcomes, equivalent)
    if args.out:
        args.out.write_text(json.dumps([asdict(o) for o in outcomes], indent=1), encoding="utf-8")
    return 0


def _earlier(
    path: Path, repo: Path, entries: list[dict[str, str]]
) -> tuple[list[Outcome], list[Mutant]]:
    """An earlier run's outcomes to keep (all but survivors) and its survivors to re-test;
    survivors now listed as equivalent are dropped. Every mutant must still sit on its line."""
    kept: list[Outcome] = []
    again: list[Mutant] = []
    for row in json.loads(path.read_text(encoding="utf-8")):
        mutant = Mutant(**row["mutant"])
        lines = (repo / mutant.path).read_text(encoding="utf-8").splitlines()
        if lines[mutant.line_no - 1].strip() != mutant.line:
            sys.exit(f"{path}: {mutant.path}:{mutant.line_no} changed since; run afresh")
        if row["result"] != "survived":
            kept.append(Outcome(mutant, row["result"], row["seconds"], row["diff"]))
        elif not is_equivalent(mutant, entries):
            again.append(mutant)
    return kept, again


def _order(mutant: Mutant) -> tuple[str, int, str, int]:
    return (mutant.path, mutant.line_no, mutant.operator, mutant.occurrence)


def _run_all(
    trees: list[Path], mutants: list[Mutant], command: list[str], timeout: float
) -> list[Outcome]:
    # each job owns one tree: a mutant is applied in place, so two may never share one
    chunks = [mutants[n :: len(trees)] for n in range(len(trees))]
    done: list[Outcome] = []

    def work(tree: Path, chunk: list[Mutant]) -> None:
        for mutant in chunk:
            outcome = test_mutant(tree, mutant, command, timeout)
            done.append(outcome)
            mark = {"killed": ".", "timeout": "t", "survived": "S", "incompetent": "?"}[
                outcome.result
            ]
            print(mark, end="", flush=True)

    with ThreadPoolExecutor(len(trees)) as pool:
        for future in [
            pool.submit(work, tree, chunk) for tree, chunk in zip(trees, chunks, strict=True)
        ]:
            future.result()
    print()
    return sorted(done, key=lambda o: _order(o.mutant))


def _print_table(outcomes: list[Outcome], equivalent: list[Mutant]) -> None:
    modules = sorted({o.mutant.path for o in outcomes} | {m.path for m in equivalent})
    print(f"{'module':<44} {'tested':>6} {'killed':>6} {'survived':>8} {'equiv':>5} {'score':>6}")
    total_killed = total_scored = 0
    for module in modules:
        mine = [o for o in outcomes if o.mutant.path == module and o.result != "incompetent"]
        killed = sum(o.result in ("killed", "timeout") for o in mine)
        survived = len(mine) - killed
        total_killed += killed
        total_scored += len(mine)
        listed = sum(m.path == module for m in equivalent)
        score = f"{100 * killed / len(mine):.1f}%" if mine else "-"
        print(f"{module:<44} {len(mine):>6} {killed:>6} {survived:>8} {listed:>5} {score:>6}")
    if total_scored:
        print(
            f"{'all':<44} {total_scored:>6} {total_killed:>6} {total_scored - total_killed:>8}"
            f" {len(equivalent):>5} {f'{100 * total_killed / total_scored:.1f}%':>6}"
        )
    for outcome in outcomes:
        if outcome.result == "survived":
            m = outcome.mutant
            print(f"\nSURVIVED {m.path}:{m.line_no} {m.operator} #{m.occurrence}\n{outcome.diff}")


if __name__ == "__main__":
    sys.exit(main())
