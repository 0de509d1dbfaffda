"""Sort inference and scopes."""

from __future__ import annotations

from sphinxfuzz.smtlib import Atom, SList, infer_sorts, parse_script, print_node


def sorts_by_text(text: str) -> dict[str, str]:
    script = parse_script(text)
    info = infer_sorts(script, collect_sites=True)
    assert info.sites is not None
    return {print_node(site.node): str(site.sort) for site in info.sites}


def test_core_arithmetic_and_bitvectors() -> None:
    found = sorts_by_text(
        """
        (declare-const x Int) (declare-const r Real) (declare-const b (_ BitVec 8))
        (assert (and (> (+ x 1) 0) (< (+ r x) 2.0)
                     (= ((_ extract 3 0) b) #x1) (= (concat b #b01) ((_ zero_extend 2) b))
                     (= ((_ sign_extend 8) b) (_ bv7 16)) (bvult (bvadd b b) b)))
        """
    )
    assert found["(+ x 1)"] == "Int"
    assert found["(+ r x)"] == "Real"
    assert found["((_ extract 3 0) b)"] == "(_ BitVec 4)"
    assert found["(concat b #b01)"] == "(_ BitVec 10)"
    assert found["((_ sign_extend 8) b)"] == "(_ BitVec 16)"
    assert found["(bvult (bvadd b b) b)"] == "Bool"


def test_floating_point_arrays_strings_sequences() -> None:
    found = sorts_by_text(
        """
        (declare-const f Float32) (declare-const a (Array Int (_ BitVec 4)))
        (declare-const s String) (declare-const q (Seq Int))
        (assert (fp.lt (fp.add RNE f f) ((_ to_fp 8 24) RTZ 1.5)))
        (assert (= (select (store a 1 #x2) 0) ((as const (Array Int (_ BitVec 4))) #x0)))
        (assert (str.in_re (str.++ s "x") (re.* (str.to_re "ab"))))
        (assert (= (seq.nth (seq.++ q (seq.unit 3)) 0) (seq.len q)))
        (assert (fp.isNaN (fp #b0 #b11111111 #b10000000000000000000000)))
        """
    )
    assert found["(fp.add RNE f f)"] == "(_ FloatingPoint 8 24)"
    assert found["(select (store a 1 #x2) 0)"] == "(_ BitVec 4)"
    assert found["((as const (Array Int (_ BitVec 4))) #x0)"] == "(Array Int (_ BitVec 4))"
    assert found['(re.* (str.to_re "ab"))'] == "RegLan"
    assert found["(seq.unit 3)"] == "(Seq Int)"
    assert found["(seq.nth (seq.++ q (seq.unit 3)) 0)"] == "Int"
    assert found["(fp #b0 #b11111111 #b10000000000000000000000)"] == "(_ FloatingPoint 8 24)"


def test_parametric_datatypes_match_and_testers() -> None:
    found = sorts_by_text(
        """
        (declare-datatypes ((List 1)) ((par (T) ((nil) (cons (hd T) (tl (List T)))))))
        (declare-const l (List Int))
        (assert (match l ((nil true) ((cons h t) (> h (hd t))))))
        (assert ((_ is cons) (cons 1 (as nil (List Int)))))
        (assert (is-nil (tl l)))
        """
    )
    assert found["h"] == "Int"
    assert found["t"] == "(List Int)"
    assert found["(hd t)"] == "Int"
    assert found["(cons 1 (as nil (List Int)))"] == "(List Int)"
    assert found["(tl l)"] == "(List Int)"


def test_legacy_datatypes_aliases_and_named_terms() -> None:
    found = sorts_by_text(
        """
        (declare-datatypes () ((Color red green) (Pair (mk (fst Color) (snd Int)))))
        (define-sort Arr (X) (Array X X))
        (declare-const m (Arr Color))
        (assert (! (= (select m red) (fst (mk green 3))) :named n1))
        (assert n1)
        """
    )
    assert found["(select m red)"] == "Color"
    assert found["(mk green 3)"] == "Pair"
    assert found["n1"] == "Bool"


def test_binders_are_visible_only_in_scope() -> None:
    script = parse_script(
        """
        (declare-const x Int)
        (assert (forall ((y Real)) (let ((z (* y 2.0))) (> z y))))
        (assert (> x 0))
        """
    )
    info = infer_sorts(script, collect_sites=True)
    assert info.sites is not None
    by_text = {print_node(site.node): site for site in info.sites}
    inner = by_text["(> z y)"]
    assert {name: str(sort) for name, sort in inner.env.items()} == {"y": "Real", "z": "Real"}
    assert by_text["(> x 0)"].env == {}
    assert info.constants_at[2] == info.constants_at[1]
    assert str(info.constants_at[2]["x"]) == "Int"


def test_push_pop_scopes_declarations() -> None:
    script = parse_script(
        """
        (push 1)
        (declare-const x Int)
        (pop 1)
        (declare-const x Bool)
        (assert x)
        """
    )
    info = infer_sorts(script)
    assert info.fully_sorted
    assert str(info.sort_of(script.commands[-1].items[1])) == "Bool"


def test_unknown_symbols_are_counted_not_raised() -> None:
    script = parse_script("(assert (and (> y 0) (foo 1)))", "u.smt2")
    info = infer_sorts(script)
    assert not info.fully_sorted
    assert info.unsorted == 2  # y and (foo 1); (> y 0) and the `and` are still Bool
    assert any("unknown symbol 'y'" in p and p.startswith("u.smt2:1:") for p in info.problems)


def test_sites_point_at_replaceable_children() -> None:
    script = parse_script("(declare-const x Int)(assert (or (> x 1) (< x 0)))")
    info = infer_sorts(script, collect_sites=True)
    assert info.sites is not None
    for site in info.sites:
        assert site.parent.items[site.index] is site.node
        assert isinstance(site.parent, SList)
    atoms = [s for s in info.sites if isinstance(s.node, Atom)]
    assert {print_node(s.node) for s in atoms} == {"x", "1", "0"}
