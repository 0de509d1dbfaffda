"""Every rule that turns solver output into a verdict, on its own (issue 25 item 7).

The outputs are written here the way the solvers print them (our own text, never taken from
a solver's test suite); the campaign tests show the same rules on real runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from sphinxfuzz.oracle import (
    Expected,
    VerdictKind,
    judge,
    judge_expected,
    normalise_failure,
)
from sphinxfuzz.oracle.backtrace import Backtrace, Frame, bare_name, identified, parse_gdb
from sphinxfuzz.oracle.crash import (
    assertion_title,
    bare_function,
    bare_signal,
    crash_message,
    crash_signature,
)
from sphinxfuzz.oracle.doubt import doubtful, needs_more_time, slow_verdict
from sphinxfuzz.oracle.expected import ModelChecker, judge_again, judge_related, reference_for
from sphinxfuzz.oracle.semantic_check import SEMANTICS
from sphinxfuzz.oracle.trusted import agreed_label, claimed_answer, clean_answer
from sphinxfuzz.oracle.verdict import Verdict
from sphinxfuzz.solvers import Family, Outcome, SolverResult, SolverSpec
from sphinxfuzz.solvers.classify import classify

Z3 = SolverSpec("z3", "z3", Family.Z3, ("z3",))
CVC5 = SolverSpec("cvc5", "cvc5", Family.CVC5, ("cvc5",))
YICES = SolverSpec("yices", "yices", Family.YICES, ("yices-smt2",))
FORMULA = "(declare-const x Int)\n(assert (> x 1))\n(check-sat)\n(get-model)\n"
MODEL = "(\n  (define-fun x () Int 2)\n)"


def result(spec: SolverSpec, stdout: str = "", stderr: str = "", code: int = 0) -> SolverResult:
    """A result classified from output, as the runner does it."""
    found = classify(stdout, stderr, code, False)
    return SolverResult(
        spec, found.outcome, found.answers, stdout, stderr, code, 0.1, found.model,
        failure_line=found.failure_line, model_check_failed=found.model_check_failed,
        annotation_conflict=found.annotation_conflict,
    )  # fmt: skip


# -- crash signatures ------------------------------------------------------------------------
def test_normalising_removes_numbers_addresses_and_paths() -> None:
    assert normalise_failure("error at step 17 of 3.5") == "error at step <n> of <n>"
    assert normalise_failure("bad node 0x7f3a in /home/me/x/y.cpp") == "bad node <addr> in <path>"
    assert normalise_failure("  spaced   out  ") == "spaced out"


def test_a_bare_signal_and_an_exit_status_are_told_apart() -> None:
    killed = result(Z3, code=-11)
    assert killed.outcome == Outcome.CRASH and bare_signal(killed)
    assert crash_signature(killed) == "z3: killed by signal 11"
    assert crash_signature(result(Z3, code=-6)) == "z3: killed by signal 6"
    exited = SolverResult(Z3, Outcome.CRASH, exit_code=3)
    assert crash_signature(exited) == "z3: exit 3" and not bare_signal(exited)
    assert not bare_signal(result(Z3, "sat\n"))  # a clean exit is no signal


def _z3_assertion(path: str, line: int, condition: str, address: str = "0x1") -> str:
    return (
        f"ASSERTION VIOLATION\nFile: {path}\nLine: {line}\n{condition} at {address}\n"
        "Z3 4.8.9.0\nPlease file an issue with this message\n"
    )


def test_z3_assertions_keep_file_line_and_condition() -> None:
    one = result(Z3, _z3_assertion("/b1/src/smt/theory_lra.cpp", 120, "lo <= hi", "0xff"), code=1)
    same = result(Z3, _z3_assertion("../src/smt/theory_lra.cpp", 120, "lo <= hi", "0xa"), code=1)
    other_line = result(Z3, _z3_assertion("../src/smt/theory_lra.cpp", 121, "lo <= hi"), code=1)
    other_file = result(Z3, _z3_assertion("../src/smt/theory_bv.cpp", 120, "lo <= hi"), code=1)
    assert crash_signature(one) == "z3: ASSERTION VIOLATION theory_lra.cpp:120 lo <= hi at <addr>"
    assert crash_signature(same) == crash_signature(one)
    assert len({crash_signature(r) for r in (one, other_line, other_file)}) == 3
    # after output printed without a newline (z3 4.8.11 with smt.seq.validate=true)
    late = result(
        Z3,
        "    (not (= (seq.unit u2) a!3))))))"
        + _z3_assertion("/b/src/smt/theory_seq.cpp", 2285, "UNEXPECTED CODE WAS REACHED."),
        code=1,
    )
    assert crash_signature(late) == (
        "z3: ASSERTION VIOLATION theory_seq.cpp:2285 UNEXPECTED CODE WAS REACHED. at <addr>"
    )


def test_cvc5_fatal_failures_keep_function_place_and_check() -> None:
    def fatal(function: str, where: str, check: str) -> SolverResult:
        text = f"Fatal failure within {function} at {where}\nCheck failure\n\n  {check}\n"
        return result(CVC5, stderr=text, code=-6)

    one = fatal("void cvc5::internal::Foo::bar(int)", "/h/u/cvc5/src/theory/a.cpp:88", "n > 0")
    again = fatal("void cvc5::internal::Foo::bar(int)", "/tmp/x/src/theory/a.cpp:88", "n > 0")
    elsewhere = fatal("void cvc5::internal::Foo::baz()", "/tmp/x/src/theory/a.cpp:90", "n > 0")
    assert crash_signature(one) == (
        "cvc5: Fatal failure in void cvc5::internal::Foo::bar(int) at a.cpp:88 n > 0"
    )
    assert crash_signature(again) == crash_signature(one) != crash_signature(elsewhere)
    assert not bare_signal(one)  # a message: no debugger needed


def test_c_asserts_and_sanitizer_reports() -> None:
    stderr = "solver: ../src/util/vec.cpp:42: void vec::push(int): Assertion `n < cap' failed.\n"
    assert crash_message("", stderr) == "Assertion failed at vec.cpp:42 in vec::push: n < cap"
    stderr = "s: a/b.cc:7: static unsigned int ns::f(int): Assertion `x' failed.\n"
    assert crash_message("", stderr) == "Assertion failed at b.cc:7 in ns::f: x"
    report = (
        "==4242==ERROR: AddressSanitizer: heap-use-after-free on address 0x6020 at pc 0x1\n"
        "    #0 0x55d in node::kind() const /src/ast/node.h:12:5\n"
        "    #1 0x55e in rewriter::step(node*) /src/rw/rewriter.cpp:300:7\n"
        "    #2 0x55f in main /src/main.cpp:9:1\n"
        "    #3 0x560 in __libc_start_main\n"
    )
    assert crash_message("", report) == (
        "AddressSanitizer: heap-use-after-free in node::kind < rewriter::step < main"
    )
    assert crash_message("sat\n", "") is None


def test_messages_are_cut_where_they_stop_telling_bugs_apart() -> None:
    assert normalise_failure("x" * 400) == "x" * 300
    long_condition = "c" * 300
    message = crash_message("", _z3_assertion("a.cpp", 1, long_condition))
    assert message == "ASSERTION VIOLATION a.cpp:1 " + "c" * 200


def test_a_debug_build_assertion_is_signed_and_titled_by_file_line_and_condition() -> None:
    # z3 4.12's Z3DEBUG build (src/util/debug.cpp): no release trailer, and without
    # NO_Z3_DEBUGGER the prompt that reads stdin (at its end it exits with code 110)
    debug = (
        "ASSERTION VIOLATION\nFile: /root/.cache/sphinxfuzz/solvers/z3-4.12.2+assert.partial/"
        "source/z3-solver-4.12.2.0/core/src/smt/theory_arith_core.h\nLine: 2238\n"
        "!inconsistent()\n(C)ontinue, (A)bort, (S)top, (T)hrow exception, Invoke (G)DB\n"
    )
    signature = crash_signature(result(Z3, stderr=debug, code=110))
    assert signature == "z3: ASSERTION VIOLATION theory_arith_core.h:2238 !inconsistent()"
    assert (
        assertion_title(signature) == "ASSERTION VIOLATION theory_arith_core.h:2238 !inconsistent()"
    )
    # cvc5's --assertions build (base/check.h): the function stays in the signature, the
    # title keeps the place and the condition
    cvc5 = (
        "Fatal failure within void cvc5::internal::SharedTermsDatabase::addSharedTerm("
        "cvc5::internal::TNode, cvc5::internal::TNode, cvc5::internal::theory::TheoryIdSet) at "
        "/home/u/cvc5/src/theory/shared_terms_database.cpp:99\nCheck failure\n\n"
        "  theories != (*find).second\n\n"
    )
    signature = crash_signature(result(CVC5, stderr=cvc5, code=-6))
    assert "SharedTermsDatabase::addSharedTerm" in signature
    assert assertion_title(signature) == (
        "Fatal failure at shared_terms_database.cpp:99 theories != (*find).second"
    )
    assert assertion_title("z3: killed by signal 11") is None
    assert assertion_title("z3: SIGSEGV in f < g") is None


def test_a_z3_assertion_reads_only_its_own_lines() -> None:
    # a Windows build's path, and the trailer that ends the condition
    text = "ASSERTION VIOLATION\nFile: C:\\z3\\src\\ast.cpp\nLine: 9\nn != 0\n(C)ore dump\nmore\n"
    assert crash_message(text, "") == "ASSERTION VIOLATION ast.cpp:9 n != 0"
    # without its fields the place is unknown; a second assertion starts a new message
    assert crash_message("ASSERTION VIOLATION\nx > 1\nASSERTION VIOLATION\n", "") == (
        "ASSERTION VIOLATION ?:? x > 1"
    )
    # a `File:` line after the condition belongs to the condition, not to the place
    assert crash_message("ASSERTION VIOLATION\nLine: 3\ny\nFile: b.cpp\n", "") == (
        "ASSERTION VIOLATION ?:3 y File: b.cpp"
    )
    # the condition lies within seven lines of the head
    far = "ASSERTION VIOLATION\n" + "File: a.cpp\n" * 7 + "late\n"
    assert crash_message(far, "") == "ASSERTION VIOLATION a.cpp:?"
    # the message is read from stderr before stdout
    assert crash_message(_z3_assertion("out.cpp", 1, "o"), _z3_assertion("err.cpp", 2, "e")) == (
        "ASSERTION VIOLATION err.cpp:2 e at <addr>"
    )


def test_a_cvc5_failure_keeps_the_first_check_within_five_lines() -> None:
    head = "Internal error detected at /b/src/x.cpp:12"
    assert crash_message("", f"{head}\nPlease report\ncvc5 1.0\n\n  a == b\n  c\n") == (
        "Internal error at x.cpp:12 a == b"
    )
    assert crash_message("", f"{head}\n1\n") == "Internal error at x.cpp:12 1"
    assert crash_message("", "Unreachable code\n" + "\n" * 5 + "late\n") == "Unreachable code"
    # the lines before the head are not its check
    assert crash_message("", f"solving\n{head}\n  a == b\n") == "Internal error at x.cpp:12 a == b"


def test_a_sanitizer_names_three_frames_and_ubsan_its_check_and_place() -> None:
    frames = "".join(f"    #{n} 0x1 in f{n} /s/a.cpp:{n}:1\n" for n in range(5))
    report = "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x0 (pc 0x1)\n" + frames
    assert crash_message("", report) == "AddressSanitizer: SEGV in f0 < f1 < f2"
    assert crash_message("", "==1==ERROR: LeakSanitizer: detected memory leaks\n") == (
        "LeakSanitizer: detected memory leaks"
    )
    # UBSan: its check (values out) with its file and line, a note or an error alike
    note = "src/a.cpp:3:5: runtime error: signed integer overflow: 2147483647 + 1 cannot be\n"
    assert crash_message("", note) == (
        "UndefinedBehaviorSanitizer: signed integer overflow: <n> + <n> cannot be at a.cpp:3"
    )
    # it goes on running: a fatal report after it is the crash
    assert crash_message("", note + report) == "AddressSanitizer: SEGV in f0 < f1 < f2"
    assert crash_message("", "SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior\n") is None


def test_a_c_assert_without_a_function_and_bare_functions() -> None:
    assert crash_message("", "z3: src/a.c:4: Assertion 'x' failed.\n") == (
        "Assertion failed at a.c:4: x"
    )
    assert bare_function("unsigned int ns::f(int)") == "ns::f"
    assert bare_function(" (weird) ") == "(weird)"


def test_a_failure_line_signs_a_crash_that_matches_no_known_shape() -> None:
    exited = SolverResult(Z3, Outcome.CRASH, exit_code=1, failure_line="Segfault at step 42")
    assert crash_signature(exited) == "z3: Segfault at step <n>"
    # the runner's own "killed by signal" line is the exit status, said once
    killed = SolverResult(Z3, Outcome.CRASH, exit_code=-9, failure_line="killed by signal 9")
    assert crash_signature(killed) == "z3: killed by signal 9" and bare_signal(killed)
    told = SolverResult(Z3, Outcome.CRASH, exit_code=-6, failure_line="terminate called")
    assert not bare_signal(told)  # a line of its own: no debugger needed


GDB_OUTPUT = """
Program received signal SIGSEGV, Segmentation fault.
0x00007ffff7a1 in __strlen_avx2 () from /lib/x86_64-linux-gnu/libc.so.6
#0  0x00007ffff7a10000 in __strlen_avx2 () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x0000555555601234 in void sat::solver::propagate<true>(unsigned int) ()
#2  0x00007ffff6002000 in ?? () from /opt/lib/libz3.so
#3  0x0000555555609999 in smt::context::check(unsigned int, expr* const*) (this=0x1) at ../src/smt/smt_context.cpp:300
#4  0x0000555555500000 in main ()
process 1234
Mapped address spaces:
          Start Addr           End Addr       Size     Offset objfile
      0x555555554000     0x555555700000   0x1ac000        0x0 /opt/bin/z3
      0x7ffff6000000     0x7ffff6100000   0x100000        0x0 /opt/lib/libz3.so
      0x7ffff7a00000     0x7ffff7b00000   0x100000        0x0 /lib/x86_64-linux-gnu/libc.so.6
"""


def test_gdb_backtraces_name_frames_or_module_offsets() -> None:
    trace = parse_gdb(GDB_OUTPUT)
    assert trace.signal == "SIGSEGV"
    assert [f.text() for f in trace.frames] == [
        "__strlen_avx2", "sat::solver::propagate", "libz3.so+0x2000", "smt::context::check", "main",
    ]  # fmt: skip
    assert trace.frames[0].runtime and not trace.frames[1].runtime
    # the C library's frame says how, not where: it is skipped
    assert trace.signature("z3") == (
        "z3: SIGSEGV in sat::solver::propagate < libz3.so+0x2000 < smt::context::check"
    )
    assert Backtrace(None, trace.frames).signature("z3") is None
    assert Backtrace("SIGSEGV", (Frame(None, "", None),)).signature("z3") is None


def test_bare_names_drop_templates_parameters_and_return_types() -> None:
    assert bare_name("void std::vector<int>::push_back(int const&) const") == (
        "std::vector::push_back"
    )
    assert bare_name("qe::nlqsat::operator()(ref<goal> const&)") == "qe::nlqsat::operator()"
    assert bare_name("main") == "main"
    assert bare_name("(anonymous namespace)::mam_impl::match(app*)") == "{anon}::mam_impl::match"


def test_identified_signs_bare_signals_only() -> None:
    killed, told = result(Z3, code=-11), result(CVC5, stderr="Fatal failure within f at a.cpp:1")
    verdicts = [
        Verdict(VerdictKind.CRASH, "z3", crash_signature(killed)),
        Verdict(VerdictKind.CRASH, "cvc5", crash_signature(told)),
    ]
    trace = parse_gdb(GDB_OUTPUT)
    asked: list[str] = []

    def debugger(spec: SolverSpec, text: str) -> Backtrace | None:
        asked.append(spec.name)
        return trace

    signed = identified(verdicts, [killed, told], lambda spec: FORMULA, debugger)
    assert asked == ["z3"]  # the crash with a message needs no debugger
    assert signed[0].signature == trace.signature("z3") and signed[1] == verdicts[1]
    # only crash verdicts are signed: a soundness verdict against a killed run is left alone
    wrong = Verdict(VerdictKind.SOUNDNESS, "z3", "z3: unsat but cvc5's model holds")
    asked.clear()
    assert identified([wrong], [killed], lambda spec: FORMULA, debugger) == [wrong]
    assert asked == []
    coarse = identified(verdicts, [killed, told], lambda spec: FORMULA, lambda s, t: None)
    assert coarse[0].signature == "z3: killed by signal 11" and coarse[0].evidence["coarse"]


# -- sat against unsat -----------------------------------------------------------------------
def _checks(answers: dict[str, str]):  # noqa: ANN202 - a CheckRunner
    def run(spec: SolverSpec, script: str) -> SolverResult:
        return result(spec, answers[spec.name] + "\n")

    return run


def test_disagreement_decided_by_the_model_check() -> None:
    sat, unsat = result(Z3, f"sat\n{MODEL}\n"), result(CVC5, "unsat\n")
    holds = judge(FORMULA, [sat, unsat], _checks({"z3": "sat", "cvc5": "sat"}))
    assert [(v.kind, v.solver) for v in holds.verdicts] == [(VerdictKind.SOUNDNESS, "cvc5")]
    fails = judge(FORMULA, [sat, unsat], _checks({"z3": "unsat", "cvc5": "unsat"}))
    assert [(v.kind, v.solver) for v in fails.verdicts] == [(VerdictKind.INVALID_MODEL, "z3")]


def test_results_decided_alike_leave_judge_nothing_to_do() -> None:
    """Every target decided, alike, nothing flagged: judge makes no verdict and runs no check."""

    def no_check(spec: SolverSpec, text: str) -> SolverResult:
        raise AssertionError(f"a check ran on {spec.name}")

    sat_z3, sat_cvc5 = result(Z3, f"sat\n{MODEL}\n"), result(CVC5, f"sat\n{MODEL}\n")
    for alike in ([sat_z3, sat_cvc5], [result(Z3, "unsat\n"), result(CVC5, "unsat\n")]):
        judgement = judge(FORMULA, alike, no_check)
        assert judgement.verdicts == [] and not judgement.unconfirmed


def test_a_model_between_two_checks_answers_the_first() -> None:
    twice = "(declare-const x Int)\n(assert (> x 1))\n(check-sat)\n(get-model)\n(check-sat)\n"
    sat, unsat = result(Z3, f"sat\n{MODEL}\nsat\n"), result(CVC5, "unsat\nunsat\n")
    judgement = judge(twice, [sat, unsat], _checks({"z3": "sat", "cvc5": "sat"}))
    assert [(v.kind, v.solver) for v in judgement.verdicts] == [(VerdictKind.SOUNDNESS, "cvc5")]
    late = twice.replace("(get-model)\n(check-sat)", "(check-sat)\n(get-model)")
    assert judge(late, [sat, unsat], _checks({"z3": "sat", "cvc5": "sat"})).unconfirmed


def test_a_sat_answer_without_a_model_blames_nobody() -> None:
    judgement = judge(FORMULA, [result(Z3, "sat\n"), result(CVC5, "unsat\n")], _checks({}))
    assert judgement.verdicts == [] and judgement.unconfirmed


def test_an_undecided_model_check_blames_nobody() -> None:
    sat, unsat = result(Z3, f"sat\n{MODEL}\n"), result(CVC5, "unsat\n")
    for answers in ({"z3": "unknown", "cvc5": "unknown"}, {"z3": "sat", "cvc5": "unsat"}):
        judgement = judge(FORMULA, [sat, unsat], _checks(answers))
        assert judgement.verdicts == [] and judgement.unconfirmed, answers


def test_a_solver_outside_the_disagreement_breaks_the_tie() -> None:
    sat, unsat, third = result(Z3, f"sat\n{MODEL}\n"), result(CVC5, "unsat\n"), result(YICES)
    third = SolverResult(YICES, Outcome.UNKNOWN, ["unknown"], "unknown\n")
    # the parties disagree on the check; yices, which took no side, says the model holds
    judgement = judge(
        FORMULA, [sat, unsat, third], _checks({"z3": "sat", "cvc5": "unsat", "yices": "sat"})
    )
    assert [(v.kind, v.solver) for v in judgement.verdicts] == [(VerdictKind.SOUNDNESS, "cvc5")]
    # ... and when it says the model fails, the sat side's model is invalid
    judgement = judge(
        FORMULA, [sat, unsat, third], _checks({"z3": "sat", "cvc5": "sat", "yices": "unsat"})
    )
    assert [(v.kind, v.solver) for v in judgement.verdicts] == [(VerdictKind.INVALID_MODEL, "z3")]


def test_only_a_disagreement_on_the_first_check_is_settled_by_a_model() -> None:
    twice = FORMULA + "(check-sat)\n"
    sat, unsat = result(Z3, f"sat\n{MODEL}\nsat\n"), result(CVC5, "sat\nunsat\n")
    judgement = judge(twice, [sat, unsat], _checks({"z3": "sat", "cvc5": "sat"}))
    assert judgement.verdicts == [] and judgement.unconfirmed
    assert judgement.check_script is None  # no check was run
    # answers of unequal length: the disagreement is the first index both answered
    short = result(CVC5, "unsat\n")
    judgement = judge(twice, [sat, short], _checks({"z3": "sat", "cvc5": "sat"}))
    assert [(v.kind, v.solver) for v in judgement.verdicts] == [(VerdictKind.SOUNDNESS, "cvc5")]


def test_a_model_check_needs_a_script_and_a_model_it_can_read() -> None:
    sat, unsat = result(Z3, f"sat\n{MODEL}\n"), result(CVC5, "unsat\n")
    holds = _checks({"z3": "sat", "cvc5": "sat"})
    assert judge("(assert", [sat, unsat], holds).unconfirmed  # the script does not parse
    assert judge(FORMULA.replace("(get-model)\n", ""), [sat, unsat], holds).unconfirmed
    early = "(declare-const x Int)\n(get-model)\n(assert (> x 1))\n(check-sat)\n"
    assert judge(early, [sat, unsat], holds).unconfirmed
    unreadable = SolverResult(Z3, Outcome.SAT, ["sat"], "sat\n(oops\n", model="(oops")
    judgement = judge(FORMULA, [unreadable, unsat], holds)
    assert judgement.verdicts == [] and judgement.unconfirmed


def test_a_settled_disagreement_keeps_its_check_and_blames_every_unsat_solver() -> None:
    bare = result(Z3, "sat\n")  # sat without a model: the next sat solver's model is used
    sat = result(YICES, f"sat\n{MODEL}\n")
    unsat, other = result(CVC5, "unsat\n"), result(SolverSpec("o", "o", "other", ("o",)), "unsat\n")
    answers = {"z3": "sat", "yices": "sat", "cvc5": "sat", "o": "sat"}
    judgement = judge(FORMULA, [bare, sat, unsat, other], _checks(answers))
    assert [(v.kind, v.solver) for v in judgement.verdicts] == [
        (VerdictKind.SOUNDNESS, "cvc5"), (VerdictKind.SOUNDNESS, "o"),
    ]  # fmt: skip
    verdict = judgement.verdicts[0]
    assert verdict.signature == "cvc5: unsat but yices's model holds"
    assert verdict.evidence["model_from"] == "yices" and verdict.evidence["check"] == answers
    assert (
        judgement.check_script is not None and "(define-fun x () Int 2)" in judgement.check_script
    )
    assert [r.spec.name for r in judgement.check_results] == ["z3", "yices", "cvc5", "o"]
    assert not judgement.unconfirmed


def test_a_crash_is_one_verdict_even_with_a_failed_model_check() -> None:
    crashed = SolverResult(Z3, Outcome.CRASH, [], exit_code=-6, failure_line="killed by signal 6",
                           model_check_failed=True)  # fmt: skip
    checked = SolverResult(CVC5, Outcome.SAT, ["sat"], failure_line="model check failed",
                           model_check_failed=True)  # fmt: skip
    verdicts = judge(FORMULA, [crashed, checked], _checks({})).verdicts
    assert [(v.kind, v.solver) for v in verdicts] == [
        (VerdictKind.CRASH, "z3"), (VerdictKind.INVALID_MODEL, "cvc5"),
    ]  # fmt: skip
    assert verdicts[0].evidence == {"failure_line": "killed by signal 6", "exit_code": -6}
    assert verdicts[1].signature == "cvc5: own model check failed" and verdicts[1].own_model_check


# -- expected answers ------------------------------------------------------------------------
FUSION = Expected("unsat", "fusion", "disjunction of two unsat seeds")


def test_a_contrary_sat_is_soundness_unless_its_model_holds() -> None:
    target, other = result(Z3, f"sat\n{MODEL}\n"), result(CVC5, "unsat\n")
    holds = ModelChecker(FORMULA, _checks({"z3": "sat", "cvc5": "sat"}))
    assert judge_expected([target, other], FUSION, holds) == []
    fails = ModelChecker(FORMULA, _checks({"z3": "unsat", "cvc5": "unsat"}))
    (verdict,) = judge_expected([target, other], FUSION, fails)
    assert verdict.kind == VerdictKind.SOUNDNESS and verdict.evidence["model_check"] == "fails"
    assert verdict.evidence["reference"] == "cvc5"
    undecided = ModelChecker(FORMULA, _checks({"z3": "unknown", "cvc5": "unknown"}))
    (verdict,) = judge_expected([target, other], FUSION, undecided)
    assert verdict.evidence["model_check"] == "undecided"


WRONG_MODEL = "(\n  (define-fun x () Int 0)\n)"


def test_the_executable_semantics_refutes_a_model_only_where_sat_is_expected() -> None:
    sat_expected = Expected("sat", "storm", "true under a model")
    liar = result(Z3, f"sat\n{WRONG_MODEL}\n")
    holds = ModelChecker(FORMULA, _checks({"z3": "sat", "cvc5": "sat"}))
    (verdict,) = judge_expected([liar, result(CVC5, "sat\n")], sat_expected, holds)
    assert verdict.kind == VerdictKind.INVALID_MODEL and verdict.solver == "z3"
    assert verdict.evidence["source"] == SEMANTICS
    # a sat with a good model, or an expected unsat, asks nothing of the semantics
    good = result(Z3, f"sat\n{MODEL}\n")
    assert judge_expected([good, result(CVC5, "sat\n")], sat_expected, holds) == []
    fails = ModelChecker(FORMULA, _checks({"z3": "unsat", "cvc5": "unsat"}))
    kinds = [v.kind for v in judge_expected([liar, result(CVC5, "unsat\n")], FUSION, fails)]
    assert kinds == [VerdictKind.SOUNDNESS]


def test_the_reference_is_another_solver_with_the_expected_answer() -> None:
    results = [result(Z3, "unsat\n"), result(CVC5, "unknown\n"), result(YICES, "sat\n")]
    assert reference_for(results, "z3", "sat") == "yices"
    assert reference_for(results[:2], "z3", "sat") is None  # unknown vouches for nothing
    assert reference_for(results, "yices", "sat") is None  # never the blamed one


def test_every_solver_against_a_related_answer_is_blamed() -> None:
    implied = Expected("sat", "janus", "a weakened sat seed")
    wrong = [result(Z3, "unsat\n"), result(CVC5, "unsat\n")]
    verdicts = judge_related(wrong, wrong, implied)
    assert [(v.kind, v.solver) for v in verdicts] == [
        (VerdictKind.SOUNDNESS, "z3"), (VerdictKind.SOUNDNESS, "cvc5"),
    ]  # fmt: skip


def test_judging_again_without_an_expected_answer_is_plain_judging() -> None:
    sat, unsat = result(Z3, f"sat\n{MODEL}\n"), result(CVC5, "unsat\n")
    stored = Verdict(VerdictKind.SOUNDNESS, "cvc5", "cvc5: unsat but z3's model holds")
    again = judge_again(stored, FORMULA, [sat, unsat], _checks({"z3": "sat", "cvc5": "sat"}))
    assert [(v.kind, v.solver) for v in again.verdicts] == [(VerdictKind.SOUNDNESS, "cvc5")]


def test_a_rejected_input_makes_no_expected_verdict() -> None:
    rejected = result(CVC5, '(error "unknown sort")\nsat\n')
    assert rejected.outcome == Outcome.ERROR
    assert judge_expected([result(Z3, "sat\n"), rejected], FUSION) == []


def test_a_model_check_decides_only_when_every_deciding_solver_agrees() -> None:
    sat = result(Z3, f"sat\n{MODEL}\n")
    agree = ModelChecker(FORMULA, _checks({"z3": "sat", "cvc5": "unknown"}))
    script, holds = agree.verdict_on(MODEL, [sat, result(CVC5, "unsat\n")])
    assert holds == "sat" and "(define-fun x () Int 2)" in script
    split = ModelChecker(FORMULA, _checks({"z3": "sat", "cvc5": "unsat"}))
    assert split.verdict_on(MODEL, [sat, result(CVC5, "unsat\n")])[1] is None
    # a model the check cannot be built from decides nothing and runs nothing
    assert agree.verdict_on("(oops", [sat]) == ("", None)
    assert ModelChecker(FORMULA, _checks({})).verdict_on("(oops", [sat]) == ("", None)


def test_a_crash_leaves_only_crash_verdicts() -> None:
    crashed = result(CVC5, code=-11)
    kinds = [(v.kind, v.solver) for v in judge_expected([result(Z3, "sat\n"), crashed], FUSION)]
    assert kinds == [(VerdictKind.CRASH, "cvc5")]


def test_a_contrary_answer_without_a_checked_model_is_soundness() -> None:
    """sat without a model, or without a model checker, blames the solver on its answer
    alone; the evidence names every answer, the reference and the witness model."""
    bare_sat, other = result(Z3, "sat\n"), result(CVC5, "unsat\n")
    never = ModelChecker(FORMULA, _checks({}))  # a check run would raise KeyError
    (verdict,) = judge_expected([bare_sat, other], FUSION, never, witness_model=MODEL)
    assert verdict.solver == "z3" and verdict.expected == FUSION
    assert verdict.signature == "z3: sat where fusion expects unsat"
    assert verdict.evidence == {
        "answers": {"z3": ["sat"], "cvc5": ["unsat"]},
        "reference": "cvc5",
        "witness_model": MODEL,
    }
    assert verdict.check_script is None
    with_model = result(Z3, f"sat\n{MODEL}\n")
    (unchecked,) = judge_expected([with_model, other], FUSION)
    assert "model" not in unchecked.evidence and "witness_model" not in unchecked.evidence
    # an unknown or the expected answer blames nobody
    assert judge_expected([result(Z3, "unknown\n"), other], FUSION) == []


def test_a_checked_model_is_kept_with_its_check_script() -> None:
    target, other = result(Z3, f"sat\n{MODEL}\n"), result(CVC5, "unsat\n")
    fails = ModelChecker(FORMULA, _checks({"z3": "unsat", "cvc5": "unsat"}))
    (verdict,) = judge_expected([target, other], FUSION, fails)
    assert verdict.evidence["model_from"] == "z3" and verdict.evidence["model"] == MODEL
    assert verdict.check_script is not None and "(define-fun x () Int 2)" in verdict.check_script


def test_the_semantics_is_asked_only_of_sat_answers_with_a_model() -> None:
    sat_expected = Expected("sat", "storm", "true under a model")
    liar = result(Z3, f"sat\n{WRONG_MODEL}\n")
    holds = ModelChecker(FORMULA, _checks({"z3": "sat", "cvc5": "sat"}))
    # without a model checker the semantics is not asked either
    assert judge_expected([liar, result(CVC5, "sat\n")], sat_expected) == []
    # a sat without a model has nothing to refute
    assert judge_expected([result(Z3, "sat\n"), result(CVC5, "sat\n")], sat_expected, holds) == []
    (verdict,) = judge_expected([result(CVC5, "sat\n"), liar], sat_expected, holds)
    assert verdict.signature == "z3: model refuted by the executable semantics"
    assert verdict.evidence["model"] == WRONG_MODEL and verdict.expected == sat_expected


JANUS = Expected("sat", "janus", "a weakened sat seed")


def test_a_related_formula_solved_only_one_way_round() -> None:
    """The related formula left unsolved (a time-out) where the original was solved: the
    verdict is about the related formula, and its `related` is the original."""
    solved, unsolved = result(Z3, "sat\n"), SolverResult(Z3, Outcome.TIMEOUT)
    (verdict,) = judge_related([solved], [unsolved], JANUS, texts=("orig", "rel"))
    assert verdict.kind == VerdictKind.INCOMPLETENESS and verdict.solver == "z3"
    assert verdict.signature == "z3: unknown where a related formula is sat"
    assert verdict.evidence["unsolved"] == "related" and verdict.evidence["outcome"] == "timeout"
    assert verdict.related is not None and verdict.related.text == "orig"
    assert verdict.expected == JANUS
    # both unsolved, or a rejection, blames nobody
    assert judge_related([unsolved], [unsolved], JANUS) == []
    rejected = result(Z3, '(error "unknown sort")\n')
    assert judge_related([rejected], [solved], JANUS) == []
    assert judge_related([solved], [solved], JANUS) == []


def test_related_runs_pair_by_solver() -> None:
    """Only a solver run on both formulas is judged, and each with its own runs."""
    original = [result(Z3, "sat\n"), result(CVC5, "sat\n")]
    related = [SolverResult(CVC5, Outcome.UNKNOWN, ["unknown"]), result(YICES, "sat\n")]
    (verdict,) = judge_related(original, related, JANUS)
    assert verdict.solver == "cvc5" and verdict.evidence["reference"] == "yices"
    assert verdict.evidence["original"] == {"z3": ["sat"], "cvc5": ["sat"]}


def test_a_contrary_answer_on_the_related_formula_names_it() -> None:
    original = [result(Z3, "sat\n"), result(CVC5, "sat\n")]
    related = [result(Z3, "unsat\n"), result(CVC5, "sat\n")]
    (verdict,) = judge_related(original, related, JANUS)
    assert (verdict.kind, verdict.solver) == (VerdictKind.SOUNDNESS, "z3")
    assert verdict.evidence["wrong_on"] == "related" and verdict.evidence["reference"] == "cvc5"
    assert verdict.signature == "z3: unsat where janus expects sat"


def test_judging_again_an_incompleteness_runs_its_related_formula() -> None:
    original = _incompleteness(Outcome.TIMEOUT)
    ran: list[str] = []

    def run(spec: SolverSpec, text: str) -> SolverResult:
        ran.append(text)
        return result(spec, "sat\n")

    again = judge_again(original, "original", [SolverResult(Z3, Outcome.TIMEOUT)], run)
    assert ran == ["related"]
    assert [(v.kind, v.signature) for v in again.verdicts] == [
        (VerdictKind.INCOMPLETENESS, original.signature)
    ]
    slow = replace(
        original, kind=VerdictKind.SLOW, signature="z3: slow, sat only after the time limit"
    )
    again = judge_again(slow, "original", [SolverResult(Z3, Outcome.TIMEOUT)], run)
    assert [(v.kind, v.signature) for v in again.verdicts] == [(VerdictKind.SLOW, slow.signature)]
    # solved this time: nothing left to judge
    assert judge_again(slow, "original", [result(Z3, "sat\n")], run).verdicts == []


def test_judging_again_keeps_the_witness_model() -> None:
    stored = replace(_soundness(FUSION), evidence={"witness_model": MODEL})
    runs = [result(Z3, "sat\n"), result(CVC5, "unsat\n")]
    (verdict,) = judge_again(stored, FORMULA, runs, _checks({})).verdicts
    assert verdict.evidence["witness_model"] == MODEL and verdict.solver == "z3"
    odd = replace(stored, evidence={"witness_model": 7})
    (verdict,) = judge_again(odd, FORMULA, runs, _checks({})).verdicts
    assert "witness_model" not in verdict.evidence


# -- labels from trusted runs ----------------------------------------------------------------
def test_only_clean_runs_give_labels() -> None:
    assert clean_answer(result(Z3, "unsat\n")) == "unsat"
    assert clean_answer(result(Z3, "(error \"line 2: unknown sort 'String'\")\nsat\n")) is None
    assert clean_answer(result(Z3, "sat\nsat\n")) is None  # more than one answer
    assert clean_answer(result(Z3, "unknown\n")) is None
    assert clean_answer(result(Z3, "sat\n", code=-9)) is None
    assert clean_answer(result(Z3, "sat\n", "ASSERTION VIOLATION\nFile: a.cpp\n")) is None
    assert clean_answer(result(Z3, "sat\n", code=1)) is None  # answered, then exited badly
    noted = SolverResult(Z3, Outcome.SAT, ["sat"], "sat\n", failure_line="memory limit")
    assert clean_answer(noted) is None


@pytest.mark.parametrize(
    ("outputs", "claimed", "label"),
    [
        (["sat\n"], (), "sat"),
        (["sat\n", "sat\n"], (), "sat"),
        (["sat\n", "unsat\n"], (), None),  # trusted solvers disagree
        (["unsat\n"], ("unsat",), "unsat"),
        (["sat\n"], ("unsat",), None),  # the seed's own :status contradicts it
        (["sat\n"], ("unknown",), "sat"),  # a claim of nothing
        (["sat\n"], ("sat", "unsat"), None),  # contradicting claims
        (['(error "unknown sort")\nsat\n'], ("unsat",), None),  # today's false label
        (['(error "unknown sort")\nsat\n'], (), None),  # a rejection abstains: nobody left
        (['(error "unknown sort")\n', "unsat\n"], ("unsat",), "unsat"),  # the other vouches
        (["unsat\n", "unknown\n"], (), None),  # an accepting solver without an answer
        ([], (), None),
    ],
)
def test_labels_need_every_accepting_trusted_solver(
    outputs: Sequence[str], claimed: tuple[str, ...], label: str | None
) -> None:
    runs = [result(spec, out) for spec, out in zip((Z3, CVC5), outputs, strict=False)]
    assert agreed_label(runs, claimed) == label


def test_claimed_answers() -> None:
    assert claimed_answer(()) is None and claimed_answer(("unknown",)) is None
    assert claimed_answer(("sat", "sat")) == "sat" and claimed_answer(("sat", "unsat")) is False


def test_a_clean_answer_is_the_one_answer_its_outcome_says() -> None:
    assert clean_answer(SolverResult(Z3, Outcome.SAT, ["unsat"])) is None
    assert clean_answer(SolverResult(Z3, Outcome.SAT, ["sat"], annotation_conflict=True)) is None
    assert clean_answer(SolverResult(Z3, Outcome.SAT, ["sat"], model_check_failed=True)) is None
    assert clean_answer(SolverResult(Z3, Outcome.SAT, [])) is None
    assert clean_answer(SolverResult(Z3, Outcome.SAT, ["sat"])) == "sat"


# -- doubts and slow findings ----------------------------------------------------------------
SAT_FUSION = Expected("sat", "fusion", "conjunction of two sat seeds")


def _soundness(expected: Expected = SAT_FUSION) -> Verdict:
    return Verdict(VerdictKind.SOUNDNESS, "z3@4.8.8", "z3: unsat where fusion expects sat",
                   {}, expected)  # fmt: skip


def test_a_trusted_solver_answering_as_the_target_did_makes_a_doubt() -> None:
    verdict = _soundness()
    doubt = doubtful(verdict, [result(CVC5, "unsat\n")])
    assert doubt is not None and (doubt.solver, doubt.answer) == ("cvc5", "unsat")
    assert doubt.cause(verdict) == "soundness: trusted cvc5 says unsat, expected sat"
    # a trusted run that also printed an error still raises the doubt
    assert doubtful(verdict, [result(CVC5, '(error "x")\nunsat\n')]) is not None
    # agreeing with the construction, or not answering, raises none
    assert doubtful(verdict, [result(CVC5, "sat\n"), result(YICES, "unknown\n")]) is None
    # the blamed solver never vouches against itself
    blamed = SolverSpec("z3@4.8.8", "z3@4.8.8", Family.Z3, ("z3",))
    assert doubtful(verdict, [result(blamed, "unsat\n")]) is None
    # verdicts without a construction are never doubted
    crash = Verdict(VerdictKind.CRASH, "z3", "z3: killed by signal 11")
    assert doubtful(crash, [result(CVC5, "unsat\n")]) is None
    assert doubtful(Verdict(VerdictKind.SOUNDNESS, "z3"), [result(CVC5, "unsat\n")]) is None


def test_doubts_cover_invalid_models_and_incompleteness() -> None:
    for kind in (VerdictKind.INVALID_MODEL, VerdictKind.INCOMPLETENESS):
        verdict = Verdict(kind, "z3", "sig", {}, SAT_FUSION)
        assert doubtful(verdict, [result(CVC5, "unsat\n")]) is not None, kind


def _incompleteness(outcome: Outcome) -> Verdict:
    implied = Expected("sat", "janus", "a weakened sat seed")
    (verdict,) = judge_related(
        [SolverResult(Z3, outcome, [] if outcome == Outcome.TIMEOUT else ["unknown"])],
        [result(Z3, "sat\n")],
        implied,
        texts=("original", "related"),
    )
    return verdict


def test_only_a_time_out_asks_for_more_time() -> None:
    timed_out = _incompleteness(Outcome.TIMEOUT)
    assert timed_out.kind == VerdictKind.INCOMPLETENESS and needs_more_time(timed_out)
    assert not needs_more_time(_incompleteness(Outcome.UNKNOWN))
    assert not needs_more_time(_soundness())


def test_an_answer_with_ten_times_the_limit_is_a_slow_finding() -> None:
    verdict = _incompleteness(Outcome.TIMEOUT)
    longer = SolverResult(Z3, Outcome.SAT, ["sat"], "sat\n", elapsed=39.2)
    quick = SolverResult(CVC5, Outcome.SAT, ["sat"], "sat\n", elapsed=0.1)
    slow = slow_verdict(verdict, longer, 100.0, quick)
    assert slow is not None and slow.kind == VerdictKind.SLOW and slow.solver == "z3"
    assert slow.evidence["slow"]["summary"] == "sat in 39.2 s; cvc5 0.1 s"  # type: ignore[index]
    assert slow.signature == "z3: slow, sat only after the time limit"
    # still unsolved, or answering against the construction: the verdict stands as it was
    assert slow_verdict(verdict, SolverResult(Z3, Outcome.TIMEOUT), 100.0, quick) is None
    wrong = SolverResult(Z3, Outcome.UNSAT, ["unsat"], "unsat\n", elapsed=50)
    assert slow_verdict(verdict, wrong, 100.0, quick) is None


def test_a_doubt_names_the_family_and_skips_runs_without_an_answer() -> None:
    verdict = _soundness()
    pinned = SolverSpec("cvc5@1.0.3 --incremental", "cvc5@1.0.3", "cvc5", ("cvc5",))
    doubt = doubtful(
        verdict, [result(YICES), SolverResult(CVC5, Outcome.TIMEOUT), result(pinned, "unsat\n")]
    )
    assert doubt is not None and doubt.solver == "cvc5@1.0.3" and doubt.expected == "sat"
    spaced = replace(doubt, solver="cvc5 --incremental")
    assert spaced.cause(verdict) == "soundness: trusted cvc5 says unsat, expected sat"
    assert doubt.cause(verdict) == "soundness: trusted cvc5 says unsat, expected sat"


def test_a_slow_finding_without_a_reference_time() -> None:
    verdict = _incompleteness(Outcome.TIMEOUT)
    longer = SolverResult(Z3, Outcome.SAT, ["sat"], "sat\n", elapsed=39.23456)
    alone = slow_verdict(verdict, longer, 100.0, None)
    assert alone is not None
    assert alone.evidence["slow"] == {
        "answer": "sat", "seconds": 39.235, "limit": 100.0, "reference": None,
        "reference_seconds": None, "summary": "sat in 39.2 s",
    }  # fmt: skip
    assert alone.evidence["unsolved"] == "original"  # the incompleteness' evidence stays
    silent = SolverResult(CVC5, Outcome.TIMEOUT, [], elapsed=100.0)
    unanswered = slow_verdict(verdict, longer, 100.0, silent)
    assert unanswered is not None and isinstance(slow := unanswered.evidence["slow"], dict)
    assert (slow["summary"], slow["reference"]) == ("sat in 39.2 s", "cvc5")
    assert slow_verdict(verdict, SolverResult(Z3, Outcome.UNKNOWN, []), 100.0, None) is None
    # the first answer is the one the construction speaks of
    twice = SolverResult(Z3, Outcome.UNKNOWN, ["sat", "unknown"], elapsed=39.2)
    first = slow_verdict(verdict, twice, 100.0, None)
    assert first is not None and first.signature == "z3: slow, sat only after the time limit"


def test_an_incompleteness_without_an_outcome_asks_for_no_time() -> None:
    verdict = Verdict(VerdictKind.INCOMPLETENESS, "z3", "sig", {}, SAT_FUSION)
    assert not needs_more_time(verdict)


def test_an_exit_status_is_a_signal_only_below_zero() -> None:
    assert (
        crash_signature(SolverResult(Z3, Outcome.CRASH, exit_code=-1)) == "z3: killed by signal 1"
    )
    assert crash_signature(SolverResult(Z3, Outcome.CRASH, exit_code=0)) == "z3: exit 0"


def test_every_trusted_run_but_the_blamed_ones_is_asked() -> None:
    verdict = replace(_soundness(), solver="cvc5")
    # the blamed solver first, or named before the trusted one: the others still count
    doubt = doubtful(verdict, [result(CVC5, "unsat\n"), result(Z3, "unsat\n")])
    assert doubt is not None and doubt.solver == "z3"
    # the run's first answer is the one about the verdict's query
    assert doubtful(verdict, [result(Z3, "sat\nunsat\n")]) is None


def test_a_solver_run_on_only_one_formula_is_not_judged() -> None:
    timed_out = SolverResult(Z3, Outcome.TIMEOUT)
    assert judge_related([timed_out], [result(CVC5, "sat\n")], JANUS) == []
    assert clean_answer(SolverResult(Z3, Outcome.UNSAT, ["sat"])) is None
