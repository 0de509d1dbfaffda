"""How many distinct crash signatures among a release's segfaults, before and after issue 25.

    python bench/crash_signatures.py --solver z3@4.8.8 [--prefix z3_] [--issues 0-4700]
        [--timeout 3] [--cache /tmp/i25/scan/z3-4.8.8.jsonl]

Runs the release on every formula of ../shared/seeds/bug-triggers (optionally only files
named `<prefix><issue>_<n>.smt2` with the issue number in range), keeps the crashes, and
prints, for those killed by a signal, the distinct signatures the old rule gave ("killed by
signal N" for every bare signal) and the new one (the whole message, or the gdb stack).
Takes long (one solver run per file, plus gdb per bare crash): the cache keeps every
finished file, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sphinxfuzz.oracle.backtrace import gdb_backtrace  # noqa: E402
from sphinxfuzz.oracle.crash import bare_signal, crash_signature, normalise_failure  # noqa: E402
from sphinxfuzz.oracle.dialect import for_family  # noqa: E402
from sphinxfuzz.solvers import Outcome, SolverSpec, parse_specs, run_solver  # noqa: E402

CORPUS = ROOT.parent / "shared" / "seeds" / "bug-triggers"


def old_signature(family: str, failure_line: str | None, exit_code: int) -> str:
    """The rule before issue 25: family + the normalised first failure line."""
    if not failure_line:
        return f"{family}: exit {exit_code}"
    return f"{family}: {normalise_failure(failure_line)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solver", required=True)
    parser.add_argument("--prefix", default="z3_")
    parser.add_argument("--issues", default="0-99999", help="issue number range, a-b")
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument(
        "--corpus",
        type=Path,
        default=CORPUS,
        help="trigger folder (default: ../shared/seeds/bug-triggers)",
    )
    parser.add_argument(
        "--store",
        type=Path,
        help="also store every signal crash into this campaign folder"
        " the way a campaign does (judge, stack signature, record_bug) and count its bugs",
    )
    args = parser.parse_args()
    (spec,) = parse_specs(args.solver)
    low, high = (int(x) for x in args.issues.split("-"))
    files = [
        f
        for f in sorted(args.corpus.glob(f"{args.prefix}*.smt2"))
        if low <= int(f.name[len(args.prefix) :].split("_")[0] or -1) <= high
    ]
    done: dict[str, dict[str, object]] = {}
    if args.cache.exists():
        for line in args.cache.read_text().splitlines():
            row = json.loads(line)
            done[row["file"]] = row
    with args.cache.open("a") as cache:
        for number, path in enumerate(files):
            if path.name in done:
                continue
            text = for_family(path.read_text(errors="replace"), spec.family)
            result = run_solver(spec, text, timeout=args.timeout, memory_mb=2048)
            row: dict[str, object] = {"file": path.name, "outcome": str(result.outcome)}
            if result.outcome == Outcome.CRASH:
                row.update(exit=result.exit_code, line=result.failure_line,
                           old=old_signature(spec.family, result.failure_line, result.exit_code),
                           new=crash_signature(result), bare=bare_signal(result))  # fmt: skip
                if bare_signal(result):
                    trace = gdb_backtrace(spec, text, timeout=args.timeout * 3)
                    stack = trace.signature(spec.family) if trace else None
                    row["new"] = stack or row["new"]
                    row["frames"] = [f.text() for f in trace.frames[:8]] if trace else []
            done[path.name] = row
            cache.write(json.dumps(row) + "\n")
            cache.flush()
            if number % 50 == 0:
                print(f"{number}/{len(files)}", file=sys.stderr, flush=True)
    crashes = [
        r for r in done.values() if r["outcome"] == "crash" and r["file"] in {f.name for f in files}
    ]
    signalled = [r for r in crashes if isinstance(r.get("exit"), int) and int(r["exit"]) < 0]
    print(f"{spec.name} on {len(files)} files of {args.corpus.name} ({args.prefix}{args.issues}):")
    print(f"  crashes: {len(crashes)}; killed by a signal: {len(signalled)}")
    for label, key in (("before (first line / signal)", "old"), ("after (message / stack)", "new")):
        print(f"  distinct signatures among signal crashes, {label}: "
              f"{len({r[key] for r in signalled})}")  # fmt: skip
    for signature, count in Counter(str(r["new"]) for r in signalled).most_common():
        print(f"    {count:3} x {signature[:150]}")
    if args.store is not None:
        store_crashes(spec, [args.corpus / str(r["file"]) for r in signalled], args)


def store_crashes(spec: SolverSpec, files: list[Path], args: argparse.Namespace) -> None:
    """Judge each file as the campaign loop does and store its verdicts in one campaign:
    how many bugs the store keeps of them, with the old rule and the new."""
    from sphinxfuzz.bugs import Origin, Store
    from sphinxfuzz.oracle import judge
    from sphinxfuzz.oracle.backtrace import identified

    args.store.mkdir(parents=True, exist_ok=True)
    with Store(args.store, create=True) as store:
        for number, path in enumerate(files):
            text = for_family(path.read_text(errors="replace"), spec.family)
            results = [run_solver(spec, text, timeout=args.timeout, memory_mb=2048)]
            verdicts = identified(
                judge(text, results, lambda s, t: run_solver(s, t, timeout=args.timeout)).verdicts,
                results, lambda s, text=text: text,
                lambda s, t: gdb_backtrace(s, t, timeout=args.timeout * 3),
            )  # fmt: skip
            for verdict in verdicts:
                origin = Origin(0, str(path), number, 0, "signal crashes")
                ident = store.record_bug(verdict, origin, text, results)
                print(f"  {path.name}: {verdict.signature[:120]} -> "
                      f"{'bugs/' + ident if ident else 'a hit of a stored bug'}")  # fmt: skip
        rows = store.bugs()
    print(f"stored in {args.store}: {len(rows)} bugs from {len(files)} signal crashes")


if __name__ == "__main__":
    main()
