"""Which theories the target solvers take and decide: a few sampled terms per theory weigh
how often each theory is drawn.

Old releases lack newer operators and one solver lacks whole theories; a mutant one solver
rejects tests only its parser. A mutant a solver answers `unknown` to (the cvc5 wheel has no
CoCoA, so it cannot solve finite fields) or times out on tests nothing either: a theory is
weighed by the share of its terms that every solver accepts *and* decides (sat or unsat).

A theory's terms are the same in every campaign (their seeds come from the theory's name),
so each solver's answers are cached per release and command line, next to its capabilities
(`capabilities.cache_file`, section "theory_probe"), keyed by theory, generator source and
limits: a campaign probes only what no campaign before it probed, and draws what the same
answers give. The section says how its answers were made (`made_by`: `THEORY_PROBE`, the
options a batch gets, the family record's fields a run reads); answers an older probe made
are asked again, and the campaign says so once (`Probe.stale`): yices's were all undecided
before the probe ran it incremental. A time-out is an answer of the machine that first
probed; delete the cache file to probe again.

A checked term is asked both ways, asserted and negated: a mutant holds a term under either
polarity, and a solver splits on its atoms, so a term decided only one way leaves its mutants
undecided. RecFuns showed it: cvc5 decided 2 of its 5 terms asserted (the negations of those
it answers `unknown`, and the other way round), and 16 of 17 README mutants with a RecFuns
term came back undecided, most by cvc5.

A term of the probe is `generate(Random(s))` for its own seed s, exactly the term
`sphinxfuzz generators validate THEORY -n 1 --seed s` samples, and it is checked the same way
(`check_terms`): given the campaign's solvers (`--solvers`, same options), validation judges
the same term alike. The first rejection names that seed.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from sphinxfuzz.generators.capabilities import (
    FEATURES,
    cache_file,
    features_made_by,
    load_section,
    save_section,
    stale_section,
)
from sphinxfuzz.generators.pool import GeneratorFailure, GeneratorPool
from sphinxfuzz.generators.solver_check import check_terms, incremental_argv, logic_for
from sphinxfuzz.mutate.logic import operators_in
from sphinxfuzz.smtlib import SList, SmtParseError, parse_nodes
from sphinxfuzz.solvers import DECIDED, Outcome, SolverResult, SolverSpec, run_solver
from sphinxfuzz.solvers.options import needed_options
from sphinxfuzz.solvers.options.needed import load_rules
from sphinxfuzz.solvers.options.probe import set_option_lines
from sphinxfuzz.solvers.versions import probe_digest, solver_version

PROBE_TERMS = 20  # per theory: enough to see an operator that is missing in one term in ten
# Of those, the first few are also checked for an answer (each a check-sat up to its limit):
# enough to tell a theory a target never decides from one it decides, and cheap.
DECIDE_TERMS = 5
# A mutant holds this many generated terms (2.4 on average in the README's campaign), each
# of which must be decided: a theory decided in a share d of its terms is drawn d^2 as often.
TERMS_PER_MUTANT = 2
# A theory no checked term of which every solver decides both ways, but some asserted, keeps
# the share of one checked term: five terms do not show it is never decided, and the campaign
# goes on testing it (the learnt weights then follow its mutants' answers). One no term of
# which is decided asserted either (finite fields on the cvc5 wheel) is left out.
ONE_WAY_TERMS = 1.0
# A check-sat's own limit: the most a mutant of a fast seed gets (MIN_MUTANT_TIMEOUT, where
# the learnt floor starts and which it never exceeds); a term slower than that alone makes
# mutants that time out.
DECIDE_LIMIT = 1.0
# A term that stops a solver's batch alone (an error such as "not configured with --cocoa",
# a time-out) costs a call for the terms after it, a time-out its whole limit; after this
# many in one theory its remaining terms count as undecided by that solver without a call.
STOPS_PER_THEORY = 2
# Stops that may come from a batch's earlier terms (its limit, a solver state they left)
_NOT_ITS_OWN = (Outcome.TIMEOUT, Outcome.CRASH)
_START_SECONDS = 5.0  # a solver's start-up, on a busy machine (the cvc5 shim is Python)
SECTION = "theory_probe"
# The version of how a term is asked and its answers read (`_answers`, `_undecided`): raise
# it when either changes, and every release's cached answers are asked again once
# (`made_by`). 2: yices runs in its command line's incremental mode.
THEORY_PROBE = 2


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
    probed: int = 0  # (theory, solver) pairs not found in the cache
    # "solver (sections)" whose cached answers an older probe made: asked again, said once
    stale: list[str] = field(default_factory=list)

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


# One solver's answer to one term seed: [seed, its error or None, why undecided asserted or
# None, why undecided negated or None]
_Answer = list[int | str | None]


def term_seeds(theory: str, terms: int) -> list[int]:
    """The probe's term seeds of `theory`: its name alone picks them."""
    rng = random.Random(f"theory probe {theory}")
    return [rng.getrandbits(32) for _ in range(terms)]


def probe_theories(
    pool: GeneratorPool,
    specs: Sequence[SolverSpec],
    *,
    terms: int = PROBE_TERMS,
    timeout: float = 10.0,
    decide_timeout: float = DECIDE_LIMIT,
    folder: Path | None = None,
) -> Probe:
    """`timeout` limits a parse check, `decide_timeout` one check-sat. `folder` holds the
    cache (the capabilities' folder by default)."""
    probe = Probe()
    paths = {spec.name: cache_file(spec, folder) for spec in specs}
    made = {spec.name: made_by(spec) for spec in specs}
    probe.stale = _stale(specs, paths, made)
    cached = {s.name: load_section(paths[s.name], SECTION, made[s.name]) for s in specs}
    keys = {t: _key(pool, t, terms, timeout, decide_timeout) for t in sorted(pool.theories)}
    todo = [t for t, key in keys.items() if any(key not in cached[s.name] for s in specs)]
    generated, failed = _generate(pool, todo, terms)
    for spec in specs:
        missing = [t for t in todo if keys[t] not in cached[spec.name]]
        if not missing:
            continue
        started = time.monotonic()
        mine = [g for g in generated if g.theory in missing]
        answers = _answers(spec, mine, terms, timeout, decide_timeout)
        probe.solver_seconds += time.monotonic() - started
        probe.probed += len(missing)
        fresh: dict[str, object] = {}
        for theory in missing:
            fresh[keys[theory]] = [
                answers.get((theory, seed)) or [seed, failed.get((theory, seed)), None, None]
                for seed in term_seeds(theory, terms)
            ]
        cached[spec.name].update(fresh)
        save_section(paths[spec.name], spec, SECTION, fresh, made[spec.name])
    for theory, key in keys.items():
        _weigh(probe, theory, {s.name: cached[s.name][key] for s in specs}, terms)
    return probe


def made_by(spec: SolverSpec) -> str:
    """How `spec`'s answers are made: `THEORY_PROBE` and the constants that pick the asked
    terms, the options a batch may get on that release (`solvers.options.needed`), how its
    terms are parsed (`capabilities.features_made_by`), and the record's fields a run reads
    (`solvers.versions.probe_digest`: its incremental mode, its check-sat limit)."""
    version = solver_version(spec)
    needed = [
        [r.operator_prefixes, sorted(r.operators), sorted(r.commands),
         sorted(r.repeated_commands), r.options]
        for r in load_rules() if r.applies(spec.family, version)
    ]  # fmt: skip
    rules = [THEORY_PROBE, DECIDE_TERMS, STOPS_PER_THEORY, needed, features_made_by(spec)]
    return probe_digest(spec, rules)


def _stale(specs: Sequence[SolverSpec], paths: dict[str, Path], made: dict[str, str]) -> list[str]:
    """The solvers whose cache file holds answers an older probe made, with those sections:
    this probe reads the file first in a campaign, so it says so for the capabilities too."""
    stale = []
    for spec in specs:
        path = paths[spec.name]
        sections = [
            name
            for name, by in ((SECTION, made[spec.name]), (FEATURES, features_made_by(spec)))
            if stale_section(path, name, by)
        ]
        if sections:
            stale.append(f"{spec.name} ({', '.join(sections)})")
    return stale


def _key(pool: GeneratorPool, theory: str, terms: int, timeout: float, decide: float) -> str:
    source = hashlib.sha256(pool.source(theory).encode("utf-8")).hexdigest()[:16]
    return (
        f"{theory} {source} terms={terms} limits={timeout:g}/{decide:g} both ways, needed options"
    )


def _generate(
    pool: GeneratorPool, theories: Sequence[str], terms: int
) -> tuple[list[_Term], dict[tuple[str, int], str]]:
    """The probe terms of `theories`, and (theory, seed) -> why the generator failed."""
    generated: list[_Term] = []
    failed: dict[tuple[str, int], str] = {}
    for theory in theories:
        for seed in term_seeds(theory, terms):
            try:
                generated.append(_Term(theory, seed, *pool.generate(theory, seed)))
            except GeneratorFailure as failure:  # a failing call counts as a rejected term
                failed[(theory, seed)] = f"the generator failed: {failure.kind}"
    return generated, failed


def _answers(
    spec: SolverSpec, generated: Sequence[_Term], terms: int, timeout: float, decide: float
) -> dict[tuple[str, int], _Answer]:
    """(theory, seed) -> `spec`'s answer to each term: parsed, then check-sat on the checked
    terms (`_checked`) it accepted, asserted and negated."""
    verdicts = check_terms([(t.decls, t.term) for t in generated], [spec], timeout=timeout)
    checked = {t.theory: _checked(t.theory, terms) for t in generated}
    answers: dict[tuple[str, int], _Answer] = {}
    accepted: list[_Term] = []
    for term, verdict in zip(generated, verdicts, strict=True):
        answers[(term.theory, term.seed)] = [term.seed, verdict.errors.get(spec.name), None, None]
        if spec.name not in verdict.errors and term.seed in checked[term.theory]:
            accepted.append(term)
    negated = [replace(t, term=f"(not {t.term})") for t in accepted]
    for way, terms_asked in ((2, accepted), (3, negated)):
        for index, reason in _undecided(spec, terms_asked, decide).items():
            answers[(accepted[index].theory, accepted[index].seed)][way] = reason
    return answers


def _checked(theory: str, terms: int) -> set[int]:
    """The seeds of the terms whose answers are asked for: the probe's first few."""
    return set(term_seeds(theory, min(terms, DECIDE_TERMS)))


def _weigh(probe: Probe, theory: str, by_solver: dict[str, object], terms: int) -> None:
    """Shares and first reasons of `theory` from each solver's cached answers: the decided
    share is the accepted share times (the share of the checked terms every solver accepted
    that every solver decided both ways, at least ONE_WAY_TERMS terms' share when one was
    decided asserted) ^ TERMS_PER_MUTANT."""
    rejected: set[object] = set()
    undecided: set[object] = set()  # either way
    asserted: set[object] = set()  # undecided asserted
    for name, answers in by_solver.items():
        for seed, error, reason, negated in answers if isinstance(answers, list) else []:
            if error is not None:
                rejected.add(seed)
                probe.first_error.setdefault(theory, f"{name}, term seed {seed}: {error}")
            elif reason is not None or negated is not None:
                undecided.add(seed)
                asserted.update([seed] if reason is not None else [])
                why = reason if reason is not None else f"{negated} (negated)"
                probe.first_undecided.setdefault(
                    theory, f"{name} leaves term seed {seed} undecided: {why}"
                )
    asked = _checked(theory, terms) - rejected
    decided = len(asked - undecided) / len(asked) if asked else 1.0
    if not decided and asked - asserted:
        decided = ONE_WAY_TERMS / len(asked)
    probe.accepted[theory] = (terms - len(rejected)) / terms
    probe.decided[theory] = probe.accepted[theory] * decided**TERMS_PER_MUTANT


def _check_limit(spec: SolverSpec, timeout: float) -> str:
    """The set-option that stops each check-sat at `timeout` on `spec`'s family (its record's
    `check_limit`), which then goes on with the script answering unknown: a slow term costs
    its limit, not the batch after it. Nothing for a family without one."""
    limit = spec.family.record.check_limit
    return limit.format(ms=round(timeout * 1000)) + "\n" if limit else ""


def _undecided(spec: SolverSpec, terms: Sequence[_Term], timeout: float) -> dict[int, str]:
    """Index -> why, for the terms `spec` does not answer sat or unsat to. Each term is
    checked in its own `(push 1)` scope with `timeout` a check-sat; a batch runs to its first
    term that stops the solver, and the terms after it go to the next batch. A time-out or
    crash on a term that was not the first of its batch may be its neighbours' doing: that
    term starts the next batch, and only a stop on a batch's first term counts. A crash is a
    finding, not an undecided term: the theory is drawn as before."""
    found: dict[int, str] = {}
    for logic in sorted({logic_for(t.decls, t.term) for t in terms}):
        pending = [i for i, t in enumerate(terms) if logic_for(t.decls, t.term) == logic]
        stops: dict[str, int] = {}
        while pending:
            limit = _check_limit(spec, timeout)
            script = f"{limit}(set-logic {logic})\n" + "".join(
                f"(push 1)\n{terms[i].decls}\n(assert {terms[i].term})\n(check-sat)\n(pop 1)\n"
                for i in pending
            )
            script = _needed(spec, script) + script
            # a solver without a limit of its own is stopped, at a batch's first term alone
            result = run_solver(  # yices takes push only in its command line's incremental mode
                incremental_argv(spec), script, timeout=timeout * len(pending) + _START_SECONDS
            )
            answers = result.answers[: len(pending)]
            for index, answer in zip(pending, answers, strict=False):
                if answer not in DECIDED:
                    found[index] = str(answer)
            pending = pending[len(answers) :]
            if not pending or (answers and result.outcome in _NOT_ITS_OWN):
                continue  # done, or the stopped term starts the next batch
            stopped, pending = pending[0], pending[1:]
            if result.outcome == Outcome.CRASH:
                continue
            found[stopped] = _reason(result)
            theory = terms[stopped].theory
            stops[theory] = stops.get(theory, 0) + 1
            if stops[theory] >= STOPS_PER_THEORY:  # the rest of the theory without a call
                for index in [i for i in pending if terms[i].theory == theory]:
                    found[index] = found[stopped]
                pending = [i for i in pending if terms[i].theory != theory]
    return found


def _needed(spec: SolverSpec, script: str) -> str:
    """The `set-option`s a batch needs on `spec`, as a mutant gets them (`solvers.options.
    needed`): without them a cvc5 binary refused every push ("use --incremental") and cvc5
    1.0 most string operators, and the probe of old releases drew every theory evenly."""
    try:
        nodes = parse_nodes(script)
    except SmtParseError:  # a term the parse check let through; the solver says what is wrong
        return ""
    commands = Counter(n.head_name() or "" for n in nodes if isinstance(n, SList))
    options = needed_options([(spec.family, solver_version(spec))], operators_in(nodes), commands)
    return set_option_lines(
        (name, value or "true") for name, _, value in (o.partition("=") for o in options)
    )


def _reason(result: SolverResult) -> str:
    line = result.failure_line or next(
        (s for s in (result.stdout + "\n" + result.stderr).splitlines() if s.strip()), ""
    )
    return f"{result.outcome.value}: {line.strip()}" if line.strip() else result.outcome.value
