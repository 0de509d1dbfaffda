"""Triage: crash groups by place (an assertion's file:line, a stack's top frames), other
bugs by kind, solver, and operators (theories while unreduced, first bad release once reduced)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

from typer.testing import CliRunner

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.shapes import crash_place
from sphinxfuzz.bugs.triage import (
    campaign_groups,
    formula_shape,
    group_bugs,
    group_key,
    operator_heads,
)
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


def test_crash_groups_follow_places(crash_campaign: tuple[Path, list[str]]) -> None:
    root, _ = crash_campaign
    with Store(root) as store:
        bugs = store.bugs()
        counts = {sig: count for sig, _k, _s, count in store.signature_counts()}
    groups = campaign_groups(root)
    assert sorted(b.id for g in groups for b in g.bugs) == sorted(b.id for b in bugs)
    crash = [g for g in groups if g.kind == "crash"]
    assert {g.key for g in crash} == {crash_place(b.signature) for b in bugs if b.kind == "crash"}
    for group in crash:
        assert group.hits == sum(counts[b.signature] for b in group.bugs) >= 1
        assert group.theories  # the generators behind the crashing mutants
    assert sum(g.hits for g in crash) == 3  # every crashing mutant, under its own assertion


def test_soundness_bugs_group_by_operators_of_the_reduced_formula(
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
    assert after.key == "<" and after.hits == len(bugs) == len(after.bugs)
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


def test_crashes_group_by_assertion_place_and_top_frames(tmp_path: Path) -> None:
    """Real signatures (docs/bugs-found.json): a failed assertion is its file:line whatever
    the condition's wording; a stack is its top frames, whatever lies below."""
    from tests.bugs.test_known import RENAMED, store_seed_finding

    assert crash_place("z3: ASSERTION VIOLATION vector.h:479 idx < size()") == "z3: vector.h:479"
    fatal = ("cvc5: Fatal failure in cvc5::internal::ProofNodeManager::mkScope(bool) at "
             "proof_node_manager.cpp:245 Unreachable code reached Generated a proof")  # fmt: skip
    assert crash_place(fatal) == "cvc5: proof_node_manager.cpp:245"
    assert crash_place("z3: killed by signal 11") is None
    seed = tmp_path / "renamed.smt2"
    seed.write_text(RENAMED)
    first = store_seed_finding(tmp_path / "c", seed, "z3")  # z3 5.4.1's real segfault
    meta = json.loads((first / "verdict.json").read_text())
    stack = meta["verdict"]["signature"]
    for name, signature in (
        ("deeper", stack.rsplit(" < ", 1)[0] + " < smt2::parser::parse_expr"),  # same top two
        ("elsewhere", "z3: SIGSEGV in smt::context::mk_enode < smt::context::internalize"),
    ):
        other = first.parent / name
        shutil.copytree(first, other)
        meta["verdict"]["signature"], meta["id"] = signature, name
        (other / "verdict.json").write_text(json.dumps(meta))
    with Store(tmp_path / "c") as store:
        found = store.seed_finding_rows()
    rows = [replace(found[0], id=p.name, folder=p, signature=json.loads(
        (p / "verdict.json").read_text())["verdict"]["signature"])
        for p in (first, first.parent / "deeper", first.parent / "elsewhere")]  # fmt: skip
    groups = group_bugs(rows)
    assert sorted(len(g.bugs) for g in groups) == [1, 2]
    (two,) = [g for g in groups if len(g.bugs) == 2]
    assert {b.id for b in two.bugs} == {first.name, "deeper"}


def test_reduced_bugs_with_one_operator_set_split_by_first_bad_release(
    lie_campaign: Path, tmp_path: Path
) -> None:
    root = tmp_path / "c"
    shutil.copytree(lie_campaign, root)
    with Store(root) as store:
        bugs = store.bugs()[:2]
    for index, bug in enumerate(bugs):
        core = f"(declare-const v{index} Int)\n(assert (< v{index} {100 + index}))\n(check-sat)\n"
        (bug.folder / "reduced.smt2").write_text(core)
    assert len(group_bugs(bugs)) == 1
    bisected = {"solver": "z3", "kind": "soundness",
                "versions": [{"version": "4.8.7", "status": "bug"}]}  # fmt: skip
    (bugs[1].folder / "bisect.json").write_text(json.dumps(bisected))
    keys = sorted(g.key for g in group_bugs(bugs))
    assert keys == ["<", "< (first bad: 4.8.7)"]


def test_a_place_is_a_signal_with_a_frame_in_common_near_the_top_or_an_assertion_s_line() -> None:
    from sphinxfuzz.bugs.shapes import same_place

    # one call deeper (the third frame in common) is the same place; another signal is not
    assert same_place("z3: SIGSEGV in a < b < shared", "z3: SIGSEGV in x < y < shared")
    assert not same_place("z3: SIGSEGV in a < b < c < shared", "z3: SIGSEGV in x < shared")
    for one, other in (("SIGSEGV", "SIGABRT"), ("SIGABRT", "SIGSEGV")):
        assert not same_place(f"z3: {one} in f < g", f"z3: {other} in f < g")
    # signatures without a place (an exit status, a message) are never one place
    assert not same_place("z3: exit 1", "z3: exit 2")
    # one assertion: its file and line, or its file and condition (the line moves between
    # releases); not a condition of another file
    enode = "z3: ASSERTION VIOLATION smt_enode.h:205 idx < get_num_args()"
    assert same_place(enode, "z3: ASSERTION VIOLATION smt_enode.h:205 idx < m_args.size()")
    assert same_place(enode, "z3: ASSERTION VIOLATION smt_enode.h:301 idx < get_num_args()")
    assert not same_place(enode, "z3: ASSERTION VIOLATION vector.h:205 idx < get_num_args()")
