"""Crash signatures: the solver family plus the crash message, whole, with what varies between
runs of one bug (addresses, temp files, directories, numbers outside a source position)
normalised away, so one root cause found a thousand times is stored once and two root
causes are stored twice.

The message is read by its known shapes (`crash_message`):
- z3's `ASSERTION VIOLATION` with its `File:`, `Line:` and condition lines (one signature per
  assertion, not one for all of them);
- cvc5's `Fatal failure within <function> at <file>:<line>` (or `Internal error`,
  `Unreachable code`) with the check that failed;
- a C `assert`: `file:line: function: Assertion `cond' failed.`;
- a sanitizer report (solvers/sanitizer_reports.py): ASan's error kind and the functions of
  its top frames, UBSan's check with its file and line;
- otherwise the first failure line, normalised.
A bare signal has no message: `oracle.backtrace` signs it by its stack.
"""

from __future__ import annotations

import os
import re

from sphinxfuzz.solvers import SolverResult
from sphinxfuzz.solvers.sanitizer_reports import sanitizer_message, ubsan_message

_NORMALISERS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"0x[0-9a-fA-F]+"), "<addr>"),
    # temp files and any absolute or relative path with a slash
    (re.compile(r"(?:[A-Za-z]:)?[\w.~-]*(?:/[\w.@+-]+)+/?"), "<path>"),
    (re.compile(r"\b(?:tmp|temp)[\w-]*\.\w+\b", re.IGNORECASE), "<file>"),
    (re.compile(r"[\w-]+\.(?:smt2|smt|cpp|cc|c|h|hpp|py)\b"), "<file>"),
    # line:col and "line 12" style positions, then every remaining number
    (re.compile(r"\b(line|col|column)\s*[:=]?\s*\d+", re.IGNORECASE), r"\1 <n>"),
    (re.compile(r"\d+(?:\.\d+)?"), "<n>"),
    (re.compile(r"\s+"), " "),
]
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_SOURCE = re.compile(r"(?:[\w.~@+-]*/)*([\w.+-]+\.(?:cpp|cc|cxx|c|h|hpp|hxx|inc)):(\d+)")
# at a line's end: output the solver wrote without a newline (`smt.seq.validate`'s formula)
# may stand before it
_Z3_ASSERTION = re.compile(r"(?:^|(?<=\S))ASSERTION VIOLATION\s*$")
_Z3_FIELD = re.compile(r"^(File|Line):\s*(.*)$")
_CVC5_FATAL = re.compile(
    r"^(Fatal failure|Internal error|Unreachable code|Unhandled case)[^\n]*?"
    r"(?: within (?P<function>.+?))?(?: at (?P<where>\S+:\d+))?\s*$",
    re.IGNORECASE,
)
_C_ASSERT = re.compile(
    r"(?P<where>[\w./+-]+:\d+):\s*(?:(?P<function>.*?):\s*)?Assertion [`'](?P<cond>.*)' failed"
)
# lines z3 prints after an assertion that name the release or ask for a report
# (z3 4.12's debug build asks "(C)ontinue, (A)bort, ..." when built without NO_Z3_DEBUGGER)
_Z3_TRAILER = re.compile(
    r"^(?:Z3 \d|Please file|\(C\)ore|\(C\)ontinue|\(S\)tack|\(E\)xit|\(I\)gnore|INVALID COMMAND)"
)
# the heads of the messages that name a failed check with its place and condition
ASSERTION_HEADS = ("ASSERTION VIOLATION", "Assertion failed", "Fatal failure", "Internal error",
                   "Unreachable code", "Unhandled case")  # fmt: skip
_IN_FUNCTION = re.compile(r"^(?P<head>.+?) in .+ at (?P<where>\S+:\d+)(?P<rest>.*)$")


def normalise_failure(line: str) -> str:
    """The failure line with everything that varies between runs of one bug removed."""
    text = line.strip()
    for pattern, replacement in _NORMALISERS:
        text = pattern.sub(replacement, text)
    return text.strip()[:300]


def _condition(line: str) -> str:
    """A failed condition's text: addresses vary between runs, the rest is the code's."""
    return " ".join(_ADDRESS.sub("<addr>", line).split())[:200]


def _source(text: str) -> str:
    """`dir/sub/file.cpp:123` -> `file.cpp:123` (the build directory varies)."""
    return _SOURCE.sub(lambda m: f"{m.group(1)}:{m.group(2)}", text)


def _z3_assertion(lines: list[str], at: int) -> str:
    fields: dict[str, str] = {}
    condition: list[str] = []
    for line in lines[at + 1 : at + 8]:
        text = line.strip()
        field = _Z3_FIELD.match(text)
        if field and not condition:
            fields[field.group(1)] = field.group(2).strip()
            continue
        if not text or _Z3_TRAILER.match(text) or _Z3_ASSERTION.search(text):
            break
        condition.append(_condition(text))
    where = os.path.basename((fields.get("File", "").split() or ["?"])[0].replace("\\", "/"))
    line_number = fields.get("Line", "?")
    return f"ASSERTION VIOLATION {where}:{line_number} {' '.join(condition)}".strip()


def _cvc5_failure(lines: list[str], at: int, found: re.Match[str]) -> str:
    function = found.group("function")
    where = found.group("where")
    head = found.group(1)
    parts = [head]
    if function:
        parts.append(f"in {_condition(function)}")
    if where:
        parts.append(f"at {_source(where)}")
    checks = []
    for line in lines[at + 1 : at + 6]:
        text = line.strip()
        if text and not text.lower().startswith(("check failure", "please", "cvc5 ")):
            checks.append(_condition(text))
            break
    return " ".join(parts + checks)


def crash_message(stdout: str, stderr: str) -> str | None:
    """The crash message of a run's output in a known shape, normalised (see the module
    docstring); None when the output holds none of those shapes."""
    for text in (stderr, stdout):
        lines = text.splitlines()
        for at, line in enumerate(lines):
            stripped = line.strip()
            if _Z3_ASSERTION.search(stripped):
                return _z3_assertion(lines, at)
            sanitizer = sanitizer_message(lines, at)
            if sanitizer is not None:
                return sanitizer
            assertion = _C_ASSERT.search(stripped)
            if assertion:
                where = _source(assertion.group("where"))
                function = assertion.group("function")
                inside = f" in {bare_function(function)}" if function else ""
                return f"Assertion failed at {where}{inside}: {_condition(assertion.group('cond'))}"
            fatal = _CVC5_FATAL.match(stripped)
            if fatal:
                return _cvc5_failure(lines, at, fatal)
    return ubsan_message(stderr)


def assertion_title(signature: str) -> str | None:
    """What an issue title says of a crash signed by a failed assertion: its message with
    file, line and condition, without the function a cvc5 message names (a C++ signature
    too long for a title; the body shows it). None for any other signature."""
    message = signature.partition(": ")[2]
    if not message.startswith(ASSERTION_HEADS):
        return None
    found = _IN_FUNCTION.match(message)
    return f"{found['head']} at {found['where']}{found['rest']}" if found else message


def bare_function(text: str) -> str:
    """A C or C++ function signature's name without its return type and parameters."""
    head = text.split("(")[0].strip()
    return head.split()[-1] if head else text.strip()


def bare_signal(result: SolverResult) -> bool:
    """Killed by a signal without printing any crash message: only a stack tells it apart."""
    return (
        result.exit_code < 0
        and crash_message(result.stdout, result.stderr) is None
        and (result.failure_line is None or result.failure_line.startswith("killed by signal"))
    )


def crash_signature(result: SolverResult) -> str:
    """`family: message` (the whole crash message, normalised), else the normalised first
    failure line, else the exit status: `killed by signal N` (coarse: `oracle.backtrace`
    refines it) or `exit N`."""
    family = result.spec.family
    message = crash_message(result.stdout, result.stderr)
    if message is not None:
        return f"{family}: {message}"
    line = result.failure_line
    if line and not line.startswith("killed by signal"):
        return f"{family}: {normalise_failure(line)}"
    code = result.exit_code
    # signal numbers identify the crash class, keep them
    status = f"killed by signal {-code}" if code < 0 else f"exit {code}"
    return f"{family}: {status}"
