"""The one exception the SMT-LIB reader raises."""

from __future__ import annotations

from sphinxfuzz.errors import InputError


class SmtParseError(InputError):
    """Text that is not a well-formed SMT-LIB script; the message is `file:line:col: cause`."""

    def __init__(self, filename: str, line: int, col: int, cause: str) -> None:
        super().__init__(f"{filename}:{line}:{col}: {cause}")
        self.filename = filename
        self.line = line
        self.col = col
        self.cause = cause
