"""A generated pair read and typed once for the capability check and the mutator."""

from __future__ import annotations

import pytest

from sphinxfuzz.smtlib import SmtParseError
from sphinxfuzz.smtlib.generated import read_generated
from sphinxfuzz.smtlib.sorts import BOOL, INT


def test_a_pair_is_read_once_and_typed() -> None:
    decls, term = "(declare-const g_x Int)", "(> (+ g_x 1) 0)"
    pair = read_generated(decls, term)
    assert read_generated(decls, term) is pair  # the mutator gets what the check read
    assert pair.info.sort_of(pair.term) == BOOL
    assert pair.info.symbols.constants()["g_x"] == INT
    assert [c.head_name() for c in pair.commands] == ["declare-const"]


def test_a_pair_that_does_not_parse_raises_each_time() -> None:
    for _ in range(2):
        with pytest.raises(SmtParseError):
            read_generated("(declare-const g_x Int)", "(> g_x")
