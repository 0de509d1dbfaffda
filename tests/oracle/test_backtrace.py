"""`oracle.backtrace` on its own: frames read from gdb's text (our own, written the way gdb
prints it), the runtime frames skipped, and one real gdb run of a stand-in that segfaults."""

from __future__ import annotations

import shutil
import sys

import pytest
from campaign_helpers import FIXTURES

from sphinxfuzz.oracle.backtrace import (
    DEPTH,
    Backtrace,
    Frame,
    bare_name,
    gdb_backtrace,
    identified,
    parse_gdb,
    signal_name,
)
from sphinxfuzz.oracle.verdict import Verdict, VerdictKind
from sphinxfuzz.solvers import SolverResult, SolverSpec
from sphinxfuzz.solvers.classify import classify

SEGFAULTER = SolverSpec(
    "segv", "segv", "other", (sys.executable, str(FIXTURES / "segfault_on_marker.py"))
)
MARKED = "(declare-const segv_marker Int)\n(check-sat)\n(get-model)\n"


def _frames(*names: str) -> tuple[Frame, ...]:
    return tuple(Frame(name, "z3", 16 * n) for n, name in enumerate(names))


def test_a_frame_is_runtime_by_its_module_or_by_its_name() -> None:
    assert Frame("memcpy", "libc.so.6", 1).runtime  # the module alone
    assert Frame("std::__introsort_loop", "z3", 1).runtime  # the name alone
    assert Frame(None, "libstdc++.so.6", None).runtime
    assert not Frame("smt::context::check", "z3", 1).runtime
    assert not Frame(None, "libz3.so", 4).runtime


def test_a_frame_without_a_name_needs_both_module_and_offset() -> None:
    assert Frame(None, "libz3.so", 0).text() == "libz3.so+0x0"  # offset 0 is an offset
    assert Frame(None, "libz3.so", None).text() == "??"
    assert Frame(None, "", 16).text() == "??"
    assert Frame("f", "", None).text() == "f"


def test_the_signature_takes_the_first_frames_outside_the_runtimes() -> None:
    trace = Backtrace("SIGSEGV", _frames("a", "b", "c", "d", "e"))
    assert trace.signature("z3") == "z3: SIGSEGV in a < b < c"
    assert DEPTH == 3
    assert trace.signature("z3", depth=1) == "z3: SIGSEGV in a"
    # a stack all inside the runtimes is named by those frames rather than not at all
    runtime = Backtrace("SIGABRT", (Frame("raise", "libc.so.6", 1), Frame("abort", "", None)))
    assert runtime.signature("cvc5") == "cvc5: SIGABRT in raise < abort"
    # frames without a name or place are left out, the others still count
    holes = Backtrace("SIGSEGV", (Frame(None, "", None), *_frames("a", "b")))
    assert holes.signature("z3") == "z3: SIGSEGV in a < b"


def test_bare_names_of_odd_shapes() -> None:
    assert bare_name("f(a)") == "f"
    assert bare_name("unsigned long ns::g<a<b>>(x<y>) volatile &&") == "ns::g"
    assert bare_name("int h() const &") == "h"
    # a closing bracket without its opening one is kept as text (`operator>` has one)
    assert bare_name("a)b") == "a)b"
    assert bare_name("x>y") == "x>y"
    # nothing left outside the brackets: the text itself
    assert bare_name(" (lambda) ") == "(lambda)"


GDB_ONLY_FRAMES = """Thread 1 "z3" received signal SIGBUS, Bus error.
#0  smt::theory_lra::imp::propagate () at ../src/smt/theory_lra.cpp:77
#1  0x00007ffff7a00010 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x00007ffff6000000 in ?? ()
"""


def test_frames_without_an_address_or_without_mappings() -> None:
    """gdb prints frame 0 without an address when it stops at a line's start, and
    `info proc mappings` may print nothing (a process gone): the `from` clause names the
    module, no offset is known, and an address outside every mapping has no module."""
    trace = parse_gdb(GDB_ONLY_FRAMES)
    assert trace.signal == "SIGBUS"
    assert trace.frames == (
        Frame("smt::theory_lra::imp::propagate", "", None),
        Frame(None, "libc.so.6", None),
        Frame(None, "", None),
    )
    assert trace.frames[1].runtime


def test_mapped_addresses_at_the_bounds_of_a_mapping() -> None:
    """A module mapped in two pieces is measured from its first; an address at a mapping's
    start lies in it, one at its end does not."""
    output = """Program received signal SIGSEGV, Segmentation fault.
#0  0x0000000000405000 in ?? ()
#1  0x0000000000404000 in ?? ()
#2  0x0000000000406000 in ?? ()
#3  0x0000000000403010 in ?? ()
    0x404000     0x406000   0x2000        0x1000 r-xp /opt/z3/bin/z3
    0x403000     0x404000   0x1000        0x0 r--p /opt/z3/bin/z3
"""
    trace = parse_gdb(output)
    assert [f.text() for f in trace.frames] == ["z3+0x2000", "z3+0x1000", "??", "z3+0x10"]


def _killed(spec: SolverSpec) -> SolverResult:
    found = classify("", "", -11, False)
    return SolverResult(spec, found.outcome, found.answers, "", "", -11, 0.1)


def test_identified_keeps_twelve_frames_and_the_signal() -> None:
    trace = Backtrace("SIGSEGV", _frames(*"abcdefghijklmn"))
    z3 = SolverSpec("z3", "z3", "z3", ("z3",))
    verdict = Verdict(VerdictKind.CRASH, "z3", "z3: killed by signal 11", {"exit_code": -11})
    asked: list[str] = []

    def text_for(spec: SolverSpec) -> str:
        asked.append(spec.name)
        return MARKED

    (signed,) = identified([verdict], [_killed(z3)], text_for, lambda spec, text: trace)
    assert asked == ["z3"]
    assert signed.evidence == {
        "exit_code": -11,
        "backtrace": list("abcdefghijkl"),
        "signal": "SIGSEGV",
        "stack": list("abc"),  # the frames the signature names
    }
    # a trace with nothing to name keeps the coarse signature and says so
    nameless = Backtrace("SIGSEGV", (Frame(None, "", None),))
    (coarse,) = identified([verdict], [_killed(z3)], text_for, lambda spec, text: nameless)
    assert coarse.signature == verdict.signature and coarse.evidence["coarse"] is True
    # a verdict of a solver that has no result is left as it is
    other = Verdict(VerdictKind.CRASH, "cvc5", "cvc5: killed by signal 11")
    assert identified([other], [_killed(z3)], text_for, lambda s, t: trace) == [other]


def test_signal_names() -> None:
    assert signal_name(11) == "SIGSEGV" and signal_name(6) == "SIGABRT"
    assert signal_name(999) == "signal 999"


@pytest.mark.skipif(shutil.which("gdb") is None, reason="needs gdb (apt-get install gdb)")
def test_gdb_takes_the_stack_of_a_real_segfault() -> None:
    trace = gdb_backtrace(SEGFAULTER, MARKED, timeout=30.0)
    assert trace is not None and trace.signal == "SIGSEGV" and trace.frames
    signature = trace.signature("other")
    assert signature is not None and signature.startswith("other: SIGSEGV in ")
    # a run that does not crash stops on no signal: no backtrace
    assert gdb_backtrace(SEGFAULTER, "(check-sat)\n", timeout=30.0) is None
