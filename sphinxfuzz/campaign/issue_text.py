"""What a bug report to the solver's developers says: the formula (reduced when it was), the
exact command line, the solver version, expected against actual behaviour.

The text is Markdown, ready to paste into a GitHub issue.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from sphinxfuzz.campaign.reduce import REDUCED, formula_file, load_reduction
from sphinxfuzz.mutate.dialect import for_family
from sphinxfuzz.smtlib import SmtParseError


@dataclass
class BugFacts:
    """Everything a report needs about one stored bug, read from its folder."""

    id: str
    folder: Path
    kind: str
    solver: str | None
    signature: str
    solvers: list[dict[str, object]]  # result summaries of the run that shows the bug
    evidence: dict[str, object]
    formula: str  # the reduced formula, else the stored trigger
    original: str
    reduction: dict[str, object] | None
    bisect: dict[str, object] | None
    meta: dict[str, object]

    @property
    def blamed(self) -> dict[str, object] | None:
        return next((s for s in self.solvers if s.get("name") == self.solver), None)

    def version_of(self, name: str | None) -> str:
        found = next((s for s in self.solvers if s.get("name") == name), None)
        return str(found.get("version") or "unknown") if found else "unknown"


def _read_json(path: Path) -> dict[str, object] | None:
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def load_facts(folder: Path) -> BugFacts:
    meta = _read_json(folder / "verdict.json") or {}
    verdict = meta.get("verdict") or {}
    assert isinstance(verdict, dict)
    reduction = load_reduction(folder)
    original = formula_file(folder).read_text(encoding="utf-8")
    reduced = folder / REDUCED
    formula = reduced.read_text(encoding="utf-8") if reduction and reduced.is_file() else original
    # the reduced run's own outputs and model, when there is one: they match its formula
    source = reduction if reduction and reduction.get("results") else meta
    solvers = source.get("results" if source is reduction else "solvers") or []
    reduced_verdict = (reduction or {}).get("verdict") or {}
    evidence = (reduced_verdict if reduction else verdict).get("evidence") or {}  # type: ignore[union-attr]
    return BugFacts(
        id=str(meta.get("id", folder.name)),
        folder=folder,
        kind=str(verdict.get("kind", "?")),
        solver=verdict.get("solver"),  # type: ignore[arg-type]
        signature=str(verdict.get("signature", "")),
        solvers=list(solvers),  # type: ignore[arg-type]
        evidence=dict(evidence),  # type: ignore[arg-type]
        formula=formula,
        original=original,
        reduction=reduction,
        bisect=_read_json(folder / "bisect.json"),
        meta=meta,
    )


def _dialect(text: str, family: str) -> str:
    try:
        return for_family(text, family)
    except SmtParseError:
        return text


def _exit_text(summary: dict[str, object]) -> str:
    code = summary.get("exit_code")
    if isinstance(code, int) and code < 0:
        return f"killed by signal {-code}"
    return f"exit code {code}"


def _answers(summary: dict[str, object] | None) -> str:
    if not summary:
        return "?"
    answers = summary.get("answers") or []
    return " ".join(str(a) for a in answers) or str(summary.get("outcome", "?"))  # type: ignore[union-attr]


def expected_actual(facts: BugFacts) -> tuple[str, str, str]:
    """(one-line summary for the title, expected, actual)."""
    blamed = facts.blamed or {}
    failure = str(blamed.get("failure_line") or "").strip()
    evidence = facts.evidence
    model_from = str(evidence.get("model_from") or "")
    checks = evidence.get("check") or {}
    checked = ", ".join(f"{k}: {v}" for k, v in checks.items()) if isinstance(checks, dict) else ""
    if facts.kind == "crash":
        return (
            f"crash: {failure or _exit_text(blamed)}",
            "an answer (sat, unsat or unknown) or an error message, and a normal exit",
            f"{failure or 'no message'} ({_exit_text(blamed)})",
        )
    if facts.kind == "soundness":
        return (
            "unsat on a satisfiable formula",
            f"sat: {model_from} {facts.version_of(model_from)} answers sat with a model, and "
            f"the formula holds under that model (the formula with the model substituted is "
            f"sat for {checked or 'the solvers'})",
            f"unsat ({_answers(blamed)})",
        )
    if facts.signature.endswith("own model check failed"):
        return (
            "the solver's own model validation fails",
            "sat with a model that satisfies the formula (or unknown)",
            f"{failure or 'model validation failed'} (answers: {_answers(blamed)})",
        )
    others = [str(s.get("name")) for s in facts.solvers if s.get("name") != facts.solver]
    return (
        "sat with a model under which the formula is false",
        f"unsat (as {', '.join(others) or 'the other solvers'} answer), or a model that "
        "satisfies the formula",
        f"sat, with the model below; the formula with that model substituted is unsat "
        f"({checked or 'model check'})",
    )


def describe(kind: str, solver: str | None) -> str:
    """A verdict in words: "crash in z3", "disagreement between the solvers"."""
    if solver is None:
        return f"{kind} between the solvers"
    return f"{kind} in {solver}"


def solver_words(name: str | None, family: str) -> str:
    """The solver as a maintainer names it: z3@4.8.8 is z3 (its version is said apart)."""
    if not name:
        return "the solver"
    if re.fullmatch(rf"{re.escape(family)}@[\w.+-]+", name):
        return family
    return name


def plain_command(spec: str, family: str) -> str:
    """The command line as the solver's developers run it: `z3 model_validate=true`, not
    `z3@4.8.8 model_validate=true` (a sphinxfuzz name) nor a path on the fuzzing machine."""
    words = spec.split()
    if not words:
        return family
    head = words[0]
    if re.fullmatch(rf"{re.escape(family)}@[\w.+-]+", head):
        head = family
    elif "/" in head:
        head = head.rsplit("/", 1)[1]
    return " ".join([head, *words[1:]])


def bisect_summary(bisect: dict[str, object] | None) -> str:
    """The lifespan from `sphinxfuzz bisect`'s bisect.json as one sentence naming the
    releases tried, or "" when there is none."""
    if not bisect:
        return ""
    family = str(bisect.get("solver") or "")
    first, last = bisect.get("first_bad"), bisect.get("last_bad")
    fixed = bisect.get("first_good_after")
    versions = bisect.get("versions")
    tried = [v for v in versions if isinstance(v, dict)] if isinstance(versions, list) else []
    listing = ", ".join(f"{v.get('version')} {v.get('status')}" for v in tried) or "none"
    if not first:
        sentence = f"None of the {family} releases tried shows the bug"
    elif first == last:
        sentence = f"Of the {family} releases tried, only {first} shows the bug"
    else:
        sentence = f"The bug shows in {family} {first} to {last}"
    if first and fixed:
        sentence += f"; {fixed} is the first release after that without it"
    elif first and tried and tried[-1].get("version") == last:
        sentence += f"; the newest release tried ({last}) still has it"
    return f"{sentence}. Releases tried ({len(tried)}): {listing}."


def issue_text(facts: BugFacts) -> str:
    blamed = facts.blamed or {}
    family = str(blamed.get("family") or "other")
    name = solver_words(facts.solver, family)
    spec = str(blamed.get("spec") or facts.solver or family)
    command = plain_command(spec, family)
    version = facts.version_of(facts.solver)
    title, expected, actual = expected_actual(facts)
    formula = _dialect(facts.formula, family).rstrip()
    lines = [
        f"Title: {name} {version}: {title}",
        "",
        f"{name} {version} misbehaves on the formula below.",
        "",
        "Formula (`bug.smt2`)" + (", reduced with ddSMT:" if facts.reduction else ":"),
        "```smt2",
        formula,
        "```",
        "",
        "Command:",
        "```sh",
        f"{command} bug.smt2",
        "```",
        "",
        f"Expected: {expected}",
        "",
        f"Actual: {actual}",
    ]
    model = facts.evidence.get("model")
    if model and facts.kind in ("soundness", "invalid-model"):
        lines += ["", f"Model given by {facts.evidence.get('model_from')}:", "```smt2",
                  str(model).rstrip(), "```"]  # fmt: skip
    others = [s for s in facts.solvers if s.get("name") != facts.solver]
    if others:
        lines += ["", "Other solvers on the same formula:"]
        lines += [f"- {solver_words(str(s.get('name')), str(s.get('family')))} {s.get('version')} "
                  f"(`{plain_command(str(s.get('spec')), str(s.get('family')))}`): {_answers(s)}"
                  for s in others]  # fmt: skip
    summary = bisect_summary(facts.bisect)
    if summary:
        lines += ["", summary]
    lines += ["", f"Found by sphinxfuzz with {name} {version}."]
    return "\n".join(lines) + "\n"
