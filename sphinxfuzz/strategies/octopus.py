"""Octopus: sat cases under several models of a seed, unsat cases around an unsat core.

- A sat seed: the trusted solver gives up to `models` models in one incremental run, each
  new one asked with the fragments' values of the ones before blocked (so each model gives
  the fragments another valuation). A case picks one model and combines fragments true under
  it, as STORM does (`storm.true_formula`), so it is sat by construction. The fragments are
  the seed's and those of one generated mutant of it (`mutate`, terms from the campaign's
  generators adapted to the seed's constants): its snippets get their values in the same
  model, so they join the combinations.
- An unsat seed: its assertions, flattened at top-level `and`s, are named and the trusted
  solver gives an unsat core (`get-unsat-core`). A case keeps the core's assertions and
  replaces the rest freely (combinations of fragments of the seed and the snippets, of any
  value): unsat by construction, since the core alone is.

Labels come from the trusted solvers (`Needs.label`), models and cores from the first one; a
trusted solver answering a case against its construction is a doubt, never a bug.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from sphinxfuzz.generators.capabilities import Capabilities, CapableTerms
from sphinxfuzz.generators.pool import GeneratorFailure
from sphinxfuzz.mutate import MutationError, Seed, mutate
from sphinxfuzz.oracle.trusted import clean_answer
from sphinxfuzz.smtlib import (
    Atom,
    Node,
    Script,
    SList,
    SmtParseError,
    copy_node,
    parse_nodes,
    parse_script,
    print_node,
    sym,
    walk,
)
from sphinxfuzz.solvers import Answer, SolverResult
from sphinxfuzz.strategies.base import (
    Needs,
    OracleKind,
    StrategyBase,
    StrategyContext,
    TestCase,
    register,
)
from sphinxfuzz.strategies.seedparts import declared_names, is_quantifier_free, single_query, split
from sphinxfuzz.strategies.storm import (
    ModelError,
    combine,
    fragment_values,
    fragments,
    true_formula,
)

NAME = "octopus"
CORE_NAME = "octopus_core"  # the names given to a seed's assertions for its unsat core


def conjuncts(script: Script) -> list[Node]:
    """The seed's assertions with top-level `and`s flattened."""
    found: list[Node] = []
    stack = list(reversed(split(script).assertions))
    while stack:
        node = stack.pop()
        if isinstance(node, SList) and node.head_name() == "and" and len(node.items) > 1:
            stack.extend(reversed(node.items[1:]))
        else:
            found.append(node)
    return found


def _head(script: Script, lines: list[str]) -> list[str]:
    return [*lines, "(set-logic ALL)", *(print_node(d) for d in split(script).declarations)]


def several_models(
    script: Script,
    declared: Script,
    found: list[Node],
    run: Callable[[str], SolverResult],
    models: int,
) -> list[list[bool]]:
    """The fragments' values in up to `models` models of `script` (`declared` declares the
    fragments' symbols), one trusted run each (`storm.fragment_values`): a run asserts every
    valuation before it blocked, so each model gives the fragments another one."""
    assertions = [copy_node(a) for a in split(script).assertions]
    valuations: list[list[bool]] = []
    for _ in range(models):
        try:
            valuation = fragment_values(_script(declared, assertions), found, run)
        except ModelError:
            break
        valuations.append(valuation)
        literals = [
            f if value else SList([sym("not"), f])
            for f, value in zip(found, valuation, strict=True)
        ]
        assertions.append(SList([sym("not"), SList([sym("and"), sym("true"), *literals])]))
    return valuations


def unsat_core(script: Script, run: Callable[[str], SolverResult]) -> list[int] | None:
    """The indices of `conjuncts(script)` in the trusted solver's unsat core, or None."""
    parts = conjuncts(script)
    taken = declared_names(script)
    stem = CORE_NAME
    while any(name.startswith(stem) for name in taken):
        stem += "_"
    lines = _head(script, ["(set-option :produce-unsat-cores true)"])
    lines += [f"(assert (! {print_node(p)} :named {stem}{i}))" for i, p in enumerate(parts)]
    lines += ["(check-sat)", "(get-unsat-core)"]
    result = run("\n".join(lines) + "\n")
    if clean_answer(result) != Answer.UNSAT:
        return None
    _, _, rest = result.stdout.strip().partition("\n")
    try:
        nodes = parse_nodes(rest)
    except SmtParseError:
        return None
    if not nodes or not isinstance(nodes[0], SList):
        return None
    names = [a.text for a in nodes[0].items if isinstance(a, Atom)]
    indices = sorted({int(n[len(stem) :]) for n in names if n[len(stem) :].isdigit()})
    if not indices or len(indices) != len(names) or indices[-1] >= len(parts):
        return None
    return indices


def _names(script: Script) -> bool:
    """Whether the script names terms (`!`): a name used in one fragment is defined in
    another, and a named term asserted twice names two terms alike."""
    return any(
        isinstance(n, SList) and n.head_name() == "!" for c in script.commands for n in walk(c)
    )


def _script(declared: Script, assertions: list[Node]) -> Script:
    """`assertions` under `declared`'s declarations and options (a generated term's theory
    may need one: `mutate` sets it)."""
    options = [print_node(c) for c in declared.commands if c.head_name() == "set-option"]
    lines = _head(declared, options)
    lines += [f"(assert {print_node(a)})" for a in assertions] + ["(check-sat)"]
    return parse_script("\n".join(lines) + "\n", "<octopus>")


class OctopusStrategy(StrategyBase):
    name = NAME
    summary = "fragments recombined under several models; unsat cores kept, the rest mutated"
    oracle = OracleKind.EXPECTED
    needs = Needs(label=True, generators=True)

    def __init__(
        self,
        run: Callable[[str], SolverResult] | None = None,
        per_seed: int = 6,
        models: int = 3,
        depth: int = 3,
        count: int = 4,
    ) -> None:
        self.run = run  # the trusted solver: script text -> result; set by the campaign
        self.per_seed, self.models, self.depth, self.count = per_seed, models, depth, count
        self.context = StrategyContext(specs=())
        self.terms: CapableTerms | None = None
        self.labelled: dict[str, Answer] = {}
        self._cores: dict[str, list[int] | None] = {}

    def setup(self, context: StrategyContext) -> None:
        """Models and cores from the first trusted solver, snippets from the generators."""
        self.context = context
        if context.trusted:
            self.run = context.trusted[0]
        if context.pool is not None:
            capabilities = Capabilities(list(context.specs), spent=context.spent)
            self.terms = CapableTerms(context.pool, capabilities)

    def add(self, seed: Seed, answer: Answer) -> None:
        script = seed.script
        if single_query(script) and is_quantifier_free(script) and not _names(script):
            if fragments(script):
                self.labelled[seed.path] = answer

    def forget(self) -> None:
        self.labelled = {}

    def applies(self, seed: Seed) -> bool:
        return seed.path in self.labelled and self.run is not None

    def snippets(self, seed: Seed, rng: random.Random) -> Script:
        """One generated mutant of `seed` (its terms adapted to the seed's constants), or the
        seed itself when there is no generator or it fails."""
        terms, context = self.terms, self.context
        if terms is None:
            return seed.script
        try:
            return mutate(
                seed, rng, terms, rename_prob=context.rename_prob,
                theory_options=context.theory_options, theory_weights=context.theory_weights,
            ).script  # fmt: skip
        except (GeneratorFailure, MutationError):
            return seed.script
        finally:
            context.left_out(terms.left_out)

    def core(self, seed: Seed) -> list[int] | None:
        if seed.path not in self._cores:
            assert self.run is not None
            self._cores[seed.path] = unsat_core(seed.script, self.run)
        return self._cores[seed.path]

    def mutants(self, seed: Seed, rng: random.Random) -> Iterator[TestCase]:
        answer = self.labelled.get(seed.path)
        if answer is None or self.run is None:
            return
        mutant = self.snippets(seed, rng)
        found = fragments(seed.script)
        known = {print_node(f) for f in found}
        found += [f for f in fragments(mutant) if print_node(f) not in known]
        if not found:
            return
        provenance: dict[str, object] = {"strategy": self.name, "seed": seed.path}
        if mutant is not seed.script:
            provenance["snippets"] = True
        if answer == Answer.SAT:
            valuations = several_models(seed.script, mutant, found, self.run, self.models)
            for number in range(self.per_seed if valuations else 0):
                which = rng.randrange(len(valuations))
                pool = list(zip(found, valuations[which], strict=True))
                formulas = [true_formula(pool, rng, self.depth) for _ in range(self.count)]
                provenance = {**provenance, "mutant": number, "model": which,
                              "models": len(valuations)}  # fmt: skip
                yield TestCase(_script(mutant, formulas), Answer.SAT, provenance=provenance)
            return
        core = self.core(seed)
        if core is None:
            return
        parts = conjuncts(seed.script)
        kept = [parts[i] for i in core]
        anything = [(f, rng.random() < 0.5) for f in found]  # values do not matter here
        for number in range(self.per_seed):
            extra = [combine(anything, rng, self.depth)[0] for _ in range(self.count)]
            extra += [p for i, p in enumerate(parts) if i not in core and rng.random() < 0.3]
            assertions = [copy_node(k) for k in kept] + extra
            rng.shuffle(assertions)
            if len(assertions) > 1 and rng.random() < 0.3:  # some assertions merged
                cut = rng.randint(1, len(assertions) - 1)
                assertions = [SList([sym("and"), *assertions[:cut]]), *assertions[cut:]]
            provenance = {**provenance, "mutant": number, "core": len(core), "of": len(parts)}
            yield TestCase(_script(mutant, assertions), Answer.UNSAT, provenance=provenance)


register(OctopusStrategy())
