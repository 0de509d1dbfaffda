"""Seeds: parsed once, checked for something to mutate.

A seed that declares symbols and checks satisfiability but asserts nothing (bug trackers
keep such scripts: the bug was in an option or a declaration) gets one hole: `(assert true)`
before its first check-sat. The assertion changes no answer, and its atom is where the
mutator puts generated terms, whose fresh constants become the seed's symbols of their sort.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sphinxfuzz.errors import InputError
from sphinxfuzz.mutate.annotations import strip_expectations
from sphinxfuzz.smtlib import (
    Atom,
    Script,
    SList,
    SmtParseError,
    parse_file,
    print_script,
    sym,
)
from sphinxfuzz.smtlib.vocabulary import CHECK_SAT_COMMANDS, CORE_SYMBOLS, SYMBOL_DECLARING


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
    _no_core_redeclared(script, path)
    holed = not any(command.head_name() == "assert" for command in script.commands)
    if holed:
        script = _with_hole(script, path)
    script, expected = strip_expectations(script)
    text = print_script(script) if expected or holed else path.read_text(encoding="utf-8")
    return Seed(str(path), text, script, expected)


def _no_core_redeclared(script: Script, path: Path) -> None:
    """`SeedError` for a seed that declares a Core symbol (`(declare-fun false () Bool)`):
    SMT-LIB forbids it, the newest z3 rejects it, and solvers that let it shadow the builtin
    read the seed differently from each other, so every disagreement on it would be false."""
    for command in script.commands:
        if command.head_name() in SYMBOL_DECLARING and len(command.items) > 1:
            name = command.items[1]
            if isinstance(name, Atom) and name.kind == "symbol" and name.name in CORE_SYMBOLS:
                line, column = name.pos
                raise SeedError(
                    f"{path}:{line}:{column}: declares {name.text!r}, a symbol of the Core "
                    "theory that every logic has; SMT-LIB forbids declaring it again"
                )


def _with_hole(script: Script, path: Path) -> Script:
    """`script`, which asserts nothing, with `(assert true)` before its first check-sat;
    `SeedError` when it checks nothing or declares no symbol before (the hole would hold
    generated terms alone, nothing of the seed)."""
    commands = script.commands
    first = next((i for i, c in enumerate(commands) if c.head_name() in CHECK_SAT_COMMANDS), None)
    if first is None or not any(c.head_name() in SYMBOL_DECLARING for c in commands[:first]):
        raise SeedError(
            f"{path}:1:1: no assert command and no declared symbol checked, so nothing to mutate"
        )
    hole = SList([sym("assert"), sym("true")])
    return Script([*commands[:first], hole, *commands[first:]], script.filename)
