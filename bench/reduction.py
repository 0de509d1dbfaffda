"""How much reduction shrinks a campaign's real triggers while keeping them interesting.

    python bench/reduction.py CAMPAIGN [--time 120] [--seed-findings] [--limit N]

Reduces every bug of the campaign folder (and, with --seed-findings, every seed finding: the
corpus' own triggers on the campaign's solvers) with `sphinxfuzz reduce`'s machinery: ddSMT
keeps only candidates that the interestingness check accepts (same crash signature, same
blamed solver and model check, same failing model). Prints each trigger's size before and
after (bytes and S-expression nodes) and the medians; the reduced formula and reduce.json
are stored beside each trigger as `sphinxfuzz reduce` would.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.reduce import ReduceError, reduce_bug


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("campaign", type=Path)
    parser.add_argument("--time", type=float, default=120.0, help="ddSMT seconds per trigger")
    parser.add_argument("--seed-findings", action="store_true", help="reduce seed findings too")
    parser.add_argument("--limit", type=int, default=0, help="at most this many triggers (0: all)")
    args = parser.parse_args()
    with Store(args.campaign) as store:
        ids = [row.id for row in store.bugs()]
        if args.seed_findings:
            ids += [str(f[0]) for f in store.seed_findings()]
    if args.limit:
        ids = ids[: args.limit]
    if not ids:
        print(f"{args.campaign}: no trigger to reduce")
        return 0
    rows: list[tuple[str, int, int, int, int, float]] = []
    print(f"{'trigger':<48}{'bytes':>16}{'nodes':>14}{'seconds':>9}")
    for ident in ids:
        try:
            done = reduce_bug(args.campaign, ident, time_limit=args.time)
        except ReduceError as exc:
            print(f"{ident:<48}  skipped: {exc}")
            continue
        b, a = done.before, done.after
        rows.append((ident, b.bytes, a.bytes, b.nodes, a.nodes, done.seconds))
        print(
            f"{ident:<48}{b.bytes:>8} -> {a.bytes:<6}{b.nodes:>6} -> {a.nodes:<5}{done.seconds:>9.1f}",
            flush=True,
        )
    if not rows:
        return 1
    median = statistics.median
    print(
        f"\n{len(rows)} triggers reduced; median bytes {median(r[1] for r in rows):.0f} -> "
        f"{median(r[2] for r in rows):.0f}, median nodes {median(r[3] for r in rows):.0f} -> "
        f"{median(r[4] for r in rows):.0f} (ratio of medians {median(r[2] for r in rows) / median(r[1] for r in rows):.2f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
