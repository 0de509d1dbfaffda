"""Findings a solver developer would accept: a mixed-strategy campaign, then every stored bug
reduced, replayed on the newest releases and checked for being false.

    python bench/findings.py [--minutes 30] [--solvers "z3@4.12.2;/usr/bin/cvc5"]
        [--trusted "z3;cvc5"] [--seeds ../shared/seeds/regressions [--seeds MORE]] [--seed 1]
        [--timeout 10] [--reduce-seconds 120] [--out /tmp/i25/findings]

Takes `--minutes` plus the reductions (up to `--reduce-seconds` per bug). The campaign runs
every strategy (`--strategies` all of them, one job, default limits) against `--solvers`
(old releases: `sphinxfuzz solvers install z3==4.12.2`; cvc5 1.0.3 is Debian's
`/usr/bin/cvc5`) on the regression corpus; labels, models and doubts come from the trusted
solvers. Then each stored bug (slow findings aside) is reduced (`sphinxfuzz reduce`, with
its reference check) and refreshed (`sphinxfuzz bugs refresh`: alive or fixed in the newest
release).

Printed per strategy:
- stored: bugs stored (slow findings are counted apart);
- doubtful: expected-answer verdicts a trusted solver contradicted (kept out, never stored);
- false: stored bugs where every solver that answers, the newest z3 and cvc5 included, gives
  the answer the verdict says is wrong (at least two of them answering);
- distinct: triage groups after reduction;
- reduced valid: reduced files the reference read without an error line / reduced files;
- alive: bugs still shown by the newest release of the blamed family.
Then every alive bug's reduced formula. A JSON file with everything is written to `--out`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sphinxfuzz.bugs import Store, load_record  # noqa: E402
from sphinxfuzz.bugs.folder import CampaignFolder  # noqa: E402
from sphinxfuzz.bugs.record import ALIVE, BugRecord, load_reduction  # noqa: E402
from sphinxfuzz.bugs.reduce import ReduceError, reduce_bug  # noqa: E402
from sphinxfuzz.bugs.refresh import newest_specs, refresh_bug  # noqa: E402
from sphinxfuzz.bugs.triage import group_bugs  # noqa: E402
from sphinxfuzz.oracle import VerdictKind  # noqa: E402
from sphinxfuzz.oracle.run import run_in_dialect  # noqa: E402
from sphinxfuzz.solvers import parse_specs  # noqa: E402
from sphinxfuzz.strategies import names  # noqa: E402

SEEDS = REPO.parent / "shared" / "seeds" / "regressions"


def claimed_wrong(record: BugRecord) -> str | None:
    """The answer the verdict says is wrong on its formula, when it says one: the answer
    against the construction, or the unsat a holding model refutes."""
    verdict = record.verdict
    if verdict.kind == VerdictKind.SLOW or verdict.kind == VerdictKind.CRASH:
        return None
    if verdict.expected is not None:
        if verdict.kind == VerdictKind.INVALID_MODEL:
            return None  # a model the semantics refutes is wrong whatever the answer
        return "unsat" if verdict.expected.answer == "sat" else "sat"
    return "unsat" if verdict.kind == VerdictKind.SOUNDNESS else None


def is_false(record: BugRecord, timeout: float) -> tuple[bool, dict[str, str]]:
    """Every solver that answers (targets, the newest z3 and cvc5) gives the answer the
    verdict calls wrong, and at least two answer: a maintainer would close the report."""
    wrong = claimed_wrong(record)
    if wrong is None:
        return False, {}
    specs = [parse_specs(s.spec)[0] for s in record.solvers]
    specs += parse_specs("z3;cvc5")
    text = record.formula()
    if record.verdict.evidence.get("unsolved") == "related" and record.verdict.related:
        text = record.verdict.related.text
    answers = {}
    for spec in specs:
        result = run_in_dialect(spec, text, timeout=timeout)
        answers[f"{spec.text}"] = result.answers[0] if result.answers else str(result.outcome)
    definite = [a for a in answers.values() if a in ("sat", "unsat")]
    return len(definite) >= 2 and set(definite) == {wrong}, answers


def seed_options(seeds: list[Path]) -> list[str]:
    """`--seeds` once per folder: the bug-trigger corpus beside the regressions, so a
    30-minute run meets the areas where old releases still have bugs."""
    return [option for seed in seeds for option in ("--seeds", str(seed))]


def run_campaign(args: argparse.Namespace, folder: Path) -> None:
    strategies = ",".join(names())
    command = [sys.executable, "-m", "sphinxfuzz", "fuzz", "--strategies", strategies,
               "--solvers", args.solvers, "--trusted", args.trusted, *seed_options(args.seeds),
               "--timeout", f"{args.timeout:g}", "--time", f"{args.minutes:g}m",
               "--seed", str(args.seed), "-c", str(folder), "-q", "--no-reduce"]  # fmt: skip
    if args.newest:
        command += ["--newest", args.newest]
    if (folder / CampaignFolder.INDEX).is_file():
        print(f"kept: {folder} (remove it to run the campaign again)", flush=True)
        return
    print(" ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=REPO)
    if done.returncode != 0 or not (folder / CampaignFolder.INDEX).is_file():
        raise SystemExit(f"the campaign failed (exit {done.returncode}):\n{done.stderr[-3000:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--solvers", default="z3@4.12.2;/usr/bin/cvc5")
    parser.add_argument("--trusted", default="z3;cvc5")
    parser.add_argument("--newest", default="", help="as fuzz --newest (default: pip's)")
    parser.add_argument(
        "--seeds",
        type=Path,
        action="append",
        help="seed folder or file, repeatable (default: the regressions)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        help="seconds per solver call, as fuzz --timeout (raise it on a loaded machine)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reduce-seconds", type=float, default=120.0)
    parser.add_argument("--out", type=Path, default=Path("/tmp/sphinxfuzz-findings"))
    args = parser.parse_args()
    args.seeds = args.seeds or [SEEDS]
    label = args.solvers.replace(";", "+").replace("/", "_")
    folder = args.out / f"campaign-{label}-{args.minutes:g}m"
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    run_campaign(args, folder)
    with Store(folder) as store:
        rows = store.bugs()
        stats = store.total_stats()
        timeout = float(str((store.config() or {}).get("timeout", 10.0)))
    newest = newest_specs(args.newest)
    per: dict[str, Counter[str]] = {}
    bugs: list[dict[str, Any]] = []
    for row in rows:
        record = load_record(row.folder)
        mine = per.setdefault(record.strategy, Counter())
        entry: dict[str, Any] = {"id": row.id, "strategy": record.strategy, "kind": row.kind,
                                 "solver": row.solver, "signature": row.signature}  # fmt: skip
        if row.kind == VerdictKind.SLOW:
            mine["slow"] += 1
            bugs.append(entry)
            continue
        mine["stored"] += 1
        false, answers = is_false(record, timeout)
        mine["false"] += false
        entry.update(false=false, answers_now=answers)
        try:
            reduce_bug(folder, row.id, time_limit=args.reduce_seconds)
        except ReduceError as exc:
            entry["reduce_error"] = str(exc)
        reduction = load_reduction(row.folder)
        if reduction is not None:
            mine["reduced"] += 1
            valid = bool(reduction.reference and reduction.reference.get("accepted"))
            mine["reduced_valid"] += valid
            entry.update(reduced=record.reduced(), reference=reduction.reference_sentence())
        today = refresh_bug(folder, row.folder, newest)
        mine["alive"] += today.status == ALIVE
        entry["today"] = today.sentence()
        bugs.append(entry)
        print(f"{row.id}: false={false} {entry.get('reference', 'not reduced')}; "
              f"{today.sentence()}", flush=True)  # fmt: skip
    with Store(folder) as store:
        groups = group_bugs(store.bugs())
    for group in groups:
        if group.kind == VerdictKind.SLOW:
            continue
        strategy = load_record(group.representative.folder).strategy
        per.setdefault(strategy, Counter())["distinct"] += 1
    doubts: Counter[str] = Counter()
    for cause, count in stats.doubts.items():
        doubts[cause.split(":")[0]] += count
    for strategy in doubts:
        per.setdefault(strategy, Counter())
    seeds = "+".join(seed.name for seed in args.seeds)
    lines = [
        f"{args.minutes:g} min, {args.solvers}, trusted {args.trusted}, seeds {seeds},"
        f" campaign seed {args.seed}; {stats.mutants} cases; total {time.monotonic() - started:.0f} s",
        "",
        "| strategy | stored | doubtful (kept out) | false | distinct after reduction "
        "| reduced files valid | alive in newest | slow |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    total: Counter[str] = Counter()
    for strategy in sorted(set(per) | set(stats.strategies)):
        c = per.get(strategy, Counter())
        total.update(c)
        total["doubts"] += doubts[strategy]
        lines.append(
            f"| {strategy} | {c['stored']} | {doubts[strategy]} | {c['false']} | "
            f"{c['distinct']} | {c['reduced_valid']}/{c['reduced']} | {c['alive']} | {c['slow']} |"
        )
    lines.append(
        f"| all | {total['stored']} | {total['doubts']} | {total['false']} | {total['distinct']} "
        f"| {total['reduced_valid']}/{total['reduced']} | {total['alive']} | {total['slow']} |"
    )
    print("\n".join(lines))
    print("\ndoubt causes:")
    for cause, count in sorted(stats.doubts.items()):
        print(f"  {count:4} x {cause}")
    for entry in bugs:
        if str(entry.get("today", "")).startswith("alive"):
            print(f"\n{entry['id']} ({entry['kind']} in {entry['solver']}, {entry['today']}; "
                  f"{entry.get('reference', 'not reduced')}):")  # fmt: skip
            print(entry.get("reduced") or "(not reduced)")
    out = args.out / f"findings-{label}-{args.minutes:g}m.json"
    out.write_text(json.dumps({"table": lines, "bugs": bugs, "doubts": dict(stats.doubts)},
                              indent=2, default=str))  # fmt: skip
    print(f"\nwritten: {out}")


if __name__ == "__main__":
    main()
