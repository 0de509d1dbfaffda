"""A campaign folder: the one place that names what a campaign keeps on disk.

    campaign.sqlite    the index (`bugs.store.Store`): stored config, runs, bug rows,
                       signatures, seed findings, mutant hashes, statistics, progress
    bugs/<id>/         one folder per bug, the source of truth (`bugs.record`)
    seed-findings/<id>/  the same for an unmutated seed that misbehaved
    doubts/            examples of expected-answer verdicts a trusted solver contradicted
    rejected/          examples of mutants a solver rejected, one per cause
    status.json        the live status while a process runs the campaign (`campaign.status_file`)
    campaign.lock      held by the process running the campaign (`campaign.lock`)
    report.html        the default place of `bugs.report`'s page
    queue.json         what the filing queue queued when (`bugs.queue`)

The modules that own a file's contents read and write it; they find it here. `bugs/` is
the lowest layer every user of a campaign folder (campaign, api, cli) may import.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar


@dataclass(frozen=True)
class CampaignFolder:
    root: Path

    INDEX: ClassVar[str] = "campaign.sqlite"
    BUGS: ClassVar[str] = "bugs"
    FINDINGS: ClassVar[str] = "seed-findings"
    DOUBTS: ClassVar[str] = "doubts"
    REJECTED: ClassVar[str] = "rejected"
    STATUS: ClassVar[str] = "status.json"
    LOCK: ClassVar[str] = "campaign.lock"
    REPORT: ClassVar[str] = "report.html"
    QUEUE: ClassVar[str] = "queue.json"

    @property
    def index(self) -> Path:
        return self.root / self.INDEX

    @property
    def rebuilding(self) -> Path:
        """Where `bugs.reindex` builds a new index before it takes the old one's place."""
        return self.root / f".{self.INDEX}.rebuilding"

    def damaged(self, stamp: str) -> Path:
        """Where `bugs.reindex` keeps a damaged index, `stamp` telling them apart."""
        return self.root / f"{self.INDEX}.damaged-{stamp}"

    def kind(self, kind: str) -> Path:
        """The folder of one kind of bug folders: `BUGS` or `FINDINGS`."""
        return self.root / kind

    @property
    def bugs(self) -> Path:
        return self.root / self.BUGS

    @property
    def findings(self) -> Path:
        return self.root / self.FINDINGS

    def bug(self, ident: str) -> Path:
        return self.bugs / ident

    def finding(self, ident: str) -> Path:
        return self.findings / ident

    @property
    def doubts(self) -> Path:
        return self.root / self.DOUBTS

    @property
    def rejected(self) -> Path:
        return self.root / self.REJECTED

    @property
    def status(self) -> Path:
        return self.root / self.STATUS

    @property
    def lock(self) -> Path:
        return self.root / self.LOCK

    @property
    def report(self) -> Path:
        return self.root / self.REPORT

    @property
    def queue(self) -> Path:
        """What the filing queue queued when (`bugs.queue`)."""
        return self.root / self.QUEUE
