"""Canary (SAS'25): bounded exhaustive subspace diversification of a labelled seed.

A family of constraints C_1 ... C_n over some of the seed's free constants covers their
whole space (C_1 or ... or C_n is valid): a cube (k constants, each split in two: a Boolean
literal and its negation, `x < t` and `x >= t` for an Int, Real or bit-vector constant) or
an interval partition of one numeric constant (`x < t1`, `t1 <= x < t2`, ..., `x >= tm`).

- F unsat: every part F and C_i is unsat, so a case takes any part.
- F sat: the part holding the trusted solver's model (`storm.model_values`, evaluated here
  exactly) is sat; the other parts may be either, so no case takes them alone.
- The whole partition, F and (C_1 or ... or C_n), has F's answer: a target that answers
  unsat on every part of a sat F answers it unsat on this one formula, a soundness finding.

A part may be wrapped in a bounded quantifier over one of its constants x:
`(exists ((x S)) (and C_i F))` is equisatisfiable with F and C_i; for an unsat F,
`(and C_i (forall ((x S)) (=> C_i F)))` is unsat too (instantiate x by the constant x).

Labels come from the trusted solvers (`Needs.label`, as fusion's); the model from the first
trusted solver. A trusted solver answering a case against its construction is a doubt.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.smtlib import (
    Atom,
    Node,
    Script,
    SList,
    copy_node,
    parse_script,
    parse_term,
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
from sphinxfuzz.strategies.seedparts import is_quantifier_free, single_query, split
from sphinxfuzz.strategies.storm import ModelError, model_values

NAME = "canary"
MAX_CUBE = 3  # constants a cube splits: 2**3 parts at most
MAX_CUTS = 3  # thresholds of an interval partition: 4 parts at most

Value = bool | Fraction


@dataclass(frozen=True)
class Variable:
    name: str
    sort: str  # "Bool", "Int", "Real" or "(_ BitVec w)"

    @property
    def width(self) -> int:
        return int(self.sort.split()[-1].rstrip(")")) if self.sort.startswith("(_ BitVec") else 0


@dataclass(frozen=True)
class Family:
    """An exhaustive family of constraints, and the part a model lies in (None: no model)."""

    kind: str  # "cube" or "interval"
    parts: list[Node]
    variables: list[Variable]  # the constants it constrains
    holding: int | None


def splittable(script: Script) -> list[Variable]:
    """The seed's free constants of a sort a part can bound (none some binder rebinds)."""
    parts = split(script)
    found = []
    for name, sort in parts.constants.items():
        if name in parts.bound:
            continue
        if sort in ("Bool", "Int", "Real") or sort.startswith("(_ BitVec "):
            found.append(Variable(name, sort))
    return found


def read_value(node: Node, variable: Variable) -> Value | None:
    """A model value printed by a solver, exactly; None for a form not read here."""
    if isinstance(node, Atom):
        text = node.text
        if variable.sort == "Bool":
            return {"true": True, "false": False}.get(text)
        if variable.width:
            if text.startswith("#b"):
                return Fraction(int(text[2:], 2))
            if text.startswith("#x"):
                return Fraction(int(text[2:], 16))
            return None
        if node.kind in ("numeral", "decimal"):
            return Fraction(text)
        return None
    items = node.items
    if variable.width and len(items) == 3 and isinstance(items[1], Atom):
        name = items[1].text  # (_ bvN w)
        return Fraction(int(name[2:])) if name.startswith("bv") and name[2:].isdigit() else None
    if node.head_name() == "-" and len(items) == 2:
        inner = read_value(items[1], variable)
        return -inner if isinstance(inner, Fraction) else None
    if node.head_name() == "/" and len(items) == 3:
        top, bottom = read_value(items[1], variable), read_value(items[2], variable)
        if isinstance(top, Fraction) and isinstance(bottom, Fraction) and bottom:
            return top / bottom
    return None


def constant(value: Fraction, variable: Variable) -> Node:
    """`value` as a term of `variable`'s sort."""
    if variable.width:
        return SList([sym("_"), sym(f"bv{int(value)}"), Atom(str(variable.width), "numeral")])
    magnitude = abs(value)
    if variable.sort == "Int":
        term: Node = Atom(str(int(magnitude)), "numeral")
    elif magnitude.denominator == 1:
        term = Atom(f"{magnitude.numerator}.0", "decimal")
    else:
        top = Atom(f"{magnitude.numerator}.0", "decimal")
        term = SList([sym("/"), top, Atom(f"{magnitude.denominator}.0", "decimal")])
    return SList([sym("-"), term]) if value < 0 else term


def _less(variable: Variable, bound: Fraction) -> Node:
    op = "bvult" if variable.width else "<"
    return SList([sym(op), sym(variable.name), constant(bound, variable)])


def _at_least(variable: Variable, bound: Fraction) -> Node:
    op = "bvuge" if variable.width else ">="
    return SList([sym(op), sym(variable.name), constant(bound, variable)])


def _conjunction(literals: list[Node]) -> Node:
    return literals[0] if len(literals) == 1 else SList([sym("and"), *literals])


def thresholds(
    variable: Variable, value: Value | None, count: int, rng: random.Random
) -> list[Fraction]:
    """`count` distinct sorted thresholds near the model's value (or near 0 without one)."""
    centre = value if isinstance(value, Fraction) else Fraction(rng.randint(-4, 4))
    steps = [Fraction(d) for d in range(-3, 4)]
    if variable.sort == "Real":
        steps += [Fraction(d, 2) for d in (-1, 1)]
    found = sorted({centre + step for step in rng.sample(steps, count)})
    if variable.width:  # in range: a bit-vector is read unsigned here
        top = 2**variable.width - 1
        found = sorted({min(max(t, Fraction(0)), Fraction(top)) for t in found})
    if variable.sort == "Int":
        found = sorted({Fraction(int(t)) for t in found})
    return found


def cube(variables: list[Variable], model: dict[str, Value] | None, rng: random.Random) -> Family:
    """A cube over up to MAX_CUBE constants, each split in two: 2**k parts."""
    chosen = rng.sample(variables, rng.randint(1, min(MAX_CUBE, len(variables))))
    splits: list[tuple[Node, Node, bool | None]] = []  # (true side, false side, model's side)
    for variable in chosen:
        value = model.get(variable.name) if model is not None else None
        if variable.sort == "Bool":
            splits.append((sym(variable.name), SList([sym("not"), sym(variable.name)]),
                           None if value is None else bool(value)))  # fmt: skip
            continue
        (bound,) = thresholds(variable, value, 1, rng)
        side = None if not isinstance(value, Fraction) else value < bound
        splits.append((_less(variable, bound), _at_least(variable, bound), side))
    parts, holding = [], None
    for number, sides in enumerate(product((True, False), repeat=len(splits))):
        literals = [copy_node(t if s else f) for (t, f, _), s in zip(splits, sides, strict=True)]
        parts.append(_conjunction(literals))
        if all(m is not None and m == s for (_, _, m), s in zip(splits, sides, strict=True)):
            holding = number
    if model is None:
        holding = None
    return Family("cube", parts, chosen, holding)


def interval(variable: Variable, model: dict[str, Value] | None, rng: random.Random) -> Family:
    """One numeric constant's line cut at 1 to MAX_CUTS thresholds."""
    value = model.get(variable.name) if model is not None else None
    cuts = thresholds(variable, value, rng.randint(1, MAX_CUTS), rng)
    parts: list[Node] = [_less(variable, cuts[0])]
    parts += [
        SList([sym("and"), _at_least(variable, low), _less(variable, high)])
        for low, high in zip(cuts, cuts[1:], strict=False)
    ]
    parts.append(_at_least(variable, cuts[-1]))
    holding = None
    if isinstance(value, Fraction):
        holding = sum(1 for cut in cuts if value >= cut)  # the part whose interval holds it
    return Family("interval", parts, [variable], holding)


def quantifiable(script: Script, name: str) -> bool:
    """Whether binding constant `name` around the assertions keeps their meaning: no other
    declaration or definition mentions it and no assertion names a term (`!`)."""
    parts = split(script)
    for command in parts.declarations:
        if any(isinstance(n, Atom) and n.text == name for n in walk(command)):
            if not (command.head_name() in ("declare-const", "declare-fun")
                    and isinstance(command.items[1], Atom) and command.items[1].text == name):  # fmt: skip
                return False
    return not any(
        isinstance(n, SList) and n.head_name() == "!" for a in parts.assertions for n in walk(a)
    )


def case_script(
    script: Script, constraint: Node, quantifier: tuple[str, Variable] | None
) -> Script:
    """The seed's declarations with F and `constraint` asserted, quantified if asked."""
    parts = split(script)
    formula = _conjunction([copy_node(a) for a in parts.assertions] or [sym("true")])
    if quantifier is None:
        body = [formula, constraint]
    else:
        kind, variable = quantifier
        binding = SList([SList([sym(variable.name), parse_term(variable.sort)])])
        if kind == "exists":
            body = [SList([sym("exists"), binding, SList([sym("and"), constraint, formula])])]
        else:
            implies = SList([sym("=>"), copy_node(constraint), formula])
            body = [constraint, SList([sym("forall"), binding, implies])]
    lines = ["(set-logic ALL)", *(print_node(d) for d in parts.declarations)]
    lines += [f"(assert {print_node(node)})" for node in body] + ["(check-sat)"]
    return parse_script("\n".join(lines) + "\n", "<canary>")


class CanaryStrategy(StrategyBase):
    name = NAME
    summary = "a labelled seed confined to the parts of a bounded exhaustive partition (Canary)"
    oracle = OracleKind.EXPECTED
    needs = Needs(label=True)

    def __init__(
        self,
        run: Callable[[str], SolverResult] | None = None,
        per_seed: int = 6,
        whole_share: float = 0.25,
        quantified_share: float = 0.25,
    ) -> None:
        self.run = run  # the trusted solver for models; set by the campaign
        self.per_seed, self.whole_share, self.quantified_share = (
            per_seed, whole_share, quantified_share)  # fmt: skip
        self.labelled: dict[str, Answer] = {}
        self._models: dict[str, dict[str, Value] | None] = {}

    def setup(self, context: StrategyContext) -> None:
        """Models come from the campaign's first trusted solver."""
        if context.trusted:
            self.run = context.trusted[0]

    def add(self, seed: Seed, answer: Answer) -> None:
        if single_query(seed.script) and splittable(seed.script):
            self.labelled[seed.path] = answer

    def forget(self) -> None:
        self.labelled = {}

    def applies(self, seed: Seed) -> bool:
        answer = self.labelled.get(seed.path)
        return answer == Answer.UNSAT or (answer == Answer.SAT and self.run is not None)

    def model(self, seed: Seed, variables: list[Variable]) -> dict[str, Value] | None:
        """The values of `variables` in the trusted solver's model of a sat seed, asked once
        (those it prints in a form not read here are left out)."""
        if seed.path not in self._models:
            found: dict[str, Value] | None = None
            if self.run is not None:
                try:
                    values = model_values(seed.script, [sym(v.name) for v in variables], self.run)
                except ModelError:
                    values = None
                if values is not None:
                    found = {}
                    for variable, node in zip(variables, values, strict=True):
                        value = read_value(node, variable)
                        if value is not None:
                            found[variable.name] = value
            self._models[seed.path] = found
        return self._models[seed.path]

    def mutants(self, seed: Seed, rng: random.Random) -> Iterator[TestCase]:
        answer = self.labelled.get(seed.path)
        if answer is None or not self.applies(seed):
            return
        variables = splittable(seed.script)
        model = None
        if answer == Answer.SAT:
            model = self.model(seed, variables)
            if not model:
                return
            variables = [v for v in variables if v.name in model]
        numeric = [v for v in variables if v.sort != "Bool"]
        quantifier_free = is_quantifier_free(seed.script)
        for number in range(self.per_seed):
            if numeric and rng.random() < 0.4:
                family = interval(rng.choice(numeric), model, rng)
            else:
                family = cube(variables, model, rng)
            provenance: dict[str, object] = {
                "strategy": self.name, "seed": seed.path, "mutant": number,
                "family": family.kind, "parts": len(family.parts),
            }  # fmt: skip
            if rng.random() < self.whole_share:
                whole = SList([sym("or"), *rng.sample(family.parts, len(family.parts))])
                provenance["part"] = "all"
                yield TestCase(case_script(seed.script, whole, None), answer, provenance=provenance)
                continue
            if answer == Answer.SAT:
                if family.holding is None:
                    continue
                index = family.holding
            else:
                index = rng.randrange(len(family.parts))
            quantifier = None
            bindable = [v for v in family.variables if quantifiable(seed.script, v.name)]
            if quantifier_free and bindable and rng.random() < self.quantified_share:
                kinds = ["exists"] if answer == Answer.SAT else ["exists", "forall"]
                quantifier = (rng.choice(kinds), rng.choice(bindable))
                provenance["quantifier"] = quantifier[0]
            provenance["part"] = index
            script = case_script(seed.script, family.parts[index], quantifier)
            yield TestCase(script, answer, provenance=provenance)


register(CanaryStrategy())
