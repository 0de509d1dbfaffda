"""Seeds in cvc4's and SMT-LIB 2.5's syntax, upgraded to today's names and run by real
cvc5 and z3: rejected before, answered after; a name the script declares itself stays."""

from __future__ import annotations

from pathlib import Path

import pytest
from seed_helpers import CVC5, answer, seed_of

from sphinxfuzz.mutate.upgrade import old_names, own_names, upgraded
from sphinxfuzz.solvers import Outcome, run_solver

# cvc4 1.8's set names: x is in a and b, so in their intersection, which has one element
OLD_SETS = """(set-logic QF_UFLIAFS)
(declare-const x Int)
(declare-const a (Set Int))
(declare-const b (Set Int))
(assert (member x (intersection a b)))
(assert (= (card (intersection a b)) 1))
(assert (subset (singleton x) (union a (as emptyset (Set Int)))))
(assert (not (member (+ x 1) (setminus (insert (+ x 1) a) a))))
(check-sat)
"""
# SMT-LIB 2.5's string names, and re.loop with its bounds as arguments: z3 still reads them
OLD_STRINGS = """(set-logic QF_SLIA)
(declare-const s String)
(declare-const n Int)
(assert (str.in.re s (re.loop (str.to.re "ab") 1 2)))
(assert (= n (str.to.int (int.to.str (str.len s)))))
(assert (> n 4))
(check-sat)
"""
# `member`, `card` and `union` are the script's own here, and so is the bound `insert`
OWN_NAMES = """(set-logic ALL)
(declare-fun member (Int Int) Bool)
(define-fun card ((union Int)) Int (+ union 1))
(declare-const x Int)
(assert (member x (card x)))
(assert (let ((insert (card 2))) (> insert x)))
(check-sat)
"""


def test_old_set_names_become_todays_and_cvc5_answers(tmp_path: Path) -> None:
    seed = seed_of(tmp_path, OLD_SETS)
    assert answer(1, seed.text) == Outcome.ERROR and answer(0, seed.text) == Outcome.ERROR
    new = upgraded(seed)
    assert new is not None and new.path == seed.path
    for name in ("set.member", "set.inter", "set.card", "set.subset", "set.singleton"):
        assert f"({name} " in new.text
    assert "(as set.empty (Set Int))" in new.text and "(set.minus (set.insert " in new.text
    assert "(member " not in new.text and "emptyset" not in new.text
    assert answer(1, new.text) == Outcome.SAT
    assert "(member x" in seed.text  # the seed itself is left as read


def test_old_string_names_and_re_loop_are_answered_by_both(tmp_path: Path) -> None:
    seed = seed_of(tmp_path, OLD_STRINGS)
    assert answer(1, seed.text) == Outcome.ERROR
    new = upgraded(seed)
    assert new is not None
    assert '(str.in_re s ((_ re.loop 1 2) (str.to_re "ab")))' in new.text
    assert "(str.to_int (str.from_int (str.len s)))" in new.text
    assert answer(0, new.text) == Outcome.UNSAT and answer(1, new.text) == Outcome.UNSAT


# cvc4's empty tuple: its sort bare or in parentheses, its value bare or applied to nothing;
# it has one value, so two of them differ in no model; `mkTuple` with arguments is `tuple`
OLD_UNIT = """(set-logic ALL)
(declare-const a Tuple)
(declare-fun b () (Tuple))
(declare-const c (Tuple Int Bool))
(assert (= c (mkTuple 1 true)))
(assert (or (distinct a mkTuple) (distinct b (mkTuple)) (distinct a b)))
(check-sat)
"""


def test_cvc4s_empty_tuple_becomes_the_unit_tuple(tmp_path: Path) -> None:
    seed = seed_of(tmp_path, OLD_UNIT)
    assert answer(1, seed.text) == Outcome.ERROR
    new = upgraded(seed)
    assert new is not None
    assert "(declare-const a UnitTuple)" in new.text
    assert "(declare-fun b () UnitTuple)" in new.text
    assert "(distinct a tuple.unit) (distinct b tuple.unit)" in new.text
    assert "(= c (tuple 1 true))" in new.text and "(Tuple Int Bool)" in new.text
    assert answer(1, new.text) == Outcome.UNSAT
    sat = OLD_UNIT.replace("(or (distinct a mkTuple)", "(or (= a mkTuple)")
    assert answer(1, (upgraded(seed_of(tmp_path, sat, "sat.smt2")) or seed).text) == Outcome.SAT


def test_names_the_script_declares_or_binds_are_its_own(tmp_path: Path) -> None:
    seed = seed_of(tmp_path, OWN_NAMES)
    assert {"member", "card", "union", "insert", "x"} <= own_names(seed.script)
    assert upgraded(seed) is None
    assert answer(0, seed.text) == Outcome.SAT and answer(1, seed.text) == Outcome.SAT
    # one name its own, another the old operator: only the operator is renamed
    mixed = seed_of(
        tmp_path,
        "(set-logic ALL)\n(declare-fun member (Int) Bool)\n(declare-const a (Set Int))\n"
        "(assert (and (member 1) (= (card a) 0)))\n(check-sat)\n",
        "mixed.smt2",
    )
    new = upgraded(mixed)
    assert new is not None and "(member 1)" in new.text and "(set.card a)" in new.text
    assert answer(1, new.text) == Outcome.SAT


def test_a_seed_in_todays_syntax_is_left_alone(tmp_path: Path) -> None:
    seed = seed_of(
        tmp_path, "(declare-const s String)\n(assert (str.in_re s re.all))\n(check-sat)\n"
    )
    assert upgraded(seed) is None


INDEXED = {"tupSel", "tuple_project"}  # names of indexed operators: `((_ tupSel 0) t)`


@pytest.mark.parametrize("old", sorted(old_names().renamed))
def test_every_new_name_is_one_cvc5_knows(old: str) -> None:
    """The table's new names are cvc5 1.x operators: as an undeclared constant, each is
    rejected for its arguments or sort, never as an unknown symbol (which the old name is)."""
    new = old_names().renamed[old]
    for name, known in ((old, False), (new, True)):
        term = f"((_ {name} 0) 1)" if old in INDEXED else f"({name})"
        text = f"(set-logic ALL)\n(assert {term})\n(check-sat)\n"
        result = run_solver(CVC5, text, timeout=20.0)
        unknown = "not declared" in result.failure_line or "Unknown" in result.failure_line
        assert result.outcome == Outcome.ERROR and unknown != known, (name, result.failure_line)


def test_a_seed_nested_thousands_deep_is_upgraded_without_recursion(tmp_path: Path) -> None:
    body = "(member x a)"
    for _ in range(5000):
        body = f"(not {body})"
    text = f"(declare-const x Int)\n(declare-const a (Set Int))\n(assert {body})\n(check-sat)\n"
    new = upgraded(seed_of(tmp_path, text))
    assert new is not None and "(set.member x a)" in new.text and "(member" not in new.text
