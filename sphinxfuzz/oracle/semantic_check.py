"""A solver's model checked in an executable semantics, without any solver.

For a formula inside the fragment `string_semantics.evaluate` computes (Booleans, integer
arithmetic, the string operations: what the strings strategy builds, and many integer
formulas), a model under which an assertion is false is wrong whatever the solver's own
model check says. Outside the fragment nothing is decided.
"""

from __future__ import annotations

from sphinxfuzz.errors import SphinxfuzzError
from sphinxfuzz.oracle.model_check import constant_values
from sphinxfuzz.oracle.string_semantics import Value, evaluate
from sphinxfuzz.smtlib import Atom, Node, Script, SmtParseError, parse_script

SEMANTICS = "executable semantics"  # evidence["source"] of a model it refuted

# commands that leave the evaluated fragment's meaning alone
_NEUTRAL = {"set-option", "set-info", "set-logic", "declare-const", "declare-fun", "assert",
            "check-sat", "get-model", "get-value", "exit"}  # fmt: skip


def model_holds(script_text: str, model_text: str) -> bool | None:
    """True when every assertion holds under the model, False when one is false, None when
    nothing is decided: an unreadable model, a declared constant it lacks, a function with
    parameters, several check-sats or scopes, or a term outside the fragment."""
    try:
        script = parse_script(script_text, "<formula>")
    except SmtParseError:
        return None
    heads = [c.head_name() for c in script.commands]
    if any(h not in _NEUTRAL for h in heads) or heads.count("check-sat") != 1:
        return None
    try:
        return _holds(script, constant_values(model_text))
    except (SphinxfuzzError, RecursionError):
        return None


def _holds(script: Script, values: dict[str, Node]) -> bool | None:
    env: dict[str, Value] = {}
    for command in script.commands:
        if command.head_name() not in ("declare-const", "declare-fun"):
            continue
        name = command.items[1]
        if command.head_name() == "declare-fun" and len(command.items) != 4:
            return None
        if len(command.items) == 4 and getattr(command.items[2], "items", None):
            return None  # a function with parameters
        if not isinstance(name, Atom) or name.name not in values:
            return None
        env[name.name] = evaluate(values[name.name], {})
    for command in script.commands:
        if command.head_name() == "assert" and evaluate(command.items[1], env) is not True:
            return False
    return True
