"""Semantic fusion (YinYang, PLDI'20): two seeds with the same answer make a third.

sat fusion: the conjunction of two sat seeds (symbols renamed apart). For a fusion function
without a guard, a fresh `z` is also fixed to f(x, y) and some occurrences of x and y are
replaced by their inverses rx(y, z), ry(x, z): the seeds' models, with z = f(x, y), satisfy it.
unsat fusion: the disjunction of two unsat seeds, plus z = f(x, y), the function's guard and
non-zero constants, with occurrences of x and y replaced by their inverses. Under those
constraints the inverses equal x and y, so the formula is equivalent to the disjunction.

The fusion functions are proved rules (fusion_functions.json). A seed needs a label: `label`
asks the trusted solvers (`oracle.trusted.agreed_label`: clean runs only, all that accept the
seed agree, and confirm the seed's claimed `:status`) because a seed's answer is not known by
construction.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from functools import cache

from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.oracle.trusted import agreed_label
from sphinxfuzz.smtlib import (
    Atom,
    Node,
    Script,
    SList,
    copy_node,
    parse_script,
    parse_term,
    print_script,
    sym,
)
from sphinxfuzz.solvers import Answer, SolverResult
from sphinxfuzz.strategies.base import Needs, OracleKind, StrategyBase, TestCase, register
from sphinxfuzz.strategies.rules import Rule, load_rules
from sphinxfuzz.strategies.seedparts import (
    SeedParts,
    declared_names,
    rename_apart,
    single_query,
    split,
    substitute,
)

FUSABLE_SORTS = ("Int", "Real", "String")


@cache
def fusion_functions() -> tuple[Rule, ...]:
    return tuple(load_rules("fusion_functions.json"))


def status_of(script: Script) -> str | None:
    """The `(set-info :status ...)` of a script, if any."""
    for command in script.commands:
        items = command.items
        if command.head_name() == "set-info" and len(items) == 3 and isinstance(items[1], Atom):
            if items[1].text == ":status" and isinstance(items[2], Atom):
                return items[2].text
    return None


def label(seed: Seed, runs: Sequence[Callable[[str], SolverResult]]) -> Answer | None:
    """The seed's answer from the trusted solvers' runs (script text -> result): only clean
    runs count, all that accept the seed must agree, and the answer must be the one the seed
    claims (`Seed.expected`, or a `:status` still in the script) where it claims one."""
    if not single_query(seed.script) or not runs:
        return None
    text = print_script(seed.script)
    status = status_of(seed.script)
    claimed = (*seed.expected, *([status] if status is not None else []))
    return agreed_label([run(text) for run in runs], claimed)


def fusable(script: Script) -> bool:
    return single_query(script) and any(
        sort in FUSABLE_SORTS for sort in split(script).constants.values()
    )


def _numeral(sort: str, value: int) -> Node:
    text = str(abs(value)) if sort == "Int" else f"{abs(value)}.0"
    atom = Atom(text, "numeral" if sort == "Int" else "decimal")
    return SList([sym("-"), atom]) if value < 0 else atom


def _constant(sort: str, nonzero: bool, rng: random.Random) -> Node:
    if sort == "String":
        return Atom(rng.choice(['""', '"a"', '"ab"', '"-"']), "string")
    value = rng.choice([v for v in range(-5, 6) if v or not nonzero])
    return _numeral(sort, value)


def _replace_some(node: Node, name: str, term: Node, rng: random.Random) -> Node:
    """`node` with each occurrence of the constant `name` replaced by `term` with chance 1/2."""
    if isinstance(node, Atom):
        if node.kind == "symbol" and node.name == name and rng.random() < 0.5:
            return copy_node(term)
        return node
    return SList([_replace_some(item, name, term, rng) for item in node.items], node.pos)


def _listed(row: dict[str, object], key: str) -> list[str]:
    value = row.get(key, [])
    return [str(item) for item in value] if isinstance(value, list) else []


def _candidates(parts: SeedParts, sort: str) -> list[str]:
    return [name for name, s in parts.constants.items() if s == sort and name not in parts.bound]


def fuse(
    first: Script, second: Script, answer: Answer, rng: random.Random, pairs: int = 2
) -> tuple[Script, list[str]]:
    """The fusion of two seeds with the same answer, and the names of the rules used."""
    renamed, _ = rename_apart(second, declared_names(first), "_2")
    a, b = split(first), split(renamed)
    taken = declared_names(first) | declared_names(renamed)
    declarations = [copy_node(d) for d in a.declarations + b.declarations]
    left = [copy_node(n) for n in a.assertions]
    right = [copy_node(n) for n in b.assertions]
    extra: list[Node] = []
    used: list[str] = [f"{answer}-fusion"]
    rows = [r for r in fusion_functions() if answer == Answer.UNSAT or "guard" not in r.row]
    for number in range(pairs):
        options = [
            (r, xs, ys)
            for r in rows
            if (xs := _candidates(a, str(r.row["sort"])))
            and (ys := _candidates(b, str(r.row["sort"])))
        ]
        if not options:
            break
        rule, xs, ys = rng.choice(options)
        sort = str(rule.row["sort"])
        x, y = rng.choice(xs), rng.choice(ys)
        z = f"fused_z{number}"
        while z in taken:
            z += "_"
        taken.add(z)
        values: dict[str, Node] = {"x": sym(x), "y": sym(y), "z": sym(z)}
        for name in _listed(rule.row, "constants"):
            values[name] = _constant(sort, name in _listed(rule.row, "nonzero"), rng)
        declarations.append(parse_script(f"(declare-const {z} {sort})").commands[0])
        extra.append(SList([sym("="), sym(z), substitute(parse_term(str(rule.row["f"])), values)]))
        if "guard" in rule.row:
            extra.append(substitute(parse_term(str(rule.row["guard"])), values))
        rx = substitute(parse_term(str(rule.row["rx"])), values)
        ry = substitute(parse_term(str(rule.row["ry"])), values)
        left = [_replace_some(n, x, rx, rng) for n in left]
        right = [_replace_some(n, y, ry, rng) for n in right]
        used.append(rule.name)
    if answer == Answer.SAT:
        body = [*left, *right, *extra]
    else:
        both = [SList([sym("and"), *side]) if len(side) > 1 else side[0] for side in (left, right)]
        body = [SList([sym("or"), *both]), *extra]
    commands = [parse_script("(set-logic ALL)").commands[0], *declarations]
    commands += [SList([sym("assert"), node]) for node in body]
    commands.append(parse_script("(check-sat)").commands[0])
    return Script(commands, "<fusion>"), used  # type: ignore[arg-type]


class FusionStrategy(StrategyBase):
    name = "fusion"
    summary = "fuse two seeds of the same label with proved fusion functions (YinYang)"
    oracle = OracleKind.EXPECTED
    needs = Needs(label=True, partners=True)

    def __init__(self, per_seed: int = 4) -> None:
        self.per_seed = per_seed
        self.labelled: dict[str, tuple[Seed, Answer]] = {}

    def add(self, seed: Seed, answer: Answer) -> None:
        """Make `seed` (labelled by `label`) available to fusion."""
        if fusable(seed.script):
            self.labelled[seed.path] = (seed, answer)

    def forget(self) -> None:
        self.labelled = {}

    def applies(self, seed: Seed) -> bool:
        return seed.path in self.labelled

    def mutants(self, seed: Seed, rng: random.Random) -> Iterator[TestCase]:
        if seed.path not in self.labelled:
            return
        answer = self.labelled[seed.path][1]
        partners = sorted(path for path, (_, a) in self.labelled.items() if a == answer)
        for number in range(self.per_seed):
            partner = self.labelled[rng.choice(partners)][0]
            script, used = fuse(seed.script, partner.script, answer, rng)
            yield TestCase(
                script,
                answer,
                provenance={
                    "strategy": self.name,
                    "seed": seed.path,
                    "partner": partner.path,
                    "mutant": number,
                    "rules": used,
                },
            )


register(FusionStrategy())
