"""A generated (declarations, term) pair read and typed once for everyone who looks at it.

A campaign reads each generated pair twice in a row: the capability check looks for features
the targets lack (`generators.capabilities.term_features`), then the mutator adapts the term
to its placeholder (`mutate.fill.adapt`). Both read the same texts, so the last few pairs are
kept. The nodes are shared: readers must not change them (both build new nodes from them).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from sphinxfuzz.smtlib.infer import SortInfo, infer_sorts
from sphinxfuzz.smtlib.nodes import Atom, Node, SList
from sphinxfuzz.smtlib.reader import Script, parse_script, parse_term

# pairs kept: the check and the mutation of one term follow each other
_KEPT = 8


@dataclass(frozen=True)
class GeneratedPair:
    """The declarations' commands, the term, and the sorts of `commands` then `(assert term)`."""

    commands: tuple[SList, ...]
    term: Node
    info: SortInfo


@lru_cache(maxsize=_KEPT)
def read_generated(decls_text: str, term_text: str) -> GeneratedPair:
    """The pair read and typed; raises `SmtParseError` when either text does not parse
    (not kept: the next reader gets the error again)."""
    commands = parse_script(decls_text, "<generated declarations>").commands
    term = parse_term(term_text, "<generated term>")
    info = infer_sorts(Script([*commands, SList([Atom("assert", "symbol"), term])], "<generated>"))
    return GeneratedPair(tuple(commands), term, info)
