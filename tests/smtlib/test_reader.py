"""Reading and printing SMT-LIB scripts."""

from __future__ import annotations

import pytest

from sphinxfuzz.smtlib import (
    Atom,
    SList,
    SmtParseError,
    parse_file,
    parse_script,
    parse_term,
    print_node,
    print_script,
)
from sphinxfuzz.smtlib.lexer import blotted

DIALECT_SCRIPT = r"""
; a comment (with parens) that must vanish
(set-info :status sat)
(set-option :produce-models true)
(set-logic ALL)
(declare-datatypes ((List 1)) ((par (T) ((nil) (cons (hd T) (tl (List T)))))))
(declare-const |weird name| (List Int))
(declare-fun s () String)
(define-sort Word () (_ BitVec 16))
(declare-const w Word)
(assert (! (= s "a""b\u{48}") :named quoted))
(assert (= w (bvadd #x00ff #b0000000000000001 (_ bv3 16))))
(assert (forall ((x Int)) (! (> (+ x 1) x) :pattern ((+ x 1)))))
(assert (let ((y 2.5)) (> (to_real 3) y)))
(assert (= ((_ extract 7 0) w) ((_ zero_extend 4) #x0)))
(assert ((_ is cons) |weird name|))
(assert (match |weird name| ((nil false) ((cons h t) (> h 0)))))
(push 1)
(check-sat-using (then simplify smt))
(pop 1)
(echo "done ; not a comment")
(check-sat)
(get-model)
"""


def test_reads_dialect_features_and_prints_them_back() -> None:
    script = parse_script(DIALECT_SCRIPT, "dialect.smt2")
    assert [c.head_name() for c in script.commands][:4] == [
        "set-info",
        "set-option",
        "set-logic",
        "declare-datatypes",
    ]
    printed = print_script(script)
    assert "must vanish" not in printed
    assert '"a""b\\u{48}"' in printed
    assert "|weird name|" in printed
    assert '(echo "done ; not a comment")' in printed
    # printing is a fixed point
    assert print_script(parse_script(printed)) == printed


def test_atoms_keep_kind_and_position() -> None:
    node = parse_term('(f |a b| #b101 #xFF 12 1.5 "s" :k)', "t")
    assert isinstance(node, SList)
    kinds = [item.kind for item in node.items if isinstance(item, Atom)]
    assert kinds == ["symbol", "symbol", "binary", "hex", "numeral", "decimal", "string", "keyword"]
    quoted = node.items[1]
    assert isinstance(quoted, Atom) and quoted.name == "a b" and quoted.pos == (1, 4)


def test_quoted_and_plain_symbols_are_the_same_symbol() -> None:
    assert parse_term("|x|") == parse_term("x")


@pytest.mark.parametrize(
    ("text", "where", "cause"),
    [
        ("(assert (> x 0)", "1:1", "never closed"),
        ("(assert true))", "1:14", "unbalanced"),
        ('(echo "open)', "1:7", "unterminated string"),
        ("(declare-fun |a () Int)", "1:14", "quoted symbol"),
        ("\n\n  (assert true) stray", "3:17", "expected a command"),
        ("(assert (= x {))", "1:14", "unexpected character"),
        ("((assert true))", "1:1", "must start with its name"),
    ],
)
def test_errors_name_file_line_column_and_cause(text: str, where: str, cause: str) -> None:
    with pytest.raises(SmtParseError) as excinfo:
        parse_script(text, "bad.smt2")
    message = str(excinfo.value)
    assert message.startswith(f"bad.smt2:{where}: "), message
    assert cause in message


def test_parse_file_reports_non_utf8(tmp_path) -> None:
    path = tmp_path / "latin.smt2"
    path.write_bytes(b'(assert true)\n(echo "\xe9")\n')
    with pytest.raises(SmtParseError, match=r"latin.smt2:2:8: not UTF-8"):
        parse_file(path)


def test_deep_nesting_prints_without_recursion() -> None:
    depth = 20_000
    text = "(assert " + "(not " * depth + "true" + ")" * depth + ")"
    script = parse_script(text)
    assert print_node(script.commands[0]) == text


def test_blotted_keeps_offsets_and_hides_what_strings_symbols_and_comments_hold() -> None:
    text = '(echo "a)""b") ; (exit)\n(assert |(x|) "open'
    plain = blotted(text)
    assert len(plain) == len(text)
    assert plain == '(echo xxxxxxx) xxxxxxxx\n(assert xxxx) "open'
