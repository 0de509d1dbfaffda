"""What a bug report to the solver's developers says: the formula (reduced when it was), the
exact command line, the solver version, expected against actual behaviour.

The text is Markdown, ready to paste into a GitHub issue.
"""

from __future__ import annotations

import json
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


def bisect_summary(bisect: dict[str, object] | None) -> str:
    """One line from `sphinxfuzz bisect`'s bisect.json, or "" when there is none."""
    if not bisect:
        return ""
    parts = []
    if bisect.get("first_bad"):
        parts.append(f"fails from {bisect['first_bad']}")
    if bisect.get("last_bad"):
        parts.append(f"still fails in {bisect['last_bad']}")
    if bisect.get("first_good_after"):
        parts.append(f"fixed in {bisect['first_good_after']}")
    versions = bisect.get("versions")
    tested = len(versions) if isinstance(versions, list) else 0
    return ", ".join(parts or ["no failing version found"]) + f" ({tested} versions tested)"


def issue_text(facts: BugFacts) -> str:
    blamed = facts.blamed or {}
    name = facts.solver or "solver"
    family = str(blamed.get("family") or "other")
    spec = str(blamed.get("spec") or name)
    version = facts.version_of(facts.solver)
    title, expected, actual = expected_actual(facts)
    formula = _dialect(facts.formula, family).rstrip()
    lines = [
        f"Title: {name} {version}: {title}",
        "",
        f"{name} {version} misbehaves on the formula below.",
        "",
        "Formula (`bug.smt2`)"
        + (", reduced with ddSMT:" if facts.reduction else ":"),
        "```smt2",
        formula,
        "```",
        "",
        "Command:",
        "```sh",
        f"{spec} bug.smt2",
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
        lines += [f"- {s.get('name')} {s.get('version')} (`{s.get('spec')}`): {_answers(s)}"
                  for s in others]  # fmt: skip
    summary = bisect_summary(facts.bisect)
    if summary:
        lines += ["", f"Versions: {summary}"]
    lines += ["", f"Solver version: {version} (run as `{spec}`). Found by sphinxfuzz."]
    return "\n".join(lines) + "\n"
