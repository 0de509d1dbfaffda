"""Crash signatures: the solver family plus the first failure line with numbers, addresses,
paths and positions normalised away, so one root cause found a thousand times is stored once."""

from __future__ import annotations

import re

from sphinxfuzz.solvers import SolverResult

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


def normalise_failure(line: str) -> str:
    """The failure line with everything that varies between runs of one bug removed."""
    text = line.strip()
    for pattern, replacement in _NORMALISERS:
        text = pattern.sub(replacement, text)
    return text.strip()[:300]


def crash_signature(result: SolverResult) -> str:
    """`family: normalised first failure line` (falls back to the exit status)."""
    line = result.failure_line
    if not line:
        code = result.exit_code
        line = f"killed by signal {-code}" if code is not None and code < 0 else f"exit {code}"
        # signal numbers identify the crash class, keep them
        return f"{result.spec.family}: {line}"
    return f"{result.spec.family}: {normalise_failure(line)}"
