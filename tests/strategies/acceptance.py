"""Which of many scripts a solver rejects (an `(error ...)`), in few solver calls.

The scripts run in one batch, each from a fresh state and announced by an `(echo ...)`
marker; an error line is charged to the script of the last marker. cvc5 stops at its first
error, so the batch is resumed after the rejected script (`batching.run_marked`, which also
cuts a script that runs too long).
"""

from __future__ import annotations

import random

from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.smtlib import Script, parse_script, print_node
from sphinxfuzz.solvers import SolverSpec, parse_specs, run_solver
from sphinxfuzz.strategies.base import Strategy

from .batching import run_marked

_SKIP = {"set-logic", "reset", "exit", "get-model", "get-value", "echo"}
_PER_QUERY = {"z3": "(set-option :timeout {ms})", "cvc5": "(set-option :tlimit-per {ms})"}


def _text(script: Script, family: str, ms: int) -> str:
    logic = next(
        (print_node(c.items[1]) for c in script.commands if c.head_name() == "set-logic"),
        "ALL",
    )
    lines = [_PER_QUERY[family].format(ms=ms)] if family in _PER_QUERY else []
    lines.append(f"(set-logic {logic})")
    lines += [print_node(c) for c in script.commands if c.head_name() not in _SKIP]
    lines.append("(reset)")
    return "\n".join(lines) + "\n"


def rejected(spec: SolverSpec, scripts: list[Script], ms: int = 20) -> dict[int, str]:
    """Index -> first error line of every script `spec` rejects (in batches with a time-out
    per script: `batching.run_marked`; a script cut by it is not a rejection)."""
    outputs = run_marked(spec, [_text(script, spec.family, ms) for script in scripts])
    errors = {
        i: next(line for line in lines if line.startswith("(error"))
        for i, lines in enumerate(outputs)
        if lines is not None and any(line.startswith("(error") for line in lines)
    }
    # z3 sometimes fails on datatypes declared after a (reset) in one process: an error
    # counts only when the script alone repeats it
    return {i: e for i, e in errors.items() if _alone(spec, scripts[i], ms)}


def _alone(spec: SolverSpec, script: Script, ms: int) -> bool:
    result = run_solver(spec, _text(script, spec.family, ms), timeout=60)
    return "(error" in result.stdout


def rejected_by_each(specs: list[SolverSpec], scripts: list[Script]) -> dict[str, dict[int, str]]:
    """`rejected` for every solver, the solvers running side by side."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(specs)) as pool:
        found = pool.map(lambda spec: rejected(spec, scripts), specs)
        return {spec.name: errors for spec, errors in zip(specs, found, strict=True)}


# A real-only logic whose numerals are reals: cvc5 rejects `(f 0)` for `f` of a Real once a
# mutant's logic is widened to ALL, unless the numerals were spelled as decimals first.
REAL_ONLY_SEED = (
    "(set-logic QF_UFLRA)(declare-fun f (Real) Real)(declare-fun p (Real) Bool)"
    "(declare-const x Real)(assert (= (f 0) (+ x 1)))"
    "(assert (or (p (- 1)) (> (f 2) (* 3 x))))(check-sat)"
)


def real_only_rejections(strategy: Strategy, count: int = 40) -> dict[int, str]:
    """What cvc5 rejects of `count` mutants of REAL_ONLY_SEED (all of them are made)."""
    seed = Seed("real-only.smt2", REAL_ONLY_SEED, parse_script(REAL_ONLY_SEED))
    cases = list(strategy.mutants(seed, random.Random(2)))
    assert len(cases) == count
    (cvc5,) = parse_specs("cvc5")
    return rejected(cvc5, [c.script for c in cases])
