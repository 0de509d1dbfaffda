"""A persistent process answers exactly as a fresh one, whatever the script holds (issue 14).

The old z3 framing removed every `(exit)` from the text, also inside string literals, so
`(= s "(exit)")` became `(= s "")`. Scripts here put `(exit)`, `(reset)`, the end markers,
parentheses, comment starts and escaped quotes inside strings and quoted symbols, and a real
`(exit)` between commands.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sphinxfuzz.solvers import parse_specs, run_solver
from sphinxfuzz.solvers.persistent import PersistentSolver, stream_form

PIECES = ["(exit)", "(reset)", ";; sphinxfuzz-end 0", "sphinxfuzz-done-1", ")", "(", ";", " ", "a"]
STRING_PIECES = [*PIECES, '""']  # "" is an escaped quote inside a string literal
SYMBOL_PIECES = PIECES  # a quoted symbol holds anything but | and \

texts = st.lists(st.sampled_from(STRING_PIECES), max_size=4).map("".join)
symbols = st.lists(st.sampled_from(SYMBOL_PIECES), min_size=1, max_size=4).map("".join)


def script(text: str, symbol: str, exit_between: bool, length: int) -> str:
    lines = [
        "(declare-const s String)",
        f"(declare-const |{symbol}| Int)",
        f'(assert (= s "{text}"))',
        f"(assert (= (str.len s) {length}))",
        f"(assert (= |{symbol}| 3))",
        "(check-sat)",
    ]
    if exit_between:
        lines.append("(exit)")
    lines += ["(assert false)", "(check-sat)"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module", params=["z3", "cvc5"])
def solver(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    with PersistentSolver(parse_specs(request.param)[0]) as persistent:
        yield persistent


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=texts, symbol=symbols, exit_between=st.booleans(), off_by=st.sampled_from([0, 1]))
@example(text="(exit)", symbol="x", exit_between=False, off_by=0)  # the reported case
@example(text='"";; sphinxfuzz-end 0', symbol="(reset)", exit_between=True, off_by=0)
def test_persistent_answers_as_a_fresh_process(
    solver: PersistentSolver, text: str, symbol: str, exit_between: bool, off_by: int
) -> None:
    length = len(text.replace('""', '"')) + off_by
    source = script(text, symbol, exit_between, length)
    fresh = run_solver(solver.spec, source, timeout=10)
    kept = solver.run(source, timeout=10)
    assert (kept.outcome, kept.answers) == (fresh.outcome, fresh.answers), source
    expected = ["sat" if off_by == 0 else "unsat"] + ([] if exit_between else ["unsat"])
    assert fresh.answers == expected, source


def test_stream_form_cuts_at_the_first_top_level_exit_only() -> None:
    assert stream_form('(echo "(exit)")\n(exit)\n(check-sat)\n') == '(echo "(exit)")\n'
    assert stream_form("(assert |(exit)|)\n; (exit)\n(check-sat)\n") is not None
    assert stream_form("(assert |(exit)|)\n; (exit)\n(check-sat)\n").endswith("(check-sat)\n")
    assert stream_form("(push 1)\n( exit )") == "(push 1)\n"
    for unclosed in ('(echo "never closed)\n', "(assert |open\n", "(assert (= x 1)\n", "x)\n"):
        assert stream_form(unclosed) is None


def test_stream_form_reads_parentheses_only_outside_strings_symbols_and_comments() -> None:
    # what stands between a parenthesis and `exit` makes it no command
    assert stream_form('(echo "" exit)\n(check-sat)\n') == '(echo "" exit)\n(check-sat)\n'
    assert stream_form("(|x| exit)\n(; c\nexit)\n") == "(|x| exit)\n(; c\nexit)\n"
    # a top-level (exit) before what never closes ends the script there
    assert stream_form('(check-sat)\n(exit)\n(echo "open\n') == "(check-sat)\n"
    assert stream_form("(a (exit))\n(exit)") == "(a (exit))\n"
    # a parenthesis closed too early, before or after an (exit) nested in a command
    assert stream_form("(a))\n(b)\n(exit)") is None
    assert stream_form("(a (exit)))") is None
    # quotes and parentheses inside comments and strings count for nothing
    assert stream_form('; it\'s "half\n(echo ")(")\n') == '; it\'s "half\n(echo ")(")\n'


def test_scripts_that_do_not_close_run_fresh(solver: PersistentSolver) -> None:
    for source in ('(check-sat)\n(echo "unclosed\n', "(check-sat)\n(assert (= 1 1)\n"):
        fresh = run_solver(solver.spec, source, timeout=10)
        kept = solver.run(source, timeout=10)
        assert (kept.outcome, kept.answers) == (fresh.outcome, fresh.answers)
