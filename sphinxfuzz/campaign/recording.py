"""What becomes of a confirmed verdict: the doubt gate, then the store.

A verdict that rests on a construction (an expected answer) is stored only when no trusted
solver answers its formula against the construction (`oracle.doubt`; each doubt's cause is
counted, its first formula kept in `doubts/`), and a timed-out incompleteness that ten times
the limit solves is stored as a SLOW finding. A stored bug is replayed on the newest release
of its family (`bugs.refresh`); a hit of a crash signature already stored is only counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.known import recognise
from sphinxfuzz.bugs.record import VERDICT, Origin
from sphinxfuzz.bugs.refresh import RefreshError, newest_specs, refresh_bug
from sphinxfuzz.campaign.calls import SolverCalls, keep_example
from sphinxfuzz.campaign.sink import Findings
from sphinxfuzz.oracle import Judgement, Verdict
from sphinxfuzz.oracle.doubt import DOUBTED, SLOW_FACTOR, doubtful, needs_more_time, slow_verdict
from sphinxfuzz.solvers import SolverResult, SolverSpec


class Recorder:
    def __init__(
        self,
        calls: SolverCalls,
        trusted: Sequence[SolverSpec],
        newest: str,
        say: Callable[[str], None],
    ) -> None:
        self.calls, self.trusted, self.newest, self.say = calls, list(trusted), newest, say
        self.stats, self.root = calls.stats, calls.root

    def record(
        self,
        store: Findings,
        verdict: Verdict,
        formula: str,
        origin: Origin,
        results: list[SolverResult],
        judgement: Judgement,
    ) -> None:
        """Store `verdict` about `formula` unless the doubt gate holds it back."""
        kept = self._not_doubtful(verdict, formula, origin, results)
        if kept is None:
            return
        ident = store.record_bug(kept, origin, formula, results, judgement)
        if ident is None:
            self.stats.duplicates += 1
            return
        self.stats.bugs[str(kept.kind)] += 1
        today = self.refresh(CampaignFolder(self.root).bug(ident))
        self.say(f"{kept.kind} in {kept.solver}: {kept.signature} -> bugs/{ident}{today}")

    def refresh(self, folder: Path) -> str:
        """Replay a new bug on the newest release of its family (`bugs.refresh`); a worker
        whose findings are written elsewhere (a Ray node) leaves it to `bugs refresh`."""
        if not (folder / VERDICT).is_file():
            return ""
        started = time.perf_counter()
        try:
            today = refresh_bug(self.root, folder, newest_specs(self.newest))
        except RefreshError as exc:
            return f" (not replayed on the newest release: {exc})"
        finally:  # the newest release ran (under a debugger, for a bare signal's stack)
            self.calls.busy(started, time.perf_counter())
        return f" ({today.sentence()}{self._known(folder)})"

    def _known(self, folder: Path) -> str:
        """Whether the new finding is likely a reported bug (`bugs.known`): only now, when a
        finding is stored, do the reproducers of its family run (a batch, cached per release)."""
        corpus = self.calls.config.known
        started = time.perf_counter()
        try:
            known = recognise(folder, Path(corpus) if corpus else None)
        finally:
            self.calls.busy(started, time.perf_counter())
        return f"; likely known: {known.label}" if known else ""

    def _not_doubtful(
        self, verdict: Verdict, formula: str, origin: Origin, results: list[SolverResult]
    ) -> Verdict | None:
        """The verdict to store after the doubt gate (`oracle.doubt`): None when a trusted
        solver answers its formula against the construction (counted, the first of each
        cause kept in `doubts/`); a SLOW finding when ten times the limit solves a timed-out
        incompleteness."""
        if verdict.kind not in DOUBTED or verdict.expected is None:
            return verdict  # a crash, or a verdict that rests on no construction
        run = self.calls.run
        trusted = [run(spec, formula, fresh=True) for spec in self.trusted]
        found = doubtful(verdict, trusted)
        if found is not None:
            cause = f"{origin.strategy}: {found.cause(verdict)}"
            if cause not in self.stats.doubts:
                keep_example(CampaignFolder(self.root).doubts, cause, formula, found.solver)
            self.stats.doubts[cause] += 1
            self.say(f"construction doubt, not stored: {cause}")
            return None
        if not needs_more_time(verdict) or verdict.solver is None:
            return verdict
        blamed = next((s for s in self.calls.specs if s.name == verdict.solver), None)
        if blamed is None:
            return verdict
        limit = SLOW_FACTOR * self.calls.config.timeout
        longer = run(blamed, formula, fresh=True, timeout=limit, beyond_limit=True)
        # the time to compare with: a trusted solver's, else the verdict's reference target's
        reference = next((r for r in trusted if r.answers[:1] == longer.answers[:1]), None) or next(
            (r for r in results if r.spec.name == verdict.evidence.get("reference")), None
        )
        return slow_verdict(verdict, longer, limit, reference) or verdict
