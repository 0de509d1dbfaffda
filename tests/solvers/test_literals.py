"""String literals an old release reads as another formula are rejections, never runs."""

from __future__ import annotations

import pytest

from sphinxfuzz.solvers import Outcome, parse_specs, run_solver
from sphinxfuzz.solvers.persistent import PersistentSolver
from sphinxfuzz.solvers.spec import with_options
from sphinxfuzz.solvers.string_escapes import (
    REASON,
    _reads_unicode_escapes,
    escapes,
    reads_unicode_escapes,
)

# sat in SMT-LIB 2.6 (one character, code point 0); unsat where `\u{0}` is five characters
ZERO = (
    '(declare-const s String)\n(assert (= s "\\u{0}"))\n(assert (= (str.len s) 1))\n(check-sat)\n'
)


def test_only_backslashes_inside_string_literals_count() -> None:
    assert escapes(ZERO)
    assert escapes('(assert (= s "a\\\\b"))')
    assert not escapes('(assert (= s "plain"))')
    assert not escapes('(assert (= |a\\b| s)) ; a "\\u{0}" in a comment\n')


@pytest.mark.usefixtures("z3_4_8_8")
def test_an_old_z3_is_not_run_on_escapes_it_misreads() -> None:
    old, newest = parse_specs("z3@4.8.8;z3")
    assert not reads_unicode_escapes(old) and reads_unicode_escapes(newest)
    assert run_solver(newest, ZERO).outcome == Outcome.SAT
    for result in (run_solver(old, ZERO), PersistentSolver(old).run(ZERO, timeout=10)):
        assert (result.outcome, result.failure_line) == (Outcome.ERROR, REASON)
    plain = ZERO.replace("\\u{0}", "a")
    assert run_solver(old, plain).outcome == Outcome.SAT  # no backslash: run as before
    # asked once per release: a position's options (a new command line) ask nothing again
    probes = _reads_unicode_escapes.cache_info().misses
    assert not reads_unicode_escapes(with_options(old, ("smt.arith.solver=2",)))
    assert _reads_unicode_escapes.cache_info().misses == probes
