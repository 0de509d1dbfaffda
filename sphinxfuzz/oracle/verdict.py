"""Verdicts: what the oracle concludes about a formula, as typed values.

A verdict is recognised by its kind and fields, never by the wording of its signature (the
signature is a deduplication key and what a person reads)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sphinxfuzz.solvers import Answer, SolverResult


class VerdictKind(StrEnum):
    NONE = "none"
    CRASH = "crash"
    # two solvers disagree, or a solver contradicts an expected answer
    SOUNDNESS = "soundness"
    INVALID_MODEL = "invalid-model"
    # unknown or time-out where a related formula was solved
    INCOMPLETENESS = "incompleteness"
    # sat vs unsat that the model check could not settle: only recorded for seeds
    DISAGREEMENT = "disagreement"
    # an incompleteness on a time-out that ten times the limit solved: a performance
    # finding, kept apart from bugs and ranked below them (`oracle.doubt`)
    SLOW = "slow"


# evidence["source"] of an invalid model the solver's own model check caught
OWN_MODEL_CHECK = "solver's own model check"


@dataclass(frozen=True)
class Expected:
    """An answer known by construction (sat or unsat), and where it came from."""

    answer: Answer
    strategy: str  # "fusion", "storm", ...
    why: str  # one line, e.g. "conjunction of two sat seeds"

    def to_json(self) -> dict[str, str]:
        return {"answer": self.answer, "strategy": self.strategy, "why": self.why}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Expected:
        return cls(_decided(data, "expected"), _text(data, "strategy"), _text(data, "why"))


@dataclass(frozen=True)
class Related:
    """The formula related to an incompleteness verdict's one: the blamed solver solved it."""

    text: str
    answer: Answer  # the blamed solver's answer on it (sat or unsat)

    def to_json(self) -> dict[str, str]:
        return {"text": self.text, "answer": self.answer}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Related:
        return cls(_text(data, "text"), _decided(data, "related"))


def _decided(data: Mapping[str, Any], what: str) -> Answer:
    """The stored sat or unsat of `data["answer"]` (stored as a plain string)."""
    value = data.get("answer")
    answer = Answer.read(value) if isinstance(value, str) else None
    if answer is None or not answer.decided:
        raise ValueError(f"{what} answer {value!r} is neither sat nor unsat")
    return answer


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{key!r} should be a string, not {value!r}")
    return value


@dataclass(frozen=True)
class Verdict:
    kind: VerdictKind
    solver: str | None = None  # the blamed solver's display name
    signature: str = ""
    evidence: dict[str, object] = field(default_factory=dict)
    expected: Expected | None = None  # the answer the formula has by construction
    related: Related | None = None  # incompleteness: the formula the solver did solve
    # the model-check script behind the verdict (the store keeps it as its own file)
    check_script: str | None = field(default=None, compare=False)

    @property
    def own_model_check(self) -> bool:
        """An invalid model the solver's own model check reported (no other solver needed)."""
        return (
            self.kind == VerdictKind.INVALID_MODEL
            and self.evidence.get("source") == OWN_MODEL_CHECK
        )

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "kind": str(self.kind),
            "solver": self.solver,
            "signature": self.signature,
            "evidence": self.evidence,
        }
        if self.expected is not None:  # absent keys keep older folders and readers alike
            data["expected"] = self.expected.to_json()
        if self.related is not None:
            data["related"] = self.related.to_json()
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Verdict:
        """Raises ValueError naming what is wrong."""
        try:
            kind = VerdictKind(str(data.get("kind")))
        except ValueError:
            raise ValueError(f"unknown verdict kind {data.get('kind')!r}") from None
        solver, signature = data.get("solver"), data.get("signature", "")
        evidence = data.get("evidence") or {}
        if solver is not None and not isinstance(solver, str):
            raise ValueError(f"'solver' should be a string, not {solver!r}")
        if not isinstance(signature, str):
            raise ValueError(f"'signature' should be a string, not {signature!r}")
        if not isinstance(evidence, dict):
            raise ValueError(f"'evidence' should be an object, not {evidence!r}")
        expected, related = data.get("expected"), data.get("related")
        for key, value in (("expected", expected), ("related", related)):
            if value is not None and not isinstance(value, dict):
                raise ValueError(f"{key!r} should be an object, not {value!r}")
        return cls(
            kind,
            solver,
            signature,
            evidence,
            Expected.from_json(expected) if expected else None,
            Related.from_json(related) if related else None,
        )


NO_BUG = Verdict(VerdictKind.NONE)


@dataclass
class Judgement:
    """Everything the oracle concluded about one formula."""

    verdicts: list[Verdict] = field(default_factory=list)
    # sat vs unsat whose model check decided nothing: counted, not reported
    unconfirmed: bool = False
    # fresh runs of the model-check script (they count as solver calls and solver time)
    check_results: list[SolverResult] = field(default_factory=list)
    check_script: str | None = None

    @property
    def verdict(self) -> Verdict:
        return self.verdicts[0] if self.verdicts else NO_BUG
