"""Making control characters visible before text reaches a terminal or a log line.

Solver output, generator exceptions and seed file names are written by others: an escape
sequence in them (clear screen, set title, move the cursor) would act on the user's
terminal. `visible` spells every control character as a Python escape (`\\x1b`), keeping
newlines and tabs where a multi-line text may have them. The one home of that rule.
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls, and the Unicode controls that reorder
# or hide text (bidirectional overrides, zero-width joiners are left: they are not commands)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _spelled(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, one_line: bool = False) -> str:
    """`text` with its control characters spelled out (`\\x1b`); `one_line`: newlines and
    tabs too (for a log line or a table cell)."""
    return (_CONTROL_ONE_LINE if one_line else _CONTROL).sub(_spelled, text)
