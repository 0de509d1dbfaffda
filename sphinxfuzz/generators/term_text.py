"""Light lexical helpers for generated SMT-LIB text that may be malformed.

Validation has to cope with whatever a candidate generator emits, so these helpers never
raise: they answer "is it balanced", "which symbols occur", "which commands are these".
"""

from __future__ import annotations

from sphinxfuzz.smtlib.lexer import lexemes
from sphinxfuzz.smtlib.vocabulary import DECLARING


def tokens(text: str) -> list[str]:
    """Every lexeme of `text` (`smtlib.lexer.lexemes`), comments included."""
    return [lexeme for _kind, lexeme, _start in lexemes(text)]


def is_balanced(text: str) -> bool:
    """Parentheses nest properly and every string / quoted symbol is closed."""
    depth = 0
    for kind, lexeme, _start in lexemes(text):
        if kind == "unclosed":
            return False
        if kind == "paren":
            depth += 1 if lexeme == "(" else -1
            if depth < 0:
                return False
    return depth == 0


def symbols(text: str) -> set[str]:
    """Every symbol token (quoted symbols unquoted); literals and comments excluded."""
    found: set[str] = set()
    for kind, lexeme, _start in lexemes(text):
        if kind == "qsymbol":
            found.add(lexeme[1:-1])
        elif kind == "word" and lexeme[0] not in "#:" and not lexeme[0].isdigit():
            found.add(lexeme)
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
    return all(head in DECLARING for head in command_heads(text))
