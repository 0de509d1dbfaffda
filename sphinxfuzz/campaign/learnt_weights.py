"""Draw weights that learn from the campaign's own mutants (`LearntWeights`): of theories,
and of how many terms a mutant gets.

The theory probe weighs a theory by a handful of terms checked alone (`theory_probe`). In the
README's campaign the undecided mutants still gathered on four theories: a mutant with a
FloatingPoint, Strings, Quantifiers or RecFuns term was undecided one time in four, any
other one time in twenty-five (a term decided alone may not be with a seed around it). So
each worker counts, per theory, the mutants it was drawn into and those some target left
undecided (`Stats.theories`, `.theories_undecided`). A theory whose mutants were undecided
more often than TARGET_UNDECIDED (PRIOR_DECIDED decided ones counted in) has its probe weight
multiplied by TARGET_UNDECIDED / that share: it adds undecided mutants at about the target
rate, however hard its terms are.

A theory at or under the target keeps its probe weight exactly: a campaign with no undecided
mutant, or few, draws the mutants it drew without learning. The counts are the worker's
answers so far, so the draws are the same for the same answers (a time-out is the machine's
answer; a resumed run starts counting again).

The number of terms a mutant gets learns the same way (`Stats.term_counts`, no probe):
terms compound, and in the README's campaign a mutant of four terms was undecided 11% of the
time, one of three 6%, of one or two 3 to 4% (the same seeds); the draw of four then falls
to about half as often, while the campaign's small mutants keep it exactly.

A lower target would not lower the campaign's share once every theory is over it: each then
weighs probe x target / share, so the mix's share is the probe-weighted harmonic mean of the
theories' shares, whatever the target. The README's campaign is there (every theory's
mutants were 5 to 19% undecided, mutants of one term 2.7%, the seeds themselves 0%), and
three runs with a target of 3% left 4.6, 4.6 and 6.1% of mutants undecided against 5.4,
4.4 and 4.7% with 5%, each pair run back to back (session 22).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping

# The share of undecided mutants a theory may have (#28: at most 5% of a campaign's mutants).
TARGET_UNDECIDED = 0.05
# Decided mutants each theory starts with: the first undecided mutant of a theory drawn once
# makes its share 1/6 (weight x 0.3); one of thirty, 1/35, keeps it under the target.
PRIOR_DECIDED = 5


class LearntWeights(Mapping[str, float]):
    """theory (or term count) -> draw weight, read afresh at each draw (`mutate`'s
    `theory_weights`, `count_weights`)."""

    def __init__(
        self,
        theories: Iterable[str],
        probe: Mapping[str, float] | None,
        drawn: Counter[str],
        undecided: Counter[str],
    ) -> None:
        """`probe`: the probe's weights (None: every theory 1); `drawn` and `undecided` are
        the live counters of the worker's statistics."""
        self.theories = sorted(theories)
        self.probe, self.drawn, self.undecided = probe or {}, drawn, undecided

    def __getitem__(self, theory: str) -> float:
        if theory not in self.theories:
            raise KeyError(theory)
        weight = self.probe.get(theory, 1.0)
        undecided = self.undecided.get(theory, 0)
        share = undecided / (max(self.drawn.get(theory, 0), undecided) + PRIOR_DECIDED)
        return weight if share <= TARGET_UNDECIDED else weight * TARGET_UNDECIDED / share

    def __iter__(self) -> Iterator[str]:
        return iter(self.theories)

    def __len__(self) -> int:
        return len(self.theories)
