"""Which of many scripts a solver rejects (an `(error ...)`), in few solver calls.

The scripts run in one batch, each from a fresh state and announced by an `(echo ...)`
marker; an error line is charged to the script of the last marker. cvc5 stops at its first
error, so the batch is resumed after the rejected script.
"""

from __future__ import annotations

from sphinxfuzz.smtlib import Script, print_node
from sphinxfuzz.solvers import SolverSpec, run_solver

_SKIP = {"set-logic", "reset", "exit", "get-model", "get-value", "echo"}
_PER_QUERY = {"z3": "(set-option :timeout {ms})", "cvc5": "(set-option :tlimit-per {ms})"}


def _batch(scripts: list[Script], start: int, family: str, ms: int) -> str:
    lines = []
    for number in range(start, len(scripts)):
        script = scripts[number]
        logic = next(
            (print_node(c.items[1]) for c in script.commands if c.head_name() == "set-logic"),
            "ALL",
        )
        if family in _PER_QUERY:
            lines.append(_PER_QUERY[family].format(ms=ms))
        lines += [f"(set-logic {logic})", f'(echo "@@ {number}")']
        lines += [print_node(c) for c in script.commands if c.head_name() not in _SKIP]
        lines.append("(reset)")
    return "\n".join(lines) + "\n"


def rejected(spec: SolverSpec, scripts: list[Script], ms: int = 20) -> dict[int, str]:
    """Index -> first error line of every script `spec` rejects."""
    errors: dict[int, str] = {}
    start = 0
    while start < len(scripts):
        result = run_solver(spec, _batch(scripts, start, spec.family, ms), timeout=300)
        current, last = start, start
        for line in result.stdout.splitlines():
            text = line.strip().strip('"')
            if text.startswith("@@ "):
                current = last = int(text[3:])
            elif text.startswith("(error") and current not in errors:
                errors[current] = text
        # a solver that stopped early (cvc5 after an error, a crash) resumes after the script
        # it stopped in; one that went through has announced the last script
        start = last + 1
    # z3 sometimes fails on datatypes declared after a (reset) in one process: an error
    # counts only when the script alone repeats it
    return {i: e for i, e in errors.items() if _alone(spec, scripts[i], ms)}


def _alone(spec: SolverSpec, script: Script, ms: int) -> bool:
    result = run_solver(spec, _batch([script], 0, spec.family, ms), timeout=60)
    return "(error" in result.stdout


def rejected_by_each(specs: list[SolverSpec], scripts: list[Script]) -> dict[str, dict[int, str]]:
    """`rejected` for every solver, the solvers running side by side."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(specs)) as pool:
        found = pool.map(lambda spec: rejected(spec, scripts), specs)
        return {spec.name: errors for spec, errors in zip(specs, found, strict=True)}
