"""Strings by construction (Bugariu and Mueller, ICSE'20): formulas whose answer is known.

Sat formulas: string and integer constants get a model drawn from boundary values; terms are
synthesised bottom-up from a pool of already evaluated terms (so every term's value under the
model is known from `string_semantics`); assertions fix terms to their values (constant
assignment), or state comparisons and predicates in the polarity the model makes true. The
model is re-checked in the semantics before a formula is handed out.

Unsat formulas: `(not A)` and `B` for a proved equivalence A <=> B (string_equivalences.json),
after variable replacement (the rule's variables become synthesised terms over the formula's
constants), constant replacement (a literal becomes a ground term of the same value) and
redundancy introduction (extra assertions that the model of a sat formula satisfies).

No solver is involved: the seed is not read (the strategy applies to every seed position).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.oracle.string_semantics import OPERATIONS, Value, evaluate, literal
from sphinxfuzz.smtlib import Atom, Node, Script, SList, copy_node, parse_script, parse_term, sym
from sphinxfuzz.solvers import Answer
from sphinxfuzz.strategies.base import OracleKind, StrategyBase, TestCase, register
from sphinxfuzz.strategies.rules import Rule, load_rules

HERE = Path(__file__).resolve().parent
MAX_LENGTH = 24  # longer intermediate strings make solvers slow without finding more


@cache
def _generator_table() -> dict[str, object]:
    return json.loads((HERE / "string_generator.json").read_text(encoding="utf-8"))


@cache
def equivalences() -> tuple[Rule, ...]:
    return tuple(load_rules("string_equivalences.json"))


def _app(op: str, *args: Node) -> SList:
    return SList([sym(op), *args])


@dataclass
class Formula:
    """Declared constants, assertions, and (for sat ones) the model that satisfies them."""

    constants: dict[str, str]  # name -> sort
    assertions: list[Node]
    expected: Answer
    model: dict[str, Value] = field(default_factory=dict)
    rules: list[str] = field(default_factory=list)

    def script(self) -> Script:
        lines = ["(set-logic QF_SLIA)"]
        lines += [f"(declare-const {name} {sort})" for name, sort in self.constants.items()]
        text = "\n".join(lines) + "\n(check-sat)\n"
        script = parse_script(text, "<strings>")
        asserts = [SList([sym("assert"), node]) for node in self.assertions]
        script.commands[-1:-1] = asserts
        return script


class Pool:
    """Terms with their values under the model, by sort."""

    def __init__(self) -> None:
        self.terms: dict[str, list[tuple[Node, Value]]] = {"String": [], "Int": [], "Bool": []}

    def add(self, sort: str, node: Node, value: Value) -> None:
        self.terms[sort].append((node, value))

    def pick(self, sort: str, rng: random.Random) -> tuple[Node, Value]:
        return rng.choice(self.terms[sort])


def _random_string(rng: random.Random) -> str:
    strings: list[str] = _generator_table()["strings"]  # type: ignore[assignment]
    parts = [rng.choice(strings) for _ in range(rng.randint(1, 2))]
    return "".join(parts)[:MAX_LENGTH]


def _random_int(rng: random.Random) -> int:
    ints: list[int] = _generator_table()["ints"]  # type: ignore[assignment]
    return rng.choice(ints)


def _grow(pool: Pool, rng: random.Random, steps: int) -> None:
    """Apply random operations to pool terms, keeping each result with its value."""
    operations: list[list] = _generator_table()["operations"]  # type: ignore[assignment]
    for _ in range(steps):
        op, arg_sorts, result = rng.choice(operations)
        picked = [pool.pick(sort, rng) for sort in arg_sorts]
        node = _app(op, *(copy_node(n) for n, _ in picked))
        value = OPERATIONS[op](*(v for _, v in picked))
        if isinstance(value, str) and len(value) > MAX_LENGTH:
            continue
        pool.add(result, node, value)


def _seed_pool(
    rng: random.Random, n_strings: int, n_ints: int
) -> tuple[Pool, dict[str, str], dict[str, Value]]:
    pool = Pool()
    constants: dict[str, str] = {}
    model: dict[str, Value] = {}
    for k in range(n_strings):
        name, value = f"s{k}", _random_string(rng)
        constants[name], model[name] = "String", value
        pool.add("String", sym(name), value)
    for k in range(n_ints):
        name, number = f"n{k}", _random_int(rng)
        constants[name], model[name] = "Int", number
        pool.add("Int", sym(name), number)
    for _ in range(2):
        value = _random_string(rng)
        pool.add("String", literal(value), value)
        number = _random_int(rng)
        pool.add("Int", literal(number), number)
    return pool, constants, model


def _true_assertions(pool: Pool, rng: random.Random, count: int) -> list[Node]:
    """Assertions true under the model: constant assignments, comparisons, predicates."""
    out: list[Node] = []
    for _ in range(count):
        kind = rng.randrange(3)
        if kind == 0 or not pool.terms["Bool"]:
            sort = rng.choice(("String", "Int"))
            node, value = pool.pick(sort, rng)
            out.append(_app("=", copy_node(node), literal(value)))
        elif kind == 1:
            sort = rng.choice(("String", "Int"))
            (a, va), (b, vb) = pool.pick(sort, rng), pool.pick(sort, rng)
            equal = _app("=", copy_node(a), copy_node(b))
            out.append(equal if va == vb else _app("not", equal))
        else:
            node, value = pool.pick("Bool", rng)
            out.append(copy_node(node) if value else _app("not", copy_node(node)))
    return out


def _check_model(assertions: list[Node], model: dict[str, Value]) -> None:
    for node in assertions:
        if evaluate(node, model) is not True:
            raise AssertionError(
                f"strings generator: an assertion is false under its model: {node}"
            )


def sat_formula(rng: random.Random, *, steps: int = 10, count: int = 4) -> Formula:
    pool, constants, model = _seed_pool(rng, rng.randint(1, 3), rng.randint(1, 2))
    _grow(pool, rng, steps)
    assertions = _true_assertions(pool, rng, count)
    _check_model(assertions, model)
    return Formula(constants, assertions, Answer.SAT, model, ["sat-construction"])


def _ground_term(value: Value, rng: random.Random) -> Node:
    """A ground term other than the literal, evaluating to `value` (constant replacement)."""
    if isinstance(value, bool):
        return literal(value)
    if isinstance(value, int):
        k = _random_int(rng)
        node: Node = _app("-", literal(value + k), literal(k))
        if 0 <= value < MAX_LENGTH and rng.random() < 0.5:
            node = _app("str.len", literal(_random_string(rng)[:1] * value or "a" * value))
    else:
        cut = rng.randint(0, len(value))
        node = _app("str.++", literal(value[:cut]), literal(value[cut:]))
        if rng.random() < 0.5:
            pad = _random_string(rng)
            node = _app("str.substr", literal(value + pad), literal(0), literal(len(value)))
    assert evaluate(node, {}) == value, (node, value)
    return node


def _replace(
    node: Node, substitution: dict[str, Node], rng: random.Random, constants_too: bool
) -> Node:
    if isinstance(node, Atom):
        if node.kind == "symbol" and node.name in substitution:
            return copy_node(substitution[node.name])
        if constants_too and node.kind in ("string", "numeral") and rng.random() < 0.5:
            return _ground_term(evaluate(node, {}), rng)
        return node
    return SList([_replace(item, substitution, rng, constants_too) for item in node.items])


def unsat_formula(rng: random.Random, *, steps: int = 8, redundancy: int = 2) -> Formula:
    rule = rng.choice(equivalences())
    pool, constants, model = _seed_pool(rng, rng.randint(1, 3), rng.randint(1, 2))
    _grow(pool, rng, steps)
    # variable replacement: each rule variable becomes a pool term of its sort
    substitution = {
        name: copy_node(pool.pick(sort, rng)[0]) for name, sort in rule.variables.items()
    }
    constants_too = rng.random() < 0.5
    a = _replace(parse_term(str(rule.row["A"])), substitution, rng, constants_too)
    b = _replace(parse_term(str(rule.row["B"])), substitution, rng, constants_too)
    # redundancy introduction: assertions that only make the formula longer
    extra = _true_assertions(pool, rng, rng.randint(0, redundancy))
    assertions = [_app("not", a), b, *extra]
    rng.shuffle(assertions)
    used = [rule.name, "variable-replacement"]
    if constants_too:
        used.append("constant-replacement")
    if extra:
        used.append("redundancy")
    return Formula(constants, assertions, Answer.UNSAT, {}, used)


class StringsStrategy(StrategyBase):
    name = "strings"
    summary = "string formulas sat or unsat by construction (Bugariu and Mueller)"
    oracle = OracleKind.EXPECTED

    def __init__(self, per_seed: int = 10) -> None:
        self.per_seed = per_seed

    def applies(self, seed: Seed) -> bool:
        return True  # the formulas are generated; the seed only fixes the position

    def mutants(self, seed: Seed, rng: random.Random) -> Iterator[TestCase]:
        for number in range(self.per_seed):
            formula = sat_formula(rng) if rng.random() < 0.5 else unsat_formula(rng)
            yield TestCase(
                formula.script(),
                formula.expected,  # type: ignore[arg-type]
                provenance={
                    "strategy": self.name,
                    "seed": seed.path,
                    "mutant": number,
                    "rules": formula.rules,
                    "model": dict(formula.model),
                },
            )


register(StringsStrategy())
