"""Is a candidate formula still the stored bug? The check ddSMT runs on every candidate.

    python -m sphinxfuzz.oracle.same_bug CHECK.json CANDIDATE.smt2

exits 0 when the candidate still shows the bug and 1 when it does not, printing nothing, so
ddSMT keeps exactly the candidates whose exit code matches the original's. "Still the bug"
means the oracle, run on the bug's stored command lines, gives a verdict of the same kind,
against the same solver, with the same signature: the same normalised crash line; the same
unsat solver refuted by the same sat solver's model; the same model failing its check. A
verdict against an expected answer also needs the answer confirmed on the candidate, by the
stored reference solver or the strategy's witness model; an incompleteness needs the blamed
solver still unsolved and the reference still answering.

This module is the one home of "still the bug", as ddSMT keeps its own in one checker: reduce
(its first and last check, ddSMT's test through `bugs.check_server`, the options and standing
tried after it), refresh and bisect (another release in the blamed solver's place:
`CheckSpec.blaming`) and replay (`reproduces`, over the oracle's judgement of every stored
solver) ask it, and every answer comes down to `same_bug`.
"""

from __future__ import annotations

import json
import re
import signal
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sphinxfuzz.oracle.backtrace import gdb_backtrace, identified
from sphinxfuzz.oracle.dialect import for_family
from sphinxfuzz.oracle.expected import UNSOLVED, ModelChecker, judge_expected
from sphinxfuzz.oracle.judge import CheckRunner, judge
from sphinxfuzz.oracle.model_check import ModelCheckError, build_model_check
from sphinxfuzz.oracle.run import run_in_dialect
from sphinxfuzz.oracle.semantic_check import SEMANTICS
from sphinxfuzz.oracle.verdict import Expected, Judgement, Verdict, VerdictKind
from sphinxfuzz.smtlib import Script, SmtParseError, parse_script, print_script
from sphinxfuzz.solvers import (
    Answer,
    Outcome,
    SolverResult,
    SolverSpec,
    SolverSpecError,
    parse_specs,
)


@dataclass(frozen=True)
class CheckSpec:
    """What a candidate must reproduce, and how to run the solvers on it."""

    kind: VerdictKind
    solver: str  # the blamed solver's display name
    signature: str
    solvers: tuple[str, ...]  # every stored spec text, in the campaign's order (names follow it)
    run: tuple[str, ...]  # names of the solvers to run: only the blamed one when that suffices
    timeout: float
    memory_mb: int = 4096
    expected: Expected | None = None  # the answer known by construction
    reference: str | None = None  # the solver that confirms `expected` on a candidate
    witness_model: str | None = None  # ... or the model the strategy built it to satisfy
    # reference solvers (spec texts) that must read a candidate without an error line, so a
    # reduction never drifts into invalid input (`accepts`); none: no such check
    parsers: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "kind": str(self.kind), "solver": self.solver, "signature": self.signature,
            "solvers": list(self.solvers), "run": list(self.run), "timeout": self.timeout,
            "memory_mb": self.memory_mb,
        }  # fmt: skip
        if self.expected is not None:
            data["expected"] = self.expected.to_json()
            data["reference"], data["witness_model"] = self.reference, self.witness_model
        if self.parsers:
            data["parsers"] = list(self.parsers)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CheckSpec:
        """Raises ValueError (or KeyError for a missing field) on a malformed spec."""
        expected = data.get("expected")
        return cls(
            VerdictKind(data["kind"]),
            str(data["solver"]),
            str(data["signature"]),
            tuple(str(s) for s in data["solvers"]),
            tuple(str(s) for s in data["run"]),
            float(data["timeout"]),
            int(data.get("memory_mb", 4096)),
            Expected.from_json(expected) if isinstance(expected, dict) else None,
            data.get("reference"),
            data.get("witness_model"),
            tuple(str(p) for p in data.get("parsers", ())),
        )

    @classmethod
    def for_verdict(
        cls, verdict: Verdict, solvers: list[str], *, timeout: float, memory_mb: int = 4096
    ) -> CheckSpec:
        if verdict.kind == VerdictKind.DISAGREEMENT:
            raise ValueError("an unsettled disagreement blames no solver")
        if verdict.solver is None:
            raise ValueError(f"a {verdict.kind} verdict names no solver: nothing to reduce")
        names = [spec.name for spec in parse_specs(";".join(solvers))]
        if verdict.solver not in names:
            raise ValueError(f"the blamed solver {verdict.solver!r} is not among {names}")
        reference = verdict.evidence.get("reference") if verdict.expected else None
        witness = verdict.evidence.get("witness_model") if verdict.expected else None
        run = _solvers_to_run(verdict, verdict.solver, names, reference, witness)
        return cls(verdict.kind, verdict.solver, verdict.signature, tuple(solvers), run,
                   timeout, memory_mb, verdict.expected,
                   reference if isinstance(reference, str) else None,
                   witness if isinstance(witness, str) else None)  # fmt: skip

    def blaming(self, index: int, line: str) -> CheckSpec:
        """The same check with the spec text `line` (another release of the blamed solver,
        its options kept) in place of the blamed solver's, spec `index`: blamed and run
        (with every solver, when the check runs them all)."""
        solvers = [*self.solvers[:index], line, *self.solvers[index + 1 :]]
        specs = parse_specs(";".join(solvers))
        name = specs[index].name
        alone = tuple(self.run) == (self.solver,)
        run = (name,) if alone else tuple(s.name for s in specs)
        return replace(self, solver=name, solvers=tuple(solvers), run=run)

    def worst_case(self) -> float:
        """The longest one check takes (each solver run, then a model check by each, each
        under the timeout; a reader's; a debugger's for a bare signal), in seconds."""
        calls = len(self.run) * (1 if len(self.run) == 1 else 2) + len(self.parsers)
        debugger = 20.0 + self.timeout if self.kind == VerdictKind.CRASH else 0.0
        return calls * (self.timeout + 2.0) + debugger


def _solvers_to_run(
    verdict: Verdict, blamed: str, names: list[str], reference: object, witness: object
) -> tuple[str, ...]:
    if (
        verdict.kind == VerdictKind.CRASH
        or verdict.own_model_check
        or verdict.evidence.get("source") == SEMANTICS  # no solver is needed to refute it
    ):
        return (blamed,)
    if verdict.expected is None:
        # a disagreement needs every solver: the ones that took no side settle the model check
        return tuple(names)
    if isinstance(reference, str) and reference in names:
        return (blamed, reference)
    if verdict.kind == VerdictKind.SOUNDNESS and isinstance(witness, str):
        return tuple(names)  # the others evaluate the witness model
    raise ValueError(
        f"no solver besides {blamed} confirmed the expected {verdict.expected.answer} "
        "and no witness model is stored: a candidate's answer could not be confirmed"
    )


def check(spec: CheckSpec, text: str) -> tuple[Verdict | None, list[SolverResult]]:
    """(the oracle's verdict that is still the bug, or None; the solver results on `text`)."""
    specs: list[SolverSpec] = [s for s in parse_specs(";".join(spec.solvers)) if s.name in spec.run]

    def run(solver: SolverSpec, script: str) -> SolverResult:
        return run_in_dialect(solver, script, timeout=spec.timeout, memory_mb=spec.memory_mb)

    try:
        parse_script(text)
    except SmtParseError:
        return None, []  # ddSMT keeps candidates well formed; anything else is not the bug
    results = [run(solver, text) for solver in specs]
    if spec.expected is None:
        verdicts = judge(text, results, run).verdicts
        if spec.kind == VerdictKind.CRASH:  # a stack signature must stay the same stack
            verdicts = identified(
                verdicts, results, lambda s: for_family(text, s.family),
                lambda s, t: gdb_backtrace(s, t, timeout=spec.timeout, memory_mb=spec.memory_mb),
            )  # fmt: skip
    elif spec.kind == VerdictKind.INCOMPLETENESS:
        verdicts = _still_unsolved(spec, spec.expected, results)
    else:
        # every solver run (the reference too) judges, so a sat model is checked by more
        # than the solver that made it, as in the campaign: a model its maker alone believes
        # leaves the check undecided, not "the expectation was wrong". Only the blamed
        # solver's verdict is kept (`found`, below).
        verdicts = judge_expected(results, spec.expected, ModelChecker(text, run))
        # a model the semantics refutes is wrong whatever the answer: nothing to confirm
        if (verdicts and spec.kind != VerdictKind.INVALID_MODEL
                and not _expected_holds(spec, spec.expected, text, results, run)):  # fmt: skip
            verdicts = []
    found = next((v for v in verdicts if same_bug(v, spec.kind, spec.solver, spec.signature)), None)
    if found is not None and spec.parsers:
        readers = parse_specs(";".join(spec.parsers))
        if not all(accepts(r, text, timeout=spec.timeout, memory_mb=spec.memory_mb)[0]
                   for r in readers):  # fmt: skip
            return None, results
    return found, results


def same_bug(
    verdict: Verdict, kind: VerdictKind, solver: str | None, signature: str | None
) -> bool:
    """The core comparison: a verdict of the same kind against the same solver with the same
    signature (None: any signature, as replay asks outside crashes)."""
    if verdict.kind != kind or verdict.solver != solver:
        return False
    return signature is None or verdict.signature == signature


def passes(spec: CheckSpec, text: str) -> bool:
    """Whether `text` still shows the bug: ddSMT's test of a candidate."""
    return check(spec, text)[0] is not None


def check_options(spec: CheckSpec, text: str) -> tuple[Verdict | None, list[SolverResult]]:
    """`check` of other command lines (options left out) on a formula already checked: its
    readers have read it already and are not asked again."""
    return check(replace(spec, parsers=()), text)


def reproduces(original: Verdict, judgement: Judgement) -> bool:
    """Whether the oracle's judgement of every stored solver on the stored formula (replay)
    shows `original` again: the same kind against the same solver, and for a crash the same
    signature too; a disagreement also when its model check decided nothing."""
    signature = original.signature if original.kind == VerdictKind.CRASH else None
    if any(same_bug(v, original.kind, original.solver, signature) for v in judgement.verdicts):
        return True
    return original.kind == VerdictKind.DISAGREEMENT and judgement.unconfirmed


def first_reader(
    candidates: Iterable[str], text: str, *, timeout: float, memory_mb: int = 4096
) -> tuple[str | None, str]:
    """(the first spec text of `candidates` that reads `text` cleanly (`accepts`), "") or
    (None, why none did)."""
    tried = []
    for candidate in candidates:
        try:
            reader = parse_specs(candidate)[0]
        except (SolverSpecError, ValueError) as exc:
            tried.append(f"{candidate}: {exc}")
            continue
        accepted, detail = accepts(reader, text, timeout=timeout, memory_mb=memory_mb)
        if accepted:
            return candidate, ""
        tried.append(f"{candidate} rejects the stored trigger ({detail})")
    return None, "; ".join(tried) or "no reference solver known"


# commands that ask the solver something: a reference only has to read the formula
QUERIES = frozenset(
    {"check-sat", "check-sat-assuming", "get-model", "get-value", "get-unsat-core",
     "get-proof", "get-assignment", "get-unsat-assumptions", "get-interpolants"}
)  # fmt: skip


def accepts(
    reader: SolverSpec, text: str, *, timeout: float, memory_mb: int = 4096
) -> tuple[bool, str]:
    """(whether `reader` reads `text` (its queries left out) without an error line or a
    crash, what it said otherwise). A reduction keeps only candidates a reference reads:
    a crash on a solver's error path is not the bug a maintainer is looking for."""
    try:
        script = parse_script(text)
    except SmtParseError as exc:
        return False, str(exc)
    kept = [c for c in script.commands if c.head_name() not in QUERIES]
    statement = print_script(Script(kept, script.filename))
    result = run_in_dialect(reader, statement, timeout=timeout, memory_mb=memory_mb)
    if result.outcome in (Outcome.ERROR, Outcome.CRASH):
        return False, f"{result.outcome}: {result.failure_line or ''}".strip()
    # z3 answers a command it does not know with `unsupported` (and no error)
    refused = next((line for line in result.stdout.splitlines() if _REFUSAL.match(line)), None)
    if refused is not None:
        return False, refused.strip()
    return True, ""


_REFUSAL = re.compile(r"^\s*(?:unsupported\b|\(error\b)")


def _expected_holds(
    spec: CheckSpec,
    expected: Expected,
    text: str,
    results: Sequence[SolverResult],
    run: CheckRunner,
) -> bool:
    """The reference solver still gives the expected answer, or the witness model still
    satisfies the candidate (checked by the solvers other than the blamed one)."""
    if spec.reference is not None:
        return any(r.spec.name == spec.reference and r.first == expected.answer for r in results)
    if spec.witness_model is None:
        return False
    try:
        script = build_model_check(text, spec.witness_model)
    except ModelCheckError:
        return False
    judges = [r for r in results if r.spec.name != spec.solver] or list(results)
    return any(run(r.spec, script).first == Answer.SAT for r in judges)


def _still_unsolved(
    spec: CheckSpec, expected: Expected, results: Sequence[SolverResult]
) -> list[Verdict]:
    blamed = next((r for r in results if r.spec.name == spec.solver), None)
    reference = next((r for r in results if r.spec.name == spec.reference), None)
    if blamed is None or reference is None or blamed.outcome not in UNSOLVED:
        return []
    if reference.first != expected.answer:
        return []
    evidence: dict[str, object] = {
        "answers": {r.spec.name: list(r.answers) for r in results},
        "outcome": str(blamed.outcome),
        "reference": spec.reference,
    }
    return [Verdict(spec.kind, spec.solver, spec.signature, evidence, expected)]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m sphinxfuzz.oracle.same_bug CHECK.json FILE", file=sys.stderr)
        return 2
    # ddSMT (or its time limit) may stop a check: exit so the running solver is killed too
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(1))
    spec = CheckSpec.from_json(json.loads(Path(argv[0]).read_text(encoding="utf-8")))
    try:
        text = Path(argv[1]).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return 1
    return 0 if passes(spec, text) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
