"""A campaign's live status: `status.json` in its folder, rewritten atomically by the
coordinator (the process that runs `fuzz`, Ray's included) within a second of a change of
its counters (`STATUS_PERIOD`), and what `sphinxfuzz status` reads. Its schema is `sphinxfuzz/schemas/status.schema.json`
(docs/json-output.md).

Whether a campaign runs is not taken from the file (a `kill -9` leaves it saying "running")
but from its lock (`campaign.lock`), which the kernel drops with the process. A campaign
that does not run is described from its store instead: that survives any end.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.option_use import option_use, sets_options
from sphinxfuzz.bugs.stats import Stats, StrategyStats
from sphinxfuzz.bugs.store import Store, StoreError
from sphinxfuzz.campaign.exit_reason import ExitReason
from sphinxfuzz.campaign.lock import is_locked
from sphinxfuzz.fileio import write_atomic
from sphinxfuzz.oracle import VerdictKind

SCHEMA = "sphinxfuzz/status/1"
# the oldest counters `status.json` shows while they change (what `status --watch` lags by)
STATUS_PERIOD = 1.0
# the figures that move with the clock alone: a change of theirs is no reason to rewrite
_CLOCK_FIELDS = ("elapsed", "mutants_per_second", "calls_per_second")
CAUSES = 10  # the causes of seeds used in part or set aside a status document names


def _share(part: float, whole: float) -> float:
    return min(1.0, max(0.0, part / whole)) if whole > 0 else 0.0


def figures(stats: Stats, elapsed: float, seed_count: int) -> dict[str, Any]:
    """The counters of a status document (every field but who runs it and when)."""
    rate = (lambda n: n / elapsed) if elapsed > 0 else (lambda n: 0.0)
    undecided = stats.unknowns + stats.timeouts + stats.errors
    done = stats.seeds_used + stats.seeds_partial + stats.seeds_set_aside + stats.seeds_malformed
    return {
        "elapsed": round(elapsed, 3),
        "mutants": stats.mutants,
        "solver_calls": stats.solver_calls,
        "mutants_per_second": round(rate(stats.mutants), 3),
        "calls_per_second": round(rate(stats.solver_calls), 3),
        "accepted_share": round(stats.acceptance, 4),
        "decided_share": round(_share(stats.solver_calls - undecided, stats.solver_calls), 4),
        "undecided_share": round(stats.undecided_share, 4),
        "unknowns": stats.unknowns,
        "timeouts": stats.timeouts,
        "rejected": stats.errors,
        "bugs": {kind: stats.bugs.get(kind, 0) for kind in sorted(set(stats.bugs) | _KINDS)},
        "seed_findings": stats.seed_findings,
        "seeds": {
            "total": seed_count,
            "done": done,
            # a time budget goes round the seeds again: "left" counts this pass
            "left": (seed_count - done % seed_count) % seed_count if seed_count else 0,
            "used": stats.seeds_used,
            "partial": stats.seeds_partial,
            "set_aside": stats.seeds_set_aside,
            "malformed": stats.seeds_malformed,
            # why, the most frequent causes first
            "partial_causes": dict(stats.partial_causes.most_common(CAUSES)),
            "set_aside_causes": dict(stats.set_aside_causes.most_common(CAUSES)),
        },
        "strategies": {
            name: {
                "positions": s.positions,
                "cases": s.cases,
                "accepted_share": round(_share(s.accepted, s.cases), 4),
                "expected_share": round(_share(s.expected, s.cases), 4),
                "bugs": s.verdicts,
                "solver_calls": s.solver_calls,
                "solver_seconds": round(s.solver_seconds, 3),
            }
            for name, s in sorted(stats.strategies.items())
        },
    }


_KINDS = {VerdictKind.CRASH, VerdictKind.SOUNDNESS, VerdictKind.INVALID_MODEL}


class StatusWriter:
    """Rewrites `<root>/status.json` from a timer thread (so a long solver call does not
    freeze it) with the counters `latest()` returns: within `period` (`STATUS_PERIOD` at
    most) of their change, and every `every` seconds when they stay (the clock and rates
    move on); `every` 0 rewrites it on a change alone (a watcher still sees the counters
    move, only the clock's figures wait for the next change). Use as a context manager;
    the last write says `running: false`."""

    def __init__(
        self,
        root: Path,
        latest: Callable[[], Stats],
        *,
        every: float,
        seed_count: int,
        jobs: int,
        budget: tuple[float | None, int | None],
        ray: str | None = None,
        options_of: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`options_of`: the solvers setting of a campaign with solver options, whose stored
        bugs are then counted per option (`bugs.option_use`)."""
        self.root, self.latest, self.every = root, latest, every
        self.period = min(every, STATUS_PERIOD) if every > 0 else STATUS_PERIOD
        self.clock = clock
        self.options_of = options_of
        self.head = {
            "schema": SCHEMA,
            "campaign": str(root),
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": time.time(),
            "jobs": jobs,
            "ray": ray,
            "budget": {"seconds": budget[0], "mutants": budget[1]},
        }
        self.seed_count = seed_count
        self._started = clock()
        self._written: tuple[float, dict[str, Any]] | None = None  # when, and its counters
        # the reduction after the fuzzing (`reducing`): its figures, and the fuzzing's seconds
        self._reduction: Callable[[], dict[str, Any]] | None = None
        self._fuzzed: float | None = None
        self._exit_reason: ExitReason | None = None  # once the fuzzing ended (`ended`)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def reducing(self, figures_of: Callable[[], dict[str, Any]]) -> None:
        """The fuzzing is over and its findings are reduced: the document shows
        `figures_of()` as `reduction`, and its rates stay those of the fuzzing."""
        self._fuzzed = self.clock() - self._started
        self._reduction = figures_of

    def ended(self, reason: ExitReason) -> None:
        """The fuzzing is over, for `reason`: the document says so as `exit_reason` (a run
        that ends on an error without saying is `failed`)."""
        self._exit_reason = reason

    def write(self, *, running: bool = True, unless_same: bool = False) -> bool:
        """Write the document; `unless_same`: not when its counters are those written last,
        fewer than `every` seconds ago (`every` 0: ever). True when written."""
        now = self.clock()
        elapsed = self._fuzzed if self._fuzzed is not None else now - self._started
        counters = figures(self.latest(), elapsed, self.seed_count)
        if self._reduction is not None:
            counters["reduction"] = self._reduction()
        if self._exit_reason is not None:
            counters["exit_reason"] = str(self._exit_reason)
        unclocked = {k: v for k, v in counters.items() if k not in _CLOCK_FIELDS}
        with self._lock:  # the timer and the last write never interleave their renames
            last = self._written
            if unless_same and last is not None and last[1] == unclocked:
                if self.every <= 0 or now - last[0] < self.every:
                    return False
            if self.options_of is not None:  # read from the store: its bugs are counted above
                counters["options"] = options_field(self.root, self.options_of)
            document = {**self.head, "running": running, "updated": time.time(), **counters}
            write_atomic(CampaignFolder(self.root).status, json.dumps(document, indent=2) + "\n")
            self._written = (now, unclocked)
        return True

    def __enter__(self) -> StatusWriter:
        self.write()
        self._thread = threading.Thread(target=self._tick, daemon=True, name="status")
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if kind is not None and self._exit_reason is None:
            self._exit_reason = ExitReason.FAILED
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.write(running=False)

    def _tick(self) -> None:
        while not self._stop.wait(self.period):
            self.write(unless_same=True)


def read_status(root: Path) -> dict[str, Any]:
    """The status of the campaign in `root`: `status.json` while its process runs; else a
    document of the same schema from the store (`running` false, `source` "store"), with
    the last status file's start, pid and host when there is one. Raises `StoreError` when
    `root` holds no campaign."""
    path = CampaignFolder(root).status
    last: dict[str, Any] | None = None
    if path.is_file():
        try:
            last = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            last = None  # being replaced, or cut by a full disk: the store still knows
    running = is_locked(root)
    if last is not None:
        _check(path, last, running)
    if last is not None and running:
        return {**last, "running": True, "source": CampaignFolder.STATUS}
    with Store(root) as store:
        stats = _stored_counters(store, last)
        counts = store.seed_status_counts()
        bugs = [str(row.kind) for row in store.bugs()]
        runs = store.runs()
        config = store.config() or {}
    seed_count = int(last["seeds"]["total"]) if last else sum(counts.values())
    document = {
        "schema": SCHEMA,
        "campaign": str(root),
        "pid": last["pid"] if last else None,
        "host": last["host"] if last else None,
        "started": last["started"] if last else (runs[0][1] if runs else None),
        "jobs": last["jobs"] if last else (runs[-1][2] if runs else None),
        "ray": last["ray"] if last else None,
        "budget": last["budget"] if last else {"seconds": None, "mutants": None},
        "running": False,
        "updated": last["updated"] if last else None,
        # the last status file's clock; without one, the workers' summed seconds of work
        **figures(stats, float(last["elapsed"]) if last else stats.wall_time, seed_count),
        "source": "store",
    }
    # the store's bugs, not the counters: a killed run's last minute of counters is lost,
    # its bugs never are
    document["bugs"] = {k: bugs.count(k) for k in sorted(set(bugs) | _KINDS)}
    for field in ("reduction", "exit_reason"):  # the last run's, as it ended
        if last is not None and field in last:
            document[field] = last[field]
    if sets_options(str(config.get("options") or "")):
        document["options"] = options_field(root, str(config.get("solvers", "")))
    return document


@cache
def _schema() -> dict[str, Any]:
    text = resources.files("sphinxfuzz.schemas").joinpath("status.schema.json").read_text()
    return dict(json.loads(text))


def _check(path: Path, document: object, running: bool) -> None:
    """A status file this module did not write (hand-edited, forged) is one error naming it
    and what is wrong, never a KeyError or an overflow further on."""
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(_schema()).iter_errors(document)
    )
    if error is None:
        return
    where = "/".join(str(part) for part in error.absolute_path) or "the document"
    mend = ("the campaign rewrites it at its next status" if running else
            "remove it, and the figures come from the campaign's index")  # fmt: skip
    raise StoreError(f"{path}: damaged: {where}: {error.message[:200]}; {mend}")


def options_field(root: Path, solvers: str) -> dict[str, Any]:
    """The `options` field: each option word on a target's command line -> the stored bugs
    that ran with it, by kind."""
    return {use.option: use.to_json() for use in option_use(root, solvers)}


def _stored_counters(store: Store, last: dict[str, Any] | None) -> Stats:
    """Every run's last per-minute counters; for the last run, the last status file's when
    they are further along (a run killed mid-minute wrote its status after its last row)."""
    final: dict[int, Stats] = {}
    for run, _minute, stats in store.stats_rows():  # ordered by run and minute
        final[run] = stats
    runs = store.runs()
    current = final.pop(runs[-1][0], Stats()) if runs else Stats()
    if last is not None and int(last.get("mutants", 0)) > current.mutants:
        current = _counters_of(last)
    total = Stats()
    for stats in [*final.values(), current]:
        total.add(stats)
    return total


def _counters_of(document: dict[str, Any]) -> Stats:
    """The counters a status document holds, back as `Stats` (shares times their base)."""
    seeds = document["seeds"]
    stats = Stats(
        mutants=document["mutants"],
        solver_calls=document["solver_calls"],
        accepted=round(document["accepted_share"] * document["mutants"]),
        undecided=round(document.get("undecided_share", 0.0) * document["mutants"]),
        unknowns=document["unknowns"],
        timeouts=document["timeouts"],
        errors=document["rejected"],
        seeds_used=seeds["used"],
        seeds_partial=seeds.get("partial", 0),  # absent from documents written before it
        seeds_set_aside=seeds["set_aside"],
        seeds_malformed=seeds["malformed"],
        partial_causes=Counter(seeds.get("partial_causes", {})),
        set_aside_causes=Counter(seeds.get("set_aside_causes", {})),
        seed_findings=document["seed_findings"],
    )
    for name, s in document["strategies"].items():
        stats.strategies[name] = StrategyStats(
            positions=s["positions"],
            cases=s["cases"],
            accepted=round(s["accepted_share"] * s["cases"]),
            expected=round(s["expected_share"] * s["cases"]),
            verdicts=s["bugs"],
            solver_calls=s["solver_calls"],
            solver_seconds=s["solver_seconds"],
        )
    return stats
