"""Seeds from other tools' suites: commands only their own tool reads.

bitwuzla's and yices2's regressions ask for interpolants in bitwuzla's syntax, set options
of their own solver (`:bv-solver prop`) or output channels; a target that rejects such a
command rejects the whole seed. Such a seed is tried again without its queries and its
non-standard options: what is asserted and checked is all a mutation needs.

Bug reports also hold scripts pasted twice: every solver rejects the second copy's
declarations ("already declared"). Without a command that forgets declarations (push, pop,
reset), a declaration or `set-logic` repeated word for word is dropped as well: the second
copy then asserts the same constraints again, over the first copy's symbols.
"""

from __future__ import annotations

from dataclasses import replace

from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.oracle.dialect import STANDARD_OPTIONS
from sphinxfuzz.smtlib import Atom, Script, SList, print_node, print_script
from sphinxfuzz.smtlib.vocabulary import DECLARING, STACK_COMMANDS

# Commands that ask something and change nothing the next check-sat answers.
QUERIES = frozenset({
    "get-interpolant", "get-interpolant-next", "get-abduct", "get-abduct-next",
    "get-unsat-core", "get-unsat-assumptions", "get-proof", "get-value", "get-assignment",
    "get-info", "get-option", "get-assertions", "get-difficulty", "get-learned-literals",
    "get-timeout-core", "get-qe", "get-qe-disjunct", "get-model", "echo", "simplify", "eval",
    "display", "help",
})  # fmt: skip


def _optional(command: SList) -> bool:
    if command.head_name() in QUERIES:
        return True
    if command.head_name() != "set-option" or len(command.items) < 2:
        return False
    keyword = command.items[1]
    return not (isinstance(keyword, Atom) and keyword.text in STANDARD_OPTIONS)


# commands after which a symbol may be declared again
_FORGETTING = STACK_COMMANDS | {"reset", "reset-assertions"}


def _repeated(commands: list[SList]) -> set[int]:
    """The positions of declarations (and `set-logic`s) that repeat an earlier one word for
    word, in a script that never forgets a declaration; none in one that may."""
    if any(c.head_name() in _FORGETTING for c in commands):
        return set()
    seen: set[str] = set()
    repeated = set()
    for index, command in enumerate(commands):
        if command.head_name() in DECLARING or command.head_name() == "set-logic":
            text = print_node(command)
            if text in seen:
                repeated.add(index)
            seen.add(text)
    return repeated


def trimmed(seed: Seed) -> Seed | None:
    """The seed without queries, non-standard options and declarations repeated word for
    word; None when it has none."""
    commands = seed.script.commands
    repeated = _repeated(commands)
    kept = [c for i, c in enumerate(commands) if not _optional(c) and i not in repeated]
    if len(kept) == len(commands):
        return None
    script = Script(kept, seed.script.filename)
    return replace(seed, script=script, text=print_script(script))
