"""Testing one seed's cases: made by its position's strategy, run, counted, judged,
confirmed and recorded, while the seed's budget lasts (`budget.SeedBudget`).

Every strategy's cases take this one path. A strategy's failures arrive as `StrategyError`
kinds (`strategies.base`): a `CaseFailed` costs one attempt, a refusal or a `SeedUnusable`
ends the seed (the latter sets it aside when the strategy is the campaign's only one), and
a `NoWorkingSource` stops the campaign.

The next case is drawn while a case's solvers run (`DrawsAhead`) and started at once, before
this case is judged: each target's lane (`calls.SolverCalls.start`) takes it up when done with
this case, so a target that answered fast works on while a slow one still runs, and the
counting, the judging and the next draw overlap solver time. Starting early changes when a
case runs, never what it is: a case is drawn at the same point of the stream either way, and
one this case's answers turn away (the seed's budget ends, or its draw read an answer heard
otherwise, `DrawsAhead.stale`) is abandoned and rewound, as if never drawn.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from sphinxfuzz.bugs.record import Origin
from sphinxfuzz.bugs.stats import Stats
from sphinxfuzz.campaign.budget import SeedBudget
from sphinxfuzz.campaign.case_limits import CaseLimits
from sphinxfuzz.campaign.config import CampaignConfig, SeedCheck
from sphinxfuzz.campaign.judging import Judging
from sphinxfuzz.campaign.position_options import PositionOptions
from sphinxfuzz.campaign.recording import Recorder
from sphinxfuzz.campaign.rngs import rng_for
from sphinxfuzz.campaign.seedcheck import SEED_SET_ASIDE
from sphinxfuzz.campaign.sink import Findings
from sphinxfuzz.campaign.solver_calls import Running, SolverCalls
from sphinxfuzz.campaign.strategy_bench import StrategyBench
from sphinxfuzz.campaign.targets import CampaignError
from sphinxfuzz.errors import SphinxfuzzError
from sphinxfuzz.mutate import Formula, Seed
from sphinxfuzz.mutate.mutant import NeededOptions, ready_to_run
from sphinxfuzz.smtlib import Script
from sphinxfuzz.solvers import Outcome, SolverResult, SolverSpec
from sphinxfuzz.strategies import (
    CaseFailed,
    DrawsAhead,
    HearsAnswers,
    NoWorkingSource,
    SeedUnusable,
    SourceFailed,
    TestCase,
)

# Whether a case drawn ahead starts at once (off: at its turn, after the case before is judged;
# the tests compare the two)
START_AHEAD = True


class CaseTester:
    def __init__(
        self,
        config: CampaignConfig,
        calls: SolverCalls,
        judging: Judging,
        recorder: Recorder,
        bench: StrategyBench,
        needed_options: NeededOptions,
        *,
        out_of_budget: Callable[[], bool],
        stop_requested: Callable[[], bool],
        publish: Callable[[], None],
        say: Callable[[str, str | None], None],
        options: PositionOptions,
    ) -> None:
        self.config, self.calls, self.recorder, self.bench = config, calls, recorder, bench
        self.stats = calls.stats
        self.judging, self.needed_options = judging, needed_options
        self.out_of_budget, self.stop_requested = out_of_budget, stop_requested
        self.publish, self.say = publish, say
        self.check = SeedCheck(None)  # the position's seed's: its cases' limits (`limits`)
        self.limits = CaseLimits(config)
        # the scripts of the position, for the bandit's operator pairs
        self.keep_scripts = bench.mix.scheduler == "bandit"
        self.scripts: list[Script] = []
        # why the position's only strategy set its seed aside (`SeedUnusable.cause`), if it did
        self.set_aside: str | None = None
        # the targets' command lines per position (`campaign.position_options`)
        self.options = options

    def seed_cases(
        self,
        store: Findings,
        position: int,
        seed: Seed,
        name: str,
        specs: Sequence[SolverSpec],
    ) -> bool:
        """Test the cases of strategy `name` from `seed` on `specs` (the targets the seed
        serves) while the seed's budget lasts; False when stopped before the last one."""
        at = self._position(store, position, seed, name, specs)
        self.calls.use_specs(at.specs)
        try:
            for number in at.budget.numbers():
                now, at.started = at.started or self._made(at, number), None
                if now is None:  # an attempt that failed, or the seed's end
                    if at.ended:
                        return True
                    continue
                before = _Before.of(self.stats)
                results = self._turn(at, now, number)
                if self.stop_requested():
                    # Ctrl-C may have reached the solver processes too: do not judge what it
                    # killed
                    return False
                self._tested(at, now, before, results)
            self.stats.seeds_left_early += at.budget.left_early
            return not at.budget.stopped
        finally:
            at.drop(self.calls, self.stats)
            self.calls.use_specs(self.options.specs)  # seed checks run the specs as given
            if at.log:
                store.log_mutants(at.log)

    def _position(
        self, store: Findings, position: int, seed: Seed, name: str, specs: Sequence[SolverSpec]
    ) -> _Position:
        config, strategy = self.config, self.bench.get(name)
        return _Position(
            store, position, seed, name,
            # the position's options on the served targets' command lines (names stay)
            specs=self.options.specs_for(position, text=seed.text),
            # comparing: with optioned copies
            targets=self.options.specs_for(position, specs, seed.text),
            cases=strategy.mutants(seed, rng_for(config.campaign_seed, position)),
            budget=SeedBudget(
                config.mutants_per_seed, config.max_mutant_timeouts, self.out_of_budget,
                config.fast_seed_factor if strategy.extends_fast_seeds else 1,
            ),
        )  # fmt: skip

    def _made(self, at: _Position, number: int) -> _Started | None:
        """Case `number` (drawn now, or while the case before ran) started on the targets;
        None when drawing it failed (the next attempt may do) or the seed is done with
        (`_Position.ended`)."""
        draw = at.ahead.draw if at.ahead is not None else _draw(at.cases, self.needed_options)
        at.ahead = None
        try:
            made = draw.case()
        except StopIteration:
            at.ended = True
            return None
        except CaseFailed as exc:  # the next attempt may do
            self._failed(exc, at.seed, number)
            return None
        except NoWorkingSource as exc:
            raise CampaignError(str(exc), setting=exc.setting, step=exc.step) from None
        except (SphinxfuzzError, RecursionError) as exc:
            self._refused(at.store, exc, at.name, at.seed)
            at.ended = True
            return None
        return self._start(made, at, number, None)

    def _turn(self, at: _Position, now: _Started, number: int) -> list[SolverResult]:
        """Case `now` at its turn: logged, and its answers waited for, while the next case
        is drawn and started (`DrawsAhead`)."""
        assert now.origin.mutant == number
        self._log(at.log, now)
        try:
            if isinstance(at.cases, DrawsAhead):  # the next case, while the solvers run
                at.ahead = _Ahead(at.cases.mark(), _draw(at.cases, self.needed_options))
                self.stats.drawn_ahead += 1
                made = at.ahead.draw.made
                if START_AHEAD and made is not None and at.budget.follows(number):
                    at.started = self._start(made, at, number + 1, at.ahead.mark, now.running)
                    at.ahead = None
        finally:
            results = self.calls.finish(now.running)
        return results

    def _tested(
        self, at: _Position, now: _Started, before: _Before, results: list[SolverResult]
    ) -> None:
        """Count, judge and record case `now`'s `results`, and give up the case drawn or
        started after it when these answers turn it away."""
        stats = self.stats
        self._count(now, before, results)
        left_undecided = stats.undecided > before.undecided
        if isinstance(at.cases, HearsAnswers):
            at.cases.answered(left_undecided)
        ran_on = at.targets
        refused = at.refused(
            results, self.options, self.calls, self.needed_options, self.config.seed_timeout
        )
        if refused:  # those targets run plain from the next case on
            at.targets = self.options.plain(at.targets, refused)
            at.specs = self.options.plain(at.specs, refused)
            self.calls.use_specs(at.specs)
        if (at.started or at.ahead) is not None and (
            refused or (isinstance(at.cases, DrawsAhead) and at.cases.stale())
        ):
            # drawn on an answer heard otherwise, or started on a command line now
            # dropped: drawn again at its turn, now that this case is counted (a
            # case drawn ahead draws on the learnt weights of the cases before this
            # one, one drawn at its turn on this one's too)
            at.drop(self.calls, stats, stale=True)
            stats.drawn_again += 1
        self._judge(at.store, now, ran_on, results)
        self.publish()
        at.budget.tested(
            stats.solver_time - before.seconds, stats.timeouts > before.timeouts, left_undecided,
            known=stats.duplicates > before.known and stats.bugs.total() == before.bugs,
        )  # fmt: skip

    def _start(
        self,
        made: tuple[TestCase, Formula, str],
        at: _Position,
        number: int,
        mark: object,
        after: Running | None = None,
    ) -> _Started:
        """Start case `number` on the position's targets' lanes."""
        case, formula, digest = made
        config = self.config
        origin = Origin(
            config.campaign_seed, at.seed.path, at.position, number, at.name, case.theories
        )
        # a case related to another formula gets the full limit: its time-out is a verdict
        limit, floored = self.limits.limit(self.check)
        if case.related is not None:
            limit, floored = config.timeout, False
        running = self.calls.start(at.targets, formula, timeout=limit, after=after)
        return _Started(case, formula, digest, origin, running, mark, limit, floored)

    def _log(self, log: list[tuple[int, int, str, list[str]]], started: _Started) -> None:
        """Log a case at its turn (one started early and abandoned was never tested)."""
        origin = started.origin
        log.append((origin.position, origin.mutant, started.digest, list(started.case.theories)))
        if self.keep_scripts:
            self.scripts.append(started.formula.script)

    def _failed(self, exc: CaseFailed, seed: Seed, number: int) -> None:
        if isinstance(exc, SourceFailed):
            self.stats.generator_failures += 1
            self.say(
                f"generator failure at {seed.path} mutant {number}: {exc}", "generator failure"
            )
        else:
            self.stats.mutation_errors += 1

    def _refused(self, store: Findings, exc: BaseException, name: str, seed: Seed) -> None:
        """A strategy's clear refusal of a seed (not a bug of it)."""
        self.stats.mutation_errors += 1
        if isinstance(exc, RecursionError):  # a seed nested deeper than a strategy's walk goes
            self.say(f"{name} at {seed.path}: nested too deeply, left alone", None)
        elif not isinstance(exc, SeedUnusable):
            self.say(f"{name} at {seed.path}: {exc}", f"{name} refused a seed")
        elif len(self.bench.mix.names) == 1:  # else other strategies may use it
            # counted by the caller's seed check, which counted the seed used once drawn
            self.say(f"setting seed aside: {exc}", "setting seed aside")
            self.set_aside = exc.cause
            store.set_seed_status(seed.path, SEED_SET_ASIDE, str(exc))
        else:
            self.stats.set_aside_causes[exc.cause] += 1

    def _count(self, started: _Started, before: _Before, results: list[SolverResult]) -> None:
        """Count one case's `results`, and what the draw weights learn from them
        (`learnt_weights`)."""
        stats, origin = self.stats, started.origin
        accepted = self.calls.count(results, started.formula)
        if started.floored:
            stats.floor_cases += 1
            stats.floor_seconds += started.limit
            self.limits.heard(started.limit, results)
        theories = set(origin.theories)  # of the generated terms in it, if any
        terms = [str(len(origin.theories))] if origin.theories else []
        stats.theories.update(theories)
        stats.term_counts.update(terms)
        if accepted:
            stats.theories_accepted.update(theories)
        if stats.undecided > before.undecided:
            stats.theories_undecided.update(theories)
            stats.term_counts_undecided.update(terms)

    def _judge(
        self,
        store: Findings,
        started: _Started,
        specs: list[SolverSpec],
        results: list[SolverResult],
    ) -> None:
        """Judge one counted case's `results` on `specs` (`cases.Judging`), and record what
        stands."""
        case, origin = started.case, started.origin
        strategy = self.bench.get(origin.strategy)
        for found in self.judging.case(
            store, case, started.formula, strategy, origin, specs, results
        ):
            self.recorder.record(store, found, origin)


def _draw(cases: Iterator[TestCase], needed_options: NeededOptions) -> _Draw:
    """The stream's next case, printed (so a case drawn ahead is printed meanwhile too),
    or what drawing it raised."""
    try:
        case = next(cases)
    except Exception as exc:  # StopIteration and `StrategyError` kinds included
        return _Draw(None, exc)
    ready = case.script if case.ready else ready_to_run(case.script, needed_options)
    formula = Formula(ready)
    digest = hashlib.sha256(formula.text.encode("utf-8")).hexdigest()
    return _Draw((case, formula, digest), None)


@dataclass(frozen=True)
class _Started:
    """A case given to the targets' lanes."""

    case: TestCase
    formula: Formula
    digest: str  # the formula's sha256
    origin: Origin
    running: Running
    mark: object  # the stream's state before it, when it was drawn ahead and started early
    limit: float  # the case's time limit
    floored: bool  # set by the learnt floor (`CaseLimits.limit`)


@dataclass(frozen=True)
class _Before:
    """The counters at a case's turn, before its answers: what it did is the difference."""

    timeouts: int
    undecided: int
    seconds: float
    known: int
    bugs: int

    @classmethod
    def of(cls, stats: Stats) -> _Before:
        return cls(stats.timeouts, stats.undecided, stats.solver_time, stats.duplicates,
                   stats.bugs.total())  # fmt: skip


@dataclass(frozen=True)
class _Draw:
    """One draw of a stream of cases: the case with its formula and the formula's sha256,
    or what drawing it raised, to be raised at its turn (a case drawn ahead fails as it
    would have when drawn then)."""

    made: tuple[TestCase, Formula, str] | None
    raised: Exception | None

    def case(self) -> tuple[TestCase, Formula, str]:
        if self.raised is not None:
            raise self.raised
        assert self.made is not None
        return self.made


@dataclass(frozen=True)
class _Ahead:
    """A case drawn while the case before ran, and the stream's state before it."""

    mark: object
    draw: _Draw


@dataclass
class _Position:
    """One seed position while its cases are tested (`CaseTester.seed_cases`)."""

    store: Findings
    position: int
    seed: Seed
    name: str  # the position's strategy
    specs: list[SolverSpec]  # the position's options on the served targets' command lines
    targets: list[SolverSpec]  # what its cases run on (comparing: with optioned copies)
    cases: Iterator[TestCase]
    budget: SeedBudget
    log: list[tuple[int, int, str, list[str]]] = field(default_factory=list)
    checked: set[str] = field(default_factory=set)  # targets whose line was tried on the seed
    ahead: _Ahead | None = None  # the next case, drawn while this one's solvers ran
    started: _Started | None = None  # the next case, started while this one ran
    ended: bool = False  # the strategy has no more cases of the seed, or refused it

    def drop(self, calls: SolverCalls, stats: Stats, stale: bool = False) -> None:
        """Undo the draw of a case that will not be tested at this point of the stream: one
        drawn ahead and never made (not logged, its failure never raised), or one started
        early and never judged (the seed's budget ended, a stop, or a stale draw: `stale`,
        counted as drawn again, not as dropped)."""
        mark = None if self.ahead is None else self.ahead.mark
        if self.started is not None:  # started early from the case drawn ahead (never both)
            calls.abandon(self.started.running)
            mark = self.started.mark
        if mark is not None and isinstance(self.cases, DrawsAhead):
            self.cases.rewind(mark)
            stats.dropped_ahead += not stale
        self.started = self.ahead = None

    def refused(
        self,
        results: Sequence[SolverResult],
        options: PositionOptions,
        calls: SolverCalls,
        needed_options: NeededOptions,
        timeout: float,
    ) -> set[str]:
        """The targets that rejected this case and, run once on the seed they accepted
        plainly, reject it too with the position's options: their command line is refused
        (cvc5 1.4.2 takes --fresh-binders and --minimal-unsat-cores alone, not together), and
        every case of the position would be rejected the same way."""
        refused: set[str] = set()
        for spec, result in zip(self.targets, results, strict=True):
            if result.outcome is not Outcome.ERROR or spec.name in self.checked:
                continue  # (every case passes here: the options are read only at a rejection)
            words = options.extra_words(spec)
            if not words:
                continue
            self.checked.add(spec.name)
            script = ready_to_run(self.seed.script, needed_options)
            again = calls.run(spec, script, timeout=timeout)
            if again.outcome is Outcome.ERROR:
                refused.add(spec.name)
                calls.stats.options_refused[f"{spec.name} {' '.join(words)}"] += 1
        return refused
