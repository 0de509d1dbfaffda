"""Light lexical helpers for generated SMT-LIB text that may be malformed.

Validation has to cope with whatever a candidate generator emits, so these helpers never
raise: they answer "is it balanced", "which symbols occur", "which commands are these".
"""

from __future__ import annotations

import re

# One token: a string literal ("" escapes a quote), a quoted symbol, a comment, a
# parenthesis, or a run of other non-space characters. Unterminated literals match to the end.
_TOKEN = re.compile(r'"(?:[^"]|"")*"?|\|[^|]*\|?|;[^\n]*|[()]|[^\s()";|]+')

DECLARATION_COMMANDS = frozenset(
    {
        "declare-const",
        "declare-fun",
        "declare-sort",
        "define-fun",
        "define-fun-rec",
        "define-funs-rec",
        "define-sort",
        "define-const",
        "declare-datatype",
        "declare-datatypes",
    }
)


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def is_balanced(text: str) -> bool:
    """Parentheses nest properly and every string / quoted symbol is closed."""
    depth = 0
    for token in tokens(text):
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
            if depth < 0:
                return False
        elif token.startswith('"') and (
            len(token) < 2 or not token.endswith('"') or _odd_quotes(token)
        ):
            return False
        elif token.startswith("|") and (len(token) < 2 or not token.endswith("|")):
            return False
    return depth == 0


def symbols(text: str) -> set[str]:
    """Every symbol token (quoted symbols unquoted); literals and comments excluded."""
    found: set[str] = set()
    for token in tokens(text):
        if token in ("(", ")") or token[0] in '";#:' or token[0].isdigit():
            continue
        found.add(token[1:-1] if token.startswith("|") and len(token) >= 2 else token)
    return found


def command_heads(text: str) -> list[str | None]:
    """The head symbol of each top-level list in `text` (None for a non-list item)."""
    heads: list[str | None] = []
    depth = 0
    expect_head = False
    for token in tokens(text):
        if token.startswith(";"):
            continue
        if token == "(":
            depth += 1
            expect_head = depth == 1
            continue
        if token == ")":
            depth -= 1
            if expect_head:
                heads.append(None)  # "()"
            expect_head = False
            continue
        if depth == 0:
            heads.append(None)
        elif expect_head:
            heads.append(token)
        expect_head = False
    return heads


def only_declarations(text: str) -> bool:
    """`text` is a sequence of declaration/definition commands and nothing else."""
    return all(head in DECLARATION_COMMANDS for head in command_heads(text))


def _odd_quotes(token: str) -> bool:
    # A closed literal has an even number of quotes: the two delimiters plus "" pairs.
    return token.count('"') % 2 == 1
