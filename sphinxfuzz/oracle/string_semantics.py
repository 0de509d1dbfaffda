"""An executable semantics of SMT-LIB 2.6 strings (no regular expressions), and an evaluator.

Every operation is total, as the standard defines it: out-of-range positions give "" or -1,
`str.replace` rewrites the first occurrence only (an empty pattern prepends), and
`str.from_int` of a negative number is "". Characters are the code points 0 .. 0x2FFFF.

`evaluate(node, env)` computes a term of the string-and-integer fragment (Boolean connectives,
linear and non-linear integer arithmetic, the string operations) under an assignment of its
free constants, so a generated formula's model can be checked without any solver.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sphinxfuzz.errors import InputError
from sphinxfuzz.smtlib import Atom, Node, SList

MAX_CHAR = 0x2FFFF

Value = bool | int | str


class EvalError(InputError):
    """A term outside the fragment this module evaluates (unknown operator or free symbol)."""


def str_at(s: str, i: int) -> str:
    return s[i] if 0 <= i < len(s) else ""


def str_substr(s: str, i: int, n: int) -> str:
    if 0 <= i < len(s) and n > 0:
        return s[i : i + min(n, len(s) - i)]
    return ""


def str_indexof(s: str, t: str, i: int) -> int:
    if not 0 <= i <= len(s):
        return -1
    return s.find(t, i)  # an empty t is found at i itself


def str_replace(s: str, t: str, u: str) -> str:
    if t == "":
        return u + s
    return s.replace(t, u, 1)


def str_replace_all(s: str, t: str, u: str) -> str:
    if t == "":
        return s
    return s.replace(t, u)  # leftmost, non-overlapping, as the standard says


def str_to_int(s: str) -> int:
    if s and all("0" <= c <= "9" for c in s):
        return int(s)
    return -1


def str_from_int(n: int) -> str:
    return str(n) if n >= 0 else ""


def str_to_code(s: str) -> int:
    return ord(s) if len(s) == 1 else -1


def str_from_code(n: int) -> str:
    return chr(n) if 0 <= n <= MAX_CHAR else ""


def str_is_digit(s: str) -> bool:
    return len(s) == 1 and "0" <= s <= "9"


def quote(s: str) -> str:
    """An SMT-LIB 2.6 string literal for `s`: printable ASCII as is (a quote doubled), every
    other character, and the backslash, as a \\u{...} escape."""
    out = []
    for c in s:
        if c == '"':
            out.append('""')
        elif 0x20 <= ord(c) <= 0x7E and c != "\\":
            out.append(c)
        else:
            out.append(f"\\u{{{ord(c):x}}}")
    return '"' + "".join(out) + '"'


def unquote(literal: str) -> str:
    """The string an SMT-LIB 2.6 literal (with its quotes) denotes."""
    body = literal[1:-1].replace('""', '"')
    out: list[str] = []
    i = 0
    while i < len(body):
        if body.startswith("\\u", i):
            j = i + 2
            if j < len(body) and body[j] == "{":
                end = body.find("}", j)
                digits = body[j + 1 : end] if end > 0 else ""
                if 1 <= len(digits) <= 5 and _is_hex(digits) and int(digits, 16) <= MAX_CHAR:
                    out.append(chr(int(digits, 16)))
                    i = end + 1
                    continue
            elif _is_hex(body[j : j + 4]) and len(body[j : j + 4]) == 4:
                out.append(chr(int(body[j : j + 4], 16)))
                i = j + 4
                continue
        out.append(body[i])
        i += 1
    return "".join(out)


def _is_hex(text: str) -> bool:
    return bool(text) and all(c in "0123456789abcdefABCDEF" for c in text)


def literal(value: Value) -> Node:
    """The constant term denoting `value` (negative integers as `(- n)`)."""
    if isinstance(value, bool):
        return Atom("true" if value else "false", "symbol")
    if isinstance(value, int):
        if value < 0:
            return SList([Atom("-", "symbol"), Atom(str(-value), "numeral")])
        return Atom(str(value), "numeral")
    return Atom(quote(value), "string")


def _chain(test: Callable[[Any, Any], bool]) -> Callable[..., bool]:
    # operands are of one sort (the script is well sorted), so the comparison is defined
    return lambda *xs: all(test(a, b) for a, b in zip(xs, xs[1:], strict=False))


def _minus(*xs: int) -> int:
    return -xs[0] if len(xs) == 1 else xs[0] - sum(xs[1:])


def _product(*xs: int) -> int:
    result = 1
    for x in xs:
        result *= x
    return result


def _implies(*xs: bool) -> bool:
    result = xs[-1]
    for premise in reversed(xs[:-1]):
        result = (not premise) or result
    return result


def _xor(*xs: bool) -> bool:
    return sum(xs) % 2 == 1


def _euclid_div(a: int, b: int) -> int:
    if b == 0:
        raise EvalError("div by zero has no fixed value")
    q = a // b
    return q if a - q * b >= 0 else q + 1


# operator name -> function of the evaluated arguments
OPERATIONS: dict[str, Callable[..., Value]] = {
    "str.len": len,
    "str.++": lambda *xs: "".join(xs),
    "str.at": str_at,
    "str.substr": str_substr,
    "str.prefixof": lambda s, t: t.startswith(s),
    "str.suffixof": lambda s, t: t.endswith(s),
    "str.contains": lambda s, t: t in s,
    "str.indexof": str_indexof,
    "str.replace": str_replace,
    "str.replace_all": str_replace_all,
    "str.to_int": str_to_int,
    "str.to.int": str_to_int,
    "str.from_int": str_from_int,
    "int.to.str": str_from_int,
    "str.to_code": str_to_code,
    "str.from_code": str_from_code,
    "str.<": _chain(lambda a, b: a < b),
    "str.<=": _chain(lambda a, b: a <= b),
    "str.is_digit": str_is_digit,
    "+": lambda *xs: sum(xs),
    "-": _minus,
    "*": _product,
    "div": _euclid_div,
    "mod": lambda a, b: a - b * _euclid_div(a, b),
    "abs": abs,
    "<": _chain(lambda a, b: a < b),
    "<=": _chain(lambda a, b: a <= b),
    ">": _chain(lambda a, b: a > b),
    ">=": _chain(lambda a, b: a >= b),
    "=": _chain(lambda a, b: a == b),
    "distinct": lambda *xs: len(set(xs)) == len(xs),
    "not": lambda x: not x,
    "and": lambda *xs: all(xs),
    "or": lambda *xs: any(xs),
    "=>": _implies,
    "xor": _xor,
}


def evaluate(node: Node, env: Mapping[str, Value]) -> Value:
    """The value of `node` with its free constants taken from `env`."""
    if isinstance(node, Atom):
        if node.kind == "string":
            return unquote(node.text)
        if node.kind == "numeral":
            return int(node.text)
        if node.kind == "symbol":
            if node.name in env:
                return env[node.name]
            if node.name in ("true", "false"):
                return node.name == "true"
        raise EvalError(f"cannot evaluate {node.text!r}")
    head = node.head_name()
    if head == "ite":
        condition = evaluate(node.items[1], env)
        return evaluate(node.items[2] if condition else node.items[3], env)
    if head not in OPERATIONS:
        raise EvalError(f"cannot evaluate operator {head!r}")
    args = [evaluate(item, env) for item in node.items[1:]]
    try:
        return OPERATIONS[head](*args)
    except TypeError as exc:  # wrong arity or sorts: a bug in whoever built the term
        raise EvalError(f"{head} applied to {args!r}: {exc}") from None
