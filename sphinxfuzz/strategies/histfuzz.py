"""HistFuzz (ICSE'23): seeds' holes filled with sub-terms of historical bug triggers.

The campaign's `history` folder holds bug-triggering formulas named
`<tracker>_<issue>_<n>.smt2`. Each file gives up to `PER_FILE` fragments: its Boolean
sub-formulas (`storm.fragments`: closed, typed by the theories, so operators one solver made
up are left out), each with the declarations of the constants and functions it uses. They
are a `mutate.fill.TermSource` whose "theories" are the trackers: `mutate` fills a seed's
holes with them exactly as sphinx fills them with generated terms (fresh constants renamed to
seed variables of their sort, the logic widened), and the targets' missing features are
redrawn (`CapableTerms`). Cases are compared across the targets (differential); each records
the files and trackers its terms came from.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from sphinxfuzz.generators.capabilities import Capabilities, CapableTerms
from sphinxfuzz.mutate import MutationError, Seed, mutate
from sphinxfuzz.smtlib import (
    Atom,
    Node,
    SList,
    SmtParseError,
    parse_script,
    print_node,
    walk,
)
from sphinxfuzz.smtlib.generated import read_generated
from sphinxfuzz.smtlib.sorts import BOOL
from sphinxfuzz.strategies.base import (
    CaseFailed,
    Needs,
    OracleKind,
    SeedUnusable,
    StrategyBase,
    StrategyContext,
    TestCase,
    register,
)
from sphinxfuzz.strategies.storm import fragments

NAME = "histfuzz"
MAX_FILE_BYTES = 64_000  # a larger trigger is skipped (parsing and typing it costs seconds)
PER_FILE = 20  # fragments kept of one trigger, so a long one does not drown the others
MAX_TERM_CHARS = 400  # a longer sub-term is mostly the trigger again
# the corpus's file names; another name is the tracker `other`
_TRIGGER = re.compile(r"^(?P<tracker>[A-Za-z0-9-]+)_(?P<issue>\d+)_\d+$")
_SYMBOLS = ("declare-const", "declare-fun")


@dataclass(frozen=True)
class Fragment:
    declarations: str  # the commands declaring what `term` uses
    term: str
    source: str  # the trigger's file name
    tracker: str


def tracker_of(path: Path) -> str:
    found = _TRIGGER.match(path.stem)
    return found["tracker"] if found else "other"


def file_fragments(path: Path) -> list[Fragment]:
    """The fragments of one trigger (none when it does not parse or declares sorts: a
    fragment carries constant and function declarations only)."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return []
        script = parse_script(path.read_text(encoding="utf-8", errors="replace"), str(path))
        found = fragments(script)
    except (OSError, SmtParseError, RecursionError, ValueError):
        return []
    declarations: dict[str, SList] = {}
    for command in script.commands:
        head = command.head_name() or ""
        if head in _SYMBOLS and isinstance(command.items[1], Atom):
            declarations[command.items[1].text] = command
        elif head.startswith(("declare-", "define-")):
            if head in ("declare-sort", "define-sort", "declare-datatype", "declare-datatypes"):
                return []
            if len(command.items) > 1 and isinstance(command.items[1], Atom):  # a definition
                declarations[command.items[1].text] = SList([])
    kept: list[Fragment] = []
    tracker = tracker_of(path)
    for node in found:
        if not isinstance(node, SList) or len(kept) >= PER_FILE:
            continue
        term = print_node(node)
        if len(term) > MAX_TERM_CHARS or _annotated(node):
            continue
        used = sorted(
            {a.text for a in walk(node) if isinstance(a, Atom) and a.text in declarations}
        )
        if any(not declarations[name].items for name in used):
            continue  # it uses a definition
        text = "\n".join(print_node(declarations[name]) for name in used)
        kept.append(Fragment(text, term, path.name, tracker))
    return kept


# operators every solver takes with two or more arguments (z3 takes `(* x)` too)
_NARY = {"+", "*", "and", "or", "xor", "=", "distinct", "=>", "<", "<=", ">", ">=", "concat",
         "bvadd", "bvmul", "bvand", "bvor", "bvxor", "str.++", "re.++", "re.union", "re.inter"}  # fmt: skip
# ... and these with exactly two (z3 folds `(bvxnor a b c)`)
_BINARY = {"bvxnor", "bvnand", "bvnor", "bvcomp", "bvsub", "bvudiv", "bvurem", "bvsdiv", "bvsrem",
           "bvsmod", "bvshl", "bvlshr", "bvashr"}  # fmt: skip
_NUMERIC = {"Int", "Real"}


def strict(declarations: str, term: str) -> bool:
    """Whether a fragment is typed as the strictest solver types it: by its own declarations
    alone, Int never where Real is wanted (z3 converts, cvc5 refuses), no function used as a
    value, n-ary operators with two arguments or more (binary ones with two), equal sorts
    on both sides of `=`, `re.range` of string literals, and no
    array indexed by arrays. Bug triggers were written for one solver each."""
    try:
        pair = read_generated(declarations, term)
    except SmtParseError:
        return False
    info = pair.info
    if not info.fully_sorted or info.sort_of(pair.term) != BOOL or "(Array (Array" in declarations:
        return False
    functions = {name for name, sigs in info.symbols.funs.items() if any(s.args for s in sigs)}
    for node in walk(pair.term):
        if not isinstance(node, SList) or not node.items:
            continue
        head, args = node.head_name(), node.items[1:]
        if any(isinstance(a, Atom) and a.text in functions for a in args):
            return False
        if head in _NARY and len(args) < 2 or head in _BINARY and len(args) != 2:
            return False
        if head in ("=", "distinct") and len({str(info.sort_of(a)) for a in args}) > 1:
            return False  # (= s t) of a (Set Int) and a (Set Real)
        if head == "re.range" and not all(isinstance(a, Atom) and a.kind == "string" for a in args):
            return False
        sorts = {str(info.sort_of(a)) for a in args}
        if head in functions:  # an application of a declared function
            params = [str(s) for s in info.symbols.funs[head][0].args]
            if [str(info.sort_of(a)) for a in args] != params:
                return False
        elif len(sorts & _NUMERIC) > 1:
            return False
    return True


def _annotated(node: Node) -> bool:
    return any(isinstance(n, SList) and n.head_name() == "!" for n in walk(node))


def load_history(folder: Path) -> list[Fragment]:
    """Every trigger's fragments, in file-name order."""
    return [f for path in sorted(folder.rglob("*.smt2")) for f in file_fragments(path)]


class HistoryTerms:
    """The fragments as a `TermSource`: theory = tracker, the seed picks one of its
    fragments, the first `strict` one from there on (checked when first drawn: typing all of
    a large corpus at the start would cost each worker seconds)."""

    def __init__(self, found: Sequence[Fragment]) -> None:
        self.by_tracker: dict[str, list[Fragment]] = {}
        for fragment in found:
            self.by_tracker.setdefault(fragment.tracker, []).append(fragment)
        self.by_term = {f.term: f for f in found}
        self._strict: dict[Fragment, bool] = {}

    @property
    def theories(self) -> Sequence[str]:
        return sorted(self.by_tracker)

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        found = self.by_tracker[theory]
        for step in range(len(found)):
            fragment = found[(seed + step) % len(found)]
            if fragment not in self._strict:
                self._strict[fragment] = strict(fragment.declarations, fragment.term)
            if self._strict[fragment]:
                return fragment.declarations, fragment.term
        raise ValueError(f"no fragment of tracker {theory} is typed strictly")


class _Recorded:
    """A term source that records the fragments it handed out (after any redraws)."""

    def __init__(self, terms: CapableTerms, history: HistoryTerms) -> None:
        self.terms, self.history = terms, history
        self.drawn: list[Fragment] = []

    @property
    def theories(self) -> Sequence[str]:
        return self.terms.theories

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        declarations, term = self.terms.generate(theory, seed)
        self.drawn.append(self.history.by_term[term])
        return declarations, term


class HistfuzzStrategy(StrategyBase):
    name = NAME
    summary = "fill the seed's holes with sub-terms of historical bug triggers (HistFuzz)"
    oracle = OracleKind.DIFFERENTIAL
    needs = Needs()
    extends_fast_seeds = True

    def __init__(self) -> None:
        self.context = StrategyContext(specs=())
        self.source: _Recorded | None = None

    def setup(self, context: StrategyContext) -> None:
        """Read the campaign's history folder, if it names one."""
        self.context = context
        self.source = None
        if context.history:
            history = HistoryTerms(load_history(Path(context.history)))
            if history.theories:
                capabilities = Capabilities(list(context.specs), spent=context.spent)
                self.source = _Recorded(CapableTerms(history, capabilities), history)

    def applies(self, seed: Seed) -> bool:
        return self.source is not None

    def mutants(self, seed: Seed, rng: random.Random) -> Iterator[TestCase]:
        source, context = self.source, self.context
        if source is None:
            return
        while True:
            source.drawn = []
            try:
                mutant = mutate(
                    seed, rng, source, rename_prob=context.rename_prob,
                    needed_options=context.needed_options, count_weights=context.count_weights,
                )  # fmt: skip
            except MutationError as exc:  # about the seed itself (no atom, nested too deeply)
                raise SeedUnusable(str(exc), exc.cause) from None
            finally:
                context.left_out(source.terms.left_out)
            if not mutant.report.insertions:  # every drawn term was refused: the seed again
                raise CaseFailed(f"{seed.path}: no fragment fitted: {mutant.report.rejected[:1]}")
            drawn = source.drawn
            provenance: dict[str, object] = {
                "strategy": self.name,
                "seed": seed.path,
                "history": [f.source for f in drawn],
                "trackers": sorted({f.tracker for f in drawn}),
            }
            yield TestCase(mutant.script, provenance=provenance, ready=True)


register(HistfuzzStrategy())
