"""Seeds: parsed once, checked for something to mutate."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sphinxfuzz.errors import InputError
from sphinxfuzz.mutate.annotations import strip_expectations
from sphinxfuzz.smtlib import Script, SmtParseError, parse_file, print_script


class SeedError(InputError):
    """A seed that cannot be used; the message names file, line, column and cause."""


@dataclass
class Seed:
    """A seed as it is run and mutated: without expected-answer annotations (`text` is the
    file's text when it had none); `expected` keeps the answers they claimed, in order."""

    path: str
    text: str
    script: Script
    expected: tuple[str, ...] = ()


MAX_SEED_BYTES = 1_000_000  # larger seeds are skipped: parse time and memory grow with them


def load_seed(path: str | Path, *, max_bytes: int | None = MAX_SEED_BYTES) -> Seed:
    """Parse the seed at `path`; `SeedError` for a file that is unreadable, malformed,
    has nothing to mutate, or is larger than `max_bytes` (None: no limit)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if max_bytes is not None and size > max_bytes:
            raise SeedError(
                f"{path}:1:1: {size:,} bytes, over the {max_bytes:,}-byte limit for seeds "
                "(--max-seed-bytes)"
            )
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
