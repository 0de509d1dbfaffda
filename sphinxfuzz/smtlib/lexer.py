"""The SMT-LIB tokenizer: SMT-LIB 2.6 text, including the z3 and cvc5 dialects found in bug
reports.

Two readings of one lexical grammar, and the only ones in the package:
- `tokenize`: the parser's, strict (every token classified, an error names file, line and
  column);
- `lexemes`: a tolerant scan for text that may be malformed or is read for its structure only
  (solver output, scripts streamed to a process, generated terms): strings, |quoted symbols|,
  comments, parentheses, words, and a lone `"` or `|` that opens a literal that never closes.
  It never raises.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sphinxfuzz.smtlib.errors import SmtParseError

# One alternation, tried at each position; the group name is the token kind. Order matters:
# decimals before numerals, and a digit-led run that continues with symbol characters (as in
# `1e5` in some dialects) is read as one symbol so it prints back unchanged.
_SYMBOL_CHARS = r"A-Za-z0-9~!@$%^&*_\-+=<>.?/"
_TOKEN = re.compile(
    rf"""
    (?P<ws>[ \t\r\n\f\v]+)
  | (?P<comment>;[^\n]*)
  | (?P<lpar>\()
  | (?P<rpar>\))
  | (?P<string>"[^"]*(?:""[^"]*)*")
  | (?P<qsymbol>\|[^|\\]*\|)
  | (?P<keyword>:[{_SYMBOL_CHARS}]+)
  | (?P<hex>\#x[0-9A-Fa-f]+(?![{_SYMBOL_CHARS}]))
  | (?P<binary>\#b[01]+(?![{_SYMBOL_CHARS}]))
  | (?P<literal>\#[{_SYMBOL_CHARS}]+)
  | (?P<decimal>[0-9]+\.[0-9]+(?![{_SYMBOL_CHARS}]))
  | (?P<numeral>[0-9]+(?![{_SYMBOL_CHARS}]))
  | (?P<symbol>[{_SYMBOL_CHARS}]+)
    """,
    re.VERBOSE,
)

# A number is read as a Python int somewhere (an index, a finite field's modulus, a value
# evaluated): past Python's int-conversion limit (4300 digits) that raises ValueError anywhere
# downstream, so a longer one is the script's parse error here, where it is read.
MAX_NUMBER_DIGITS = 4000
_NUMBERS = frozenset({"numeral", "decimal", "literal"})

_SIMPLE_SYMBOL = re.compile(rf"[A-Za-z~!@$%^&*_\-+=<>.?/][{_SYMBOL_CHARS}]*\Z")


def is_simple_symbol(name: str) -> bool:
    return bool(_SIMPLE_SYMBOL.match(name))


Token = tuple[str, str, int, int]  # kind, text, line, column


def tokenize(text: str, filename: str = "<string>") -> list[Token]:
    """All tokens of `text` except white space and comments, with 1-based positions."""
    tokens: list[Token] = []
    append = tokens.append
    match = _TOKEN.match
    pos = 0
    line = 1
    line_start = 0
    end = len(text)
    while pos < end:
        m = match(text, pos)
        if m is None:
            col = pos - line_start + 1
            char = text[pos]
            if char == '"':
                cause = "unterminated string literal"
            elif char == "|":
                cause = "unterminated or invalid |quoted symbol| (no '|' or '\\' allowed inside)"
            else:
                cause = f"unexpected character {char!r}"
            raise SmtParseError(filename, line, col, cause)
        kind = m.lastgroup
        token_text = m.group()
        if kind != "ws" and kind != "comment":
            if kind == "qsymbol":
                kind = "symbol"
            elif len(token_text) > MAX_NUMBER_DIGITS and kind in _NUMBERS:
                cause = f"a number of {len(token_text)} characters; at most {MAX_NUMBER_DIGITS} are read"
                raise SmtParseError(filename, line, pos - line_start + 1, cause)
            append((kind, token_text, line, pos - line_start + 1))  # type: ignore[arg-type]
        newlines = token_text.count("\n")
        if newlines:
            line += newlines
            line_start = pos + token_text.rfind("\n") + 1
        pos = m.end()
    return tokens


# The tolerant scan: group name = lexeme kind. A string's `""` is an escaped quote.
_STRING = r'"(?:[^"]|"")*"'
_QSYMBOL = r"\|[^|]*\|"
_COMMENT = r";[^\n]*"
_LEXEME = re.compile(
    rf"""
    (?P<string>{_STRING})
  | (?P<qsymbol>{_QSYMBOL})
  | (?P<comment>{_COMMENT})
  | (?P<paren>[()])
  | (?P<unclosed>["|])
  | (?P<word>[^\s()";|]+)
    """,
    re.VERBOSE,
)
_QUOTED = re.compile(f"{_STRING}|{_QSYMBOL}|{_COMMENT}")

Lexeme = tuple[str, str, int]  # kind, text, offset


def lexemes(text: str) -> Iterator[Lexeme]:
    """Every lexeme of `text` (white space skipped): kinds `string`, `qsymbol`, `comment`,
    `paren`, `unclosed` (a `"` or `|` with no closing partner), `word`."""
    for found in _LEXEME.finditer(text):
        yield found.lastgroup or "word", found.group(), found.start()


def blotted(text: str) -> str:
    """`text` with each string, quoted symbol and comment `lexemes` finds overwritten by `x`s
    (offsets kept): what is left are parentheses, words and the unclosed `"` or `|`, so
    regular expressions and counts read the structure without a Python step per lexeme."""
    return _QUOTED.sub(lambda found: "x" * len(found.group()), text)


# A whole `(error "message")` answer; the message keeps its `""` escapes.
_ERROR_RESPONSE = re.compile(r'^\(\s*error\s+"((?:[^"]|"")*)"\s*\)\s*$', re.DOTALL)


def error_message(text: str) -> str | None:
    """The message of an `(error "...")` answer (`text` is the whole answer), else None."""
    found = _ERROR_RESPONSE.match(text.strip())
    return found.group(1) if found else None
