"""Campaign counters: what the live line shows, the store keeps per minute and the bench reads."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, fields


@dataclass
class StrategyStats:
    """What one strategy did: its share of the campaign and what it found."""

    positions: int = 0  # seed positions that drew this strategy
    cases: int = 0  # scripts it made and the solvers ran
    accepted: int = 0  # ... that no solver rejected
    expected: int = 0  # ... that carried an answer known by construction
    verdicts: int = 0  # new bugs stored from its cases
    solver_calls: int = 0
    solver_seconds: float = 0.0

    def add(self, other: StrategyStats) -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def to_json(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> StrategyStats:
        stats = cls()
        for f in fields(cls):
            value = data.get(f.name, 0)
            if isinstance(value, int | float):
                setattr(stats, f.name, type(getattr(stats, f.name))(value))
        return stats


@dataclass
class Stats:
    mutants: int = 0
    solver_calls: int = 0  # every solver process: seeds, mutants, model checks
    accepted: int = 0  # mutants no solver rejected (no `error` outcome)
    undecided: int = 0  # mutants some solver answered unknown to or timed out on
    unknowns: int = 0  # solver answers, per call
    timeouts: int = 0
    errors: int = 0
    unconfirmed: int = 0  # sat/unsat disagreements whose model check decided nothing
    duplicates: int = 0  # crash hits whose signature was already stored
    fresh_confirmations: int = 0  # verdicts of persistent processes re-run in fresh ones
    fresh_unconfirmed: int = 0  # ... that fresh processes did not reproduce (not stored)
    generator_failures: int = 0
    mutation_errors: int = 0  # a base with nothing left to replace
    seeds_used: int = 0  # used by every target
    # used by the targets that accept them alone: the others rejected them unmutated
    seeds_partial: int = 0
    seeds_set_aside: int = 0  # rejected by every target, or unanswered, before mutation
    seeds_malformed: int = 0
    # seeds the targets ran unmutated, and those some target answered unknown to or timed out
    # on: the corpus's own undecided share, which its mutants' share is measured against
    seeds_checked: int = 0
    seeds_undecided: int = 0
    # left after max_mutant_timeouts of their mutants timed out, or once UNDECIDED_AT_LEAST
    # were undecided and more than the campaign's share (`campaign.budget.SeedBudget`)
    seeds_left_early: int = 0
    seed_findings: int = 0
    # cases drawn while the case before ran (`campaign.case_tester`); of them, those drawn again
    # at their turn (drawn on an answer heard otherwise) and those the budget did not want
    drawn_ahead: int = 0
    drawn_again: int = 0
    dropped_ahead: int = 0
    # mutants whose time limit was the learnt floor (`campaign.case_limits`), and the sum of
    # those limits: the mean floor is their quotient
    floor_cases: int = 0
    floor_seconds: float = 0.0
    # seconds some solver process of a worker ran (calls at once counted once), summed over workers
    solver_time: float = 0.0
    wall_time: float = 0.0  # seconds of work, summed over workers
    # after the fuzzing (`campaign.reduction`): bugs reduced, bugs whose reduction was refused
    # (why: their not-reduced.json), and the phase's wall seconds, outside the fuzzing's time
    reduced: int = 0
    not_reduced: int = 0
    reduce_seconds: float = 0.0
    bugs: Counter[str] = field(default_factory=Counter)  # kind -> new bugs stored
    theories: Counter[str] = field(default_factory=Counter)  # theory -> mutants using it
    theories_accepted: Counter[str] = field(default_factory=Counter)  # ... that no solver rejected
    # ... that some solver left undecided (what `campaign.learnt_weights` learns from)
    theories_undecided: Counter[str] = field(default_factory=Counter)
    # generated terms a mutant holds ("1" to "4") -> mutants with that many, and those some
    # solver left undecided: terms compound, so 4 are undecided about 4 times as often as 1
    term_counts: Counter[str] = field(default_factory=Counter)
    term_counts_undecided: Counter[str] = field(default_factory=Counter)
    # "solver: normalised first error line" -> mutant calls that solver rejected so
    rejections: Counter[str] = field(default_factory=Counter)
    # why seeds were not mutated: "time-out", "rejected: solver: line", "malformed", ...
    set_aside_causes: Counter[str] = field(default_factory=Counter)
    # why seeds were used by part of the targets: "solver: normalised first error line"
    partial_causes: Counter[str] = field(default_factory=Counter)
    # "solver options" -> positions whose drawn options that target refused with the seed
    # itself (a pair the release will not take together): it ran the rest plainly
    options_refused: Counter[str] = field(default_factory=Counter)
    # "operator (solver)" -> generated terms drawn again because a target lacks that operator
    left_out: Counter[str] = field(default_factory=Counter)
    # "strategy: kind: trusted family says X, expected Y" -> expected-answer verdicts a
    # trusted solver contradicted on the formula itself (`oracle.doubt`): never stored
    doubts: Counter[str] = field(default_factory=Counter)
    # strategy name -> what it did (`--strategies`); a campaign of one strategy has its name
    strategies: dict[str, StrategyStats] = field(default_factory=dict)
    # why this run's fuzzing ended (a `campaign.exit_reason.ExitReason` value; "" while it
    # runs): not a counter, so `add` leaves it to whoever sums the workers' to decide
    exit_reason: str = ""

    def strategy(self, name: str) -> StrategyStats:
        return self.strategies.setdefault(name, StrategyStats())

    def add(self, other: Stats) -> None:
        for f in fields(self):
            mine = getattr(self, f.name)
            if isinstance(mine, Counter):
                mine.update(getattr(other, f.name))
            elif f.name == "strategies":
                for name, counts in other.strategies.items():
                    self.strategy(name).add(counts)
            elif f.name != "exit_reason":
                setattr(self, f.name, mine + getattr(other, f.name))

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            data[f.name] = dict(value) if isinstance(value, Counter) else value
        data["strategies"] = {name: s.to_json() for name, s in self.strategies.items()}
        return data

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Stats:
        stats = cls()
        for f in fields(cls):
            if f.name not in data:
                continue
            value = data[f.name]
            if f.name == "strategies":
                found = value if isinstance(value, dict) else {}
                stats.strategies = {
                    str(k): StrategyStats.from_json(v)
                    for k, v in found.items()
                    if isinstance(v, dict)
                }
            elif isinstance(getattr(stats, f.name), Counter):
                assert isinstance(value, dict)
                setattr(stats, f.name, Counter({str(k): int(v) for k, v in value.items()}))
            else:
                setattr(stats, f.name, type(getattr(stats, f.name))(value))  # type: ignore[call-arg]
        return stats

    # -- derived shares (0 when nothing happened yet) -------------------------------------
    @property
    def acceptance(self) -> float:
        return self.accepted / self.mutants if self.mutants else 0.0

    @property
    def undecided_share(self) -> float:
        return self.undecided / self.mutants if self.mutants else 0.0

    @property
    def seeds_undecided_share(self) -> float:
        return self.seeds_undecided / self.seeds_checked if self.seeds_checked else 0.0

    @property
    def mean_floor(self) -> float:
        """The mean of the learnt floors that limited mutants (seconds; 0: none did)."""
        return self.floor_seconds / self.floor_cases if self.floor_cases else 0.0

    @property
    def outside_share(self) -> float:
        """Share of worker time spent outside solver processes (the fuzzer's own overhead)."""
        if self.wall_time <= 0:
            return 0.0
        return max(0.0, 1.0 - self.solver_time / self.wall_time)
