"""What becomes of a finding (`cases.Judging`: judged, confirmed, past the doubt gate): the
store. A stored bug is replayed on the newest release of its family (`bugs.refresh`) and
matched against the family's known bugs (`bugs.known`); a hit of a crash signature already
stored is only counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.known import recognise
from sphinxfuzz.bugs.record import VERDICT, Origin
from sphinxfuzz.bugs.refresh import RefreshError, newest_specs, refresh_bug
from sphinxfuzz.campaign.judging import Finding
from sphinxfuzz.campaign.sink import Findings
from sphinxfuzz.campaign.solver_calls import SolverCalls


class Recorder:
    """Stores one worker's findings and says what became of each."""

    def __init__(self, calls: SolverCalls, newest: str, say: Callable[[str], None]) -> None:
        self.calls, self.newest, self.say = calls, newest, say
        self.stats, self.root = calls.stats, calls.root

    def record(self, store: Findings, found: Finding, origin: Origin) -> None:
        """Store `found`, a finding of the case `origin` names."""
        verdict = found.verdict
        ident = store.record_bug(verdict, origin, found.formula, found.results, found.judgement)
        if ident is None:
            self.stats.duplicates += 1
            return
        self.stats.bugs[str(verdict.kind)] += 1
        today = self.refresh(CampaignFolder(self.root).bug(ident))
        self.say(f"{verdict.kind} in {verdict.solver}: {verdict.signature} -> bugs/{ident}{today}")

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
