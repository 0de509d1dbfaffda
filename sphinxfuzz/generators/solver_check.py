"""Do solvers accept generated terms? Parse and type-check only, many terms per solver call.

A term is judged with the script `(set-logic ALL)` (HO_ALL for higher-order terms), its
declarations and `(assert term)`, without `check-sat`, so a solver only parses and
type-checks it. Starting a solver costs far
more than parsing one term (the cvc5 shim starts a Python interpreter), so terms are checked
in batches: each term sits in its own `(push 1)` ... `(pop 1)` scope after an
`(echo "<marker>")`, and a final marker shows whether the solver read to the end. Errors
are attributed to the last marker printed before them (or, when a solver prints errors on
stderr, to the script line they name). A solver that stops at its first error simply costs
another call for the remaining terms; a term that is unbalanced, or whose declarations hold
other commands, or that cannot be attributed, is checked in a call of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sphinxfuzz.generators.term_text import is_balanced, only_declarations
from sphinxfuzz.generators.term_verdict import TermVerdict
from sphinxfuzz.smtlib.lexer import error_message, lexemes
from sphinxfuzz.smtlib.vocabulary import HIGHER_ORDER_SYMBOLS
from sphinxfuzz.solvers import Outcome, SolverResult, SolverSpec, run_solver
from sphinxfuzz.solvers.spec import with_options

MARKER = "sphinxfuzz-term"
END_MARKER = "sphinxfuzz-end"
BATCH_SIZE = 250
REJECTED = (Outcome.ERROR, Outcome.CRASH)

_Z3_POSITION = re.compile(r"\bline (\d+) column (\d+)")
_FILE_POSITION = re.compile(r"(\S+?):(\d+)\.(\d+):")


@dataclass
class _Judgement:
    accepted: bool
    error: str | None = None
    timed_out: bool = False
    crashed: bool = False  # the solver crashed on the term alone: a finding, not a refusal


def logic_for(decls: str, term: str) -> str:
    """HO_ALL when the text uses a higher-order symbol (cvc5 parses them only under an HO_
    logic; the mutator decides the same from the same set, `mutate.logic.is_higher_order`)."""
    higher_order = any(
        kind == "word" and word in HIGHER_ORDER_SYMBOLS
        for text in (decls, term)
        for kind, word, _start in lexemes(text)
    )
    return "HO_ALL" if higher_order else "ALL"


def single_script(decls: str, term: str) -> str:
    return f"(set-logic {logic_for(decls, term)})\n{decls}\n(assert {term})\n"


def check_terms(
    samples: Iterable[tuple[str, str]],
    specs: Sequence[SolverSpec],
    *,
    timeout: float = 10.0,
    batched: bool = True,
    batch_size: int = BATCH_SIZE,
) -> list[TermVerdict]:
    """Judge every (declarations, term) pair with every solver in `specs`."""
    pairs = list(samples)
    verdicts = [TermVerdict(decls, term) for decls, term in pairs]
    for spec in specs:
        if batched:
            judgements = judge_batched(spec, pairs, timeout=timeout, batch_size=batch_size)
        else:
            judgements = [judge_single(spec, d, t, timeout=timeout) for d, t in pairs]
        for verdict, judgement in zip(verdicts, judgements, strict=True):
            if judgement.accepted:
                verdict.valid = True
                if judgement.timed_out:
                    verdict.timeouts.append(spec.name)
            else:
                verdict.errors[spec.name] = judgement.error or "rejected"
                if judgement.crashed:
                    verdict.crashed.append(spec.name)
    return verdicts


def judge_single(spec: SolverSpec, decls: str, term: str, *, timeout: float) -> _Judgement:
    result = run_solver(spec, single_script(decls, term), timeout=timeout)
    if result.outcome in REJECTED:
        return _Judgement(False, _first_error(result), crashed=result.outcome == Outcome.CRASH)
    if result.answers:  # only a command smuggled into the declarations can answer
        return _Judgement(False, "the declarations hold a command that is not a declaration")
    return _Judgement(True, timed_out=result.outcome == Outcome.TIMEOUT)


def judge_batched(
    spec: SolverSpec,
    pairs: Sequence[tuple[str, str]],
    *,
    timeout: float,
    batch_size: int = BATCH_SIZE,
) -> list[_Judgement]:
    results: list[_Judgement | None] = [None] * len(pairs)
    batchable: list[int] = []
    for index, (decls, term) in enumerate(pairs):
        if is_balanced(term) and is_balanced(decls) and only_declarations(decls):
            batchable.append(index)
        else:  # could swallow or disturb its neighbours' commands
            results[index] = judge_single(spec, decls, term, timeout=timeout)
    pending = batchable
    while pending:
        batch, pending = pending[:batch_size], pending[batch_size:]
        leftover = _run_batch(spec, pairs, batch, results, timeout)
        pending = leftover + pending
    assert all(r is not None for r in results)
    return [r for r in results if r is not None]


def _run_batch(
    spec: SolverSpec,
    pairs: Sequence[tuple[str, str]],
    batch: list[int],
    results: list[_Judgement | None],
    timeout: float,
) -> list[int]:
    """Judge what one call can; return the indices still to judge."""
    script, line_owner, single_offset = _batch_script(pairs, batch)
    spec, script = incremental(spec, script)
    result = run_solver(spec, script, timeout=timeout)
    errors, reached, finished = _stdout_errors(result.stdout, line_owner, single_offset)
    stray = _place_stderr_errors(result.stderr, errors, line_owner, single_offset)
    if finished:
        for position, index in enumerate(batch):
            if position in errors:
                results[index] = _Judgement(False, errors[position])
            elif stray:  # an error we could not place: ask about each unplaced term alone
                results[index] = judge_single(spec, *pairs[index], timeout=timeout)
            else:
                results[index] = _Judgement(True)
        return []
    # The solver stopped early (first error, crash, timeout): everything before the last
    # marker it printed was read; the last term is rejected if it has an error, else redone.
    last = reached[-1] if reached else -1
    for position in range(last):
        results[batch[position]] = (
            _Judgement(False, errors[position]) if position in errors else _Judgement(True)
        )
    if last >= 0 and last in errors:
        results[batch[last]] = _Judgement(False, errors[last])
    elif last >= 0 and stray and result.outcome == Outcome.ERROR:
        results[batch[last]] = _Judgement(False, _error_text(stray[0]))
    else:
        first = batch[max(last, 0)]
        results[first] = judge_single(spec, *pairs[first], timeout=timeout)
        last = max(last, 0)
    return batch[last + 1 :]


def incremental(spec: SolverSpec, script: str) -> tuple[SolverSpec, str]:
    """`spec` and `script` in the incremental mode a batch's scopes need, as the family's
    record says it is entered (`FamilyRecord.incremental`: a cvc5 or cvc4 binary refuses
    push without it, yices takes it only on its command line). A script line goes on the
    set-logic line, so that error line numbers still map onto terms; the cvc5 shim is
    incremental already and takes the line as a binary does."""
    way = spec.family.record.incremental
    if way is not None and way.startswith("("):
        return spec, f"{way} {script}"
    return incremental_argv(spec), script


def incremental_argv(spec: SolverSpec) -> SolverSpec:
    """`spec` with the command-line word that makes its family incremental, when its record
    names one (yices's `--incremental`); else `spec` as it is."""
    way = spec.family.record.incremental
    if way is None or way.startswith("(") or way in spec.argv:
        return spec
    return with_options(spec, (way,))


def _stdout_errors(
    stdout: str, line_owner: list[int | None], single_offset: list[int]
) -> tuple[dict[int, str], list[int], bool]:
    """(first error per batch position, positions whose marker was printed in order,
    whether the end marker was printed) from a batch's stdout."""
    errors: dict[int, str] = {}
    reached: list[int] = []
    current: int | None = None
    finished = False
    for line in stdout.splitlines():
        stripped = line.strip().strip('"')
        if stripped.startswith(MARKER):
            current = int(stripped[len(MARKER) :])
            reached.append(current)
        elif stripped == END_MARKER:
            finished = True
        elif line.startswith("(error") and current is not None:
            message = _translate(_error_text(line), current, line_owner, single_offset)
            errors.setdefault(current, message)
    return errors, reached, finished


def _place_stderr_errors(
    stderr: str, errors: dict[int, str], line_owner: list[int | None], single_offset: list[int]
) -> list[str]:
    """Errors on stderr carry no order relative to the markers: each goes to the position
    its line number names (into `errors`); returns the lines no position owns."""
    stray = []
    for line in stderr.splitlines():
        if "error" not in line.lower():
            continue
        owner = _owner_of(line, line_owner)
        if owner is None:
            stray.append(line)
        else:
            errors.setdefault(
                owner, _translate(_error_text(line), owner, line_owner, single_offset)
            )
    return stray


def _batch_script(
    pairs: Sequence[tuple[str, str]], batch: list[int]
) -> tuple[str, list[int | None], list[int]]:
    """The script, the batch position owning each (1-based) line, and per position the line
    offset that maps a script line onto the same line of the term's single-term script."""
    higher_order = any(logic_for(*pairs[index]) != "ALL" for index in batch)
    lines = ["(set-logic HO_ALL)" if higher_order else "(set-logic ALL)"]
    owner: list[int | None] = [None, None]  # index 0 unused, line 1 is set-logic
    offsets: list[int] = []
    for position, index in enumerate(batch):
        decls, term = pairs[index]
        lines.append(f'(echo "{MARKER}{position}")')
        lines.append("(push 1)")
        owner += [position, position]
        # The single-term script puts the declarations on line 2.
        offsets.append(len(lines) + 1 - 2)
        # Split on "\n" only: that is how solvers count lines.
        body = single_script(decls, term)[:-1].split("\n")[1:]
        lines.extend(body)
        owner += [position] * len(body)
        lines.append("(pop 1)")
        owner.append(position)
    lines.append(f'(echo "{END_MARKER}")')
    owner.append(None)
    return "\n".join(lines) + "\n", owner, offsets


def _error_text(line: str) -> str:
    message = error_message(line)
    return (line if message is None else message).strip()


def _owner_of(line: str, line_owner: list[int | None]) -> int | None:
    match = _Z3_POSITION.search(line) or _FILE_POSITION.search(line)
    if match is None:
        return None
    number = int(match.group(1) if match.re is _Z3_POSITION else match.group(2))
    return line_owner[number] if 0 < number < len(line_owner) else None


def _translate(
    message: str, position: int, line_owner: list[int | None], offsets: list[int]
) -> str:
    """Rewrite batch line numbers to the term's own single-term script."""

    def z3_line(match: re.Match[str]) -> str:
        return f"line {int(match.group(1)) - offsets[position]} column {match.group(2)}"

    def file_line(match: re.Match[str]) -> str:
        return f"{match.group(1)}:{int(match.group(2)) - offsets[position]}.{match.group(3)}:"

    message = _Z3_POSITION.sub(z3_line, message)
    return _FILE_POSITION.sub(file_line, message)


def _first_error(result: SolverResult) -> str:
    if result.failure_line:
        return _error_text(result.failure_line)
    for text in (result.stdout, result.stderr):
        for line in text.splitlines():
            if line.strip():
                return _error_text(line)
    return f"{result.outcome.value} (exit code {result.exit_code})"
