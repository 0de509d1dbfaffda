"""STORM (FSE'20): sat instances built from a seed's fragments under a model.

Fragments are the Boolean sub-formulas of a quantifier-free seed's assertions. A trusted solver
gives their values under one model of the seed (`(get-value ...)` after `sat`), through a
`run(script_text) -> SolverResult` callable the campaign plugs its runner into; only a clean
run (`oracle.trusted.clean_answer`: no error line, one answer) gives values. Instances are random
`and`/`or`/`not` combinations of fragments, each asserted in the polarity the model makes true,
so every instance is sat by construction (the model satisfies it). The incremental variant
checks several such assertions, each inside its own push/pop.

The solver is needed because the values come from a model: the strategy never trusts its
answer about the seed, only the values it reports, and an unsat instance convicts the solver
under test. A wrong model from the trusted solver would show as an `unsat` in every solver.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from sphinxfuzz.errors import ExternalError
from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.oracle.trusted import claimed_answer, clean_answer
from sphinxfuzz.smtlib import (
    Atom,
    Node,
    Script,
    SList,
    SmtParseError,
    copy_node,
    infer_sorts,
    parse_nodes,
    parse_script,
    print_node,
    sym,
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
from sphinxfuzz.strategies.seedparts import is_quantifier_free, single_query, split

OPAQUE = {"let", "!", "match", "forall", "exists", "lambda"}  # their bodies are not closed terms


class ModelError(ExternalError):
    """The trusted solver gave no usable values (not sat, or an unreadable answer)."""


def fragments(script: Script) -> list[Node]:
    """Distinct Boolean sub-formulas of the assertions (not under binders or annotations)."""
    info = infer_sorts(script)
    seen: dict[str, Node] = {}

    def visit(node: Node) -> None:
        sort = info.sort_of(node)
        if (
            sort is not None
            and str(sort) == "Bool"
            and not (isinstance(node, Atom) and node.kind != "symbol")
        ):
            text = print_node(node)
            if text not in ("true", "false"):
                seen.setdefault(text, node)
        if isinstance(node, SList) and node.head_name() not in OPAQUE:
            for item in node.items[1:]:
                visit(item)

    for command in script.commands:
        if command.head_name() == "assert":
            visit(command.items[1])
    return list(seen.values())


def model_values(
    script: Script, terms: list[Node], run: Callable[[str], SolverResult]
) -> list[Node]:
    """The value of each of `terms` in one model of `script`, from one trusted-solver run
    (`get-value` after a clean sat)."""
    parts = split(script)
    lines = ["(set-option :produce-models true)", "(set-logic ALL)"]
    lines += [print_node(d) for d in parts.declarations]
    lines += [f"(assert {print_node(a)})" for a in parts.assertions]
    lines += ["(check-sat)", f"(get-value ({' '.join(print_node(t) for t in terms)}))"]
    result = run("\n".join(lines) + "\n")
    if clean_answer(result) != Answer.SAT:
        what = result.failure_line or " ".join(result.answers) or str(result.outcome)
        raise ModelError(f"the trusted solver gave no clean sat: {what!r}")
    head, _, rest = result.stdout.strip().partition("\n")
    try:
        answer = parse_nodes(rest)
    except SmtParseError as exc:
        raise ModelError(f"unreadable get-value answer: {exc}") from None
    pairs = answer[0].items if answer and isinstance(answer[0], SList) else []
    values = [pair.items[-1] for pair in pairs if isinstance(pair, SList) and pair.items]
    if len(values) != len(terms):
        raise ModelError(f"get-value gave {len(values)} values for {len(terms)} terms")
    return values


def fragment_values(
    script: Script, found: list[Node], run: Callable[[str], SolverResult]
) -> list[bool]:
    """The value of each fragment in a model of `script`, from one trusted-solver run."""
    values = [v.text if isinstance(v, Atom) else "" for v in model_values(script, found, run)]
    if not set(values) <= {"true", "false"}:
        raise ModelError(f"get-value gave non-Boolean values for {len(found)} fragments")
    return [value == "true" for value in values]


def combine(pool: list[tuple[Node, bool]], rng: random.Random, depth: int) -> tuple[Node, bool]:
    """A random and/or/not formula over fragments, with its value under the model."""
    if depth == 0 or rng.random() < 0.3:
        node, value = rng.choice(pool)
        return copy_node(node), value
    op = rng.choice(("and", "or", "not"))
    if op == "not":
        node, value = combine(pool, rng, depth - 1)
        return SList([sym("not"), node]), not value
    children = [combine(pool, rng, depth - 1) for _ in range(rng.randint(2, 3))]
    values = [v for _, v in children]
    value = all(values) if op == "and" else any(values)
    return SList([sym(op), *(n for n, _ in children)]), value


def true_formula(pool: list[tuple[Node, bool]], rng: random.Random, depth: int) -> Node:
    node, value = combine(pool, rng, depth)
    return node if value else SList([sym("not"), node])


def instance(
    script: Script,
    pool: list[tuple[Node, bool]],
    rng: random.Random,
    *,
    depth: int = 3,
    count: int = 4,
    incremental: bool = False,
) -> Script:
    """The seed's declarations with `count` assertions true under the model: all at once, or
    (incremental) each checked in its own push/pop scope after the first."""
    lines = ["(set-logic ALL)", *(print_node(d) for d in split(script).declarations)]
    formulas = [print_node(true_formula(pool, rng, depth)) for _ in range(count)]
    if incremental:
        lines += [f"(assert {formulas[0]})", "(check-sat)"]
        for formula in formulas[1:]:
            lines += ["(push 1)", f"(assert {formula})", "(check-sat)", "(pop 1)"]
    else:
        lines += [f"(assert {f})" for f in formulas] + ["(check-sat)"]
    return parse_script("\n".join(lines) + "\n", "<storm>")


class StormStrategy(StrategyBase):
    name = "storm"
    summary = "sat-by-construction combinations of a seed's fragments under a model (STORM)"
    oracle = OracleKind.EXPECTED
    needs = Needs(model=True)

    def __init__(
        self,
        run: Callable[[str], SolverResult] | None = None,
        per_seed: int = 6,
        depth: int = 3,
        count: int = 4,
    ) -> None:
        self.run = run  # the trusted solver: script text -> result; set by the campaign
        self.per_seed, self.depth, self.count = per_seed, depth, count
        self._values: dict[str, list[tuple[Node, bool]] | None] = {}

    def setup(self, context: StrategyContext) -> None:
        """Models come from the campaign's first trusted solver."""
        if context.trusted:
            self.run = context.trusted[0]

    def applies(self, seed: Seed) -> bool:
        s = seed.script
        return (
            self.run is not None
            and single_query(s)
            and is_quantifier_free(s)
            and bool(fragments(s))
        )

    def pool(self, seed: Seed) -> list[tuple[Node, bool]] | None:
        """Fragments with their model values (None when the seed has no model), asked once."""
        if seed.path not in self._values:
            if claimed_answer(seed.expected) not in (None, Answer.SAT):
                self._values[seed.path] = None  # the seed says it has no model
                return None
            found = fragments(seed.script)
            try:
                values = fragment_values(seed.script, found, self.run)  # type: ignore[arg-type]
                self._values[seed.path] = list(zip(found, values, strict=True))
            except ModelError:
                self._values[seed.path] = None
        return self._values[seed.path]

    def mutants(self, seed: Seed, rng: random.Random) -> Iterator[TestCase]:
        pool = self.pool(seed) if self.applies(seed) else None
        if not pool:
            return
        for number in range(self.per_seed):
            incremental = rng.random() < 0.25
            script = instance(
                seed.script, pool, rng, depth=self.depth, count=self.count, incremental=incremental
            )
            provenance = {
                "strategy": self.name,
                "seed": seed.path,
                "mutant": number,
                "incremental": incremental,
            }
            yield TestCase(script, Answer.SAT, provenance=provenance)


register(StormStrategy())
