"""Whether a seed is usable, decided once per campaign and kept in the store.

A seed is run unmutated by the targets and the trusted solvers first: what it already
triggers is a seed finding, not a bug of the fuzzer's making, and a seed some solver rejects
or cannot answer in time is set aside (after a second try without its queries and
non-standard options, `mutate.trim`). A usable seed's check gives its cases their time limit
(`config.calibrated_timeout`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.stats import Stats
from sphinxfuzz.campaign.calls import SolverCalls, cause, rejection
from sphinxfuzz.campaign.config import CampaignConfig, SeedCheck, calibrated_timeout
from sphinxfuzz.campaign.sink import Findings
from sphinxfuzz.mutate import Seed, SeedError, load_seed
from sphinxfuzz.mutate.mutant import NeededOptions, with_needed_options
from sphinxfuzz.mutate.trim import trimmed
from sphinxfuzz.oracle import Verdict, VerdictKind
from sphinxfuzz.solvers import Outcome, SolverResult, SolverSpec

# Seed status values kept in the store.
SEED_OK, SEED_MALFORMED, SEED_SET_ASIDE, SEED_FINDING = "ok", "malformed", "set-aside", "finding"


class SeedChecker:
    def __init__(
        self,
        config: CampaignConfig,
        calls: SolverCalls,
        specs: Sequence[SolverSpec],  # the targets and the trusted solvers
        needed_options: NeededOptions,
        *,
        say: Callable[[str, str | None], None],
        refresh: Callable[[Path], str],
    ) -> None:
        self.config, self.calls, self.specs = config, calls, list(specs)
        self.stats: Stats = calls.stats
        self.needed_options, self.say, self.refresh = needed_options, say, refresh

    def usable(self, store: Findings, seed_file: str) -> tuple[Seed, float] | None:
        """The seed as its cases are made from, and their time limit; None when unusable."""
        known = store.seed_status(seed_file)
        if known is not None and known[0] != SEED_OK:
            return None
        try:
            raw = load_seed(seed_file, max_bytes=self.config.max_seed_bytes)
        except SeedError as exc:
            self.stats.seeds_malformed += 1
            self.stats.set_aside_causes[f"malformed: {cause(str(exc).partition(': ')[2])}"] += 1
            self.say(f"skipping seed: {exc}", "skipping seed")
            store.set_seed_status(seed_file, SEED_MALFORMED, str(exc))
            return None
        seed = with_needed_options(raw, self.needed_options)
        if known is None:
            status, detail = self._check(store, seed, raw)
            store.set_seed_status(seed_file, status, detail)
            if status != SEED_OK:
                return None
            known = (status, detail)
        check = SeedCheck.from_detail(known[1])
        if check.trimmed:
            seed = with_needed_options(trimmed(raw) or raw, self.needed_options)
        self.stats.seeds_used += 1
        return seed, calibrated_timeout(self.config, check)

    def _check(self, store: Findings, seed: Seed, raw: Seed) -> tuple[str, str]:
        """Run the unmutated seed: what it already triggers is a seed finding, not a bug of
        the fuzzer's making; a seed some solver rejects or cannot answer is set aside."""
        limit, run, judge = self.config.seed_timeout, self.calls.run, self.calls.judge
        if self.calls.persistent:
            # the usual seed (answered, nothing found) costs no process start; anything else
            # is decided in fresh processes, the only ones whose findings are recorded
            results = [run(spec, seed.script, timeout=limit) for spec in self.specs]
            if any(r.outcome == Outcome.TIMEOUT for r in results):
                return self.set_aside(results)
            if all(r.outcome != Outcome.ERROR for r in results):
                judgement = judge(seed.text, results)
                if not judgement.verdicts and not judgement.unconfirmed:
                    return SEED_OK, _checked(results)
        results = [run(spec, seed.script, fresh=True, timeout=limit) for spec in self.specs]
        judgement = judge(seed.text, results, fresh=True)
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
                    self.refresh(CampaignFolder(self.calls.root).finding(ident))
            self.stats.seed_findings += len(verdicts)
            kinds = ", ".join(f"{v.kind} ({v.solver or 'all'})" for v in verdicts)
            self.say(f"seed finding in {seed.path}: {kinds}", None)
            return SEED_FINDING, kinds
        if any(r.outcome in (Outcome.ERROR, Outcome.TIMEOUT) for r in results):
            return self._without_extras(raw, limit) or self.set_aside(results)
        return SEED_OK, _checked(results)

    def _without_extras(self, seed: Seed, limit: float) -> tuple[str, str] | None:
        """A rejected seed gets a second check without its queries and non-standard options
        (`mutate.trim`); usable then, its status says so and it is always used trimmed."""
        smaller = trimmed(seed)
        if smaller is None:
            return None
        smaller = with_needed_options(smaller, self.needed_options)
        run = self.calls.run
        results = [run(s, smaller.script, fresh=True, timeout=limit) for s in self.specs]
        if any(r.outcome in (Outcome.ERROR, Outcome.TIMEOUT) for r in results):
            return None
        judgement = self.calls.judge(smaller.text, results, fresh=True)
        if judgement.verdicts or judgement.unconfirmed:
            return None  # a finding of the trimmed text is not the seed's: left alone
        return SEED_OK, _checked(results, trimmed=True)

    def set_aside(self, results: list[SolverResult]) -> tuple[str, str]:
        self.stats.seeds_set_aside += 1
        timed_out = [r for r in results if r.outcome == Outcome.TIMEOUT]
        rejected = next((r for r in results if r.outcome == Outcome.ERROR), None)
        why = "time-out" if timed_out or rejected is None else f"rejected: {rejection(rejected)}"
        self.stats.set_aside_causes[why] += 1
        detail = "; ".join(
            f"{r.spec.name}: {r.outcome}" + (f" ({r.failure_line})" if r.failure_line else "")
            for r in results
            if r.outcome in (Outcome.ERROR, Outcome.TIMEOUT)
        )
        return SEED_SET_ASIDE, detail


def _checked(results: list[SolverResult], *, trimmed: bool = False) -> str:
    """The stored detail of a usable seed's check (`SeedCheck`)."""
    return SeedCheck(max(r.elapsed for r in results), trimmed).to_detail()
