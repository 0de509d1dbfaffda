"""Expected-answer annotations: claims about a formula that a mutation can break.

Benchmarks and regression suites say what a formula's answer is: `(set-info :status unsat)`.
Solvers check that claim (cvc5 aborts on "Expected result unsat but got sat", z3 reports
"check annotation that says unsat"), so an annotation that survives into a mutant whose
answer changed turns every such mutant into a false crash or a rejection. Seeds are read
without them; the answers they claimed are kept as data (`Seed.expected`).
"""

from __future__ import annotations

from sphinxfuzz.smtlib import Atom, Script, SList

# `set-info` keywords that state an expected answer.
EXPECTATION_KEYWORDS = frozenset({":status"})


def _expectation(command: SList) -> str | None:
    """The claimed answer when `command` is an expected-answer annotation, else None."""
    items = command.items
    if command.head_name() != "set-info" or len(items) < 2 or not isinstance(items[1], Atom):
        return None
    if items[1].text not in EXPECTATION_KEYWORDS:
        return None
    value = items[2] if len(items) > 2 else None
    return value.text if isinstance(value, Atom) else ""


def strip_expectations(script: Script) -> tuple[Script, tuple[str, ...]]:
    """`script` without expected-answer annotations, and the answers they claimed, in order."""
    kept: list[SList] = []
    claimed: list[str] = []
    for command in script.commands:
        answer = _expectation(command)
        if answer is None:
            kept.append(command)
        else:
            claimed.append(answer)
    if not claimed:
        return script, ()
    return Script(kept, script.filename), tuple(claimed)
