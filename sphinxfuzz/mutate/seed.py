"""Seeds: parsed once, checked for something to mutate."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sphinxfuzz.smtlib import Script, SmtParseError, parse_script


class SeedError(ValueError):
    """A seed that cannot be used; the message names file, line, column and cause."""


@dataclass
class Seed:
    path: str
    text: str
    script: Script


def load_seed(path: str | Path) -> Seed:
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SeedError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        raise SeedError(f"{path}:{line}:{col}: not UTF-8 text") from None
    try:
        script = parse_script(text, str(path))
    except SmtParseError as exc:
        raise SeedError(str(exc)) from None
    if not any(command.head_name() == "assert" for command in script.commands):
        raise SeedError(f"{path}:1:1: no assert command, so nothing to mutate")
    return Seed(str(path), text, script)
