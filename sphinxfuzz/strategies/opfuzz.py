"""OpFuzz (type-aware operator mutation): chains of operator replacements on the typed tree.

An operator is replaced only by another of a family in opfuzz_families.json whose signature
the occurrence fits: its arity and argument sorts are checked against the family's signature
at each occurrence, and the replacement's result sort against the sort inference's rule for
it (smtlib.theories), so the mutant stays well-sorted. Replacing heads keeps every node's
identity and sort, so one sort inference serves a whole chain. The mutants have no expected
answer: solvers are compared (DIFFERENTIAL).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from sphinxfuzz.mutate.mutant import reals_spelled_out, widen_logic
from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.smtlib import Atom, Node, Script, SList, copy_node, infer_sorts, sym
from sphinxfuzz.smtlib.infer import SortInfo
from sphinxfuzz.smtlib.sorts import Sort
from sphinxfuzz.smtlib.theories import CONSTANTS, RULES
from sphinxfuzz.strategies.base import OracleKind, StrategyBase, TestCase, register
from sphinxfuzz.strategies.signatures import (
    Signature,
    SignatureError,
    parse_signature,
    read_data,
)

_SPECIAL_FORMS = {"forall", "exists"}  # typed by the checker itself, not by a rule


@dataclass(frozen=True)
class Family:
    name: str
    sources: frozenset[str]
    targets: tuple[str, ...]
    signature: Signature


@cache
def families() -> tuple[Family, ...]:
    return read_data("opfuzz_families.json", lambda data: _families(data["families"]))


def _families(rows: list[dict[str, Any]]) -> tuple[Family, ...]:
    found = []
    for number, row in enumerate(rows, 1):
        try:
            sources = row["ops"] if "ops" in row else row["from"]
            targets = row["ops"] if "ops" in row else row["to"]
            signature = parse_signature(row["signature"])
        except (KeyError, SignatureError) as exc:
            raise SignatureError(f"opfuzz_families.json: family {number}: {exc}") from None
        found.append(Family(row["name"], frozenset(sources), tuple(targets), signature))
    return tuple(found)


@dataclass
class Occurrence:
    """An operator application (or a nullary constant) that some family covers."""

    parent: SList
    index: int
    args: list[Sort | None]
    result: Sort
    indices: tuple[int, ...]

    def operator(self) -> str:
        node = self.parent.items[self.index]
        if isinstance(node, Atom):
            return node.name
        head = node.items[0]
        return head.name if isinstance(head, Atom) else head.items[1].name  # type: ignore[union-attr]

    def replace(self, name: str) -> None:
        node = self.parent.items[self.index]
        if isinstance(node, Atom):
            self.parent.items[self.index] = sym(name)
        elif isinstance(node.items[0], Atom):
            node.items[0] = sym(name)
        else:
            node.items[0].items[1] = sym(name)  # type: ignore[union-attr]

    def replacements(self) -> list[str]:
        """Operators that may take this one's place here, in table order."""
        current = self.operator()
        found: list[str] = []
        for family in families():
            if current not in family.sources:
                continue
            if family.signature.fits(self.args, self.result) is None:
                continue
            for target in family.targets:
                if target != current and target not in found and self._result_agrees(target):
                    found.append(target)
        return found

    def _result_agrees(self, target: str) -> bool:
        if target in _SPECIAL_FORMS:
            return True
        if isinstance(self.parent.items[self.index], Atom):
            return CONSTANTS.get(target) == self.result
        rule = RULES.get(target)
        try:
            return rule is not None and rule(self.indices, self.args) == self.result
        except (IndexError, ValueError):
            return False


def occurrences(script: Script, info: SortInfo) -> list[Occurrence]:
    """Every place an operator of some family is applied with known sorts, in script order.
    Operators the script itself declares or binds (shadowing a built-in) are left alone."""
    covered = {name for family in families() for name in family.sources}
    found: list[Occurrence] = []
    for site in info.sites or []:
        shape = _shape(site.node, info)
        if site.sort is None or shape is None:
            continue
        name, args, indices = shape
        if name not in covered or name in site.env or name in info.symbols.funs:
            continue
        found.append(Occurrence(site.parent, site.index, args, site.sort, indices))
    return found


def _shape(node: Node, info: SortInfo) -> tuple[str, list[Sort | None], tuple[int, ...]] | None:
    """(operator, argument sorts, indices) of an application or a constant symbol."""
    if isinstance(node, Atom):
        return (node.name, [], ()) if node.kind == "symbol" else None
    head = node.items[0] if node.items else None
    if isinstance(head, SList) and head.head_name() != "_":
        return None  # (as ...) qualified heads
    indices = tuple(
        int(i.text)
        for i in (head.items[2:] if isinstance(head, SList) else [])
        if isinstance(i, Atom) and i.kind == "numeral"
    )
    return node.operator_name() or "", [info.sort_of(item) for item in node.items[1:]], indices


class OpfuzzStrategy(StrategyBase):
    name = "opfuzz"
    summary = "chains of type-preserving operator replacements (OpFuzz)"
    oracle = OracleKind.DIFFERENTIAL

    def __init__(self, per_seed: int = 8, chain: int = 4) -> None:
        self.per_seed = per_seed
        self.chain = chain  # replacements in a row before starting over from the seed

    def applies(self, seed: Seed) -> bool:
        return any(occ.replacements() for occ in _fresh(seed.script)[1])

    def mutants(self, seed: Seed, rng: random.Random) -> Iterator[TestCase]:
        script, sites = _fresh(seed.script)
        steps: list[str] = []
        for number in range(self.per_seed):
            if len(steps) >= self.chain:
                script, sites = _fresh(seed.script)
                steps = []
            usable = [(occ, options) for occ in sites if (options := occ.replacements())]
            if not usable:
                return
            occ, options = rng.choice(usable)
            target = rng.choice(options)
            steps.append(f"{occ.operator()}->{target}")
            occ.replace(target)
            # `*` for `+` may need a non-linear logic: the working copy's logic is widened,
            # so later steps of the chain keep it
            widen_logic(script, [occ.parent.items[occ.index]], set())
            mutant = Script([copy_node(c) for c in script.commands], script.filename)  # type: ignore[misc]
            provenance = {
                "strategy": self.name,
                "seed": seed.path,
                "mutant": number,
                "replacements": list(steps),
            }
            yield TestCase(mutant, provenance=provenance)


def _fresh(script: Script) -> tuple[Script, list[Occurrence]]:
    copy = Script([copy_node(c) for c in script.commands], script.filename)  # type: ignore[misc]
    reals_spelled_out(copy)  # `+` of a real `0` becoming `div` would need Ints
    return copy, occurrences(copy, infer_sorts(copy, collect_sites=True))


register(OpfuzzStrategy())
