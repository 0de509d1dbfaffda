"""Grammar enumeration: skeleton holes filled with the small terms a theory's distilled
grammar (generated_generators/<theory>/grammar.lark) derives, in enumeration order.

Terms are enumerated exhaustively up to a derivation depth, smallest first (grammar.json has
the depth, the cap and the samples for open terminals). A free symbol is named after the rule
that uses it, and declared with that rule's sort, learnt from the rule's closed terms (those
without symbols). Terms the inferred sorts and the theory documents' signatures reject are
skipped, as are bit-vector literals their width cannot hold and terms with an operator or
sort some target lacks (`generators.capabilities`). Filling goes through `mutate.mutate`, so
sort adaptation (renaming to seed variables of the same sort) is the one of today's filling.
Mutants of a seed take consecutive terms of the enumeration from a start drawn log-uniformly,
so small corner cases come up often and every term can. Oracle: DIFFERENTIAL.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from lark import Lark
from lark.grammar import NonTerminal, Rule, Terminal
from lark.lexer import PatternStr, TerminalDef

from sphinxfuzz.datafiles import data_dir
from sphinxfuzz.errors import InputError
from sphinxfuzz.generators.capabilities import Capabilities, term_features
from sphinxfuzz.generators.theory_folder import GeneratorFolder
from sphinxfuzz.mutate.mutant import MutationError, mutate
from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.smtlib import (
    Atom,
    Node,
    Script,
    SList,
    SmtParseError,
    infer_sorts,
    parse_script,
    parse_term,
    sym,
    walk,
)
from sphinxfuzz.smtlib.sorts import BOOL, Sort
from sphinxfuzz.strategies.base import (
    OracleKind,
    StrategyBase,
    StrategyContext,
    TestCase,
    register,
)
from sphinxfuzz.strategies.signatures import read_data
from sphinxfuzz.strategies.typefuzz import well_sorted

Tokens = tuple[str, ...]
_ALTERNATION = re.compile(r"\(\?:(.*)\)\Z")
_SYMBOL_MARK = "\x00"  # a symbol token is MARK + sample + MARK + rule name


class GrammarError(InputError):
    """A grammar or its settings that cannot be used; the message names the file."""


@dataclass(frozen=True)
class Settings:
    depth: int
    limit: int
    per_terminal: int
    symbols: tuple[str, ...]
    values: tuple[str, ...]


@cache
def settings() -> Settings:
    return read_data(
        "grammar.json",
        lambda data: Settings(
            int(data["depth"]),
            int(data["limit"]),
            int(data["per_terminal"]),
            tuple(data["symbols"]),
            tuple(data["values"]),
        ),
    )


@cache
def parser(theory: str) -> Lark:
    path = GeneratorFolder.of(data_dir("generated_generators"), theory).grammar
    try:
        return Lark(path.read_text(encoding="utf-8"), start="start")
    except Exception as exc:  # lark raises its own classes for every kind of bad grammar
        raise GrammarError(f"{path}: cannot load the grammar: {exc}") from None


class Enumerator:
    """Token sequences a grammar derives, by depth, smallest first."""

    def __init__(self, lark: Lark, config: Settings) -> None:
        self.config = config
        self.rules: dict[str, list[Rule]] = {}
        for rule in lark.rules:
            self.rules.setdefault(rule.origin.name, []).append(rule)
        self.values = {t.name: self._terminal_values(t) for t in lark.terminals}
        self.memo: dict[tuple[str, int, bool], list[Tokens]] = {}

    def _terminal_values(self, terminal: TerminalDef) -> list[str]:
        pattern = terminal.pattern
        if isinstance(pattern, PatternStr):
            return [pattern.value]
        alternation = _ALTERNATION.match(pattern.value)
        if alternation:
            literals = [re.sub(r"\\(.)", r"\1", alt) for alt in alternation.group(1).split("|")]
            if all(re.fullmatch(pattern.value, lit) for lit in literals):
                return literals
        regex = re.compile(pattern.value)
        symbols = [s for s in self.config.symbols if regex.fullmatch(s)]
        if symbols:
            return [_SYMBOL_MARK + s for s in symbols[: self.config.per_terminal]]
        matched = [v for v in self.config.values if regex.fullmatch(v)]
        return matched[: self.config.per_terminal]

    def terms(self, name: str, depth: int, symbols: bool = True) -> list[Tokens]:
        key = (name, depth, symbols)
        if key not in self.memo:
            found: set[Tokens] = set()
            if depth > 0:
                for rule in self.rules.get(name, []):
                    found.update(self._expand(rule, depth, symbols))
            self.memo[key] = sorted(found, key=_order)[: self.config.limit]
        return self.memo[key]

    def _expand(self, rule: Rule, depth: int, symbols: bool) -> list[Tokens]:
        partial: list[Tokens] = [()]
        for part in rule.expansion:
            options: list[Tokens]
            if isinstance(part, Terminal):
                options = [
                    (_SYMBOL_MARK.join(["", v[1:], rule.origin.name]),)
                    if v.startswith(_SYMBOL_MARK)
                    else (v,)
                    for v in self.values.get(part.name, [])
                    if symbols or not v.startswith(_SYMBOL_MARK)
                ]
            else:
                assert isinstance(part, NonTerminal)
                options = self.terms(part.name, depth - 1, symbols)
            partial = _smallest_sums(partial, sorted(options, key=_order), self.config.limit)
            if not partial:
                return []
        return partial


def _smallest_sums(left: list[Tokens], right: list[Tokens], limit: int) -> list[Tokens]:
    """The `limit` smallest concatenations of an item of `left` and one of `right` (both
    sorted by size). Pair (i, j) has (i + 1) * (j + 1) - 1 pairs no larger than itself, so
    only pairs with (i + 1) * (j + 1) <= limit can be among the smallest."""
    pairs = [
        left[i] + right[j]
        for i in range(min(len(left), limit))
        for j in range(min(len(right), limit // (i + 1)))
    ]
    return sorted(pairs, key=_order)[:limit]


def _order(tokens: Tokens) -> tuple[int, Tokens]:
    return (sum(len(t) + 1 for t in tokens), tokens)


@dataclass(frozen=True)
class Enumerated:
    """One enumerated term: its text as the grammar derives it, the SMT-LIB declarations of
    its free symbols and the term with symbols named apart by rule."""

    derived: str
    declarations: str
    term: str


class GrammarTerms:
    """The enumerated, well-sorted Boolean terms of one theory, in enumeration order."""

    def __init__(self, theory: str, config: Settings | None = None) -> None:
        self.theory = theory
        self.enumerator = Enumerator(parser(theory), config or settings())
        self.sorts: dict[str, Sort | None] = {}
        self.raw = self.enumerator.terms("start", self.enumerator.config.depth)

    def sort_of_rule(self, name: str) -> Sort | None:
        """The sort of a rule's closed terms (the most common among its smallest ones)."""
        if name not in self.sorts:
            counts: dict[Sort, int] = {}
            for tokens in self.enumerator.terms(name, self.enumerator.config.depth)[:200]:
                if any(t.startswith(_SYMBOL_MARK) for t in tokens):
                    continue
                sort = _sort_of(" ".join(tokens))
                if sort is not None:
                    counts[sort] = counts.get(sort, 0) + 1
                if sum(counts.values()) >= 5:
                    break
            self.sorts[name] = max(counts, key=lambda s: counts[s]) if counts else None
        return self.sorts[name]

    def render(self, tokens: Tokens) -> Enumerated | None:
        """The term with its declarations, or None when it is not well-sorted."""
        derived, term, declared = [], [], {}
        for token in tokens:
            if token.startswith(_SYMBOL_MARK):
                _empty, sample, rule = token.split(_SYMBOL_MARK)
                sort = self.sort_of_rule(rule)
                if sort is None:
                    return None
                name = f"{sample}_{re.sub(r'[^A-Za-z0-9]', '', str(sort))}"
                declared[name] = sort
                derived.append(sample)
                term.append(name)
            else:
                derived.append(token)
                term.append(token)
        decls = "\n".join(f"(declare-const {n} {s})" for n, s in sorted(declared.items()))
        text = " ".join(term)
        try:
            script = parse_script(f"{decls}\n(assert {text})", "<enumerated>")
        except SmtParseError:
            return None
        info = infer_sorts(script)
        root = script.commands[-1].items[1]
        if not info.fully_sorted or info.sort_of(root) != BOOL or not well_sorted(script, info):
            return None
        if not _literals_fit(root):
            return None
        return Enumerated(" ".join(derived), decls, text)

    def usable(
        self,
        start: int,
        count: int,
        scan: int = 400,
        takes: Callable[[Enumerated], bool] = lambda item: True,
    ) -> list[Enumerated]:
        """Up to `count` well-sorted terms from position `start` on (wrapping round) that
        `takes` (the targets) accepts."""
        found: list[Enumerated] = []
        for step in range(min(scan * max(count, 1), len(self.raw))):
            item = self.render(self.raw[(start + step) % len(self.raw)])
            if item is not None and takes(item):
                found.append(item)
                if len(found) >= count:
                    break
        return found


def _literals_fit(term: Node) -> bool:
    """Whether every `(_ bvN w)` has a width above 0 that holds its value: the grammar pairs
    any value with any width, z3 rejects width 0 and cvc5 rejects `(_ bv8 1)` (an overflow
    z3 takes modulo 2^w)."""
    for node in walk(term):
        if isinstance(node, SList) and len(node) == 3 and node.head_name() == "_":
            value, width = node[1], node[2]
            if not (isinstance(value, Atom) and isinstance(width, Atom)):
                continue
            if re.fullmatch(r"bv[0-9]+", value.text) and width.text.isdigit():
                bits = int(width.text)
                if bits == 0 or int(value.text[2:]) >= 2**bits:
                    return False
    return True


def _sort_of(text: str) -> Sort | None:
    try:
        term = parse_term(text, "<enumerated>")
    except SmtParseError:
        return None
    info = infer_sorts(Script([SList([sym("simplify"), term])], "<enumerated>"))
    return info.sort_of(term) if info.fully_sorted else None


@cache
def grammar_terms(theory: str) -> GrammarTerms:
    return GrammarTerms(theory)


class _Queue:
    """A TermSource handing out the given terms in order, whatever seed it is asked for."""

    def __init__(self, theory: str, terms: list[Enumerated]) -> None:
        self.theories: Sequence[str] = (theory,)
        self.terms = terms
        self.next = 0

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        item = self.terms[self.next % len(self.terms)]
        self.next += 1
        return item.declarations, item.term


class GrammarStrategy(StrategyBase):
    name = "grammar"
    summary = "fill holes with the smallest terms a theory's distilled grammar derives"
    oracle = OracleKind.DIFFERENTIAL

    # FloatingPoint is left out: its grammar's small numerals make formats (_ +oo 1 1) that
    # no solver accepts
    def __init__(
        self,
        theories: Sequence[str] = ("Core", "Ints", "Reals", "Strings", "FixedSizeBitVectors"),
        per_seed: int = 4,
    ) -> None:
        self.theories = tuple(theories)
        self.per_seed = per_seed
        self.context = StrategyContext(specs=())
        self.capabilities: Capabilities | None = None

    def setup(self, context: StrategyContext) -> None:
        self.context = context
        # its probes count as solver time
        self.capabilities = (
            Capabilities(list(context.specs), spent=context.spent) if context.specs else None
        )

    def _takes(self, item: Enumerated) -> bool:
        """Whether every target accepts the term's operators and sorts (a release lacks
        newer ones: z3 4.8.7 has no bvnego or int_to_bv)."""
        if self.capabilities is None:
            return True
        return not self.capabilities.lacking(term_features(item.declarations, item.term))

    def applies(self, seed: Seed) -> bool:
        return any(c.head_name() == "assert" for c in seed.script.commands)

    def mutants(self, seed: Seed, rng: random.Random) -> Iterator[TestCase]:
        theory = rng.choice(self.theories)
        terms = grammar_terms(theory)
        if not terms.raw:
            return
        # log-uniform start: the smallest terms often, every term possibly
        start = int(len(terms.raw) ** rng.random()) - 1
        queue = _Queue(theory, terms.usable(start, 2 * self.per_seed, takes=self._takes))
        if not queue.terms:
            return
        for number in range(self.per_seed):
            first = queue.next
            try:
                made = mutate(seed, rng, queue)
            except MutationError:
                return
            used = [queue.terms[i % len(queue.terms)].derived for i in range(first, queue.next)]
            provenance = {
                "strategy": self.name,
                "seed": seed.path,
                "mutant": number,
                "theory": theory,
                "start": start,
                "terms": used,
            }
            yield TestCase(made.script, provenance=provenance)


register(GrammarStrategy())
