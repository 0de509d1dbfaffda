"""Solver dialects: the lines of a script that only one solver family understands.

A seed from z3's tracker may carry `(set-option :smt.arith.solver 2)` or `check-sat-using`;
one from cvc5's may carry `(set-option :strings-exp true)`. Each solver gets the script with
the other families' lines dropped (and z3's `check-sat-using` turned into `check-sat`, so
every solver still answers the same number of queries)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sphinxfuzz.smtlib import Atom, Script, SList, parse_script, print_node
from sphinxfuzz.solvers.families import RECORDS, Family, FamilyRecord

# Options every SMT-LIB solver knows.
STANDARD_OPTIONS = {
    ":diagnostic-output-channel",
    ":global-declarations",
    ":interactive-mode",
    ":print-success",
    ":produce-assertions",
    ":produce-assignments",
    ":produce-models",
    ":produce-proofs",
    ":produce-unsat-assumptions",
    ":produce-unsat-cores",
    ":random-seed",
    ":regular-output-channel",
    ":reproducible-resource-limit",
    ":verbosity",
}


@dataclass(frozen=True)
class Dialects:
    """Who owns each solver-only line, read from the family records (`dialect_commands`,
    `dialect_options`, `dialect_option_marks`, `dialect_other_options`), and whose lines
    each family reads (`dialect`)."""

    commands: Mapping[str, Family]
    options: Mapping[str, Family]
    marks: tuple[tuple[str, Family], ...]  # in the records' order: the first match owns
    other_options: Family | None
    reads: Mapping[Family, Family | None]

    @classmethod
    def of(cls, records: Mapping[Family, FamilyRecord]) -> Dialects:
        items = records.items()
        return cls(
            commands={c: f for f, r in items for c in r.dialect_commands},
            options={o: f for f, r in items for o in r.dialect_options},
            marks=tuple((m, f) for f, r in items for m in r.dialect_option_marks),
            other_options=next((f for f, r in items if r.dialect_other_options), None),
            reads={f: r.dialect for f, r in items},
        )


DIALECTS = Dialects.of(RECORDS)


def option_family(option: str, dialects: Dialects = DIALECTS) -> Family | None:
    """Which family a `set-option` keyword belongs to (None: standard, every solver)."""
    if option in STANDARD_OPTIONS:
        return None
    if option in dialects.options:
        return dialects.options[option]
    for mark, family in dialects.marks:
        if mark in option:
            return family
    return dialects.other_options


def command_family(command: SList, dialects: Dialects = DIALECTS) -> Family | None:
    """The only family that understands `command`, or None when every solver does."""
    head = command.head_name()
    if head is not None and head in dialects.commands:
        return dialects.commands[head]
    if head == "set-option" and len(command.items) >= 2 and isinstance(command.items[1], Atom):
        return option_family(command.items[1].text, dialects)
    return None


def for_family(
    script: Script | str,
    family: str,
    printed: Sequence[str] | None = None,
    dialects: Dialects = DIALECTS,
) -> str:
    """The script's text as a solver of `family` (a stored name is fine) should see it:
    the lines of the dialect its record names kept, other families' dropped (`printed`:
    its commands printed already, so that a mutant is printed once for every family)."""
    if isinstance(script, str):
        script = parse_script(script)
    reads = dialects.reads[Family.read(family)]
    lines: list[str] = []
    for index, command in enumerate(script.commands):
        owner = command_family(command, dialects)
        if owner is None or owner == reads:
            lines.append(print_node(command) if printed is None else printed[index])
        elif command.head_name() == "check-sat-using":
            lines.append("(check-sat)")
    return "\n".join(lines) + "\n"


def solver_specific(script: Script) -> dict[str, int]:
    """How many commands of `script` belong to each family (for statistics)."""
    counts: dict[str, int] = {}
    for command in script.commands:
        owner = command_family(command)
        if owner is not None:
            counts[owner] = counts.get(owner, 0) + 1
    return counts
