"""Identifying a crash that printed nothing (a bare signal) by where it happened.

The crashing run is repeated under gdb in batch mode (the distribution's `gdb`): the frames
of the faulting thread become the signature, `z3: SIGSEGV in nlsat::explain::imp::project <
nlsat::explain::operator() < ...`: symbol names where the binary has them (template and
parameter lists dropped, so one function is one name), else `module+0xoffset` (offset from
the module's first mapping: the same for every run of one binary). Frames inside the C and
C++ runtimes (raise, abort, std::sort's helpers) are skipped: they say how, not where.
Without gdb, or when the re-run does not crash the same way, the coarse signature stays
(`oracle.crash`), and the store keeps a few triggers per coarse signature instead.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from sphinxfuzz.oracle.crash import bare_signal, crash_signature
from sphinxfuzz.oracle.verdict import Verdict, VerdictKind
from sphinxfuzz.solvers import SolverResult, SolverSpec
from sphinxfuzz.solvers.fresh_process import run_command

# frames of the signature (after the runtime's own frames are skipped)
DEPTH = 3
GDB_COMMANDS = (
    "set pagination off",
    "set confirm off",
    "set startup-with-shell off",
    "set print frame-arguments none",
    "run",
    "bt 40",
    "info proc mappings",
)
# modules and name spaces of the runtimes: a frame there is not where the bug is
_RUNTIME_MODULES = re.compile(r"/(?:libc|libpthread|libstdc\+\+|libgcc_s|ld-linux[\w-]*)[.-]")
_RUNTIME_NAMES = re.compile(
    r"^(?:std::|__gnu_cxx::|__|_Unwind|raise$|abort$|gsignal$|pthread_kill)"
)
_FRAME = re.compile(r"^#(\d+)\s+(?:(0x[0-9a-fA-F]+) in )?(.*)$")
_MAPPING = re.compile(
    r"^\s*(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+0x[0-9a-f]+\s+0x[0-9a-f]+\s+(?:\S+\s+)?(/\S+)\s*$"
)
_SIGNAL = re.compile(r"received signal (SIG[A-Z0-9]+)")


@dataclass(frozen=True)
class Frame:
    function: str | None  # the bare symbol name, None where the binary has none
    module: str  # base name of the object the address lies in ("" when unknown)
    offset: int | None  # address minus the module's first mapping

    @property
    def runtime(self) -> bool:
        return bool(
            _RUNTIME_MODULES.search(f"/{self.module}")
            or (self.function and _RUNTIME_NAMES.search(self.function))
        )

    def text(self) -> str:
        if self.function:
            return self.function
        if self.offset is not None and self.module:
            return f"{self.module}+{self.offset:#x}"
        return "??"


@dataclass(frozen=True)
class Backtrace:
    signal: str | None  # "SIGSEGV" as gdb reported it
    frames: tuple[Frame, ...]

    def signing_frames(self, depth: int = DEPTH) -> list[str]:
        """The first named frames outside the runtimes: what the signature names."""
        mine = [f for f in self.frames if not f.runtime] or list(self.frames)
        return [f.text() for f in mine[:depth] if f.text() != "??"]

    def signature(self, family: str, depth: int = DEPTH) -> str | None:
        """`family: SIGNAL in f0 < f1 < f2` from `signing_frames`; None when there is
        nothing to name."""
        named = self.signing_frames(depth)
        if not named or self.signal is None:
            return None
        return f"{family}: {self.signal} in {' < '.join(named)}"


def bare_name(text: str) -> str:
    """A demangled function with its template arguments and parameter list removed:
    `void f<int>(a::b) const` -> `f`; `ns::C::operator()(x)` -> `ns::C::operator()`."""
    text = text.replace("operator()", "operator\0").replace("(anonymous namespace)", "{anon}")
    out, depth = [], 0
    for char in text:
        if char in "<(":
            depth += 1
        elif char in ">)" and depth:
            depth -= 1
        elif depth == 0:
            out.append(char)
    words = "".join(out).replace("operator\0", "operator()").split()
    while words and words[-1] in ("const", "volatile", "&", "&&", "noexcept"):
        words.pop()  # qualifiers of a member function, after its parameter list
    return words[-1] if words else text.strip()


def parse_gdb(output: str) -> Backtrace:
    """The signal and the frames of gdb's `bt` and `info proc mappings` output."""
    found = _SIGNAL.search(output)
    mappings: list[tuple[int, int, str]] = []
    for line in output.splitlines():
        match = _MAPPING.match(line)
        if match:
            mappings.append((int(match.group(1), 16), int(match.group(2), 16), match.group(3)))
    base: dict[str, int] = {}
    for start, _, path in mappings:
        base[path] = min(start, base.get(path, start))
    frames = []
    for line in output.splitlines():
        match = _FRAME.match(line.strip())
        if not match:
            continue
        address = int(match.group(2), 16) if match.group(2) else None
        rest = match.group(3)
        path = next(
            (p for start, end, p in mappings if address is not None and start <= address < end),
            "",
        )
        source = re.search(r" from (\S+)$", rest)
        if source and not path:
            path = source.group(1)
        head = re.sub(r" (?:at \S+|from \S+)$", "", rest).strip()
        head = re.sub(r" \(\.\.\.\)$| \(\)$", "", head)
        function = None if head.startswith("??") else bare_name(head)
        offset = address - base[path] if address is not None and path in base else None
        frames.append(Frame(function, os.path.basename(path), offset))
    return Backtrace(found.group(1) if found else None, tuple(frames))


def gdb_backtrace(
    spec: SolverSpec, script_text: str, *, timeout: float, memory_mb: int = 4096
) -> Backtrace | None:
    """The backtrace of `spec` crashing on `script_text` under gdb; None without gdb or
    when the run under gdb did not stop on a signal."""
    gdb = shutil.which("gdb")
    if gdb is None:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".smt2", delete=False) as handle:
        handle.write(script_text)
        path = handle.name
    try:
        argv = [gdb, "-batch", "-nx"]
        for command in GDB_COMMANDS:
            argv += ["-ex", command]
        argv += ["--args", *spec.argv, path]
        # gdb itself needs memory beside the solver's: a little more than the solver's limit
        stdout, stderr, _, _, timed_out = run_command(
            argv, timeout=timeout + 20, memory_mb=memory_mb + 1024
        )
    finally:
        os.unlink(path)
    if timed_out:
        return None
    found = parse_gdb(stdout + "\n" + stderr)
    return found if found.signal is not None and found.frames else None


# (solver, the formula as that solver's family reads it) -> backtrace
Debugger = Callable[[SolverSpec, str], Backtrace | None]


def identified(
    verdicts: Sequence[Verdict],
    results: Sequence[SolverResult],
    text_for: Callable[[SolverSpec], str],
    debugger: Debugger,
) -> list[Verdict]:
    """`verdicts` with each bare-signal crash signed by its backtrace where one is had
    (`evidence.backtrace` keeps the frames, `evidence.stack` those it names); the others unchanged. A crash left with its
    coarse signature says so in `evidence.coarse`, for the store's few-triggers rule."""
    by_name = {r.spec.name: r for r in results}
    out = []
    for verdict in verdicts:
        result = by_name.get(verdict.solver or "")
        if verdict.kind != VerdictKind.CRASH or result is None or not bare_signal(result):
            out.append(verdict)
            continue
        trace = debugger(result.spec, text_for(result.spec))
        signature = trace.signature(result.spec.family) if trace is not None else None
        if trace is None or signature is None:
            out.append(replace(verdict, evidence={**verdict.evidence, "coarse": True}))
            continue
        frames = [f.text() for f in trace.frames[:12]]
        # "stack": the frames the signature names (an issue title takes its top ones)
        evidence = {**verdict.evidence, "backtrace": frames, "signal": trace.signal,
                    "stack": trace.signing_frames()}  # fmt: skip
        out.append(replace(verdict, signature=signature, evidence=evidence))
    return out


@dataclass(frozen=True)
class CrashIdentity:
    """What a crashed run is known by, and how it was signed: by its stack (a bare signal
    the debugger caught), coarse (a bare signal it could not sign), or by its message."""

    signature: str
    stack: bool = False
    coarse: bool = False


def crash_identity(result: SolverResult, script_text: str, debugger: Debugger) -> CrashIdentity:
    """A crashed run signed as `identified` signs a verdict: its stack for a bare signal
    where the debugger gives one, else `crash_signature`."""
    if bare_signal(result):
        trace = debugger(result.spec, script_text)
        signature = trace.signature(result.spec.family) if trace is not None else None
        if signature is not None:
            return CrashIdentity(signature, stack=True)
        return CrashIdentity(crash_signature(result), coarse=True)
    return CrashIdentity(crash_signature(result))


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
