"""The string semantics against z3 and cvc5, and strings-by-construction formulas."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from sphinxfuzz.mutate.seed import load_seed
from sphinxfuzz.oracle.string_semantics import evaluate, literal, quote, unquote
from sphinxfuzz.smtlib import Atom, SList, parse_term, print_node, print_script, sym
from sphinxfuzz.solvers import parse_specs
from sphinxfuzz.strategies import get
from sphinxfuzz.strategies.rules import batch_script, prove, read_table
from sphinxfuzz.strategies.strings import Pool, _grow, sat_formula, unsat_formula

from .batching import answers, assert_expected

SKELETONS = Path(__file__).resolve().parents[2] / "skeletons"
SOLVERS = parse_specs("z3;cvc5")

EDGE_CASES = [
    ('(str.at "abc" 3)', ""),
    ('(str.at "abc" (- 1))', ""),
    ('(str.substr "abcde" 1 10)', "bcde"),
    ('(str.substr "abc" 3 1)', ""),
    ('(str.substr "abc" 0 (- 1))', ""),
    ('(str.replace "abab" "b" "x")', "axab"),
    ('(str.replace "ab" "" "x")', "xab"),
    ('(str.replace_all "abab" "b" "x")', "axax"),
    ('(str.replace_all "ab" "" "x")', "ab"),
    ('(str.replace_all "aaa" "aa" "b")', "ba"),
    ('(str.indexof "abc" "" 3)', 3),
    ('(str.indexof "abc" "" 4)', -1),
    ('(str.indexof "abcb" "b" 2)', 3),
    ('(str.to_int "007")', 7),
    ('(str.to_int "")', -1),
    ('(str.to_int "-1")', -1),
    ("(str.from_int (- 5))", ""),
    ('(str.to_code "ab")', -1),
    ("(str.from_code 196608)", ""),
    ("(str.from_code 196607)", "\U0002ffff"),
    ('(str.< "a" "ab")', True),
    ('(str.< "\\u{e9}" "z")', False),
    ('(str.is_digit "7")', True),
    ('(str.is_digit "a")', False),
    ('(str.len "\\u{2ffff}\\u{0}")', 2),
]


def test_edge_cases_in_the_semantics() -> None:
    for text, value in EDGE_CASES:
        assert evaluate(parse_term(text), {}) == value, text


def test_quote_round_trips() -> None:
    for s in ["", 'a"b', "\\u{41}", "\x00\x7f\ud800\U0002ffff", "plain text"]:
        assert unquote(quote(s)) == s


def _ground_terms(count: int, rng: random.Random) -> list[tuple[object, object]]:
    pool = Pool()
    for value in ["", "ab", "a\u00e9b", "007", "\U0002ffff", "\\u"]:
        pool.add("String", literal(value), value)
    for number in [-1, 0, 1, 2, 3, 48, 196607, 196608]:
        pool.add("Int", literal(number), number)
    _grow(pool, rng, count)
    return [t for sort in ("String", "Int", "Bool") for t in pool.terms[sort]]


@pytest.mark.parametrize("spec", SOLVERS, ids=lambda s: s.name)
def test_semantics_agrees_with_solver(spec) -> None:
    rng = random.Random(7)
    terms = _ground_terms(400, rng) + [(parse_term(t), v) for t, v in EDGE_CASES]
    lines = ["(set-logic ALL)"]
    for node, value in terms:
        lines.append(
            f"(push 1)(assert (not (= {print_node(node)} {print_node(literal(value))})))(check-sat)(pop 1)"
        )
    got = answers(spec, "\n".join(lines) + "\n")
    wrong = [print_node(terms[i][0]) for i, a in enumerate(got) if a != "unsat"]
    assert len(got) == len(terms) and not wrong, wrong[:5]


def test_equivalences_are_proved_by_both_solvers() -> None:
    rules = read_table("string_equivalences.json")
    assert {r.name for r in rules} >= {
        "at",
        "from_int",
        "contains",
        "prefixof",
        "suffixof",
        "replace_first",
    }
    for spec in SOLVERS:
        assert prove(rules, lambda text, spec=spec: answers(spec, text)) == [], spec.name
    assert "(check-sat)" in batch_script(rules)


def test_generated_formulas_have_their_expected_answers() -> None:
    rng = random.Random(2026)
    formulas = [sat_formula(rng) if k % 2 else unsat_formula(rng) for k in range(200)]
    scripts = [f.script() for f in formulas]
    # z3 leaves a few sat ones with str.replace_all `unknown`; no answer may contradict
    assert_expected(SOLVERS, scripts, [f.expected for f in formulas])


def test_strategy_is_registered_and_reproducible() -> None:
    strategy = get("strings")
    seed = load_seed(SKELETONS / "str_prefix_suffix.smt2")
    assert strategy.applies(seed)
    first = [print_script(t.script) for t in strategy.mutants(seed, random.Random(3))]
    again = [print_script(t.script) for t in strategy.mutants(seed, random.Random(3))]
    assert first == again and len(first) == 10


def test_sat_model_satisfies_every_assertion() -> None:
    formula = sat_formula(random.Random(5))
    for node in formula.assertions:
        assert evaluate(node, formula.model) is True
    assert isinstance(formula.assertions[0], (Atom, SList)) and sym("x").name == "x"
