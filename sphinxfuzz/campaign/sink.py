"""Where a worker's findings go: what the fuzz loop reads from and writes to the campaign.

Local workers (`--jobs`) write through the `Store` itself (it has exactly these methods), so
a bug is on disk the moment it is found. A worker on another machine (`--ray`) writes into a
`Forwarding` sink instead: its writes are queued as `Write`s that the coordinator drains and
applies to its own store, the only one (`apply`); its reads come from a snapshot of the store
taken when the worker started, kept up to date with its own writes.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from sphinxfuzz.bugs.record import Origin
from sphinxfuzz.bugs.store import Store, bug_id
from sphinxfuzz.oracle import Judgement, Verdict, VerdictKind
from sphinxfuzz.solvers import SolverResult

MutantRow = tuple[int, int, str, list[str]]  # position, mutant number, sha256, theories


class Findings(Protocol):
    """The part of the campaign store a worker uses (`Store` is one)."""

    def done_positions(self) -> set[int]: ...
    def seed_status(self, seed_file: str) -> tuple[str, str] | None: ...
    def has_signature(self, signature: str) -> bool: ...
    def mark_done(self, position: int, seed_file: str) -> None: ...
    def log_mutants(self, rows: Sequence[MutantRow]) -> None: ...
    def set_seed_status(self, seed_file: str, status: str, detail: str) -> None: ...
    def record_seed_finding(
        self, seed_file: str, seed_text: str, verdict: Verdict, results: Sequence[SolverResult]
    ) -> str: ...
    def record_bug(
        self,
        verdict: Verdict,
        origin: Origin,
        text: str,
        results: Sequence[SolverResult],
        check: Judgement | None = None,
    ) -> str | None: ...


@dataclass
class Snapshot:
    """What a remote worker needs to know of the store when it starts (picklable)."""

    done: set[int] = field(default_factory=set)
    seed_statuses: dict[str, tuple[str, str]] = field(default_factory=dict)
    signatures: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, store: Store) -> Snapshot:
        return cls(store.done_positions(), store.seed_statuses(), store.signatures())


@dataclass(frozen=True)
class Write:
    """One store call a remote worker made: the `Store` method's name and its arguments."""

    method: str
    args: tuple[object, ...]
    kwargs: dict[str, object]


WRITES = frozenset(
    ("mark_done", "log_mutants", "set_seed_status", "record_seed_finding", "record_bug")
)


def apply(store: Store, writes: Iterable[Write]) -> None:
    """The coordinator's half: a remote worker's writes, in order, on the one store."""
    for write in writes:
        if write.method not in WRITES:  # never a method the worker was not given
            raise ValueError(f"not a store write: {write.method}")
        getattr(store, write.method)(*write.args, **write.kwargs)


class Forwarding:
    """A `Findings` that queues every write for the coordinator (`take`, from another
    thread) and answers reads from a `Snapshot` plus its own writes. A bug's id and whether
    it is a duplicate are decided here the way the store decides them; the store's own
    decision (another worker may have stored the signature meanwhile) is what is kept."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self._queue: list[Write] = []
        self._lock = threading.Lock()

    def __enter__(self) -> Forwarding:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def take(self) -> list[Write]:
        """The writes queued since the last call (oldest first)."""
        with self._lock:
            writes, self._queue = self._queue, []
        return writes

    def _put(self, method: str, *args: object, **kwargs: object) -> None:
        with self._lock:
            self._queue.append(Write(method, args, kwargs))

    def done_positions(self) -> set[int]:
        return set(self.snapshot.done)

    def seed_status(self, seed_file: str) -> tuple[str, str] | None:
        return self.snapshot.seed_statuses.get(seed_file)

    def has_signature(self, signature: str) -> bool:
        return signature in self.snapshot.signatures

    def mark_done(self, position: int, seed_file: str) -> None:
        self.snapshot.done.add(position)
        self._put("mark_done", position, seed_file)

    def log_mutants(self, rows: Sequence[MutantRow]) -> None:
        self._put("log_mutants", list(rows))

    def set_seed_status(self, seed_file: str, status: str, detail: str) -> None:
        self.snapshot.seed_statuses[seed_file] = (status, detail)
        self._put("set_seed_status", seed_file, status, detail)

    def record_seed_finding(
        self, seed_file: str, seed_text: str, verdict: Verdict, results: Sequence[SolverResult]
    ) -> str:
        self._put("record_seed_finding", seed_file, seed_text, verdict, list(results))
        return seed_file

    def record_bug(
        self,
        verdict: Verdict,
        origin: Origin,
        text: str,
        results: Sequence[SolverResult],
        check: Judgement | None = None,
    ) -> str | None:
        self._put("record_bug", verdict, origin, text, list(results), check)
        known = verdict.signature in self.snapshot.signatures
        self.snapshot.signatures.add(verdict.signature)
        if known and verdict.kind == VerdictKind.CRASH:
            return None
        return bug_id(origin.position, origin.mutant, verdict)
