from __future__ import annotations

import pytest

from sphinxfuzz.generators.term_metrics import (
    GrammarLoadError,
    distinct_errors,
    grammar_conformance,
    normalise_error,
    operator_coverage,
)
from sphinxfuzz.generators.term_text import command_heads, is_balanced, only_declarations, symbols
from sphinxfuzz.generators.term_verdict import TermVerdict
from sphinxfuzz.generators.theory_docs import parse_theory_doc

GRAMMAR = r"""
start: bool_term
bool_term: "(" CMP int_term int_term ")" | "(" "not" bool_term ")"
int_term: "(" ARITH int_term int_term ")" | NUMERAL | SYMBOL
CMP: "<=" | "<" | "="
ARITH: "+" | "-" | "*"
NUMERAL: /0|[1-9][0-9]*/
SYMBOL: /[a-z][a-z0-9]*/
%ignore /\s+/
"""

DOC = """---
theory: Toy
solvers: z3
logic: ALL
kind: standard
---
## Operators

| op | syntax | signature | conditions |
|---|---|---|---|
| `+` | x | x | x |
| `extract` | x | x | x |
| `re.allchar` | x | x | x |
| `str.++` | x | x | x |
| `bvudiv` | x | x | x |
"""


def test_grammar_conformance() -> None:
    terms = ["(< x 1)", "(not (= (+ x y) 0))", "  (<= (* a 2) b)\n", "(> x 1)", "(< x"]
    assert grammar_conformance(GRAMMAR, terms) == pytest.approx(3 / 5)
    assert grammar_conformance(GRAMMAR, []) == 0.0


@pytest.mark.parametrize(
    "grammar",
    ["term: NUM\nNUM: /[0-9]+/\n", "start: undefined_rule\n", "start: (\n", "start: /a(/\n"],
)
def test_grammar_that_does_not_load(grammar: str) -> None:
    with pytest.raises(GrammarLoadError, match="grammar does not load"):
        grammar_conformance(grammar, ["1"])


def test_operator_coverage_counts_heads_indexed_heads_and_constants() -> None:
    doc = parse_theory_doc(DOC, "Toy.md")
    terms = [
        "(= ((_ extract 3 0) x) #x0)",
        '(str.in_re (str.++ s "bvudiv") re.allchar)',  # a name inside a string does not count
    ]
    share, missing = operator_coverage(doc, terms)
    assert missing == ["+", "bvudiv"]
    assert share == pytest.approx(3 / 5)
    assert operator_coverage(doc, ["(+ |bvudiv| 1)"])[1] == ["extract", "re.allchar", "str.++"]


def test_normalise_error_collapses_positions_and_names() -> None:
    a = normalise_error("line 10 column 13: unknown constant i7")
    b = normalise_error("line 99 column 2: unknown constant bv12 (Int) ")
    assert a == "unknown constant <sym>"
    assert b == "unknown constant <sym> (Int)"
    assert normalise_error("Sorts (_ BitVec 8) and (_ BitVec 4) are incompatible") == (
        "Sorts (_ BitVec N) and (_ BitVec N) are incompatible"
    )
    assert normalise_error("Parse Error: /tmp/a.smt2:5.10: Symbol 'x' not declared") == (
        "Parse Error: Symbol <sym> not declared"
    )


def test_distinct_errors_are_deduplicated_by_frequency() -> None:
    verdicts = [
        TermVerdict("", "t", False, {"z3": "line 3 column 1: unknown constant a1"}),
        TermVerdict("", "t", False, {"z3": "line 5 column 9: unknown constant b2"}),
        TermVerdict("", "t", True, {"cvc5": "Parse Error: f.smt2:2.3: Symbol 'q' not declared"}),
        TermVerdict("", "t", True, {}),
    ]
    assert distinct_errors(verdicts) == [
        "z3: unknown constant <sym>",
        "cvc5: Parse Error: Symbol <sym> not declared",
    ]
    assert distinct_errors(verdicts, limit=1) == ["z3: unknown constant <sym>"]


def test_term_text_helpers() -> None:
    assert is_balanced('(and (= s "a)(") |x)| b)')
    assert not is_balanced("(and a b")
    assert not is_balanced("a) (b")
    assert not is_balanced('(= s "abc)')
    assert not is_balanced('(= s "a"")')
    assert is_balanced('(= s """")')  # one escaped quote
    assert symbols('((_ extract 3 0) |odd name| "str.len" #b01 12 :named) ; c\n') == {
        "_",
        "extract",
        "odd name",
    }
    decls = "(declare-const x Int) ; note\n(define-fun f ((y Int)) Int (+ y 1))"
    assert command_heads(decls) == ["declare-const", "define-fun"]
    assert only_declarations(decls) and only_declarations("")
    assert not only_declarations("(declare-const x Int) (check-sat)")
    assert not only_declarations("(push 1)") and not only_declarations("x")
