"""Triage: crash groups by signature, other bugs by kind, solver, theories and shape."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.triage import campaign_groups, formula_shape, group_key, operator_heads
from sphinxfuzz.cli import app


def test_operator_heads_skip_binders_and_name_user_functions() -> None:
    text = """(declare-fun f (Int) Int)
(declare-const b (_ BitVec 8))
(assert (forall ((q Int)) (=> (> q 0) (= (f q) (let ((t (+ q 1))) (* t t))))))
(assert (= ((_ extract 3 0) b) (_ bv5 4)))
(assert (= ((as const (Array Int Int)) 0) ((as const (Array Int Int)) 0)))
(check-sat)
"""
    assert operator_heads(text) == {
        "forall", "=>", ">", "=", "<uf>", "let", "+", "*", "extract", "as const",
    }  # fmt: skip
    assert operator_heads("(assert (") == set()  # unreadable: no shape rather than a crash


def test_crash_groups_follow_signatures(crash_campaign: tuple[Path, list[str]]) -> None:
    root, _ = crash_campaign
    with Store(root) as store:
        bugs = store.bugs()
        counts = {sig: count for sig, _k, _s, count in store.signature_counts()}
    groups = campaign_groups(root)
    assert sorted(b.id for g in groups for b in g.bugs) == sorted(b.id for b in bugs)
    crash = [g for g in groups if g.kind == "crash"]
    assert {g.key for g in crash} == {b.signature for b in bugs if b.kind == "crash"}
    for group in crash:
        assert group.hits == counts[group.key] >= 1
        assert group.theories  # the generators behind the crashing mutants
    assert sum(g.hits for g in crash) == 3  # every crashing mutant, under its own assertion


def test_soundness_bugs_group_by_shape_of_the_reduced_formula(
    lie_campaign: Path, tmp_path: Path
) -> None:
    root = tmp_path / "c"
    shutil.copytree(lie_campaign, root)
    with Store(root) as store:
        bugs = store.bugs()
    assert len(bugs) >= 2 and {b.kind for b in bugs} == {"soundness"}
    before = campaign_groups(root)
    assert sum(len(g.bugs) for g in before) == len(bugs)
    for group in before:  # every member really has its group's key
        assert {group_key(b) for b in group.bugs} == {
            (group.kind, group.solver, group.theories, group.key)
        }
    # once reduced to one core (names and constants aside), bugs of any theories are one group
    for index, bug in enumerate(bugs):
        core = f"(declare-const v{index} Int)\n(assert (< v{index} {100 + index}))\n(check-sat)\n"
        (bug.folder / "reduced.smt2").write_text(core)
    (after,) = campaign_groups(root)
    assert after.key == "(< x0 <int>)" and after.hits == len(bugs) == len(after.bugs)
    assert set(after.theories) == {t for b in bugs for t in b.theories}
    listed = CliRunner().invoke(app, ["bugs", "list", "-c", str(root)])
    assert listed.exit_code == 0, listed.output
    assert listed.output.index("distinct bugs") < listed.output.index(f"bugs in {root}")
    assert after.id in listed.output and f" {len(bugs)}  " in listed.output


def test_the_shape_keeps_operators_and_structure_not_names_or_constants() -> None:
    div = "(declare-fun a () Int)(declare-fun b () Int)(assert (= a (div b 0)))(check-sat)"
    renamed = "(declare-const p Int)(declare-const q Int)(assert (= p (div q 7)))"
    assert formula_shape(div) == formula_shape(renamed) == "(= x0 (div x1 <int>))"
    assert formula_shape(div) != formula_shape(div.replace("div", "mod"))
    assert formula_shape(div) != formula_shape(div.replace("(div b 0)", "(div a 0)"))  # structure
    bound = "(assert (forall ((k Int)) (let ((m (+ k 1))) (> m #x0f))))"
    assert formula_shape(bound) == formula_shape(bound.replace("k", "z").replace("#x0f", "#x10"))
    assert formula_shape("(assert (") == ""
