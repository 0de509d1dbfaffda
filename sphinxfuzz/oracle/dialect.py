"""Solver dialects: the lines of a script that only one solver family understands.

A seed from z3's tracker may carry `(set-option :smt.arith.solver 2)` or `check-sat-using`;
one from cvc5's may carry `(set-option :strings-exp true)`. Each solver gets the script with
the other families' lines dropped (and z3's `check-sat-using` turned into `check-sat`, so
every solver still answers the same number of queries)."""

from __future__ import annotations

from collections.abc import Sequence

from sphinxfuzz.smtlib import Atom, Script, SList, parse_script, print_node
from sphinxfuzz.solvers.families import RECORDS, Family

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
# z3 parameters written without a module prefix.
_Z3_PLAIN_OPTIONS = {
    ":timeout",
    ":rlimit",
    ":auto-config",
    ":auto_config",
    ":model_validate",
    ":model-validate",
    ":unsat_core",
    ":proof",
    ":well_sorted_check",
    ":model",
    ":memory_max_size",
    ":max_memory",
    ":type_check",
    ":dump_models",
    ":trace",
    ":trace_file_name",
    ":smtlib2_compliant",
    ":encoding",
    ":stats",
    ":model_evaluator.completion",
    ":pp.decimal",
    ":unicode",
    ":relevancy",
    ":mbqi",
    ":macro-finder",
    ":pull-nested-quantifiers",
    ":elim-quantifiers",
    ":ematching",
    ":soft_timeout",
    ":opt.priority",
    ":string_solver",
    ":core.minimize",
}
_Z3_COMMANDS = {
    "check-sat-using",
    "apply",
    "simplify",
    "eval",
    "display",
    "assert-soft",
    "minimize",
    "maximize",
    "get-objectives",
    "declare-rel",
    "declare-var",
    "rule",
    "query",
    "help",
    "get-proof-graph",
    "set-initial-value",
    "get-consequences",
}
_CVC5_COMMANDS = {
    "declare-heap",
    "get-abduct",
    "get-abduct-next",
    "get-interpolant",
    "get-interpolant-next",
    "block-model",
    "block-model-values",
    "declare-pool",
    "get-learned-literals",
    "get-difficulty",
    "get-timeout-core",
    "get-qe",
    "get-qe-disjunct",
    "declare-codatatype",
    "declare-codatatypes",
    "get-instantiations",
    "find-synth",
    "declare-oracle-fun",
}


def option_family(option: str) -> Family | None:
    """Which family a `set-option` keyword belongs to (None: standard, every solver)."""
    if option in STANDARD_OPTIONS:
        return None
    if "." in option or "_" in option or option in _Z3_PLAIN_OPTIONS:
        return Family.Z3
    return Family.CVC5


def command_family(command: SList) -> Family | None:
    """The only family that understands `command`, or None when every solver does."""
    head = command.head_name()
    if head in _Z3_COMMANDS:
        return Family.Z3
    if head in _CVC5_COMMANDS:
        return Family.CVC5
    if head == "set-option" and len(command.items) >= 2 and isinstance(command.items[1], Atom):
        return option_family(command.items[1].text)
    return None


def for_family(script: Script | str, family: str, printed: Sequence[str] | None = None) -> str:
    """The script's text as a solver of `family` (a stored name is fine) should see it:
    the lines of the dialect its record names kept, other families' dropped (`printed`:
    its commands printed already, so that a mutant is printed once for every family)."""
    if isinstance(script, str):
        script = parse_script(script)
    reads = RECORDS[Family.read(family)].dialect
    lines: list[str] = []
    for index, command in enumerate(script.commands):
        owner = command_family(command)
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
