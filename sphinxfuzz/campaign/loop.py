"""One worker's fuzz loop (Algorithm 2): seed -> N mutants -> every solver -> oracle -> store.

Worker k of N takes positions k, k+N, k+2N, ... (see `seeds.SeedOrder`). For position p the
mutants come from `random.Random(f"{campaign_seed}:{p}")` alone: seed checks, solver answers
and timing never touch that generator, so a fixed campaign seed gives the same mutants.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from sphinxfuzz.bugs.record import BUGS_DIR, FINDINGS_DIR, VERDICT
from sphinxfuzz.bugs.refresh import RefreshError, newest_specs, refresh_bug
from sphinxfuzz.bugs.stats import Stats
from sphinxfuzz.bugs.store import Store
from sphinxfuzz.campaign.cases import CaseJudge
from sphinxfuzz.campaign.config import (
    FAST_MUTANT_SECONDS,
    Budget,
    Campaign,
    SeedCheck,
    calibrated_timeout,
)
from sphinxfuzz.campaign.mix import SPHINX, Strategies
from sphinxfuzz.campaign.repeats import RepeatedMessages
from sphinxfuzz.campaign.seeds import SeedOrder
from sphinxfuzz.campaign.sink import Findings
from sphinxfuzz.campaign.targets import CampaignError
from sphinxfuzz.campaign.theory_probe import probe_theories
from sphinxfuzz.errors import SphinxfuzzError
from sphinxfuzz.generators.capabilities import Capabilities, CapableTerms
from sphinxfuzz.generators.pool import GeneratorFailure, GeneratorPool
from sphinxfuzz.mutate import Mutant, MutationError, Seed, SeedError, load_seed, mutate
from sphinxfuzz.mutate.mutant import ready_to_run, with_needed_options
from sphinxfuzz.mutate.trim import trimmed
from sphinxfuzz.oracle import Expected, Judgement, Verdict, VerdictKind, judge, normalise_failure
from sphinxfuzz.oracle.backtrace import Backtrace, gdb_backtrace, identified
from sphinxfuzz.oracle.dialect import for_family
from sphinxfuzz.oracle.doubt import (
    DOUBTED,
    SLOW_FACTOR,
    doubtful,
    needs_more_time,
    slow_verdict,
)
from sphinxfuzz.smtlib import Script, print_script
from sphinxfuzz.solvers import Outcome, SolverResult, SolverSpec, reaper, run_solver
from sphinxfuzz.solvers.options import needed_options
from sphinxfuzz.solvers.persistent import PersistentSolver, supports_persistence
from sphinxfuzz.solvers.runner import remove_scratch_dir
from sphinxfuzz.solvers.versions import solver_version
from sphinxfuzz.strategies import TestCase
from sphinxfuzz.strategies.scheduler import Counters, PairCoverage

# A worker stops when this many generator calls in a row failed: no generator works.
MAX_GENERATOR_FAILURES = 50
# Seeds drawn per position as fusion partners (each labelled once by the trusted solver).
FUSION_PARTNERS = 3


class _Stopped(Exception):
    """A stop request or the deadline arrived while solvers ran: what they answered may
    have been cut short (`reaper.abort_all`), so nothing of it is judged or stored."""


# where the first formula of each construction doubt's cause is kept (`oracle.doubt`)
DOUBTS_DIR = "doubts"

# Seed status values kept in the store.
SEED_OK, SEED_MALFORMED, SEED_SET_ASIDE, SEED_FINDING = "ok", "malformed", "set-aside", "finding"


@dataclass
class Event:
    """What a worker tells the coordinator: `stats` (its cumulative counters for this run,
    as JSON), `message` (a line for the user)."""

    kind: str
    worker: int
    payload: object


Report = Callable[[Event], None]


class Worker:
    def __init__(
        self,
        campaign: Campaign,
        root: Path,
        *,
        worker: int = 0,
        jobs: int = 1,
        budget: Budget | None = None,
        deadline: float | None = None,
        report: Report = lambda event: None,
        stop_requested: Callable[[], bool] = lambda: False,
        persistent: bool = True,
        unconfined: bool = False,
        sink: Callable[[], AbstractContextManager[Findings]] | None = None,
    ) -> None:
        self.campaign = campaign
        # where findings go (`campaign.sink`): the campaign's store, unless given
        self.open_sink = sink or (lambda: Store(root))
        self.config = config = campaign.config
        self.unconfined = unconfined  # generators may run without kernel confinement
        self.root = root
        self.worker = worker
        self.jobs = jobs
        self.budget = budget = budget or Budget()
        self.deadline = deadline
        self.report = report
        self.stop_requested = stop_requested
        self.stats = Stats()
        self.started = time.monotonic()
        share = budget.mutants
        # the mutant budget is split so that all workers together make exactly that many
        self.mutant_limit = (
            None if share is None else share // jobs + (1 if worker < share % jobs else 0)
        )
        self.specs: list[SolverSpec] = list(campaign.specs)
        # Seeds are checked by the trusted solver too, when the mix has one: a target already
        # wrong on a seed makes that a seed finding, not a source of cases that only find
        # the seed's own bug again (with one target nothing else would notice).
        targets = {s.name for s in self.specs}
        self.trusted = [t for t in campaign.trusted if t.name not in targets]
        self.seed_specs = self.specs + self.trusted
        self.theory_options: dict[str, tuple[str, ...]] = campaign.theory_options
        self.theory_weights: dict[str, float] | None = None  # from the probe (adapt_theories)
        self.terms: CapableTerms | None = None  # the pool, minus features a target lacks
        self.targets = [(spec.family, solver_version(spec)) for spec in self.specs]
        self.mutant_timeout = config.timeout  # calibrated per seed (see CampaignConfig)
        self.generator_failures_in_row = 0
        self.repeats = RepeatedMessages()  # per-seed messages: the first few, then a count
        self.strategies = Strategies(
            campaign.mix,
            # labels and models are of seeds: a seed slower than seed_timeout is not used
            [self._trusted_run(spec) for spec in campaign.trusted],
            self._partners,
        )
        self.pairs = PairCoverage()  # what the bandit rewards (operator pairs tried)
        self.position_scripts: list[Script] = []
        # one long-lived process per solver that supports it (see solvers/persistent.py)
        self.persistent: dict[str, PersistentSolver] = {
            spec.name: PersistentSolver(spec, memory_mb=config.memory_mb)
            for spec in self.specs
            if persistent and supports_persistence(spec)
        }

    # -- stopping -------------------------------------------------------------------------
    def _out_of_budget(self) -> bool:
        if self.stop_requested():
            return True
        if self.deadline is not None and time.time() >= self.deadline:
            return True
        return self.mutant_limit is not None and self.stats.mutants >= self.mutant_limit

    # -- running solvers ------------------------------------------------------------------
    def _run(
        self,
        spec: SolverSpec,
        script: Mutant | Script | str,
        *,
        fresh: bool = False,
        timeout: float | None = None,
        beyond_limit: bool = False,  # `timeout` may exceed the campaign's (slow findings)
    ) -> SolverResult:
        if isinstance(script, Mutant):
            text = script.text_for(spec.family)
        else:
            text = for_family(script, spec.family)
        limit = self.config.timeout if timeout is None else min(timeout, self.config.timeout)
        if beyond_limit and timeout is not None:
            limit = timeout
        if self.deadline is not None:  # --time holds whatever the solver does
            limit = max(0.05, min(limit, self.deadline - time.time()))
        solver = None if fresh else self.persistent.get(spec.name)
        if solver is not None:
            result = solver.run(text, timeout=limit)
        else:
            result = run_solver(spec, text, timeout=limit, memory_mb=self.config.memory_mb)
        if self._stopping():
            raise _Stopped
        stats = self.stats
        stats.solver_calls += 1
        stats.solver_time += result.elapsed
        stats.unknowns += result.outcome == Outcome.UNKNOWN
        stats.timeouts += result.outcome == Outcome.TIMEOUT
        stats.errors += result.outcome == Outcome.ERROR
        return result

    def _trusted_run(self, spec: SolverSpec) -> Callable[[str], SolverResult]:
        return lambda text: self._run(spec, text, fresh=True, timeout=self.config.seed_timeout)

    def _judge(self, text: str, results: list[SolverResult], *, fresh: bool = False) -> Judgement:
        judgement = judge(text, results, lambda spec, check: self._run(spec, check, fresh=fresh))
        self.stats.unconfirmed += judgement.unconfirmed
        # a crash that printed nothing is told apart by its stack (`oracle.backtrace`)
        judgement.verdicts = identified(
            judgement.verdicts, results, lambda spec: for_family(text, spec.family), self._debug
        )
        return judgement

    def _debug(self, spec: SolverSpec, text: str) -> Backtrace | None:
        started = time.monotonic()
        try:
            return gdb_backtrace(
                spec, text, timeout=self.config.timeout, memory_mb=self.config.memory_mb
            )
        finally:
            self.stats.solver_time += time.monotonic() - started

    def _confirmed(
        self,
        store: Findings,
        script: Mutant | Script,
        text: str,
        results: list[SolverResult],
        judgement: Judgement,
        rejudge: Callable[[list[SolverResult]], Judgement] | None = None,
    ) -> tuple[list[SolverResult], Judgement]:
        """A verdict from persistent processes counts only if fresh processes reproduce it:
        state an earlier script left in a solver must never become a bug report. Returns
        the fresh results and judgement (no verdicts when it did not reproduce). Crashes
        whose signatures are stored already (confirmed fresh then) are only counted: one
        root cause hit a thousand times must not cost a thousand fresh runs."""
        if not judgement.verdicts or not self.persistent:
            return results, judgement
        if all(  # a coarse signature may hide another bug (`Store` keeps a few)
            v.kind == VerdictKind.CRASH
            and store.has_signature(v.signature)
            and not v.evidence.get("coarse")
            for v in judgement.verdicts
        ):
            return results, judgement
        self.stats.fresh_confirmations += 1
        fresh = [self._run(spec, script, fresh=True) for spec in self.specs]
        again = rejudge(fresh) if rejudge else self._judge(text, fresh, fresh=True)
        if not again.verdicts:
            self.stats.fresh_unconfirmed += 1
            kinds = ", ".join(f"{v.kind} ({v.solver})" for v in judgement.verdicts)
            self._say(f"not reproduced in fresh processes, not stored: {kinds}")
        return fresh, again

    def close(self) -> None:
        for solver in self.persistent.values():
            solver.close()

    def _publish(self) -> None:
        self.stats.wall_time = time.monotonic() - self.started
        self.report(Event("stats", self.worker, self.stats.to_json()))

    def _say(self, message: str, kind: str | None = None) -> None:
        """Report `message`; one of a `kind` that repeats per seed only while few."""
        if kind is None or self.repeats.show(kind):
            self.report(Event("message", self.worker, message))

    # -- the loop -------------------------------------------------------------------------
    def _stopping(self) -> bool:
        return self.stop_requested() or (self.deadline is not None and time.time() >= self.deadline)

    def run(self) -> Stats:
        reaper.cancel_when(self._stopping)  # no solver call outlives a stop or the deadline
        try:
            return self._loop()
        except _Stopped:  # the position in progress is not marked done: a resume redoes it
            self._publish()
            return self.stats
        finally:
            reaper.cancel_when(None)
            for line in self.repeats.summary():
                self._say(line)
            self.close()

    def _loop(self) -> Stats:
        config = self.config
        order = SeedOrder(list(self.campaign.seed_files), config.campaign_seed)
        entries = list(self.campaign.generators)
        with self.open_sink() as store, GeneratorPool(entries, unconfined=self.unconfined) as pool:
            if not pool.theories and SPHINX in self.campaign.mix.names:
                failures = "; ".join(
                    f"{t}: {why.strip().splitlines()[-1]}" for t, why in pool.load_failures.items()
                )
                raise CampaignError(
                    f"no generator could be loaded from {config.generators}: {failures}"
                )
            if config.adapt_theories and pool.theories:
                self._probe(pool)
            self.terms = CapableTerms(pool, Capabilities(self.specs))
            if self._stopping():
                raise _Stopped
            done = store.done_positions()
            current_round, usable = 0, False
            for position in itertools.count(self.worker, self.jobs):
                if self._out_of_budget():
                    break
                round_ = order.round_of(position)
                if round_ != current_round:
                    if self.budget.unlimited:
                        break  # without a budget: one pass over the seeds
                    if not usable:
                        self._say("no usable seed in a whole round: stopping this worker")
                        break
                    current_round, usable = round_, False
                seed_file = order.seed_at(position)
                if position in done:  # by an earlier run
                    status = store.seed_status(seed_file)
                    usable = usable or status is None or status[0] == SEED_OK
                    continue
                seed = self._usable_seed(store, seed_file)
                usable = usable or seed is not None
                if seed is not None and not self._fuzz_position(store, pool, position, seed):
                    break  # stopped inside the seed: it is not done, a resume redoes it
                store.mark_done(position, seed_file)
                self._publish()
        self._publish()
        return self.stats

    def _probe(self, pool: GeneratorPool) -> None:
        probe = probe_theories(
            pool, self.specs, self.config.campaign_seed, timeout=self.config.timeout
        )
        self.stats.solver_time += probe.solver_seconds
        self.theory_weights = probe.weights()
        if self.worker != 0 or self.theory_weights is None:
            return  # every worker probes alike: one says so (nothing passed: even draws)
        for theory, share in sorted(probe.accepted.items()):
            if share < 1.0:
                what = "left out" if share == 0 else f"drawn {share:.0%} as often"
                why = probe.first_error.get(theory, "its generator failed")
                self._say(f"theory probe: {theory} {what} ({why.splitlines()[0][:160]})")

    def _usable_seed(self, store: Findings, seed_file: str) -> Seed | None:
        known = store.seed_status(seed_file)
        if known is not None and known[0] != SEED_OK:
            return None
        try:
            raw = load_seed(seed_file, max_bytes=self.config.max_seed_bytes)
        except SeedError as exc:
            self.stats.seeds_malformed += 1
            self.stats.set_aside_causes[f"malformed: {_cause(str(exc).partition(': ')[2])}"] += 1
            self._say(f"skipping seed: {exc}", "skipping seed")
            store.set_seed_status(seed_file, SEED_MALFORMED, str(exc))
            return None
        seed = with_needed_options(raw, self._needed_options)
        if known is None:
            status, detail = self._check_seed(store, seed, raw)
            store.set_seed_status(seed_file, status, detail)
            if status != SEED_OK:
                return None
            known = (status, detail)
        check = SeedCheck.from_detail(known[1])
        if check.trimmed:
            seed = with_needed_options(trimmed(raw) or raw, self._needed_options)
        self.mutant_timeout = calibrated_timeout(self.config, check)
        self.stats.seeds_used += 1
        return seed

    def _check_seed(self, store: Findings, seed: Seed, raw: Seed) -> tuple[str, str]:
        """Run the unmutated seed: what it already triggers is a seed finding, not a bug of
        the fuzzer's making; a seed some solver rejects or cannot answer is set aside."""
        limit = self.config.seed_timeout
        if self.persistent:
            # the usual seed (answered, nothing found) costs no process start; anything else
            # is decided in fresh processes, the only ones whose findings are recorded
            results = [self._run(spec, seed.script, timeout=limit) for spec in self.seed_specs]
            if any(r.outcome == Outcome.TIMEOUT for r in results):
                return self._set_aside(results)
            if all(r.outcome != Outcome.ERROR for r in results):
                judgement = self._judge(seed.text, results)
                if not judgement.verdicts and not judgement.unconfirmed:
                    return SEED_OK, _checked(results)
        results = [
            self._run(spec, seed.script, fresh=True, timeout=limit) for spec in self.seed_specs
        ]
        judgement = self._judge(seed.text, results, fresh=True)
        verdicts = list(judgement.verdicts)
        if not verdicts and judgement.unconfirmed:
            answers = {r.spec.name: r.answers for r in results}
            # the answers the seed's annotations claim (a hint for triage, never a verdict)
            evidence: dict[str, object] = {"answers": answers, "expected": list(raw.expected)}
            verdicts.append(Verdict(VerdictKind.DISAGREEMENT, None, "seed disagreement", evidence))
        if verdicts:
            for verdict in verdicts:
                ident = store.record_seed_finding(seed.path, seed.text, verdict, results)
                if verdict.solver is not None and ident:
                    self._refresh(self.root / FINDINGS_DIR / ident)
            self.stats.seed_findings += len(verdicts)
            kinds = ", ".join(f"{v.kind} ({v.solver or 'all'})" for v in verdicts)
            self._say(f"seed finding in {seed.path}: {kinds}")
            return SEED_FINDING, kinds
        if any(r.outcome in (Outcome.ERROR, Outcome.TIMEOUT) for r in results):
            return self._without_extras(raw, limit) or self._set_aside(results)
        return SEED_OK, _checked(results)

    def _without_extras(self, seed: Seed, limit: float) -> tuple[str, str] | None:
        """A rejected seed gets a second check without its queries and non-standard options
        (`mutate.trim`); usable then, its status says so and it is always used trimmed."""
        smaller = trimmed(seed)
        if smaller is None:
            return None
        smaller = with_needed_options(smaller, self._needed_options)
        results = [self._run(s, smaller.script, fresh=True, timeout=limit) for s in self.seed_specs]
        if any(r.outcome in (Outcome.ERROR, Outcome.TIMEOUT) for r in results):
            return None
        judgement = self._judge(smaller.text, results, fresh=True)
        if judgement.verdicts or judgement.unconfirmed:
            return None  # a finding of the trimmed text is not the seed's: left alone
        return SEED_OK, _checked(results, trimmed=True)

    def _set_aside(self, results: list[SolverResult]) -> tuple[str, str]:
        self.stats.seeds_set_aside += 1
        timed_out = [r for r in results if r.outcome == Outcome.TIMEOUT]
        rejected = next((r for r in results if r.outcome == Outcome.ERROR), None)
        cause = "time-out" if timed_out or rejected is None else f"rejected: {_rejection(rejected)}"
        self.stats.set_aside_causes[cause] += 1
        why = "; ".join(
            f"{r.spec.name}: {r.outcome}" + (f" ({r.failure_line})" if r.failure_line else "")
            for r in results
            if r.outcome in (Outcome.ERROR, Outcome.TIMEOUT)
        )
        return SEED_SET_ASIDE, why

    def _fuzz_seed(self, store: Findings, pool: GeneratorPool, position: int, seed: Seed) -> bool:
        """Make and judge the seed's mutants; False when stopped before the last one."""
        config = self.config
        rng = random.Random(f"{config.campaign_seed}:{position}")
        previous: Mutant | None = None
        log: list[tuple[int, int, str, list[str]]] = []
        seed_timeouts, number, solver_time = 0, -1, 0.0
        try:
            while True:
                number += 1
                if number >= config.mutants_per_seed and not (
                    number < config.mutants_per_seed * config.fast_seed_factor
                    and solver_time <= FAST_MUTANT_SECONDS * number
                ):
                    return True
                if self._out_of_budget():
                    return False
                base: Seed | Mutant = seed
                if previous is not None and rng.random() < 0.5:
                    base = previous
                try:
                    mutant = self._mutate(base, rng, pool)
                except GeneratorFailure as exc:
                    self.stats.generator_failures += 1
                    self.generator_failures_in_row += 1
                    self._say(f"generator failure at {seed.path} mutant {number}: {exc}",
                              "generator failure")  # fmt: skip
                    if self.generator_failures_in_row >= MAX_GENERATOR_FAILURES:
                        raise CampaignError(
                            f"no working generator: the last {MAX_GENERATOR_FAILURES} "
                            f"generator calls all failed (last: {exc}); check the generators "
                            f"in {config.generators} with `sphinxfuzz generators validate`"
                        ) from None
                    continue
                except MutationError as exc:
                    self.stats.mutation_errors += 1
                    if base is seed:  # nothing to gain from more attempts on this seed
                        self.stats.set_aside_causes["nothing to mutate"] += 1
                        if self.strategies.only_sphinx:  # else other strategies may use it
                            self._say(f"setting seed aside: {exc}", "setting seed aside")
                            self.stats.seeds_set_aside += 1
                            store.set_seed_status(seed.path, SEED_SET_ASIDE, str(exc))
                        return True
                    previous = None
                    continue
                previous = mutant
                self.generator_failures_in_row = 0
                digest = hashlib.sha256(mutant.text.encode("utf-8")).hexdigest()
                log.append((position, number, digest, list(mutant.theories)))
                if self.strategies.mix.scheduler == "bandit":
                    self.position_scripts.append(mutant.script)
                timeouts_before, time_before = self.stats.timeouts, self.stats.solver_time
                if not self._test_mutant(store, position, number, seed, mutant):
                    return False
                solver_time += self.stats.solver_time - time_before
                self._publish()
                seed_timeouts += self.stats.timeouts > timeouts_before
                if seed_timeouts >= config.max_mutant_timeouts:
                    self.stats.seeds_left_early += 1
                    return True  # its mutants are too slow: time is better spent elsewhere
        finally:
            if log:
                store.log_mutants(log)

    def _mutate(self, base: Seed | Mutant, rng: random.Random, pool: GeneratorPool) -> Mutant:
        terms = self.terms or pool
        probed = self.terms.capabilities.probe_seconds if self.terms else 0.0
        try:
            return mutate(
                base, rng, terms, rename_prob=self.config.rename_prob,
                theory_options=self.theory_options, theory_weights=self.theory_weights,
                needed_options=self._needed_options,
            )  # fmt: skip
        finally:
            if self.terms is not None:  # what was left out, and probing as solver time
                self.stats.left_out = Counter(self.terms.left_out)
                self.stats.solver_time += self.terms.capabilities.probe_seconds - probed

    def _keep_rejected(self, cause: str, result: SolverResult, script: Mutant | Script) -> None:
        """The first mutant of each rejection cause, as the solver saw it, goes to
        `rejected/` in the campaign folder: a rejection is a fuzzer problem to look into."""
        family = result.spec.family
        seen = script.text_for(family) if isinstance(script, Mutant) else for_family(script, family)
        first = " ".join((result.failure_line or "").split())
        self._keep_example("rejected", cause, seen, f"first error: {first}")

    def _keep_example(self, folder_name: str, cause: str, text: str, note: str) -> None:
        """`<campaign>/<folder_name>/<hash of cause>.smt2`: one example formula of a cause."""
        name = hashlib.sha1(cause.encode("utf-8")).hexdigest()[:12]
        folder = self.root / folder_name
        try:
            folder.mkdir(exist_ok=True)
            (folder / f"{name}.smt2").write_text(f"; {cause}\n; {note}\n" + text)
        except OSError:
            pass  # an example only; the counter is what matters

    def _needed_options(self, operators: set[str], commands: Mapping[str, int]) -> list[str]:
        return needed_options(self.targets, operators, commands)

    def _count_run(self, results: list[SolverResult], script: Mutant | Script) -> bool:
        """Count one tested script; True when every solver accepted it."""
        stats = self.stats
        stats.mutants += 1
        accepted = all(r.outcome != Outcome.ERROR for r in results)
        stats.accepted += accepted
        for result in results:
            if result.outcome == Outcome.ERROR:
                cause = _rejection(result)
                if cause not in stats.rejections:
                    self._keep_rejected(cause, result, script)
                stats.rejections[cause] += 1
        return accepted

    def _test_mutant(
        self, store: Findings, position: int, number: int, seed: Seed, mutant: Mutant
    ) -> bool:
        limit = self.mutant_timeout
        results = [self._run(spec, mutant, timeout=limit) for spec in self.specs]
        if self.stop_requested():
            # Ctrl-C may have reached the solver processes too: do not judge what it killed
            return False
        accepted = self._count_run(results, mutant)
        self.stats.theories.update(set(mutant.theories))
        if accepted:
            self.stats.theories_accepted.update(set(mutant.theories))
        judgement = self._judge(mutant.text, results)
        results, judgement = self._confirmed(store, mutant, mutant.text, results, judgement)
        for verdict in judgement.verdicts:
            where = Origin(seed.path, position, number, tuple(mutant.theories), SPHINX)
            self._record(store, verdict, mutant.text, where, results, judgement)
        return True

    def _record(
        self,
        store: Findings,
        verdict: Verdict,
        text: str,
        where: Origin,
        results: list[SolverResult],
        judgement: Judgement,
    ) -> None:
        ident = store.record_bug(
            verdict,
            mutant_text=text,
            seed_file=where.seed_file,
            position=where.position,
            mutant=where.mutant,
            theories=list(where.theories),
            results=results,
            campaign_seed=self.config.campaign_seed,
            check_script=judgement.check_script,
            check_results=judgement.check_results,
            strategy=where.strategy,
        )
        if ident is None:
            self.stats.duplicates += 1
        else:
            self.stats.bugs[str(verdict.kind)] += 1
            today = self._refresh(self.root / BUGS_DIR / ident)
            self._say(
                f"{verdict.kind} in {verdict.solver}: {verdict.signature} -> bugs/{ident}{today}"
            )

    def _refresh(self, folder: Path) -> str:
        """Replay a new bug on the newest release of its family (`bugs.refresh`); a worker
        whose findings are written elsewhere (a Ray node) leaves it to `bugs refresh`."""
        if not (folder / VERDICT).is_file():
            return ""
        try:
            today = refresh_bug(self.root, folder, newest_specs(self.config.newest))
        except RefreshError as exc:
            return f" (not replayed on the newest release: {exc})"
        return f" ({today.sentence()})"

    # -- strategies (`--strategies`) ------------------------------------------------------
    def _fuzz_position(
        self, store: Findings, pool: GeneratorPool, position: int, seed: Seed
    ) -> bool:
        """The position's strategy makes and tests its cases; False when stopped inside."""
        name = self.strategies.choose(
            seed, self.config.campaign_seed, position, self._index(position)
        )
        if name is None:
            self.stats.set_aside_causes["no strategy applies"] += 1
            return True
        before = _Snapshot.of(self.stats)
        self.position_scripts = []
        finished = False
        try:
            if name == SPHINX:
                finished = self._fuzz_seed(store, pool, position, seed)
            else:
                finished = self._fuzz_cases(store, position, seed, name)
        finally:  # a stop inside the position (`_Stopped`) still counts what was tested
            counters = before.delta(self.stats)
            mine = self.stats.strategy(name)
            mine.positions += 1
            mine.cases += counters.cases
            mine.accepted += counters.accepted
            mine.verdicts += counters.verdicts + counters.new_crash_signatures
            mine.solver_calls += counters.solver_calls
            mine.solver_seconds += counters.solver_seconds
        if self.strategies.mix.scheduler == "bandit":
            counters.new_operator_pairs = self.pairs.new_pairs(self.position_scripts)
        if finished:
            self.strategies.scheduler.reward(name, counters, self._index(position))
        return finished

    def _partners(self, position: int) -> list[Seed]:
        """Up to FUSION_PARTNERS seeds drawn for `position` (fusion fuses with those of its
        seed's label); unreadable ones are left out."""
        files = self.campaign.seed_files
        rng = random.Random(f"{self.config.campaign_seed}:{position}:partners")
        found = []
        for path in rng.sample(files, min(FUSION_PARTNERS, len(files))):
            try:
                raw = load_seed(path, max_bytes=self.config.max_seed_bytes)
            except SeedError:
                continue
            found.append(with_needed_options(raw, self._needed_options))
        return found

    def _index(self, position: int) -> int:
        """The worker's own count of positions (what its scheduler learns in order of)."""
        return position // self.jobs

    def _fuzz_cases(self, store: Findings, position: int, seed: Seed, name: str) -> bool:
        """Test up to `mutants_per_seed` cases of strategy `name` from `seed`; False when
        stopped before the last one."""
        config = self.config
        cases = self.strategies.get(name).mutants(
            seed, random.Random(f"{config.campaign_seed}:{position}")
        )
        log: list[tuple[int, int, str, list[str]]] = []
        seed_timeouts = 0
        try:
            for number in range(config.mutants_per_seed):
                if self._out_of_budget():
                    return False
                try:
                    case = next(cases, None)
                except SphinxfuzzError as exc:  # a strategy's clear refusal, not a bug of it
                    self.stats.mutation_errors += 1
                    self._say(f"{name} at {seed.path}: {exc}", f"{name} refused a seed")
                    return True
                except RecursionError:  # a seed nested deeper than a strategy's walk goes
                    self.stats.mutation_errors += 1
                    self._say(f"{name} at {seed.path}: nested too deeply, left alone")
                    return True
                if case is None:
                    return True
                script = ready_to_run(case.script, self._needed_options)
                text = print_script(script)
                log.append((position, number, hashlib.sha256(text.encode()).hexdigest(), []))
                if self.strategies.mix.scheduler == "bandit":
                    self.position_scripts.append(script)
                timeouts_before = self.stats.timeouts
                if not self._test_case(
                    store, Origin(seed.path, position, number, (), name), case, script, text
                ):
                    return False
                self._publish()
                seed_timeouts += self.stats.timeouts > timeouts_before
                if seed_timeouts >= config.max_mutant_timeouts:
                    self.stats.seeds_left_early += 1
                    return True
            return True
        finally:
            if log:
                store.log_mutants(log)

    def _test_case(
        self, store: Findings, where: Origin, case: TestCase, script: Script, text: str
    ) -> bool:
        # a case related to another formula gets the full limit: its time-out is a verdict
        limit = self.config.timeout if case.related is not None else self.mutant_timeout
        results = [self._run(spec, script, timeout=limit) for spec in self.specs]
        if self.stop_requested():
            return False
        self._count_run(results, script)
        strategy = self.strategies.get(where.strategy)
        judge_case = CaseJudge(
            text,
            self.specs,
            lambda spec, check, fresh, timeout: self._run(spec, check, fresh=fresh, timeout=timeout),
            lambda formula, rs, fresh: self._judge(formula, rs, fresh=fresh),
            None if case.expected is None else Expected(case.expected, where.strategy, strategy.summary),
            None if case.related is None else ready_to_run(case.related.script, self._needed_options),
            self.config.timeout,
            self.campaign.trusted[0] if self.campaign.trusted else None,
        )  # fmt: skip
        self.stats.strategy(where.strategy).expected += case.expected is not None
        judgement = judge_case(results, False)
        results, judgement = self._confirmed(
            store, script, text, results, judgement, lambda fresh: judge_case(fresh, True)
        )
        stored = judge_case.stored_results(results)
        for verdict in judgement.verdicts:
            formula = judge_case.formula_of(verdict)
            kept = self._not_doubtful(verdict, formula, where, stored)
            if kept is not None:
                self._record(store, kept, formula, where, stored, judgement)
        return True

    def _not_doubtful(
        self, verdict: Verdict, formula: str, where: Origin, results: list[SolverResult]
    ) -> Verdict | None:
        """The verdict to store after the doubt gate (`oracle.doubt`): None when a trusted
        solver answers its formula against the construction (counted, the first of each
        cause kept in `doubts/`); a SLOW finding when ten times the limit solves a timed-out
        incompleteness."""
        if verdict.kind not in DOUBTED or verdict.expected is None:
            return verdict  # a crash, or a verdict that rests on no construction
        trusted = [self._run(spec, formula, fresh=True) for spec in self.campaign.trusted]
        found = doubtful(verdict, trusted)
        if found is not None:
            cause = f"{where.strategy}: {found.cause(verdict)}"
            if cause not in self.stats.doubts:
                self._keep_example(DOUBTS_DIR, cause, formula, found.solver)
            self.stats.doubts[cause] += 1
            self._say(f"construction doubt, not stored: {cause}")
            return None
        if not needs_more_time(verdict) or verdict.solver is None:
            return verdict
        blamed = next((s for s in self.specs if s.name == verdict.solver), None)
        if blamed is None:
            return verdict
        limit = SLOW_FACTOR * self.config.timeout
        longer = self._run(blamed, formula, fresh=True, timeout=limit, beyond_limit=True)
        # the time to compare with: a trusted solver's, else the verdict's reference target's
        reference = next((r for r in trusted if r.answers[:1] == longer.answers[:1]), None) or next(
            (r for r in results if r.spec.name == verdict.evidence.get("reference")), None
        )
        return slow_verdict(verdict, longer, limit, reference) or verdict


@dataclass(frozen=True)
class Origin:
    """Where a tested script came from: what a stored bug records of it."""

    seed_file: str
    position: int
    mutant: int
    theories: tuple[str, ...]
    strategy: str


@dataclass(frozen=True)
class _Snapshot:
    """The counters a position changes, before it: `delta` gives what it did."""

    mutants: int
    accepted: int
    solver_calls: int
    solver_time: float
    crashes: int
    verdicts: int

    @classmethod
    def of(cls, stats: Stats) -> _Snapshot:
        crashes = stats.bugs.get(str(VerdictKind.CRASH), 0)
        return cls(stats.mutants, stats.accepted, stats.solver_calls, stats.solver_time,
                   crashes, sum(stats.bugs.values()) - crashes)  # fmt: skip

    def delta(self, stats: Stats) -> Counters:
        now = _Snapshot.of(stats)
        return Counters(
            cases=now.mutants - self.mutants,
            accepted=now.accepted - self.accepted,
            solver_calls=now.solver_calls - self.solver_calls,
            solver_seconds=now.solver_time - self.solver_time,
            new_crash_signatures=now.crashes - self.crashes,
            verdicts=now.verdicts - self.verdicts,
        )


def _checked(results: list[SolverResult], *, trimmed: bool = False) -> str:
    """The stored detail of a usable seed's check (`SeedCheck`)."""
    return SeedCheck(max(r.elapsed for r in results), trimmed).to_detail()


def _cause(line: str) -> str:
    """A failure line as a counter key: what varies between runs normalised away."""
    return normalise_failure(line)[:160]


def _rejection(result: SolverResult) -> str:
    return f"{result.spec.name}: {_cause(result.failure_line or 'rejected')}"


def worker_main(
    campaign: Campaign,
    root: str,
    worker: int,
    jobs: int,
    budget: tuple[float | None, int | None],
    deadline: float | None,
    queue: object,
    stop: object,
    parent_pid: int,
    persistent: bool = True,
    unconfined: bool = False,
) -> None:
    """Entry point of a spawned worker process: events go to the coordinator's queue."""
    import signal
    import threading
    import traceback

    from sphinxfuzz.solvers.reaper import abort_all

    # The coordinator turns Ctrl-C into `stop`; a worker must finish its mutant, not die.
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def report(event: Event) -> None:
        queue.put(event)  # type: ignore[attr-defined]

    def stop_requested() -> bool:
        # an orphaned worker (coordinator killed) stops too
        return stop.is_set() or os.getppid() != parent_pid  # type: ignore[attr-defined]

    def abort_on_stop() -> None:  # a stop must not wait for the solvers running now
        # polled, never `stop.wait()`: a worker that exits while waiting on the Event leaves
        # `Event.set` in the coordinator waiting for it forever
        while not stop_requested():
            time.sleep(0.2)
        abort_all()

    threading.Thread(target=abort_on_stop, daemon=True).start()

    try:
        Worker(
            campaign,
            Path(root),
            worker=worker,
            jobs=jobs,
            budget=Budget(*budget),
            deadline=deadline,
            report=report,
            stop_requested=stop_requested,
            persistent=persistent,
            unconfined=unconfined,
        ).run()
        report(Event("done", worker, None))
    except SphinxfuzzError as exc:  # a clear message (a full disk too) needs no traceback
        report(Event("failed", worker, str(exc)))
    except BaseException:
        report(Event("failed", worker, traceback.format_exc()))
    finally:
        remove_scratch_dir()  # now, not at exit: a worker may be killed after its last word
