"""Which theories the target solvers take and decide: a few sampled terms per theory, checked
once at the start of a run, weigh how often each theory is drawn.

Old releases lack newer operators and one solver lacks whole theories; a mutant one solver
rejects tests only its parser. A mutant a solver answers `unknown` to (the cvc5 wheel has no
CoCoA, so it cannot solve finite fields) or times out on tests nothing either: a theory is
weighed by the share of its terms that every solver accepts *and* decides (sat or unsat).
The probe depends on nothing but the campaign seed, the generators and the solvers' answers,
so the same campaign draws the same mutants every time.

A term of the probe is `generate(Random(s))` for its own seed s, exactly the term
`sphinxfuzz generators validate THEORY -n 1 --seed s` samples, and it is checked the same way
(`check_terms`): given the campaign's solvers (`--solvers`, same options), validation judges
the same term alike. The first rejection names that seed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from sphinxfuzz.campaign.rngs import rng_for
from sphinxfuzz.generators.pool import GeneratorFailure, GeneratorPool
from sphinxfuzz.generators.solver_check import check_terms, logic_for
from sphinxfuzz.solvers import DECIDED, SolverResult, SolverSpec, run_solver

PROBE_TERMS = 20  # per theory: enough to see an operator that is missing in one term in ten
# A term that stops a solver's batch (an error such as "not configured with --cocoa", a
# time-out) costs a call for the terms after it, a time-out its whole limit; after this many
# in one theory the theory's remaining terms count as undecided by that solver without a call.
STOPS_PER_THEORY = 1


@dataclass
class Probe:
    """The share of each theory's sampled terms that every solver accepted, and decided."""

    accepted: dict[str, float] = field(default_factory=dict)
    decided: dict[str, float] = field(default_factory=dict)
    # theory -> "solver, term seed S: error" (S reproduces it with `generators validate`)
    first_error: dict[str, str] = field(default_factory=dict)
    # theory -> "solver leaves term seed S undecided: answer or reason" (its first such term)
    first_undecided: dict[str, str] = field(default_factory=dict)
    # Time inside solver processes (mostly). Its calls are not counted: a batch with a
    # rejected term is split and re-run, and check_terms does not say how often.
    solver_seconds: float = 0.0

    def weights(self) -> dict[str, float] | None:
        """Draw weights for `mutate`: a theory no term of which every solver decided is never
        drawn (None when no theory was decided: then every theory is drawn evenly)."""
        return dict(self.decided) if any(self.decided.values()) else None

    def why(self, theory: str) -> str:
        """Why `theory` is drawn less often than the others: its first rejected term, else its
        first undecided one."""
        if theory in self.first_error:
            return self.first_error[theory]
        return self.first_undecided.get(theory, "its generator failed")


@dataclass
class _Term:
    theory: str
    seed: int
    decls: str
    term: str


def probe_theories(
    pool: GeneratorPool,
    specs: Sequence[SolverSpec],
    campaign_seed: int,
    *,
    terms: int = PROBE_TERMS,
    timeout: float = 10.0,
    decide_timeout: float = 2.0,
) -> Probe:
    """`timeout` limits a parse check, `decide_timeout` a batch of check-sats: a term slower
    than that alone makes mutants that time out (the campaign's `seed_timeout`)."""
    rng = rng_for(campaign_seed, "probe")
    probe = Probe()
    accepted: list[_Term] = []
    for theory in sorted(pool.theories):
        samples: list[tuple[str, str]] = []
        seeds: list[int] = []
        for _ in range(terms):
            seed = rng.getrandbits(32)
            try:
                samples.append(pool.generate(theory, seed))
                seeds.append(seed)
            except GeneratorFailure:
                pass  # a failing call counts as a rejected term
        started = time.monotonic()
        verdicts = check_terms(samples, specs, timeout=timeout) if samples else []
        probe.solver_seconds += time.monotonic() - started
        passed = [i for i, v in enumerate(verdicts) if not v.errors]
        probe.accepted[theory] = len(passed) / terms
        accepted += [_Term(theory, seeds[i], *samples[i]) for i in passed]
        failed = next((i for i, v in enumerate(verdicts) if v.errors), None)
        if failed is not None:
            name, error = next(iter(verdicts[failed].errors.items()))
            probe.first_error[theory] = f"{name}, term seed {seeds[failed]}: {error}"
    started = time.monotonic()
    undecided: set[int] = set()
    for spec in specs:
        for index, reason in _undecided(spec, accepted, decide_timeout).items():
            undecided.add(index)
            found = accepted[index]
            probe.first_undecided.setdefault(
                found.theory, f"{spec.name} leaves term seed {found.seed} undecided: {reason}"
            )
    probe.solver_seconds += time.monotonic() - started
    for theory in probe.accepted:
        decided = [i for i, t in enumerate(accepted) if t.theory == theory and i not in undecided]
        probe.decided[theory] = len(decided) / terms
    return probe


def _undecided(spec: SolverSpec, terms: Sequence[_Term], timeout: float) -> dict[int, str]:
    """Index -> why, for the terms `spec` does not answer sat or unsat to. Each term is
    checked in its own `(push 1)` scope; a batch runs to its first term that stops the
    solver, and the terms after it go to the next batch."""
    found: dict[int, str] = {}
    for logic in sorted({logic_for(t.decls, t.term) for t in terms}):
        pending = [i for i, t in enumerate(terms) if logic_for(t.decls, t.term) == logic]
        stops: dict[str, int] = {}
        while pending:
            script = f"(set-logic {logic})\n" + "".join(
                f"(push 1)\n{terms[i].decls}\n(assert {terms[i].term})\n(check-sat)\n(pop 1)\n"
                for i in pending
            )
            result = run_solver(spec, script, timeout=timeout)
            answers = result.answers[: len(pending)]
            for index, answer in zip(pending, answers, strict=False):
                if answer not in DECIDED:
                    found[index] = str(answer)
            pending = pending[len(answers) :]
            if not pending:
                break
            stopped, pending = pending[0], pending[1:]
            found[stopped] = _reason(result)
            theory = terms[stopped].theory
            stops[theory] = stops.get(theory, 0) + 1
            if stops[theory] >= STOPS_PER_THEORY:  # the rest of the theory without a call
                for index in [i for i in pending if terms[i].theory == theory]:
                    found[index] = found[stopped]
                pending = [i for i in pending if terms[i].theory != theory]
    return found


def _reason(result: SolverResult) -> str:
    line = result.failure_line or next(
        (s for s in (result.stdout + "\n" + result.stderr).splitlines() if s.strip()), ""
    )
    return f"{result.outcome.value}: {line.strip()}" if line.strip() else result.outcome.value
