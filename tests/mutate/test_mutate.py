"""Skeletons, filling and sort adaptation, checked with real z3."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from sphinxfuzz.mutate import (
    Mutant,
    MutationError,
    Seed,
    SeedError,
    find_atoms,
    load_seed,
    mutate,
)
from sphinxfuzz.mutate.skeleton import Skeleton
from sphinxfuzz.oracle.dialect import for_family
from sphinxfuzz.smtlib import (
    Atom,
    Script,
    infer_sorts,
    parse_script,
    print_node,
    walk,
)

SEED = """(set-logic ALL)
(declare-const x Int)
(declare-const y Int)
(declare-const r Real)
(declare-const p Bool)
(declare-const b (_ BitVec 8))
(assert (and (> x 0) (or p (< y 5)) (= (= x y) p)))
(assert (forall ((q Real) (k Int)) (=> (> q r) (let ((m (+ k 1))) (> m k)))))
(assert (exists ((c (_ BitVec 8))) (bvult c b)))
(push 1)
(declare-const z Int)
(assert (distinct z x))
(check-sat)
(pop 1)
(check-sat)
"""


class SortedSource:
    """A test term source whose terms declare fresh constants of several sorts, so that
    renaming has something of each sort to choose from."""

    theories = ("Mixed",)

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        rng = random.Random(seed)
        shape = rng.randrange(4)
        if shape == 0:
            return (
                "(declare-const i1 Int)\n(declare-const i2 Int)",
                f"(> (+ i1 {rng.randint(0, 9)}) i2)",
            )
        if shape == 1:
            return "(declare-const f Real)", "(< f 2.5)"
        if shape == 2:
            return "(declare-const v (_ BitVec 8))", "(bvule v #x7f)"
        return "(declare-const s String)\n(declare-const i Int)", "(= (str.len s) i)"


def z3_output(text: str) -> str:
    """z3's answers, without the error a get-model after unsat causes (not a rejection)."""
    out = subprocess.run(["z3", "-in", "-T:10"], input=text, capture_output=True, text=True).stdout
    return "\n".join(line for line in out.splitlines() if "model is not available" not in line)


@pytest.fixture
def seed(tmp_path):
    path = tmp_path / "seed.smt2"
    path.write_text(SEED)
    return load_seed(path)


def test_atoms_exclude_connectives_and_include_binder_bodies(seed) -> None:
    atoms, _info = find_atoms(seed.script)
    texts = {print_node(site.node) for site in atoms}
    assert {
        "(> x 0)",
        "p",
        "(< y 5)",
        "(> q r)",
        "(> m k)",
        "(bvult c b)",
        "(distinct z x)",
    } <= texts
    assert "(= (= x y) p)" not in texts  # = over Bool is a connective
    assert "(= x y)" in texts
    assert not any(
        t.startswith(("(and", "(or", "(=>", "(forall", "(let", "(exists")) for t in texts
    )


def _check_adapted(mutant: Mutant, seed_script) -> None:
    """Every symbol of an inserted term is declared in scope with the right sort: the whole
    mutant types, and z3 accepts it without any error."""
    info = infer_sorts(mutant.script)
    assert info.fully_sorted, (info.problems, mutant.text)
    out = z3_output(mutant.text)
    assert "error" not in out, (out, mutant.text)
    assert out.split()[0] in ("sat", "unsat", "unknown")


def test_mutants_are_well_sorted_and_accepted_by_z3(seed) -> None:
    rng = random.Random(7)
    source = SortedSource()
    base = seed
    renamed = 0
    for _ in range(25):
        mutant = mutate(base, rng, source, rename_prob=0.9)
        _check_adapted(mutant, seed.script)
        renamed += sum(i.renamed for i in mutant.report.insertions)
        base = mutant if rng.random() < 0.5 else seed
    assert renamed > 10  # renaming to seed variables really happens


def test_renamed_constants_use_in_scope_variables_of_the_same_sort(seed) -> None:
    rng = random.Random(3)
    source = SortedSource()
    seed_sorts = {"x": "Int", "y": "Int", "r": "Real", "p": "Bool", "b": "(_ BitVec 8)", "z": "Int"}
    for _ in range(40):
        mutant = mutate(seed, rng, source, rename_prob=1.0)
        script = mutant.script
        info = infer_sorts(script, collect_sites=True)
        assert info.sites is not None
        for site in info.sites:
            node = site.node
            if not isinstance(node, Atom) or node.kind != "symbol":
                continue
            name = node.name
            if name in site.env:  # a bound variable: must be bound here, by construction
                continue
            if name in seed_sorts:
                visible = info.constants_at.get(site.command, {})
                assert name in visible, (
                    f"{name} used out of scope in {print_node(script.commands[site.command])}"
                )
                assert str(site.sort) == seed_sorts[name]
        # `z` lives only between push and pop: never used after the pop
        after_pop = script.commands[[c.head_name() for c in script.commands].index("pop") :]
        assert not any(isinstance(n, Atom) and n.name == "z" for c in after_pop for n in walk(c))


def test_quantified_variables_are_used_only_under_their_quantifier(seed) -> None:
    rng = random.Random(11)
    source = SortedSource()
    used_bound = 0
    for _ in range(60):
        mutant = mutate(seed, rng, source, rename_prob=1.0)
        quantified = mutant.script.commands
        for command in quantified:
            if command.head_name() != "assert":
                continue
            text = print_node(command)
            for var in ("q", "k", "m", "c"):
                if f" {var})" in text or f" {var} " in text:
                    # bound variables may only occur inside their own binder's assertion
                    assert "forall" in text or "exists" in text, text
                    used_bound += 1
        _check_adapted(mutant, seed.script)
    assert used_bound > 0


def test_same_seed_same_mutants(seed) -> None:
    def run(n: int) -> list[str]:
        rng = random.Random(42)
        base = seed
        texts = []
        for _ in range(n):
            base = mutate(base, rng, SortedSource())
            texts.append(base.text)
        return texts

    assert run(8) == run(8)


def test_count_weights_set_how_many_atoms_are_replaced_and_even_ones_change_nothing(seed) -> None:
    def mutants(weights: dict[str, float] | None) -> list[Mutant]:
        rng = random.Random(7)
        return [mutate(seed, rng, SortedSource(), count_weights=weights) for _ in range(40)]

    plain = mutants(None)
    even = mutants({"1": 1.0, "2": 1.0, "3": 1.0, "4": 1.0})
    assert [m.text for m in even] == [m.text for m in plain]  # the same draws exactly
    assert max(len(m.theories) for m in plain) == 4
    ones = mutants({"2": 0.0, "3": 0.0, "4": 0.0})
    assert {len(m.theories) for m in ones} == {1}


def test_mutant_has_models_and_fresh_names_apart(seed) -> None:
    mutant = mutate(seed, random.Random(5), SortedSource(), rename_prob=0.0)
    heads = [c.head_name() for c in mutant.script.commands]
    assert print_node(mutant.script.commands[0]) == "(set-option :produce-models true)"
    assert heads.count("get-model") == heads.count("check-sat")
    assert all(heads[i + 1] == "get-model" for i, h in enumerate(heads) if h == "check-sat")
    # fresh constants were kept apart from the seed's (rename_prob 0): no clash, all declared
    declared = [
        print_node(c.items[1]) for c in mutant.script.commands if c.head_name() == "declare-const"
    ]
    assert len(declared) == len(set(declared))


def test_logic_is_widened_only_when_inserted_terms_need_it(tmp_path) -> None:
    path = tmp_path / "lia.smt2"
    path.write_text(
        "(set-logic QF_LIA)(declare-const x Int)(assert (> x 0))(assert (< x 9))(check-sat)"
    )
    seed = load_seed(path)
    logics = set()
    for index in range(30):
        mutant = mutate(seed, random.Random(index), SortedSource(), rename_prob=1.0)
        logic = print_node(mutant.script.commands[1])
        needs_more = any(kind in mutant.text for kind in ("BitVec", "Real", "str.len", "2.5"))
        assert logic == ("(set-logic ALL)" if needs_more else "(set-logic QF_LIA)"), mutant.text
        logics.add(logic)
        assert "error" not in z3_output(mutant.text), mutant.text
    assert logics == {"(set-logic ALL)", "(set-logic QF_LIA)"}


def test_dialect_lines_go_only_to_their_solver() -> None:
    script = parse_script(
        "(set-option :smt.arith.solver 2)(set-option :strings-exp true)(set-option :produce-models true)"
        "(declare-const x Int)(assert (> x 0))(check-sat-using smt)(get-model)"
    )
    z3_text = for_family(script, "z3")
    cvc5_text = for_family(script, "cvc5")
    assert ":smt.arith.solver" in z3_text and ":strings-exp" not in z3_text
    assert ":strings-exp" in cvc5_text and ":smt.arith.solver" not in cvc5_text
    assert "(check-sat-using smt)" in z3_text and "(check-sat)" in cvc5_text
    assert ":produce-models" in z3_text and ":produce-models" in cvc5_text
    assert z3_output(z3_text).split()[0] == "sat"


def test_seed_errors_name_the_place(tmp_path) -> None:
    bad = tmp_path / "bad.smt2"
    bad.write_text("(declare-const x Int)\n(assert (> x 0)\n")
    with pytest.raises(SeedError, match=r"bad.smt2:2:1: '\(' is never closed"):
        load_seed(bad)
    empty = tmp_path / "empty.smt2"
    empty.write_text("(check-sat)\n")
    with pytest.raises(SeedError, match="no assert"):
        load_seed(empty)
    # a bug-trigger seed: z3 4.12.2 let `false` shadow the builtin, the newest z3 rejects it
    shadowing = tmp_path / "shadowing.smt2"
    shadowing.write_text(
        "(declare-fun p () Bool)\n(declare-fun false () Bool)\n(assert (or p false))\n(check-sat)\n"
    )
    with pytest.raises(
        SeedError, match=r"shadowing.smt2:2:14: declares 'false', a symbol of the Core"
    ):
        load_seed(shadowing)
    from sphinxfuzz.solvers import Outcome, parse_specs, run_solver

    newest = run_solver(parse_specs("z3")[0], shadowing.read_text(), timeout=10)
    assert newest.outcome == Outcome.ERROR and "builtin symbol 'false'" in newest.stdout


class SortDeclaringSource:
    """Terms over a sort the generator declares itself, named like the seed's own sort."""

    theories = ("Core",)

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        return "(declare-sort U 0)\n(declare-const u0 U)\n(declare-const u1 U)", "(distinct u0 u1)"


def test_generator_sorts_stay_apart_from_same_named_seed_sorts(tmp_path) -> None:
    path = tmp_path / "uf.smt2"
    path.write_text(
        "(set-logic ALL)(declare-sort U 0)(declare-const a U)(declare-const b U)"
        "(assert (= a b))(assert (not (= b a)))(check-sat)"
    )
    seed = load_seed(path)
    for index in range(20):
        mutant = mutate(seed, random.Random(index), SortDeclaringSource(), rename_prob=1.0)
        # the generator's U is renamed apart, so its constants may not become a or b
        assert "(declare-sort U_" in mutant.text
        assert "(distinct a " not in mutant.text and "(distinct b " not in mutant.text
        assert "error" not in z3_output(mutant.text), mutant.text


class SetsSource:
    """Terms of a cvc5 extension that needs an option (`set.complement` wants sets-exp)."""

    theories = ("Sets", "Plain")

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        if theory == "Sets":
            return "(declare-const st (Set Int))", "(set.member 3 (set.complement st))"
        return "(declare-const k Int)", "(> k 2)"


def test_theory_options_go_only_into_mutants_whose_terms_need_them(seed) -> None:
    from sphinxfuzz.solvers import Outcome, parse_specs, run_solver

    options = {"Sets": ("sets-exp=true",)}
    with_sets = without = None
    for k in range(60):
        mutant = mutate(seed, random.Random(k), SetsSource(), theory_options=options)
        if "Sets" in mutant.theories and with_sets is None:
            with_sets = mutant
        if "Sets" not in mutant.theories:
            without = mutant
        if with_sets and without:
            break
    assert with_sets is not None and without is not None
    first = print_node(with_sets.script.commands[0])
    assert first == "(set-option :sets-exp true)"
    assert ":sets-exp" not in without.text
    assert ":sets-exp" not in with_sets.text_for("z3")  # z3 never sees cvc5's option
    # cvc5 refuses set.complement unless the option is on: the mutant carries what it needs
    cvc5 = parse_specs("cvc5")[0]
    result = run_solver(cvc5, with_sets.text_for("cvc5"), timeout=30)
    assert result.outcome in (Outcome.SAT, Outcome.UNSAT), result.stdout + result.stderr
    stripped = with_sets.text_for("cvc5").replace("(set-option :sets-exp true)\n", "")
    refused = run_solver(cvc5, stripped, timeout=30)
    assert refused.outcome == Outcome.ERROR, refused.stdout + refused.stderr


def test_a_seed_nested_too_deeply_is_a_mutation_error_not_a_crash(tmp_path) -> None:
    # real triggers from yices' fuzzers nest thousands of lets; the reader copes, some of the
    # mutator's walks are recursive (the copy of a real-only seed whose numerals become
    # decimals) and must say so instead of killing the campaign
    depth = 5000
    body = "(> x 0)"
    for _ in range(depth):
        body = f"(not {body})"
    path = tmp_path / "deep.smt2"
    path.write_text(f"(set-logic QF_LRA)\n(declare-const x Real)\n(assert {body})\n(check-sat)\n")
    with pytest.raises(MutationError, match="deep.smt2: nested too deeply"):
        mutate(load_seed(path), random.Random(0), SortedSource())
    # without that copy nothing recurses: the atom deep inside is filled, the lists above
    # it copied one by one
    path.write_text(f"(declare-const x Int)\n(assert {body})\n(check-sat)\n")
    mutant = mutate(load_seed(path), random.Random(0), SortedSource())
    assert mutant.text.count("(not ") == depth and "(> x 0)" not in mutant.text


class HigherOrderSource:
    theories = ("HO",)

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        return "(declare-const fh (-> Int Int))", "(= (@ fh 1) (fh 2))"


@pytest.mark.parametrize("logic_line", ["(set-logic QF_LIA)\n", ""])
def test_higher_order_terms_get_an_ho_logic(tmp_path, logic_line: str) -> None:
    # cvc5 parses arrow sorts, lambda and @ only under HO_ logics (its default is not one)
    path = tmp_path / "lia.smt2"
    path.write_text(f"{logic_line}(declare-const x Int)\n(assert (> x 0))\n(check-sat)\n")
    mutant = mutate(load_seed(path), random.Random(0), HigherOrderSource())
    assert mutant.text.count("(set-logic HO_ALL)") == 1 and "QF_LIA" not in mutant.text
    out = subprocess.run(
        [sys.executable, "-m", "sphinxfuzz.solvers.cvc5_shim"], input=mutant.text_for("cvc5"),
        capture_output=True, text=True,
    ).stdout  # fmt: skip
    assert out.split()[0] in ("sat", "unsat"), out


class HeapSource:
    theories = ("Sep",)

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        return "(declare-heap (Int Int))\n(declare-const xa Int)", "(sep (pto xa 1) (not sep.emp))"


def test_separation_logic_terms_share_one_heap_declared_before_the_first_assertion(
    tmp_path,
) -> None:
    path = tmp_path / "lia.smt2"
    path.write_text(
        "(set-logic QF_LIA)\n(declare-const x Int)\n(assert (> x 0))\n"
        "(declare-const y Int)\n(assert (< y x))\n(assert (> y 3))\n(check-sat)\n"
    )
    mutant = mutate(load_seed(path), random.Random(0), HeapSource(), max_placeholders=3,
                    theory_options={"Sep": ("incremental=false",)})  # fmt: skip
    assert mutant.theories == ["Sep", "Sep"]  # two insertions, each with its heap declaration
    lines = mutant.text.splitlines()
    assert sum(line.startswith("(declare-heap") for line in lines) == 1
    heap = next(i for i, line in enumerate(lines) if line.startswith("(declare-heap"))
    assert heap < next(i for i, line in enumerate(lines) if line.startswith("(assert"))
    assert "(set-logic ALL)" in lines  # QF_LIA has no separation logic
    out = subprocess.run(
        [sys.executable, "-m", "sphinxfuzz.solvers.cvc5_shim"], input=mutant.text_for("cvc5"),
        capture_output=True, text=True,
    ).stdout  # fmt: skip
    assert out.split()[0] in ("sat", "unsat"), out


def test_atoms_holding_a_named_term_stay(tmp_path) -> None:
    # replacing (= (! (- y x) :named gap) 4) would leave the later use of gap undeclared
    path = tmp_path / "named.smt2"
    path.write_text(
        "(declare-const x Int)\n(declare-const y Int)\n"
        "(assert (or (= (! (- y x) :named gap) 4) (> x 1)))\n(assert (> gap 0))\n(check-sat)\n"
    )
    atoms, _ = find_atoms(load_seed(path).script)
    texts = [print_node(site.node) for site in atoms]
    assert texts == ["(> x 1)", "(> gap 0)"]


def test_a_skeleton_finds_in_a_copy_the_atoms_inference_finds_there(seed) -> None:
    """A base's atoms are found once (`Skeleton`); each mutant finds them by position, in
    copies of the lists above them, and leaves the skeleton's lists as they were."""
    skeleton = Skeleton.of(seed.script)
    before = [print_node(c) for c in skeleton.commands]
    copy = Script(list(skeleton.commands))
    fresh: set[int] = set()
    found = [skeleton.site_in(copy.commands, n, fresh) for n in range(len(skeleton.atoms))]
    for site in found:
        site.parent.items[site.index] = Atom("true", "symbol")
    assert [print_node(c) for c in skeleton.commands] == before
    for site in found:
        site.parent.items[site.index] = site.node
    inferred, _ = find_atoms(copy)
    assert len(found) == len(inferred) > 5
    for mine, theirs in zip(found, inferred, strict=True):
        assert (mine.node, mine.parent, mine.index, mine.command) == (
            theirs.node, theirs.parent, theirs.index, theirs.command,
        )  # fmt: skip
        assert mine.parent is theirs.parent and mine.node is theirs.node


def test_mutants_from_a_kept_skeleton_equal_those_of_a_seed_read_again(seed) -> None:
    before = seed.text, [print_node(c) for c in seed.script.commands]
    kept = [mutate(seed, random.Random(k), SortedSource()).text for k in range(6)]
    again = [mutate(load_seed(seed.path), random.Random(k), SortedSource()).text for k in range(6)]
    assert kept == again
    assert (seed.text, [print_node(c) for c in seed.script.commands]) == before


CHAINED = {
    "all": SEED,
    # widened to ALL, which defines Set: the seed's sort is renamed in the mutant
    "renamed sort": (
        "(set-logic UF)\n(declare-sort Set 0)\n(declare-const s Set)\n(declare-const t Set)\n"
        "(declare-const p Bool)\n(assert (or p (= s t)))\n(assert (distinct s t))\n(check-sat)\n"
    ),
    # numerals spelled out as reals in the skeleton, never in the seed
    "real only": (
        "(set-logic QF_UFLRA)\n(declare-const x Real)\n(declare-fun p (Real) Bool)\n"
        "(assert (p 3))\n(assert (or (p x) (= x (ite (p x) 3 (+ x 1)))))\n(check-sat)\n"
    ),
}


@pytest.mark.parametrize("text", CHAINED.values(), ids=list(CHAINED))
def test_chained_mutants_equal_those_of_their_bases_read_again(tmp_path, text) -> None:
    """Skeletons are kept for a few bases and a mutant shares the commands it does not fill
    with its base: mutants of a chain equal those of their bases read afresh, and no base
    changes, however long ago its skeleton was made or dropped."""
    path = tmp_path / "seed.smt2"
    path.write_text(text)
    seed = load_seed(path)
    rng = random.Random(5)
    bases: list[Seed | Mutant] = [seed]
    printed = [[print_node(c) for c in seed.script.commands]]
    for _ in range(16):
        base = rng.choice(bases)
        state = rng.getstate()
        mutant = mutate(base, rng, SortedSource())
        again_rng = random.Random()
        again_rng.setstate(state)
        if isinstance(base, Mutant):
            read = Script(parse_script(base.text, "again").commands, "again")
            again = mutate(Mutant(read, seed, base.number, []), again_rng, SortedSource())
        else:
            again = mutate(load_seed(path), again_rng, SortedSource())
        assert mutant.text == again.text
        bases.append(mutant)
        printed.append([print_node(c) for c in mutant.script.commands])
    for base, before in zip(bases, printed, strict=True):
        assert [print_node(c) for c in base.script.commands] == before
    if "Set" in text:
        assert any("(declare-sort Set_1 0)" in m.text for m in bases[1:])


def test_a_seed_asserting_nothing_gets_one_hole_its_terms_fill(tmp_path) -> None:
    path = tmp_path / "declared.smt2"
    path.write_text("(set-logic ALL)\n(declare-const n Int)\n(push 1)\n(check-sat)\n(check-sat)\n")
    seed = load_seed(path)
    heads = [c.head_name() for c in seed.script.commands]
    assert heads == ["set-logic", "declare-const", "push", "assert", "check-sat", "check-sat"]
    assert "(assert true)" in seed.text
    [hole], _info = find_atoms(seed.script)
    assert print_node(hole.node) == "true"
    # generated terms fill it, their fresh Ints become the seed's n as in any seed's atom
    uses_n = []
    for k in range(6):
        mutant = mutate(seed, random.Random(k), SortedSource(), rename_prob=1.0)
        assert "(assert true)" not in mutant.text
        _check_adapted(mutant, seed.script)
        asserted = [print_node(c) for c in mutant.script.commands if c.head_name() == "assert"]
        uses_n.append(any(" n)" in a or " n " in a for a in asserted))
    assert any(uses_n)
    # declaring a sort is not a symbol: a hole would hold generated terms alone
    sort_only = tmp_path / "sort.smt2"
    sort_only.write_text("(declare-sort U 0)\n(check-sat)\n")
    with pytest.raises(SeedError, match="no declared symbol"):
        load_seed(sort_only)


def test_a_fresh_constant_renamed_apart_leaves_a_literal_of_the_same_name() -> None:
    # a generator declared `bv0` beside the literal `(_ bv0 4)`: cvc5 rejected `(_ bv_1 4)`
    from sphinxfuzz.mutate.fill import FreshNames, adapt

    pair = ("(declare-const bv0 (_ BitVec 4))", "(bvsgt bv0 (_ bv0 4))")
    generated = adapt(*pair, {}, FreshNames({"bv0"}), random.Random(1), 0.0)
    assert print_node(generated.term) == "(bvsgt bv_1 (_ bv0 4))"
