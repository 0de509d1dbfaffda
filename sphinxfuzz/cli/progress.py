"""How `sphinxfuzz fuzz` shows progress: a live line on a terminal, a timestamped statistics
line every few seconds when stdout is a file or a pipe (logs, CI), nothing with --quiet."""

from __future__ import annotations

import threading
import time
from types import TracebackType

from rich.console import Console
from rich.live import Live
from rich.text import Text

from sphinxfuzz.campaign import Stats
from sphinxfuzz.visible import visible


def stats_line(stats: Stats, elapsed: float) -> str:
    """Mutants, rates, accepted share, answers that decided nothing, bugs by kind."""
    rate = stats.mutants / elapsed if elapsed > 0 else 0.0
    calls = stats.solver_calls / elapsed if elapsed > 0 else 0.0
    bugs = ", ".join(f"{k} {v}" for k, v in sorted(stats.bugs.items())) or "none"
    return (
        f"{elapsed:7.0f}s  mutants {stats.mutants} ({rate:.2f}/s)  calls {calls:.2f}/s  "
        f"accepted {stats.acceptance:.0%}  undecided {stats.undecided_share:.0%}  "
        f"unknown {stats.unknowns}  timeout {stats.timeouts}  "
        f"bugs: {bugs}"
    )


class Progress:
    """A context manager; `update` takes the latest counters, `message` a line to show.

    mode "live": rich's transient live line (a terminal); "log": a line every `every`
    seconds, from a timer thread so that a long solver call does not silence it (0: only
    messages); "quiet": nothing."""

    def __init__(self, console: Console, mode: str, every: float = 10.0) -> None:
        self.console, self.mode, self.every = console, mode, every
        self._latest: tuple[Stats, float] | None = None
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._live: Live | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Progress:
        if self.mode == "live":
            self._live = Live(Text("starting..."), console=self.console, refresh_per_second=4,
                              transient=True)  # fmt: skip
            self._live.__enter__()
        elif self.mode == "log" and self.every > 0:
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:  # fmt: skip
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._live is not None:
            self._live.__exit__(None, None, None)
            self._live = None

    def update(self, stats: Stats, elapsed: float) -> None:
        self._latest = (stats, elapsed)
        if self._live is not None:
            self._live.update(Text(stats_line(stats, elapsed)))

    def message(self, text: str) -> None:
        if self.mode == "quiet":
            return
        target = self._live.console if self._live is not None else self.console
        target.print(visible(text), highlight=False, markup=False)

    def _tick(self) -> None:
        while not self._stop.wait(self.every):
            stats, elapsed = self._latest or (Stats(), 0.0)
            # counters arrive per mutant: the elapsed time is the clock's, not the last update's
            elapsed = max(elapsed, time.monotonic() - self._started)
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
            self.console.print(f"{stamp} {stats_line(stats, elapsed)}", highlight=False,
                               markup=False, soft_wrap=True)  # fmt: skip


def progress_mode(console: Console, quiet: bool) -> str:
    if quiet:
        return "quiet"
    return "live" if console.is_terminal else "log"
