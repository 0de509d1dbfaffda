"""The table of options a formula needs per solver release, and what real solvers make of
formulas that carry them."""

from __future__ import annotations

import random
import shutil

from sphinxfuzz.mutate import Seed, mutate
from sphinxfuzz.mutate.mutant import with_needed_options
from sphinxfuzz.smtlib import parse_script
from sphinxfuzz.solvers import Outcome, parse_specs, run_solver, solver_version
from sphinxfuzz.solvers.options import load_rules, needed_options


def test_table_rules():
    assert load_rules()
    old, new = [("cvc5", "1.0.3")], [("cvc5", "1.1.2")]
    assert needed_options(old, {"str.contains"}) == ["strings-exp=true"]
    assert needed_options(old, {"bvadd"}) == []
    assert needed_options(new, {"str.contains"}) == []
    assert needed_options([("z3", "4.12.2")], {"str.contains"}, {"push": 1}) == []
    assert needed_options(new, set(), {"push": 1}) == ["incremental=true"]
    assert needed_options(new, set(), {"check-sat": 1}) == []
    assert needed_options(new, set(), {"check-sat": 2}) == ["incremental=true"]
    assert needed_options([("cvc5", "1.4.2")], {"const"}) == ["arrays-exp=true"]
    # the extended set operators' option, renamed in 1.3: each release gets its own name
    assert needed_options([("cvc5", "1.4.2")], {"set.complement"}) == ["sets-exp=true"]
    assert needed_options([("cvc5", "1.2.0")], {"set.universe"}) == ["sets-ext=true"]
    assert needed_options([("cvc5", "1.3.0"), ("cvc5", "1.0.3")], {"rel.join_image"}) == [
        "sets-ext=true",
        "sets-exp=true",
    ]
    assert needed_options([("cvc5", "1.4.2")], {"set.member"}) == []


def _cvc5_specs():
    texts = ["cvc5"] + (["/usr/bin/cvc5"] if shutil.which("/usr/bin/cvc5") else [])
    return parse_specs(";".join(texts))


class _Contains:
    """A string operator (cvc5 1.0 needs strings-exp) and a constant array (cvc5 1.4 needs
    arrays-exp)."""

    theories = ("Strings",)

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        term = '(and (str.contains t "a") (= (select ((as const (Array Int Int)) 0) 1) 0))'
        return "(declare-const t String)", term


def test_mutants_and_seeds_carry_what_each_release_needs():
    specs = _cvc5_specs()
    # as if cvc5 1.0 were a target, whatever is installed: the option must do no harm
    targets = [(s.family, solver_version(s)) for s in specs] + [("cvc5", "1.0.3")]

    def needed(operators, commands):
        return needed_options(targets, operators, commands)

    text = "(set-logic QF_LIA)\n(declare-const n Int)\n(push 1)\n(assert (> n 2))\n(check-sat)\n(pop 1)\n"
    seed = with_needed_options(Seed("<seed>", text, parse_script(text)), needed)
    assert seed.text.startswith("(set-option :incremental true)\n(set-logic QF_LIA)")
    mutant = mutate(seed, random.Random(1), _Contains(), needed_options=needed)
    assert "(set-option :strings-exp true)" in mutant.text
    assert "(set-option :arrays-exp true)" in mutant.text
    assert ":strings-exp" not in mutant.text_for("z3")
    for spec in specs:
        for script in (seed.text, mutant.text_for("cvc5")):
            result = run_solver(spec, script, timeout=30)
            assert result.outcome == Outcome.SAT, (spec.name, result.failure_line)


def test_seeds_with_extended_set_operators_get_their_option():
    """cvc5 refuses the set universe and complement without `sets-exp` (`sets-ext` before
    1.3); a seed that uses them carries the option, under both names when the targets span
    the rename (each release answers `unsupported` to the other one), and keeps its answer:
    no set holds an element the universe lacks."""
    specs = _cvc5_specs()
    targets = [(s.family, solver_version(s)) for s in specs] + [("cvc5", "1.2.0")]

    def needed(operators, commands):
        return needed_options(targets, operators, commands)

    text = (
        "(set-logic ALL)\n(declare-const s (Set Int))\n(assert (set.member 3 s))\n"
        "(assert (not (set.member 3 (as set.universe (Set Int)))))\n(check-sat)\n"
    )
    complement = text.replace("(as set.universe (Set Int))", "(set.complement s)")
    for formula, answer in ((text, Outcome.UNSAT), (complement, Outcome.SAT)):
        seed = with_needed_options(Seed("<seed>", formula, parse_script(formula)), needed)
        assert "(set-option :sets-ext true)" in seed.text
        for spec in specs:
            assert run_solver(spec, formula, timeout=30).outcome == Outcome.ERROR
            result = run_solver(spec, seed.text, timeout=30)
            assert result.outcome == answer, (spec.name, result.failure_line)
