"""Why a campaign's fuzzing ended: each worker says why it stopped, and the coordinator
records the campaign's reason in this run's `Stats.exit_reason`, the summary and
`status.json`."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class ExitReason(StrEnum):
    """The values are what `status.json` and the stored statistics hold. Members are listed
    most telling first: a campaign's reason is the first that one of its workers gives."""

    FAILED = "failed"  # a worker or the coordinator ended on an error
    STOPPED = "stopped"  # Ctrl-C, SIGTERM, or a coordinator that went away
    TIME = "time"  # the time budget ran out
    MUTANTS = "mutants"  # the mutant budget was made
    SEEDS = "seeds"  # no budget: one pass over the seeds; or a whole round found none usable

    @property
    def sentence(self) -> str:
        return _SENTENCES[self]

    @classmethod
    def of_workers(cls, reasons: Iterable[str]) -> ExitReason:
        """The campaign's reason from its workers' (a worker without one ended on an error)."""
        given = {cls(reason) if reason else cls.FAILED for reason in reasons}
        return next((reason for reason in cls if reason in given), cls.FAILED)


_SENTENCES = {
    ExitReason.FAILED: "failed",
    ExitReason.STOPPED: "stopped on request",
    ExitReason.TIME: "time budget spent",
    ExitReason.MUTANTS: "mutant budget made",
    ExitReason.SEEDS: "seeds exhausted",
}
