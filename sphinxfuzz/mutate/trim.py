"""Seeds from other tools' suites: commands only their own tool reads.

bitwuzla's and yices2's regressions ask for interpolants in bitwuzla's syntax, set options
of their own solver (`:bv-solver prop`) or output channels; a target that rejects such a
command rejects the whole seed. Such a seed is tried again without its queries and its
non-standard options: what is asserted and checked is all a mutation needs.
"""

from __future__ import annotations

from dataclasses import replace

from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.oracle.dialect import STANDARD_OPTIONS
from sphinxfuzz.smtlib import Atom, Script, SList, print_script

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


def trimmed(seed: Seed) -> Seed | None:
    """The seed without queries and non-standard options; None when it has none."""
    kept = [c for c in seed.script.commands if not _optional(c)]
    if len(kept) == len(seed.script.commands):
        return None
    script = Script(kept, seed.script.filename)
    return replace(seed, script=script, text=print_script(script))
