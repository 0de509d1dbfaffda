"""Seeds: parsed once, checked for something to mutate."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sphinxfuzz.mutate.annotations import strip_expectations
from sphinxfuzz.smtlib import Script, SmtParseError, parse_file, print_script


class SeedError(ValueError):
    """A seed that cannot be used; the message names file, line, column and cause."""


@dataclass
class Seed:
    """A seed as it is run and mutated: without expected-answer annotations (`text` is the
    file's text when it had none); `expected` keeps the answers they claimed, in order."""

    path: str
    text: str
    script: Script
    expected: tuple[str, ...] = ()


def load_seed(path: str | Path) -> Seed:
    path = Path(path)
    try:
        script = parse_file(path)
    except OSError as exc:
        raise SeedError(f"{path}: cannot read: {exc.strerror}") from None
    except SmtParseError as exc:  # also names the place of bytes that are not UTF-8
        raise SeedError(str(exc)) from None
    if not any(command.head_name() == "assert" for command in script.commands):
        raise SeedError(f"{path}:1:1: no assert command, so nothing to mutate")
    script, expected = strip_expectations(script)
    text = print_script(script) if expected else path.read_text(encoding="utf-8")
    return Seed(str(path), text, script, expected)
