"""Summarising messages that repeat once per seed.

A folder of 100,000 empty files would print 100,000 "skipping seed" lines. Each kind of
per-seed message is shown for the first `SHOWN` seeds; the rest are counted and reported in
one line at the end of the worker's run. Nothing is lost: every seed's status is in the
store and the causes are counted in the run's summary.
"""

from __future__ import annotations

from collections import Counter

SHOWN = 5  # messages of one kind shown before they are only counted


class RepeatedMessages:
    """Which per-seed messages to show, and the count of the others."""

    def __init__(self, shown: int = SHOWN) -> None:
        self.shown = shown
        self.seen: Counter[str] = Counter()

    def show(self, kind: str) -> bool:
        """Count a message of `kind`; True while it is among the first `shown`."""
        self.seen[kind] += 1
        return self.seen[kind] <= self.shown

    def summary(self) -> list[str]:
        """One line per kind with messages left unshown."""
        return [
            f"{kind}: {count - self.shown:,} more like this not shown ({count:,} in all; "
            "each seed's status is in the store, the causes in the summary)"
            for kind, count in sorted(self.seen.items())
            if count > self.shown
        ]
