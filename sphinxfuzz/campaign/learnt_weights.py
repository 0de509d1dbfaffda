"""Theory draw weights that learn from the campaign's own mutants (`LearntWeights`).

The theory probe weighs a theory by a handful of terms checked alone (`theory_probe`); in
the README's campaign the undecided mutants still gathered on a few theories (FloatingPoint
in a third of its mutants against one in twenty elsewhere): a term that is fine alone can
make a seed's mutant time out. So each worker also counts, per theory, the mutants it was
drawn into and those some target left undecided (`Stats.theories`, `.theories_undecided`),
and a theory's probe weight is multiplied by the decided share of its mutants (PRIOR_DECIDED
decided mutants counted in beforehand, so one unlucky mutant costs little) raised to
`theory_probe.TERMS_PER_MUTANT`, as the probe's own share is.

A theory none of whose mutants was undecided keeps its probe weight exactly: a campaign
with no undecided mutant draws the mutants it drew without learning. The counts are the
worker's answers so far, so the draws are the same for the same answers (a time-out is the
machine's answer; a resumed run starts counting again).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping

from sphinxfuzz.campaign.theory_probe import TERMS_PER_MUTANT

# Decided mutants each theory starts with: the first undecided mutant of a theory drawn
# once lowers its weight to (5/6)^2 = 0.69, ten undecided of thirty to 0.51.
PRIOR_DECIDED = 5


class LearntWeights(Mapping[str, float]):
    """theory -> draw weight, read afresh at each draw (`mutate`'s `theory_weights`)."""

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
        if not undecided:
            return weight
        drawn = max(self.drawn.get(theory, 0), undecided)
        decided = (drawn - undecided + PRIOR_DECIDED) / (drawn + PRIOR_DECIDED)
        return weight * decided**TERMS_PER_MUTANT

    def __iter__(self) -> Iterator[str]:
        return iter(self.theories)

    def __len__(self) -> int:
        return len(self.theories)
