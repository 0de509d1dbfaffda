"""How many cases one seed gets (`SeedBudget`).

A seed gets `mutants_per_seed` attempts at a case (an attempt that made no case still takes
its number, so the cases after it do not change). A strategy whose cases are an endless
stream of independent draws (`Strategy.extends_fast_seeds`) may get up to `fast_seed_factor`
times as many for a seed whose cases keep answering fast (all solvers together under
FAST_MUTANT_SECONDS a case on average): its cases are the cheapest tests there are, as AFL
gives fast inputs more energy. A seed is left early once `max_mutant_timeouts` of its cases
timed out, or UNDECIDED_AT_LEAST of its cases were undecided (a solver answered unknown, or
timed out: such a case compares nothing) and they are more than the share of its cases a
campaign may leave undecided (`learnt_weights.TARGET_UNDECIDED`), or KNOWN_IN_A_ROW of its
cases in a row found only bugs stored already (a position whose options make most mutants
crash the same way finds that crash again, a segfault each time after a debugger's run),
and the whole run's budget (a stop, the deadline, the mutant limit) ends it too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from sphinxfuzz.campaign.config import FAST_MUTANT_SECONDS
from sphinxfuzz.campaign.learnt_weights import TARGET_UNDECIDED

# Few enough that a seed whose theory a target cannot solve (finite fields on the cvc5 wheel)
# costs little, enough that one hard mutant of a seed that is decided otherwise does not end
# it. Counted in all, not in a row: cvc5 answers unknown to one in four or five mutants of a
# quantified seed, spread out, and in a row the README's campaign left none of them early
# (a fifth of its undecided mutants came from three such seeds, given up to 30 mutants each
# as fast).
UNDECIDED_AT_LEAST = 2
# cvc5 1.4.2 under --bv-rw-extend-eq crashed 29 of one position's 30 mutants (session 17)
KNOWN_IN_A_ROW = 3


class SeedBudget:
    def __init__(
        self,
        per_seed: int,
        max_timeouts: int,
        out_of_budget: Callable[[], bool],
        fast_factor: int = 1,
    ) -> None:
        self.per_seed, self.max_timeouts, self.fast_factor = per_seed, max_timeouts, fast_factor
        self.out_of_budget = out_of_budget
        self.solver_seconds = 0.0  # of the seed's tested cases
        self.timeouts = 0  # tested cases of the seed that timed out
        self.tested_cases = 0  # attempts that made a case (a failed draw makes none)
        self.undecided = 0  # tested cases that were undecided
        self.known_run = 0  # ... that found only bugs stored already
        self.stopped = False  # the run's budget ended the seed, not the seed's own
        # the seed's cases timed out or were undecided too often: time is better spent elsewhere
        self.left_early = False

    def numbers(self) -> Iterator[int]:
        """The numbers of the seed's attempts, as long as its budget lasts."""
        number = 0
        while self._more(number):
            if self.out_of_budget():
                self.stopped = True
                return
            yield number
            if self.left_early:
                return
            number += 1

    def follows(self, number: int) -> bool:
        """Whether `numbers` yields `number + 1` after `number` (tested already): the next
        case may start before this one is judged."""
        return not self.left_early and self._more(number + 1) and not self.out_of_budget()

    def tested(
        self, solver_seconds: float, timed_out: bool, undecided: bool = False, known: bool = False
    ) -> None:
        """What one tested case of the seed cost, whether a solver left it undecided, and
        whether it found only bugs stored already."""
        self.solver_seconds += solver_seconds
        self.timeouts += timed_out
        self.tested_cases += 1
        self.undecided += undecided or timed_out
        self.known_run = self.known_run + 1 if known else 0
        self.left_early = (
            self.timeouts >= self.max_timeouts
            or (
                self.undecided >= UNDECIDED_AT_LEAST
                and self.undecided > TARGET_UNDECIDED * self.tested_cases
            )
            or self.known_run >= KNOWN_IN_A_ROW
        )

    def _more(self, number: int) -> bool:
        return number < self.per_seed or (
            number < self.per_seed * self.fast_factor
            and self.solver_seconds <= FAST_MUTANT_SECONDS * number
        )
