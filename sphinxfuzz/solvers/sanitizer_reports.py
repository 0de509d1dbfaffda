"""Sanitizer reports in a solver's output (a `+asan`/`+ubsan` build: solvers/builds.py).

- AddressSanitizer (and the other `==PID==ERROR: <Sanitizer>: <kind> ...` reports): the
  error kind and the functions of the top frames of the solver's own code (the sanitizer
  runtime's interceptors, `malloc` or `memcpy`, say nothing of where the bug is).
- UndefinedBehaviorSanitizer: `file:line:col: runtime error: <check>`, signed by its check and
  its file and line (UBSan prints no stack unless asked, and goes on running: a report beside
  an answer is a finding all the same).
- A sanitizer that ran out of memory (its own rss limit, an allocation it refused) reports
  the memory limit, not a bug.

AddressSanitizer reserves terabytes of address space for its shadow memory, so an ASan build
cannot run under the address-space limit every other solver runs under (solvers/reaper.py):
its memory is bounded by ASan's own `hard_rss_limit_mb` instead (`sanitizer_env`).
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinxfuzz.solvers.families import ASAN_MARK

# frames of a report kept in its signature
SANITIZER_FRAMES = 3
_REPORT = re.compile(
    r"(AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|MemorySanitizer|"
    r"ThreadSanitizer)[:\s]+(.*)"
)
_FRAME = re.compile(
    r"^\s*#\d+\s+0x[0-9a-fA-F]+\s+in\s+(.+?)(?:\s+\S+:\d+(?::\d+)?|\s+\(\S+\))?\s*$"
)
# frames of the sanitizer runtime and the C library, above the solver's own
_RUNTIME = re.compile(
    r"^(?:__interceptor_|___interceptor_|__asan_|__ubsan_|__sanitizer|__lsan_|__libc_|"
    r"operator new|operator delete|(?:malloc|calloc|realloc|free|memcpy|memmove|memset|memcmp|"
    r"strlen|strcmp|strcpy|_start)$)"
)
_UBSAN = re.compile(
    r"(?:^|/)(?P<file>[\w.+-]+\.(?:cpp|cc|cxx|c|h|hpp|hxx|inc)):(?P<line>\d+)(?::\d+)?: "
    r"runtime error: (?P<check>.+)$"
)
_NUMBER = re.compile(r"0x[0-9a-fA-F]+|-?\d+(?:\.\d+)?")
_MEMORY = re.compile(
    r"Sanitizer:? (?:hard rss limit exhausted|out of memory|requested allocation size|"
    r"allocation-size-too-big|rss-limit-exceeded|allocator is out of memory)",
    re.IGNORECASE,
)


def memory_exhausted(text: str) -> str | None:
    """The line of a sanitizer's report that it ran out of memory, if `text` has one."""
    for line in text.splitlines():
        if _MEMORY.search(line):
            return line.strip()
    return None


def _numbers(text: str) -> str:
    """A check's text without the values and addresses of one run."""
    return " ".join(_NUMBER.sub("<n>", text).split())[:200]


def _frames(lines: list[str]) -> list[str]:
    """The functions of the first frames below a report line, the runtime's skipped."""
    found: list[str] = []
    for line in lines:
        frame = _FRAME.match(line)
        if frame is None:
            if found and not line.strip():
                break  # the stack ended
            continue
        function = frame.group(1).split("(")[0].strip()
        if not _RUNTIME.match(function):
            found.append(function)
            if len(found) == SANITIZER_FRAMES:
                break
    return found


def ubsan_message(text: str) -> str | None:
    """The signature of the first UBSan report in `text`. UBSan goes on running after one,
    so a fatal report after it (ASan's, a failed assertion) is the crash: read this last."""
    for line in text.splitlines():
        ubsan = _UBSAN.search(line.strip())
        if ubsan is not None:
            check = _numbers(ubsan.group("check").removeprefix("UndefinedBehaviorSanitizer: "))
            return f"UndefinedBehaviorSanitizer: {check} at {ubsan['file']}:{ubsan['line']}"
    return None


def sanitizer_message(lines: list[str], at: int) -> str | None:
    """The signature of the fatal sanitizer report (`==PID==ERROR: ...`) starting at
    `lines[at]`; None when that line does not start one."""
    stripped = lines[at].strip()
    report = _REPORT.search(stripped)
    if report is None or "ERROR" not in stripped or _UBSAN.search(stripped):
        return None
    kind = re.split(r"\s+(?:on|at|from)\s+(?:address|unknown|0x|pc\b)|\s+\(", report.group(2))[0]
    frames = _frames(lines[at + 1 :])
    return f"{report.group(1)}: {_numbers(kind)}" + (f" in {' < '.join(frames)}" if frames else "")


def address_sanitized(program: str) -> bool:
    """Whether a command line's program is an ASan build of the solver cache (`+asan`)."""
    return ASAN_MARK in Path(program).parent.parent.name


def sanitizer_env(env: dict[str, str], memory_mb: int) -> dict[str, str]:
    """ASAN_OPTIONS with the memory limit as ASan's rss limit (the user's options kept)."""
    options = [o for o in env.get("ASAN_OPTIONS", "").split(":") if o]
    return {"ASAN_OPTIONS": ":".join([*options, f"hard_rss_limit_mb={memory_mb}"])}
