"""Bitwuzla as a family: its shim behaves like the binary over the real wheel, persistent like
cvc5's, its options come from the options API with their standing, and its output is read
by its own conventions (errors on stderr, its annotation check, its abort messages)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from sphinxfuzz.solvers import Family, Outcome, parse_specs, run_solver
from sphinxfuzz.solvers.classify import classify
from sphinxfuzz.solvers.options.choose import choose
from sphinxfuzz.solvers.options.declared import Kind, declared_options
from sphinxfuzz.solvers.options.probe import option_words
from sphinxfuzz.solvers.options.standing import Standing
from sphinxfuzz.solvers.options.table import option_table
from sphinxfuzz.solvers.persistent import PersistentSolver, supports_persistence

SAT = (
    "(set-option :produce-models true)\n(set-logic QF_BV)\n(declare-const x (_ BitVec 4))\n"
    "(assert (= (bvadd x #x1) #x0))\n(check-sat)\n(get-value (x))\n"
)
UNSAT = "(declare-const x (_ BitVec 8))\n(assert (= (bvmul x #x02) #x01))\n(check-sat)\n"
FP = (
    "(set-option :produce-models true)\n(declare-const f (_ FloatingPoint 5 11))\n"
    "(declare-const a (Array (_ BitVec 2) Bool))\n(assert (fp.isNaN (fp.add RNE f f)))\n"
    "(assert (select a #b01))\n(check-sat)\n(get-model)\n"
)


def test_the_shim_answers_scripts_as_the_binary_does(tmp_path: Path) -> None:
    spec = parse_specs("bitwuzla")[0]
    assert spec.family is Family.BITWUZLA and supports_persistence(spec)
    found = run_solver(spec, SAT, timeout=30)
    assert found.outcome == Outcome.SAT and "((x #b1111))" in found.stdout
    assert run_solver(spec, UNSAT, timeout=30).outcome == Outcome.UNSAT
    modelled = run_solver(spec, FP, timeout=30)
    assert modelled.outcome == Outcome.SAT and modelled.model is not None
    assert "define-fun a () (Array (_ BitVec 2) Bool)" in modelled.model
    # an error as the binary prints it: `[error] FILE:LINE:COL: ...` on stderr, exit 1
    script = tmp_path / "bad.smt2"
    script.write_text("(declare-const x Int)\n(check-sat)\n", encoding="utf-8")
    done = subprocess.run([*spec.argv, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"[error] {script}:1:") and "'Int'" in done.stderr
    refused = run_solver(spec, "(declare-const x Int)\n(check-sat)\n", timeout=30)
    assert refused.outcome == Outcome.ERROR and "invalid sort 'Int'" in str(refused.failure_line)
    # an error after an answer is still the run's rejection, as `(error ...)` is for cvc5
    late = run_solver(spec, "(check-sat)\n(assert (= y y))\n(check-sat)\n", timeout=30)
    assert late.outcome == Outcome.ERROR and "undefined symbol 'y'" in str(late.failure_line)
    unknown = run_solver(parse_specs("bitwuzla --no-such-option")[0], UNSAT, timeout=30)
    assert unknown.outcome == Outcome.ERROR and "--no-such-option" in str(unknown.failure_line)


def test_one_shim_process_serves_scripts_with_each_one_s_options() -> None:
    spec = parse_specs("bitwuzla --rewrite-level=0")[0]
    with PersistentSolver(spec) as solver:
        assert solver.run(SAT, timeout=30).outcome == Outcome.SAT
        assert solver.run("(assert (= z z))\n", timeout=30).outcome == Outcome.ERROR
        assert solver.run(UNSAT, timeout=30).outcome == Outcome.UNSAT
        # the status annotation's check: the answer, not a crash
        checked = solver.run("(set-info :status sat)\n" + UNSAT, timeout=30)
        assert checked.outcome == Outcome.UNSAT and checked.annotation_conflict
        assert solver.starts == 1


def test_options_come_from_the_options_api_with_their_standing() -> None:
    spec = parse_specs("bitwuzla")[0]
    declared = {d.name: d for d in declared_options(spec)}
    assert declared["rewrite-level"].kind is Kind.INT
    assert (declared["rewrite-level"].minimum, declared["rewrite-level"].maximum) == (0, 2)
    assert declared["bv-solver"].choices == ("preprop", "prop", "bitblast")
    assert declared["pp-normalize"].default == "true"
    # where bitwuzla says it: its debugging options (`Option.DBG_*`) are for experts
    assert declared["check-model"].standing is Standing.EXPERT
    assert declared["rewrite-level"].standing is Standing.REGULAR
    candidates, left_out = choose(Family.BITWUZLA, list(declared.values()))
    chosen = {c.name: c.values for c in candidates}
    assert chosen["rewrite-level"] == ("0", "1") and "log-level" in left_out
    assert "prop" not in chosen["bv-solver"] and "bv-solver=prop" in left_out
    # the probe's tiny formula is one bitwuzla reads (no integers), and a mode's value goes on
    # the command line as a campaign sets it (its set-option wants a string)
    built = option_table(spec)
    table = {o.name: o.values for o in built.options}
    assert table["rewrite-level"] == ("0", "1") and table["bv-solver"] == ("preprop",)
    assert "Kissat not compiled in" in built.rejected["sat-solver=kissat"]
    words = option_words(Family.BITWUZLA, [("pp-normalize", "false"), ("rewrite-level", "1")])
    assert words == ("--no-pp-normalize", "--rewrite-level=1")
    assert run_solver(parse_specs("bitwuzla " + " ".join(words))[0], UNSAT, timeout=30).outcome == (
        Outcome.UNSAT
    )


def test_its_output_is_read_by_its_conventions() -> None:
    family = Family.BITWUZLA
    # asked for a model without produce-models: no rejection, as z3's and cvc5's
    said = "[error] <stdin>:1:44: model generation is not enabled\n"
    assert classify("sat\n", said, 1, False, family).outcome == Outcome.SAT
    # its abort messages are crashes; the same words from another family's run are not read
    abort = "bitwuzla: unreachable code reached in node_manager.cpp\n"
    assert classify("", abort, 1, False, family).outcome == Outcome.CRASH
    assert classify("", abort, 1, False, Family.CVC5).outcome == Outcome.ERROR
    # `[error]` lines are bitwuzla's convention alone
    assert classify("sat\n", "[error] x\n", 0, False, Family.Z3).outcome == Outcome.SAT


def test_the_shim_imports_nothing_of_sphinxfuzz() -> None:
    argv = Family.BITWUZLA.record.shim_argv(sys.executable)
    done = subprocess.run(
        [argv[0], "-X", "importtime", argv[1], "--version"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.startswith("bitwuzla version 0.")
    imported = [line.split("|")[-1].strip() for line in done.stderr.splitlines()]
    assert "bitwuzla" in imported and not [m for m in imported if m.startswith("sphinxfuzz")]
