"""Read-print round trip over the bug-trigger corpus.

For every seed: read it (or report the rejection with file:line:col), print it back, and run
z3 on the original and on the printed text; the answer class sequence (sat/unsat/unknown/
error per check-sat, or timeout) must be the same. Also times the reading alone and reports
the share of files in which sort inference types every sub-term.

    python bench/roundtrip.py [--corpus ../shared/seeds/bug-triggers] [--timeout 5] [--jobs 2]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from sphinxfuzz.smtlib import SmtParseError, infer_sorts, parse_file, print_script

ROOT = Path(__file__).resolve().parent.parent
_ANSWER = re.compile(r"^(sat|unsat|unknown)$|^\(error", re.MULTILINE)


def z3_classes(text: str, timeout: float) -> str:
    """The sequence of answer classes z3 prints for `text` (error lines collapse to 'error')."""
    with tempfile.NamedTemporaryFile("w", suffix=".smt2", delete=False) as handle:
        handle.write(text)
        path = handle.name
    try:
        proc = subprocess.run(
            ["z3", path], capture_output=True, text=True, timeout=timeout, errors="replace"
        )
    except subprocess.TimeoutExpired:
        return "timeout"
    finally:
        os.unlink(path)
    classes = [m.group(0) if m.group(1) else "error" for m in _ANSWER.finditer(proc.stdout)]
    if proc.returncode < 0:
        classes.append(f"signal{-proc.returncode}")
    return " ".join(classes)


def check_file(args: tuple[str, float]) -> tuple[str, str, str, bool]:
    """(path, verdict, detail, z3 accepted the original without an error)."""
    path, timeout = args
    try:
        script = parse_file(path)
    except SmtParseError as exc:
        return path, "rejected", str(exc), False
    printed = print_script(script)
    original = z3_classes(Path(path).read_text(errors="replace"), timeout)
    again = z3_classes(printed, timeout)
    accepted = "error" not in original.split()
    if "timeout" in (original, again):
        return path, "inconclusive", f"{original} / {again}", accepted
    verdict = "same" if original == again else "different"
    return path, verdict, f"{original} / {again}", accepted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared/seeds/bug-triggers"))
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-solver", action="store_true", help="only read, print and type")
    options = parser.parse_args()
    files = sorted(str(p) for p in Path(options.corpus).glob("*.smt2"))
    if not files:
        print(f"no .smt2 files under {options.corpus} (the corpus lives in ../shared)")
        return 1

    started = time.perf_counter()
    read, rejected, fully_typed, terms, typed_terms = 0, [], 0, 0, 0
    typed_files: set[str] = set()
    for path in files:
        try:
            script = parse_file(path)
        except SmtParseError as exc:
            rejected.append(str(exc))
            continue
        read += 1
        print_script(script)
        info = infer_sorts(script)
        fully_typed += info.fully_sorted
        if info.fully_sorted:
            typed_files.add(path)
        terms += info.terms
        typed_terms += info.terms - info.unsorted
    elapsed = time.perf_counter() - started
    print(f"files: {len(files)}  read: {read} ({read / len(files):.2%})  rejected: {len(rejected)}")
    for message in rejected[:20]:
        print(f"  rejected {message}")
    print(f"read+print+type time: {elapsed:.2f} s on one core")
    print(
        f"every sub-term typed: {fully_typed}/{read} files ({fully_typed / max(read, 1):.2%});"
        f" typed terms: {typed_terms / max(terms, 1):.2%} of {terms}"
    )
    if options.no_solver:
        return 0

    started = time.perf_counter()
    outcome: dict[str, list[tuple[str, str]]] = {"same": [], "different": [], "inconclusive": []}
    accepted: list[str] = []
    with ProcessPoolExecutor(options.jobs) as pool:
        for path, verdict, detail, ok in pool.map(
            check_file, [(f, options.timeout) for f in files], chunksize=8
        ):
            if verdict in outcome:
                outcome[verdict].append((path, detail))
            if ok:
                accepted.append(path)
    checked = sum(len(v) for v in outcome.values())
    print(
        f"z3 on original vs printed ({options.timeout:g} s limit, {time.perf_counter() - started:.0f} s):"
        f" same {len(outcome['same'])}/{checked}, different {len(outcome['different'])},"
        f" inconclusive (a timeout) {len(outcome['inconclusive'])}"
    )
    for path, detail in outcome["different"][:20]:
        print(f"  different: {Path(path).name}: {detail}")
    # Files z3 itself rejects (undeclared symbols in truncated reports) cannot be typed by
    # anyone; the typing target is over the files a solver accepts.
    typed_accepted = sum(path in typed_files for path in accepted)
    print(
        f"every sub-term typed, files z3 accepts: {typed_accepted}/{len(accepted)}"
        f" ({typed_accepted / max(len(accepted), 1):.2%})"
    )
    return 0 if not outcome["different"] else 2


if __name__ == "__main__":
    sys.exit(main())
