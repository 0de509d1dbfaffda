"""Run many test scripts in one solver call, each from a fresh state (`(reset)`)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from sphinxfuzz.smtlib import Script, print_node, print_script
from sphinxfuzz.solvers import SolverSpec, run_solver

_SKIP = {"set-logic", "reset", "set-info", "exit", "get-model", "set-option"}


# a time limit per check-sat, so one hard query costs an `unknown`, not the batch
_PER_QUERY = {"z3": "(set-option :timeout {ms})", "cvc5": "(set-option :tlimit-per {ms})"}


def scoped(scripts: list[Script], logic: str = "ALL", family: str = "", ms: int = 3000) -> str:
    """One script answering each of `scripts`' check-sats in order (one check-sat each)."""
    lines = []
    for script in scripts:
        if family in _PER_QUERY:
            lines.append(_PER_QUERY[family].format(ms=ms))
        lines.append(f"(set-logic {logic})")
        lines += [print_node(c) for c in script.commands if c.head_name() not in _SKIP]
        lines.append("(reset)")  # not push/pop: z3 solves incremental scripts differently
    return "\n".join(lines) + "\n"


def answers(spec: SolverSpec, text: str, timeout: float = 60) -> list[str]:
    result = run_solver(spec, text, timeout=timeout)
    assert result.outcome.value not in ("crash", "error"), (
        spec.name,
        result.stderr[-2000:],
        result.stdout[-500:],
    )
    return result.answers


def mismatches(
    spec: SolverSpec, scripts: list[Script], expected: list[str | None], timeout: float = 60
) -> tuple[list[tuple[int, str]], list[int]]:
    """The (index, answer) of every script whose decided answer contradicts the expected one,
    and the indices of scripts left undecided (`unknown`, or no answer: a time-out cuts the
    batch)."""
    got = answers(spec, scoped(scripts, family=spec.family), timeout)
    wrong, undecided = [], []
    for i, want in enumerate(expected):
        answer = got[i] if i < len(got) else "none"
        if answer not in ("sat", "unsat"):
            undecided.append(i)
        elif want is not None and answer != want:
            wrong.append((i, answer))
    return wrong, undecided


def assert_expected(
    specs: list[SolverSpec],
    scripts: list[Script],
    expected: list[str | None],
    undecided_share: float = 0.1,
) -> dict[str, int]:
    """No solver contradicts an expected answer; few are left undecided. Returns the
    undecided count per solver, for the figures."""
    counts = {}
    # one thread per solver: each waits on its own solver process, so they overlap
    with ThreadPoolExecutor(len(specs)) as pool:
        found = list(pool.map(lambda spec: mismatches(spec, scripts, expected), specs))
    for spec, (wrong, undecided) in zip(specs, found, strict=True):
        assert wrong == [], (spec.name, [(i, a, print_script(scripts[i])) for i, a in wrong[:3]])
        assert len(undecided) <= undecided_share * len(scripts), (spec.name, undecided)
        counts[spec.name] = len(undecided)
    return counts
