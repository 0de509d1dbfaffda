"""Whether a seed is usable, and by which targets, decided once per campaign and kept in
the store.

A seed is run unmutated by the targets and the trusted solvers first: what it already
triggers is a seed finding, not a bug of the fuzzer's making. A seed some solver rejects gets
a second try without its queries and non-standard options (`mutate.trim`), with today's
names for the operators of cvc4 and older SMT-LIB (`mutate.upgrade`) and with the
declarations its reporter left out, inferred from their uses (`mutate.declare`). A seed the
targets all accept is used in full; one only some targets accept (a theory one family
lacks) serves those alone (`SEED_PARTIAL`: the loop prefers strategies that need no second
solver); a seed no target accepts, or one some solver cannot answer in time, is set aside.
A usable seed's check gives its cases their time limit (`case_limits.CaseLimits`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.stats import Stats
from sphinxfuzz.campaign.config import CampaignConfig, SeedCheck
from sphinxfuzz.campaign.judging import Judging
from sphinxfuzz.campaign.sink import Findings
from sphinxfuzz.campaign.solver_calls import SolverCalls, cause, rejection
from sphinxfuzz.mutate import Seed, SeedError, load_seed
from sphinxfuzz.mutate.declare import declared
from sphinxfuzz.mutate.mutant import NeededOptions, with_needed_options
from sphinxfuzz.mutate.trim import trimmed
from sphinxfuzz.mutate.upgrade import upgraded
from sphinxfuzz.oracle import Verdict, VerdictKind
from sphinxfuzz.solvers import Outcome, SolverResult, SolverSpec

# Seed status values kept in the store; a usable seed's detail is its `SeedCheck`.
SEED_OK = "ok"  # used by every target
SEED_PARTIAL = "partial"  # used by the targets its detail names alone
SEED_MALFORMED, SEED_SET_ASIDE, SEED_FINDING = "malformed", "set-aside", "finding"
USABLE = (SEED_OK, SEED_PARTIAL)


@dataclass(frozen=True)
class UsableSeed:
    """A seed as its cases are made from, its check (its cases' time limit), and the
    targets they run on."""

    seed: Seed
    check: SeedCheck
    specs: tuple[SolverSpec, ...]  # every target, or the ones that accept it (partial)


class SeedChecker:
    def __init__(
        self,
        config: CampaignConfig,
        calls: SolverCalls,
        judging: Judging,
        specs: Sequence[SolverSpec],  # the targets (`calls.specs`) and the trusted solvers
        needed_options: NeededOptions,
        *,
        say: Callable[[str, str | None], None],
        refresh: Callable[[Path], str],
    ) -> None:
        self.config, self.calls, self.specs = config, calls, list(specs)
        self.judging = judging
        self.targets = tuple(calls.specs)
        self.stats: Stats = calls.stats
        self.needed_options, self.say, self.refresh = needed_options, say, refresh
        # some target timed out on, or answered unknown to, the seed in its check so far
        self.seed_undecided = False

    def usable(self, store: Findings, seed_file: str) -> UsableSeed | None:
        """The seed with its check and targets; None when unusable."""
        known = store.seed_status(seed_file)
        if known is not None and known[0] not in USABLE:
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
            self.seed_undecided = False
            status, detail = self._check(store, seed, raw)
            self.stats.seeds_checked += 1
            self.stats.seeds_undecided += self.seed_undecided
            store.set_seed_status(seed_file, status, detail)
            if status not in USABLE:
                return None
            known = (status, detail)
        check = SeedCheck.from_detail(known[1])
        if check.trimmed or check.upgraded or check.declared:
            seed = with_needed_options(_reworked(raw, check), self.needed_options)
        serves = check.serves
        specs = tuple(s for s in self.targets if serves is None or s.name in serves)
        if not specs:  # names no target of this campaign: not a status it wrote
            return None
        return UsableSeed(seed, check, specs)

    def count(self, usable: UsableSeed, why_unused: str | None) -> None:
        """Count a usable seed's position once its strategy is drawn: used in full, used by
        part of the targets, or set aside for `why_unused` (no strategy applies)."""
        if why_unused is not None:
            self.stats.seeds_set_aside += 1
            self.stats.set_aside_causes[why_unused] += 1
        elif len(usable.specs) < len(self.targets):
            self.stats.seeds_partial += 1
        else:
            self.stats.seeds_used += 1

    def set_aside_after(self, usable: UsableSeed, why: str) -> None:
        """A seed `count` counted used, in full or in part, that its only strategy then
        turned away (`why`): counted set aside instead, so it counts once."""
        if len(usable.specs) < len(self.targets):
            self.stats.seeds_partial -= 1
        else:
            self.stats.seeds_used -= 1
        self.count(usable, why)

    def _check(self, store: Findings, seed: Seed, raw: Seed) -> tuple[str, str]:
        """Run the unmutated seed: what it already triggers is a seed finding, not a bug of
        the fuzzer's making; a seed no target accepts, or some solver cannot answer, is set
        aside."""
        limit, run, judge = self.config.seed_timeout, self.calls.run, self.judging.formula
        if self.calls.processes.long_lived:
            # the usual seed (answered, nothing found) costs no process start; anything else
            # is decided in fresh processes, the only ones whose findings are recorded
            results = self._ran(self.calls.run_together(self.specs, seed.script, timeout=limit))
            if any(r.outcome == Outcome.TIMEOUT for r in results):
                return self.set_aside(results)
            if all(r.outcome != Outcome.ERROR for r in results):
                judgement = judge(seed.text, results)
                if not judgement.verdicts and not judgement.unconfirmed:
                    return SEED_OK, _checked(results)
        results = self._ran(
            [run(spec, seed.script, fresh=True, timeout=limit) for spec in self.specs]
        )
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
        if all(r.outcome not in (Outcome.ERROR, Outcome.TIMEOUT) for r in results):
            return SEED_OK, _checked(results)
        whole = _Form(results, SeedCheck(None))
        return self._by_target(seed.path, whole, self._second_form(raw, limit))

    def _ran(self, results: list[SolverResult]) -> list[SolverResult]:
        """`results` of one form of the seed, noted when a target left it undecided."""
        names = {s.name for s in self.targets}
        self.seed_undecided |= any(r.undecided for r in results if r.spec.name in names)
        return results

    def _second_form(self, seed: Seed, limit: float) -> _Form | None:
        """A rejected seed's second check, without its queries and non-standard options
        (`mutate.trim`), with today's operator names (`mutate.upgrade`) and the declarations
        it lacks (`mutate.declare`): its results, None when none of them changes the seed or
        the new text triggers something (a finding of the changed text is not the seed's)."""
        smaller = trimmed(seed)
        newer = upgraded(smaller or seed)
        completed = declared(newer or smaller or seed)
        changed = completed or newer or smaller
        if changed is None:
            return None
        changed = with_needed_options(changed, self.needed_options)
        run = self.calls.run
        results = self._ran([run(s, changed.script, fresh=True, timeout=limit) for s in self.specs])
        judgement = self.judging.formula(changed.text, results, fresh=True)
        if judgement.verdicts or judgement.unconfirmed:
            return None
        form = SeedCheck(
            None, smaller is not None, upgraded=newer is not None, declared=completed is not None
        )
        return _Form(results, form)

    def _by_target(self, path: str, whole: _Form, second: _Form | None) -> tuple[str, str]:
        """The status of a seed some solver rejected or timed out on: the form (whole, else
        trimmed, upgraded and declared) that the most targets accept, used by those targets;
        set aside when no target accepts it or a solver timed out on every form, for that
        time-out when the reworked form is read but not answered in time."""
        forms = [whole] + ([second] if second is not None else [])
        answered = [f for f in forms if all(r.outcome != Outcome.TIMEOUT for r in f.results)]
        # set aside, a seed with a form some solver could not answer in time is a time-out's
        late = next((f for f in reversed(forms) if not any(f is a for a in answered)), whole)
        if not answered:
            return self.set_aside(late.results)
        names = {s.name for s in self.targets}

        def rank(form: _Form) -> tuple[int, int]:
            """Targets that accept it, then solvers (trusted ones give labels)."""
            accepting = [r.spec.name for r in form.results if r.outcome != Outcome.ERROR]
            return sum(name in names for name in accepting), len(accepting)

        chosen = max(answered, key=rank)  # the whole seed on a tie
        results, form = chosen.results, chosen.form
        serves = tuple(
            r.spec.name for r in results if r.spec.name in names and r.outcome != Outcome.ERROR
        )
        if not serves:
            return self.set_aside(late.results)
        if len(serves) == len(names):  # a trusted solver's rejection only costs labels
            return SEED_OK, _checked(results, form)
        rejected = [r for r in results if r.spec.name in names and r.outcome == Outcome.ERROR]
        for result in rejected:
            self.stats.partial_causes[rejection(result)] += 1
        self.say(
            f"seed {path}: used by {', '.join(serves)} alone; "
            + "; ".join(rejection(r) for r in rejected),
            "seed used in part",
        )
        return SEED_PARTIAL, _checked(results, form, serves=serves)

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


@dataclass(frozen=True)
class _Form:
    """One form of a seed a check ran: its results, and how it differs from the file (a
    `SeedCheck` whose time is not yet known)."""

    results: list[SolverResult]
    form: SeedCheck


def _reworked(raw: Seed, check: SeedCheck) -> Seed:
    """The form of the seed its check chose: trimmed, upgraded, declared, or as read."""
    form = (trimmed(raw) or raw) if check.trimmed else raw
    form = (upgraded(form) or form) if check.upgraded else form
    return (declared(form) or form) if check.declared else form


def _checked(
    results: list[SolverResult],
    form: SeedCheck | None = None,
    *,
    serves: tuple[str, ...] | None = None,
) -> str:
    """The stored detail of a usable seed's check (`SeedCheck`)."""
    form = form or SeedCheck(None)
    # a (re)started process is no part of it: under load starting the cvc5 shim takes a
    # second, which made a seed answered in 50 ms give its cases 10 s to time out in
    slowest = max(r.solving for r in results)
    return replace(form, slowest=slowest, serves=serves).to_detail()
