"""Seeds whose reporter left declarations out, given them from the uses and run by real z3
and cvc5: rejected before, answered after; a symbol whose sort its uses leave open, or one
first used inside a push, leaves the seed as written; one whose every place takes any sort
is of an open sort."""

from __future__ import annotations

from pathlib import Path

from seed_helpers import answer, seed_of

from sphinxfuzz.mutate.declare import declared
from sphinxfuzz.solvers import Outcome

# `U` is never declared, nor are `k` (an Int: it is added to 1), `p` (a Bool: asserted),
# `f` (applied to `k`, compared with `n`: Int to Int, once `k` is known) and `g` (U to U)
MISSING = """(set-logic ALL)
(declare-const n Int)
(declare-const u U)
(assert (= (f k) n))
(assert (> (+ k 1) 2))
(assert (distinct (g u) u))
(assert p)
(check-sat)
"""


def test_missing_sort_and_symbols_are_declared_and_bothanswer(tmp_path: Path) -> None:
    seed = seed_of(tmp_path, MISSING)
    assert answer(0, seed.text) == Outcome.ERROR and answer(1, seed.text) == Outcome.ERROR
    new = declared(seed)
    assert new is not None and new.path == seed.path
    lines = new.text.splitlines()
    assert lines[:2] == ["(set-logic ALL)", "(declare-sort U 0)"]
    for declaration in (
        "(declare-fun k () Int)",
        "(declare-fun f (Int) Int)",
        "(declare-fun g (U) U)",
        "(declare-fun p () Bool)",
    ):
        assert declaration in lines
    assert lines.index("(declare-fun p () Bool)") == lines.index("(assert p)") - 1
    assert answer(0, new.text) == Outcome.SAT and answer(1, new.text) == Outcome.SAT
    assert declared(new) is None  # nothing left to declare


def test_a_sort_applied_to_arguments_is_declared_with_that_arity(tmp_path: Path) -> None:
    seed = seed_of(tmp_path, "(declare-const x (Box Int))\n(assert (= x x))\n(check-sat)\n")
    new = declared(seed)
    assert new is not None and new.text.startswith("(declare-sort Box 1)\n")
    assert answer(0, new.text) == Outcome.SAT and answer(1, new.text) == Outcome.SAT


def test_symbols_their_uses_leave_open_leave_the_seed_as_written(tmp_path: Path) -> None:
    # `a` and `b` are Ints or Reals, nothing says which: not guessed, nor of an open sort
    ambiguous = "(declare-const c Int)\n(assert (< a b))\n(assert (> c 0))\n(check-sat)\n"
    assert declared(seed_of(tmp_path, ambiguous)) is None
    # a quantifier's body takes no sort but Bool: `q` and `r` are not of an open sort
    body = "(assert (forall ((x Int)) (q x)))\n(assert (exists ((y Int)) r))\n(check-sat)\n"
    assert declared(seed_of(tmp_path, body)) is None
    # two uses that disagree: an Int once, a Bool once
    conflicting = "(assert (> a 0))\n(assert (and a true))\n(check-sat)\n"
    assert declared(seed_of(tmp_path, conflicting)) is None
    # first used inside a push: a declaration there would be forgotten by the pop
    scoped = "(push 1)\n(assert (> a 0))\n(pop 1)\n(assert (< a 0))\n(check-sat)\n"
    assert declared(seed_of(tmp_path, scoped)) is None
    # an operator of a theory's namespace the sort table lacks is no symbol of the reporter's
    theory = "(declare-const s (Set Int))\n(assert (set.is_tiny s))\n(check-sat)\n"
    assert declared(seed_of(tmp_path, theory)) is None
    # declares everything it uses
    assert declared(seed_of(tmp_path, "(declare-const a Int)\n(assert (> a 0))\n")) is None


# `a`, `b` and the values of `f` are compared with nothing that has a sort: an open sort's;
# `size` of one is an Int. f is a function, so equal arguments give equal values
OPEN = """(set-logic ALL)
(assert (distinct a b))
(assert (= (f a) (f b)))
(assert (> (size a) 0))
(check-sat)
"""


def test_symbols_only_compared_with_each_other_are_of_an_open_sort(tmp_path: Path) -> None:
    seed = seed_of(tmp_path, OPEN)
    assert answer(0, seed.text) == Outcome.ERROR and answer(1, seed.text) == Outcome.ERROR
    new = declared(seed)
    assert new is not None
    lines = new.text.splitlines()
    assert lines[:2] == ["(set-logic ALL)", "(declare-sort Open 0)"]
    for declaration in (
        "(declare-fun a () Open)",
        "(declare-fun b () Open)",
        "(declare-fun f (Open) Open)",
        "(declare-fun size (Open) Int)",
    ):
        assert declaration in lines
    assert answer(0, new.text) == Outcome.SAT and answer(1, new.text) == Outcome.SAT
    # the same uses, but equal arguments: congruence makes the values equal too
    same = OPEN.replace("(distinct a b)", "(= a b)").replace("(= (f a)", "(distinct (f a)")
    new = declared(seed_of(tmp_path, same, "same.smt2"))
    assert new is not None and "(declare-fun f (Open) Open)" in new.text
    assert answer(0, new.text) == Outcome.UNSAT and answer(1, new.text) == Outcome.UNSAT
    # a script that names a sort `Open` itself keeps it: the fresh one is another
    own = "(declare-sort Open 0)\n(declare-const o Open)\n" + OPEN.replace("(set-logic ALL)\n", "")
    new = declared(seed_of(tmp_path, own, "own.smt2"))
    assert new is not None and "(declare-sort Open1 0)" in new.text
    assert answer(0, new.text) == Outcome.SAT and answer(1, new.text) == Outcome.SAT


def test_an_undeclared_functions_applications_and_a_select_pin_sorts_down(
    tmp_path: Path,
) -> None:
    # g's argument is an Int in one application, so `(h true)` is an Int in the other;
    # `arr` of x is read by `select` at an Int and compared with 0: an Int array
    text = (
        "(declare-const x Int)\n(assert (< (g (h true)) 5))\n(assert (> (g 2) 0))\n"
        "(assert (> (select (arr x) 1) 0))\n(check-sat)\n"
    )
    seed = seed_of(tmp_path, text)
    new = declared(seed)
    assert new is not None
    for declaration in (
        "(declare-fun g (Int) Int)",
        "(declare-fun h (Bool) Int)",
        "(declare-fun arr (Int) (Array Int Int))",
    ):
        assert declaration in new.text
    assert "Open" not in new.text
    assert answer(0, new.text) == Outcome.SAT and answer(1, new.text) == Outcome.SAT
