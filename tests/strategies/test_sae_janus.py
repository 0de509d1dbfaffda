"""SAE and Janus: proved approximation rules, literal parity, answers kept in z3 and cvc5."""

from __future__ import annotations

import random

from sphinxfuzz.smtlib import parse_script, print_node, print_script
from sphinxfuzz.strategies import get
from sphinxfuzz.strategies.janus import JanusStrategy
from sphinxfuzz.strategies.literals import approximations, literals
from sphinxfuzz.strategies.rules import RuleError, load_rules, prove, read_table
from sphinxfuzz.strategies.sae import SaeStrategy

from .batching import answers, assert_expected
from .seeds import FAST_LOGICS, SOLVERS, labelled, logic


def test_rules_are_proved_and_the_unsound_one_is_refuted() -> None:
    rules = read_table("approximations.json")
    proved = [r for r in rules if "excluded" not in r.row]
    excluded = [r for r in rules if "excluded" in r.row]
    assert {str(r.row["sort"]) for r in proved} >= {
        "Int",
        "Real",
        "(_ BitVec 8)",
        "Float32",
        "String",
    }
    assert [r.name for r in excluded] == ["str-suffixof-le"]
    assert len(approximations()) == len(proved)
    for spec in SOLVERS:
        assert prove(proved, lambda text, spec=spec: answers(spec, text)) == [], spec.name
        # the excluded rule's negated claim has a model (x = "b", y = "ab")
        assert [a for _, a in prove(excluded, lambda text, spec=spec: answers(spec, text))] == [
            "sat"
        ]


def test_loader_refuses_an_unproved_rule(tmp_path, monkeypatch) -> None:
    import json

    from sphinxfuzz.strategies import rules as rules_module

    table = json.loads((rules_module.HERE / "approximations.json").read_text())
    table["rules"][0]["to"] = "(> x y)"
    table["rules"][0]["claim"] = "(=> (< x y) (> x y))"
    (tmp_path / "approximations.json").write_text(json.dumps(table))
    monkeypatch.setattr(rules_module, "HERE", tmp_path)
    try:
        load_rules("approximations.json")
    except RuleError as exc:
        assert "int-lt-le" in str(exc) and "not proved" in str(exc)
    else:
        raise AssertionError("an edited rule was loaded without a proof")


def test_parity() -> None:
    script = parse_script(
        "(declare-const a Int)(declare-const p Bool)"
        "(assert (and (< a 1) (not (or (> a 5) (=> (= a 2) (<= a 3)))) (ite p (= a 0) (< a 9)) (xor p (< a 4))))"
    )
    found = {print_node(parent.items[i]): parity for parent, i, parity in literals(script)}
    assert found == {
        "(< a 1)": 1,
        "(> a 5)": -1,
        "(= a 2)": 1,
        "(<= a 3)": -1,
        "(= a 0)": 1,
        "(< a 9)": 1,
    }


def _cases(strategy, count: int, rng: random.Random) -> list:
    for seed, answer in labelled():
        if logic(seed) in FAST_LOGICS:
            strategy.add(seed, answer)
    paths = sorted(p for p in strategy.labels)
    seeds = {seed.path: seed for seed, _ in labelled()}
    cases: list = []
    while len(cases) < count:
        seed = seeds[rng.choice(paths)]
        cases += list(strategy.mutants(seed, rng))[: count - len(cases)]
    return cases


def test_100_sae_mutants_keep_their_answer() -> None:
    # bench/strategies.py counts wrong rewrites over whole campaigns (construction doubts)
    cases = _cases(SaeStrategy(per_seed=2), 100, random.Random(21))
    assert {c.expected for c in cases} == {"sat", "unsat"}
    assert any(r.startswith("lpi") for c in cases for r in c.provenance["rules"])
    assert any(not r.startswith("lpi") for c in cases for r in c.provenance["rules"])
    assert_expected(SOLVERS, [c.script for c in cases], [c.expected for c in cases])


def test_janus_relates_each_mutant_to_its_seed() -> None:
    sae = _cases(SaeStrategy(per_seed=2), 20, random.Random(5))
    janus = _cases(JanusStrategy(per_seed=2), 20, random.Random(5))
    # the same rewriting, so the SAE test's solver checks cover Janus's mutants too
    assert [print_script(c.script) for c in sae] == [print_script(c.script) for c in janus]
    for case in janus:
        assert case.related is not None and case.related.expected == case.expected
        assert case.related.provenance["seed"] == case.provenance["seed"]
    assert get("janus").oracle == get("sae").oracle
