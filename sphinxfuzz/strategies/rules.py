"""Rules that claim a validity (an equivalence, an implication), kept as data and proved.

Each rule in a table file carries its free variables with their sorts, the claim as an SMT-LIB
formula that must be valid, and a `proof`: the digest of the validity-check script that z3
and cvc5 both answered `unsat`. The loader recomputes the digest and refuses a rule whose
check is missing or differs (an edited or unproven rule), so no strategy uses a claim no
solver pair has confirmed. `python -m sphinxfuzz.strategies.prove_tables` re-proves the tables and
writes the digests; tests/strategies re-run every check.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sphinxfuzz.errors import InputError
from sphinxfuzz.solvers import Answer

HERE = Path(__file__).resolve().parent
TABLES = ("string_equivalences.json", "fusion_functions.json", "approximations.json")


class RuleError(InputError):
    """A table row that is malformed or not proved; the message names file and rule."""


@dataclass(frozen=True)
class Rule:
    table: str
    name: str
    variables: dict[str, str]  # name -> sort text
    claims: tuple[str, ...]  # formulas over `variables` that must each be valid
    row: dict[str, object]  # the whole row, for the strategy's own fields

    def check_scripts(self) -> list[str]:
        """Per claim, declarations and the negated claim: `unsat` proves it."""
        declarations = [f"(declare-const {name} {sort})" for name, sort in self.variables.items()]
        return ["\n".join([*declarations, f"(assert (not {claim}))"]) for claim in self.claims]

    def digest(self) -> str:
        return hashlib.sha256("\n".join(self.check_scripts()).encode()).hexdigest()[:16]


def read_table(filename: str) -> list[Rule]:
    """Every row of a table, proved or not."""
    path = HERE / filename
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))["rules"]
    except (OSError, ValueError, KeyError) as exc:
        raise RuleError(f"{path}: cannot read the rule table: {exc}") from None
    rules = []
    for number, row in enumerate(rows, 1):
        try:
            claims = row["claim"]
            claims = (claims,) if isinstance(claims, str) else tuple(claims)
            rules.append(Rule(filename, row["name"], dict(row["variables"]), claims, row))
        except (KeyError, TypeError) as exc:
            raise RuleError(f"{path}: rule {number}: missing field {exc}") from None
    return rules


def load_rules(filename: str) -> list[Rule]:
    """The table's rules, refusing any whose proof digest does not match its check.

    A row with an `excluded` reason (a published rule that is not valid) is left out; the
    tests show each such claim is indeed refuted."""
    rules = [rule for rule in read_table(filename) if "excluded" not in rule.row]
    for rule in rules:
        if rule.row.get("proof") != rule.digest():
            raise RuleError(
                f"{HERE / filename}: rule {rule.name!r} is not proved valid (run "
                "`python -m sphinxfuzz.strategies.prove_tables` with z3 and cvc5 installed)"
            )
    return rules


def batch_script(rules: Iterable[Rule]) -> str:
    """One script checking every claim from a fresh state: one `unsat` per claim, in order."""
    # (reset) rather than push/pop: z3 answers incremental scripts with a weaker solver
    parts = []
    for rule in rules:
        for check in rule.check_scripts():
            parts += ["(set-logic ALL)", check, "(check-sat)", "(reset)"]
    return "\n".join(parts) + "\n"


def prove(rules: list[Rule], run: Callable[[str], Sequence[Answer]]) -> list[tuple[Rule, str]]:
    """Run the batched checks through `run` (script text -> answers); the rules with a claim
    not answered `unsat`."""
    answers = run(batch_script(rules))
    failed: list[tuple[Rule, str]] = []
    position = 0
    for rule in rules:
        got = list(answers[position : position + len(rule.claims)])
        position += len(rule.claims)
        if got != [Answer.UNSAT] * len(rule.claims):
            failed.append((rule, " ".join(got) or "no answer"))
    return failed
