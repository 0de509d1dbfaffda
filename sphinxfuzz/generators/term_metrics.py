"""Quality measures of a batch of generated terms: errors, grammar conformance, coverage."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

from lark import Lark
from lark.exceptions import LarkError

from sphinxfuzz.errors import InputError
from sphinxfuzz.generators.term_text import symbols
from sphinxfuzz.generators.term_verdict import TermVerdict
from sphinxfuzz.generators.theory_docs import TheoryDoc

MAX_MESSAGE = 200

# Normalisation steps, in order: positions, quoted parts, generated-looking names, numbers.
_POSITIONS = (
    re.compile(r"\bline \d+ column \d+:?\s*"),
    re.compile(r"\S+?:\d+\.\d+:\s*"),  # cvc5: file:line.col:
    re.compile(r"\bat line \d+\b"),
)
_QUOTED = re.compile(r"'[^']*'|`[^`]*`|\|[^|]*\|")
_NAME_WITH_DIGITS = re.compile(r"\b[A-Za-z_][\w.!?$~-]*\d\b")
_NUMBER = re.compile(r"(?<![\w.])#?[xb]?\d+(\.\d+)?\b")
_UNKNOWN_SYMBOL = re.compile(r"(unknown (?:constant|function|sort|symbol)|undeclared \w+)\s+\S+")


class GrammarLoadError(InputError):
    """A Lark grammar that does not load; the message carries Lark's explanation."""


def normalise_error(message: str) -> str:
    """Collapse an error message to its shape: no positions, symbol names or numbers."""
    text = message.strip()
    for pattern in _POSITIONS:
        text = pattern.sub("", text)
    text = _QUOTED.sub("<sym>", text)
    text = _UNKNOWN_SYMBOL.sub(lambda m: f"{m.group(1)} <sym>", text)
    text = _NAME_WITH_DIGITS.sub("<sym>", text)
    text = _NUMBER.sub("N", text)
    text = re.sub(r"\s+", " ", text).strip()
    return text[:MAX_MESSAGE]


def error_counts(verdicts: Iterable[TermVerdict]) -> Counter[str]:
    """`solver: normalised error` -> number of terms with it."""
    counts: Counter[str] = Counter()
    for verdict in verdicts:
        for solver, message in verdict.errors.items():
            counts[f"{solver}: {normalise_error(message)}"] += 1
    return counts


def distinct_errors(verdicts: Iterable[TermVerdict], limit: int = 20) -> list[str]:
    """The normalised error messages, most frequent first, at most `limit`."""
    return [message for message, _ in error_counts(verdicts).most_common(limit)]


@lru_cache(maxsize=16)
def load_grammar(grammar_text: str) -> Lark:
    """A Lark Earley parser for the grammar's `start` rule; `GrammarLoadError` if it fails."""
    try:
        return Lark(grammar_text, start="start", parser="earley")
    except Exception as exc:  # noqa: BLE001 - LLM-written grammars fail in many ways (re.error...)
        raise GrammarLoadError(f"grammar does not load: {type(exc).__name__}: {exc}") from exc


def grammar_conformance(grammar_text: str, terms: Sequence[str]) -> float:
    """Share of `terms` the grammar's `start` rule parses (0.0 for no terms)."""
    parser = load_grammar(grammar_text)
    if not terms:
        return 0.0
    parsed = 0
    for term in terms:
        try:
            parser.parse(term.strip())
        except (LarkError, RecursionError):
            continue
        parsed += 1
    return parsed / len(terms)


def operator_coverage(doc: TheoryDoc, terms: Iterable[str]) -> tuple[float, list[str]]:
    """Share of the doc's operators that occur in the terms, and the missing ones in doc order.

    Every symbol token counts, so heads, indexed heads `(_ extract ...)` and nullary
    operators (`re.allchar`, `RNE`) are all seen.
    """
    seen: set[str] = set()
    for term in terms:
        seen |= symbols(term)
    missing = [op for op in doc.operators if op not in seen]
    if not doc.operators:
        return 0.0, []
    return (len(doc.operators) - len(missing)) / len(doc.operators), missing
