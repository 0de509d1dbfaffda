"""Operator signatures written as the theory documents write them (`Int Int+ -> Bool`,
`RM F F -> F`, `[m] [m] -> [m]`, `(Array I E) I -> E`), matched against inferred sorts.

The token vocabulary is data (signatures.json). A signature with a token it does not know
(`[i+j]`, `F'`) is not parsed: `parse_signatures` leaves that alternative out, so an operator
is only used where its signature is fully understood.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from sphinxfuzz.errors import InputError
from sphinxfuzz.smtlib.sorts import Sort

HERE = Path(__file__).resolve().parent
_BITVEC = re.compile(r"\[([a-z]+|[0-9]+)\]\Z")
_TOKEN = re.compile(r"\(|\)|[^\s()]+")

# A pattern is a token (str) or a compound sort pattern (name, argument patterns).
Pattern = str | tuple[str, tuple["Pattern", ...]]
Binding = dict[str, Sort]
T = TypeVar("T")


class SignatureError(InputError):
    """A signature text that cannot be read; the message names it."""


@dataclass(frozen=True)
class Vocabulary:
    concrete: dict[str, str]  # token -> sort text
    any: frozenset[str]
    float: frozenset[str]
    untyped: frozenset[str]

    def known(self, token: str) -> bool:
        return (
            token in self.concrete
            or token in self.any
            or token in self.float
            or token in self.untyped
            or _BITVEC.match(token) is not None
        )


def read_data(filename: str, build: Callable[[Any], T]) -> T:
    """`build` applied to the JSON of a data file beside this module; a missing file or
    field is an error naming the file."""
    path = HERE / filename
    try:
        return build(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SignatureError(f"{path}: cannot read: {exc!r}") from None


@cache
def vocabulary() -> Vocabulary:
    return read_data(
        "signatures.json",
        lambda data: Vocabulary(
            dict(data["concrete"]),
            frozenset(data["any"]),
            frozenset(data["float"]),
            frozenset(data["untyped"]),
        ),
    )


@dataclass(frozen=True)
class Signature:
    args: tuple[Pattern, ...]
    repeat: bool  # the last argument may be repeated (`X+`, `...`)
    result: Pattern

    def arity_fits(self, count: int) -> bool:
        if self.repeat:
            return count >= len(self.args)
        return count == len(self.args)

    def arg_pattern(self, position: int) -> Pattern:
        return self.args[min(position, len(self.args) - 1)]

    def fits(self, args: list[Sort | None], result: Sort | None) -> Binding | None:
        """The binding under which an application with these argument sorts and this result
        sort has this signature; None when it does not (an unknown sort never fits)."""
        if not self.arity_fits(len(args)) or result is None:
            return None
        binding: Binding = {}
        for position, sort in enumerate(args):
            pattern = self.arg_pattern(position)
            if pattern in vocabulary().untyped:
                continue
            if sort is None or not match(pattern, sort, binding):
                return None
        return binding if match(self.result, result, binding) else None


def match(pattern: Pattern, sort: Sort, binding: Binding) -> bool:
    """Whether `sort` is an instance of `pattern`, extending `binding` (left as it was when
    the answer is False)."""
    trial = dict(binding)
    if not _match(pattern, sort, trial):
        return False
    binding.update(trial)
    return True


def _match(pattern: Pattern, sort: Sort, binding: Binding) -> bool:
    words = vocabulary()
    if isinstance(pattern, tuple):
        name, parts = pattern
        return (
            sort.name == name
            and len(sort.args) == len(parts)
            and all(_match(p, s, binding) for p, s in zip(parts, sort.args, strict=True))
        )
    if pattern in words.concrete:
        return str(sort) == words.concrete[pattern]
    if pattern in words.untyped:
        return True
    bitvec = _BITVEC.match(pattern)
    if bitvec is not None:
        if sort.name != "BitVec" or sort.args:
            return False
        if bitvec.group(1).isdigit():
            return sort.indices == (int(bitvec.group(1)),)
    elif pattern in words.float:
        if sort.name != "FloatingPoint":
            return False
    elif pattern not in words.any or sort.has_params():
        return False
    bound = binding.setdefault(pattern, sort)
    return bound == sort


def parse_signatures(text: str) -> list[Signature]:
    """Every alternative of a signature cell that uses only known tokens."""
    found = []
    for alternative in text.split(";"):
        try:
            found.append(parse_signature(alternative))
        except SignatureError:
            continue
    return found


def parse_signature(text: str) -> Signature:
    if text.count("->") != 1:
        raise SignatureError(f"signature {text.strip()!r} has no single '->'")
    left, right = text.split("->")
    args = _patterns(left, text)
    repeat = False
    if args and args[-1] == "...":
        args, repeat = args[:-1], True
    elif args and isinstance(args[-1], str) and args[-1].endswith("+"):
        args, repeat = [*args[:-1], args[-1][:-1]], True
    result = _patterns(right, text)
    if len(result) != 1 or (repeat and not args):
        raise SignatureError(f"signature {text.strip()!r}: one result sort expected")
    for pattern in [*args, *result]:
        _check_known(pattern, text)
    return Signature(tuple(args), repeat, result[0])


def _check_known(pattern: Pattern, text: str) -> None:
    if isinstance(pattern, tuple):
        for part in pattern[1]:
            _check_known(part, text)
    elif not vocabulary().known(pattern):
        raise SignatureError(f"signature {text.strip()!r}: unknown token {pattern!r}")


def _patterns(text: str, whole: str) -> list[Pattern]:
    tokens = _TOKEN.findall(text)
    patterns: list[Pattern] = []
    position = 0
    while position < len(tokens):
        pattern, position = _pattern(tokens, position, whole)
        patterns.append(pattern)
    return patterns


def _pattern(tokens: list[str], position: int, whole: str) -> tuple[Pattern, int]:
    token = tokens[position]
    if token == ")":
        raise SignatureError(f"signature {whole.strip()!r}: unbalanced ')'")
    if token != "(":
        return token, position + 1
    if position + 1 >= len(tokens):
        raise SignatureError(f"signature {whole.strip()!r}: unbalanced '('")
    name = tokens[position + 1]
    parts: list[Pattern] = []
    position += 2
    while position < len(tokens) and tokens[position] != ")":
        part, position = _pattern(tokens, position, whole)
        parts.append(part)
    if position >= len(tokens):
        raise SignatureError(f"signature {whole.strip()!r}: unbalanced '('")
    return (name, tuple(parts)), position + 1
