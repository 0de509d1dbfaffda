"""Property tests: the reader raises nothing but its own parse error, and typing what it read
raises nothing at all."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sphinxfuzz.smtlib import SmtParseError, infer_sorts, parse_script, print_script

SAMPLE = """(set-logic ALL)
(declare-datatypes ((L 0)) (((nil) (cons (hd Int) (tl L)))))
(declare-fun f (Int (_ BitVec 4)) Bool)
(declare-const |q s| String)
(define-fun g ((x Int)) Int (ite (> x 0) x (- x)))
(assert (forall ((y Int)) (! (f (g y) #b1010) :pattern ((g y)) :named ax)))
(assert (let ((z (str.++ "a""b" |q s|))) (str.in_re z (re.* re.allchar))))
(assert (match nil ((nil true) ((cons h t) (> h 0)))))
(assert ((_ to_fp 8 24) RNE 1.5))
(push 2)(check-sat)(pop 1)(get-model)
"""

ALPHABET = st.sampled_from(list('()|";:#_ \n\tabxyz019.-+=<>!@$%^&*?/\\{}[]~') + ["\u00e9"])
_settings = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def read_and_type(text: str) -> None:
    try:
        script = parse_script(text, "fuzz.smt2")
    except SmtParseError as exc:
        assert str(exc).startswith("fuzz.smt2:")
        return
    infer_sorts(script, collect_sites=True)
    printed = print_script(script)
    assert print_script(parse_script(printed)) == printed


@_settings
@given(st.text(ALPHABET, max_size=200))
def test_random_text(text: str) -> None:
    read_and_type(text)


@_settings
@given(st.text(max_size=100))
def test_random_unicode(text: str) -> None:
    read_and_type(text)


@st.composite
def mutated_sample(draw: st.DrawFn) -> str:
    text = SAMPLE
    for _ in range(draw(st.integers(1, 6))):
        position = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["delete", "insert", "duplicate"]))
        if action == "delete":
            end = min(len(text), position + draw(st.integers(1, 12)))
            text = text[:position] + text[end:]
        elif action == "insert":
            text = (
                text[:position] + draw(st.text(ALPHABET, min_size=1, max_size=5)) + text[position:]
            )
        else:
            end = min(len(text), position + draw(st.integers(1, 40)))
            text = text[:position] + text[position:end] + text[position:]
    return text


@_settings
@given(mutated_sample())
def test_mutated_real_script(text: str) -> None:
    read_and_type(text)


def test_sample_itself_is_fully_typed() -> None:
    info = infer_sorts(parse_script(SAMPLE))
    assert info.fully_sorted, info.problems
