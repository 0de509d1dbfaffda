"""The time limit of a case, with a floor learnt from the campaign's own answers
(`CaseLimits`).

A case gets its seed's slowest check time times `config.timeout_factor`, at most
`config.timeout`, but never less than a floor: a seed checked in milliseconds says little
about how long its mutants take. A fixed 1 s floor spent a third of a campaign's wall time
waiting for cases that then timed out (#28: 114 s of a 300 s run on the regressions), and a
case's time has a long tail: on the regressions 4.2% of cases needed more than 0.3 s, 3.0%
more than 0.5 s, 2.2% more than 1 s, and of a sample of those, half did not answer in 8 s.

So each worker learns the floor. Over its last WINDOW cases that the floor bounded, it
estimates how many would still run at time t (Kaplan-Meier: a time-out says only that its
case needed longer than its limit) and takes the shortest t at which at most
`config.undecided_budget` of them would be cut short, counting the cases some target answered
`unknown` (no limit helps them) against that budget. A campaign whose cases answer fast then
stops waiting a second for each of its few slow ones. The floor starts at, and never rises
above, `config.MIN_MUTANT_TIMEOUT`: the README's campaign, whose slow mutants are many, let
its floor rise to 2 s and made 30% fewer mutants for no fewer undecided ones (4.5%, 5.0%,
5.9% against 5.2%, 5.0%, 4.9%: most of its time-outs do not answer in 2 s either). It moves
by at most a factor STEP a case, so one unusual case does not swing it.

The floor is the machine's answer, like a time-out: the cases drawn do not depend on it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence

from sphinxfuzz.campaign.config import MIN_MUTANT_TIMEOUT, CampaignConfig, SeedCheck
from sphinxfuzz.solvers import Outcome, SolverResult

LOWEST_FLOOR = 0.25
WINDOW = 300  # cases the floor bounded, the most recent
LEARNT_AFTER = 50  # cases in the window before the floor moves
STEP = 1.1  # the most the floor moves in one case, up or down (a factor)


class CaseLimits:
    """The limit of each case of one worker, and the floor it learns from their answers."""

    def __init__(self, config: CampaignConfig) -> None:
        self.config = config
        self.floor = MIN_MUTANT_TIMEOUT
        # (seconds, timed out) of the cases the floor bounded; unknown: those answered unknown
        self.window: deque[tuple[float, bool] | None] = deque(maxlen=WINDOW)

    def limit(self, check: SeedCheck) -> tuple[float, bool]:
        """A case's limit on a seed with `check`, and whether the floor set it (its answers
        then teach the floor, `heard`)."""
        config = self.config
        if not config.timeout_factor or check.slowest is None:
            return config.timeout, False
        wanted = config.timeout_factor * check.slowest
        if wanted >= self.floor:
            return min(config.timeout, wanted), False
        if config.timeout <= self.floor:
            return config.timeout, False
        return self.floor, True

    def heard(self, limit: float, results: Sequence[SolverResult]) -> None:
        """A case whose limit the floor set answered `results`."""
        if not results:
            return
        if any(r.outcome == Outcome.TIMEOUT for r in results):
            self.window.append((limit, True))
        elif any(r.undecided for r in results):
            self.window.append(None)
        else:
            self.window.append((max(r.solving for r in results), False))
        if self.config.undecided_budget > 0 and len(self.window) >= LEARNT_AFTER:
            self.floor = self._next_floor()

    def _next_floor(self) -> float:
        timed = [o for o in self.window if o is not None]
        # undecided: the unknowns, and the timed cases still running at the floor
        allowed = self.config.undecided_budget * len(self.window) - (len(self.window) - len(timed))
        wanted = still_running_at(timed, allowed / len(timed)) if allowed > 0 and timed else None
        lowest, highest = self.floor / STEP, self.floor * STEP
        moved = highest if wanted is None else min(highest, max(lowest, wanted))
        return min(MIN_MUTANT_TIMEOUT, max(LOWEST_FLOOR, moved))


def still_running_at(cases: Iterable[tuple[float, bool]], share: float) -> float | None:
    """The shortest time at which at most `share` of `cases` ((seconds, timed out): a time-out
    ran at least that long) would still be running, by the Kaplan-Meier estimate; None when
    more than `share` of them may still be running at the last answer seen."""
    ordered = sorted(cases)  # at equal times, answers before time-outs (False < True)
    running, at_risk = 1.0, len(ordered)
    for seconds, timed_out in ordered:
        if not timed_out:
            running *= 1 - 1 / at_risk
            if running <= share:
                return seconds
        at_risk -= 1
    return None
