"""TypeFuzz (generative type-aware mutation): a sub-expression becomes a fresh application of
an operator with the same result sort, whose arguments are other expressions of the same
assertion with the sorts its signature asks for.

Signatures are read from the theory documents' operator tables (docs_corpus/, the theories
listed in typefuzz.json). An argument is only taken where it means the same thing: every
symbol in it is bound the same way (same binder sort, or free) at the replaced place as where
it was found, so a quantified variable never leaves its quantifier. The mutants have no
expected answer: solvers are compared (DIFFERENTIAL).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from sphinxfuzz.datafiles import data_dir
from sphinxfuzz.generators.theory_docs import load_theory_doc, operator_cells
from sphinxfuzz.mutate.mutant import reals_spelled_out, widen_logic
from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.smtlib import Atom, Node, Script, SList, copy_node, infer_sorts, sym, walk
from sphinxfuzz.smtlib.infer import SortInfo, TermSite
from sphinxfuzz.smtlib.theories import RULES
from sphinxfuzz.strategies.base import OracleKind, StrategyBase, TestCase, register
from sphinxfuzz.strategies.signatures import Binding, Signature, match, parse_signatures, read_data


@dataclass(frozen=True)
class Operator:
    name: str
    signature: Signature
    theory: str


@dataclass(frozen=True)
class Settings:
    theories: tuple[str, ...]
    max_argument_nodes: int
    left_out: dict[str, str]  # operator -> why no fresh application uses it
    left_out_at: dict[str, dict[str, str]]  # result sort -> operator -> why not at that sort


@cache
def settings() -> Settings:
    return read_data(
        "typefuzz.json",
        lambda data: Settings(
            tuple(data["theories"]),
            int(data["max_argument_nodes"]),
            dict(data["left_out"]),
            {sort: dict(ops) for sort, ops in data["left_out_at"].items()},
        ),
    )


@cache
def operators() -> tuple[Operator, ...]:
    """Every usable (operator, signature) of the listed theory documents, in their order."""
    found: list[Operator] = []
    seen: set[tuple[str, Signature]] = set()
    left_out = settings().left_out
    for theory in settings().theories:
        doc = load_theory_doc(data_dir("docs_corpus") / f"{theory}.md")
        for name, cells in operator_cells(doc).items():
            if len(cells) < 3 or "(_ " in cells[1] or "(as " in cells[1] or name in left_out:
                continue  # indexed or qualified: the table gives no index to use
            for signature in parse_signatures(cells[2]):
                # constants make no application over existing expressions
                if signature.args and (name, signature) not in seen:
                    seen.add((name, signature))
                    found.append(Operator(name, signature, theory))
    return tuple(found)


def well_sorted(script: Script, info: SortInfo) -> bool:
    """Whether every application of a tabled operator fits one of its signatures (the sort
    inference computes result sorts only; it does not reject wrong arguments)."""
    table: dict[str, list[Signature]] = {}
    for op in operators():
        table.setdefault(op.name, []).append(op.signature)
    for command in script.commands:
        for node in walk(command):
            if not isinstance(node, SList) or node.head_name() not in table:
                continue
            args = [info.sort_of(item) for item in node.items[1:]]
            result = info.sort_of(node)
            if not any(sig.fits(args, result) for sig in table[node.head_name() or ""]):
                return False
    return True


def _size(node: Node) -> int:
    return sum(1 for _ in walk(node))


def _symbols(node: Node) -> set[str]:
    return {n.name for n in walk(node) if isinstance(n, Atom) and n.kind == "symbol"}


def compatible(source: TermSite, target: TermSite) -> bool:
    """Whether `source`'s expression means the same at `target`: each of its symbols bound
    there exactly as at its own place (same sort, or unbound at both)."""
    return all(source.env.get(n) == target.env.get(n) for n in _symbols(source.node))


class _Builder:
    """Fresh applications at the sites of one command."""

    def __init__(self, pool: list[TermSite], rng: random.Random) -> None:
        self.pool = pool
        self.rng = rng

    def application(self, site: TermSite) -> tuple[str, SList] | None:
        assert site.sort is not None
        usable = [entry for entry in self.pool if compatible(entry, site)]
        ops = list(operators())
        self.rng.shuffle(ops)
        barred = settings().left_out_at.get(str(site.sort), {})
        for op in ops:
            if op.name in barred:
                continue
            binding: Binding = {}
            if not match(op.signature.result, site.sort, binding):
                continue
            count = len(op.signature.args) + (self.rng.randint(0, 1) if op.signature.repeat else 0)
            args = self._arguments(op.signature, count, usable, binding)
            if args is None:
                continue
            rule = RULES.get(op.name)
            sorts = [entry.sort for entry in args]
            if rule is not None and rule((), sorts) != site.sort:
                continue
            return op.name, SList([sym(op.name), *(copy_node(e.node) for e in args)])
        return None

    def _arguments(
        self, signature: Signature, count: int, usable: list[TermSite], binding: Binding
    ) -> list[TermSite] | None:
        chosen: list[TermSite] = []
        for position in range(count):
            pattern = signature.arg_pattern(position)
            fitting = [
                e for e in usable if e.sort is not None and match(pattern, e.sort, dict(binding))
            ]
            if not fitting:
                return None
            entry = self.rng.choice(fitting)
            assert entry.sort is not None
            match(pattern, entry.sort, binding)
            chosen.append(entry)
        return chosen


class TypefuzzStrategy(StrategyBase):
    name = "typefuzz"
    summary = "replace sub-expressions by fresh well-sorted applications over nearby ones"
    oracle = OracleKind.DIFFERENTIAL

    def __init__(self, per_seed: int = 8, changes: int = 2, tries: int = 20) -> None:
        self.per_seed = per_seed
        self.changes = changes
        self.tries = tries

    def applies(self, seed: Seed) -> bool:
        return bool(_sites(seed.script)[1])

    def mutants(self, seed: Seed, rng: random.Random) -> Iterator[TestCase]:
        for number in range(self.per_seed):
            script, sites = _sites(seed.script)
            if not sites:
                return
            made = self._mutate(sites, rng)
            if not made:
                continue
            # the parents too: (* 2.0 u) with (- y) for 2.0 is non-linear
            widen_logic(script, [parent for _, parent in made], set())
            provenance = {
                "strategy": self.name,
                "seed": seed.path,
                "mutant": number,
                "operators": [name for name, _ in made],
            }
            yield TestCase(script, provenance=provenance)

    def _mutate(self, sites: list[TermSite], rng: random.Random) -> list[tuple[str, SList]]:
        """Up to `changes` replacements: (operator, parent of the new application)."""
        limit = settings().max_argument_nodes
        made: list[tuple[str, SList]] = []
        replaced: list[Node] = []
        for _ in range(self.tries):
            if len(made) >= self.changes:
                break
            site = rng.choice(sites)
            if any(_inside(site.node, outer) for outer in replaced):
                continue
            pool = [s for s in sites if s.command == site.command and _size(s.node) <= limit]
            built = _Builder(pool, rng).application(site)
            if built is None:
                continue
            site.parent.items[site.index] = built[1]
            replaced.append(site.node)
            made.append((built[0], site.parent))
        return made


def _inside(node: Node, outer: Node) -> bool:
    return any(n is node for n in walk(outer))


def _annotated(node: Node) -> bool:
    return any(isinstance(n, SList) and n.head_name() == "!" for n in walk(node))


def _sites(script: Script) -> tuple[Script, list[TermSite]]:
    """A copy of `script` and its typed term sites inside assertions. Annotated terms are
    neither replaced nor copied: a `:named` name is defined once, a `:pattern` belongs to
    its quantifier."""
    copy = Script([copy_node(c) for c in script.commands], script.filename)  # type: ignore[misc]
    reals_spelled_out(copy)  # `(mod 0 2)` from a real `0` would need Ints
    info = infer_sorts(copy, collect_sites=True)
    asserts = {i for i, c in enumerate(copy.commands) if c.head_name() == "assert"}
    sites = [
        site
        for site in info.sites or []
        if site.sort is not None
        and site.command in asserts
        and site.index > 0
        and site.parent.head_name() != "!"
        and not _annotated(site.node)
    ]
    return copy, sites


register(TypefuzzStrategy())
