"""What one solver run produced."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinxfuzz.solvers.spec import SolverSpec


class Answer(StrEnum):
    """What a solver printed for one `check-sat`. A StrEnum, so answers stored as plain
    strings (campaign folders, the database) compare equal and read back with `Answer.read`."""

    SAT = "sat"
    UNSAT = "unsat"
    UNKNOWN = "unknown"

    @classmethod
    def read(cls, word: str) -> Answer | None:
        """The answer a word of solver output (or a stored string) is; None: not an answer."""
        return _ANSWERS.get(word)

    @property
    def decided(self) -> bool:
        return self is not Answer.UNKNOWN


_ANSWERS = {answer.value: answer for answer in Answer}
DECIDED = (Answer.SAT, Answer.UNSAT)


class Outcome(StrEnum):
    """How one run ended: its last answer, or why there is none. Not an `Answer`: a run that
    timed out, crashed or was rejected answered nothing (`SolverResult.answers` holds what
    it printed before). Its answer outcomes equal the answers (`Outcome.SAT == Answer.SAT`)."""

    SAT = Answer.SAT.value
    UNSAT = Answer.UNSAT.value
    UNKNOWN = Answer.UNKNOWN.value
    TIMEOUT = "timeout"
    CRASH = "crash"
    ERROR = "error"  # the solver rejected the input (parse error, unsupported feature)


@dataclass
class Classified:
    """What `solvers.classify` read from a run's output and exit status: a `SolverResult`
    without the run's own facts (its spec, texts, status and time)."""

    outcome: Outcome
    answers: list[Answer]
    model: str | None
    failure_line: str | None
    model_check_failed: bool
    annotation_conflict: bool = False


@dataclass
class SolverResult:
    spec: SolverSpec
    outcome: Outcome
    answers: list[Answer] = field(default_factory=list)
    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0  # negative: killed by that signal
    elapsed: float = 0.0
    model: str | None = None  # the first get-model answer
    version: str = ""
    failure_line: str | None = None  # what explains a crash, an error or a resource limit
    model_check_failed: bool = False  # the solver's own model check reported a wrong model
    # the answer contradicted the script's `:status` (the solver said so; never a crash)
    annotation_conflict: bool = False
    # of `elapsed`, starting a persistent process the call needed: its limit is for the
    # script alone, and so is what a seed's check calibrates its cases' limit on (last:
    # results are made with positional fields)
    starting: float = 0.0

    @classmethod
    def classified(
        cls, spec: SolverSpec, found: Classified, *, stdout: str, stderr: str, exit_code: int,
        elapsed: float, version: str, starting: float = 0.0,
    ) -> SolverResult:  # fmt: skip
        """The result of a run that ended, fresh or persistent, from what `solvers.classify`
        read of its output: every field `found` holds is carried here alone."""
        return cls(
            spec=spec,
            outcome=found.outcome,
            answers=found.answers,
            stdout=stdout,
            stderr=stderr,
            exit_code=exit_code,
            elapsed=elapsed,
            model=found.model,
            version=version,
            failure_line=found.failure_line,
            model_check_failed=found.model_check_failed,
            annotation_conflict=found.annotation_conflict,
            starting=starting,
        )

    @property
    def solving(self) -> float:
        """Seconds the script took, without a process start (what its limit bounds)."""
        return self.elapsed - self.starting

    @property
    def decided(self) -> bool:
        return self.outcome in (Outcome.SAT, Outcome.UNSAT)

    @property
    def undecided(self) -> bool:
        """Timed out, or answered `unknown` to one of its queries: a run that compares
        nothing (`Stats.undecided`)."""
        return self.outcome in (Outcome.UNKNOWN, Outcome.TIMEOUT) or Answer.UNKNOWN in self.answers

    @property
    def first(self) -> Answer | Outcome:
        """Its first answer, else how it ended: what a one-query check reads. A run that
        rejected part of its input answered without that part: its answer is the error."""
        if self.answers and self.outcome != Outcome.ERROR:
            return self.answers[0]
        return self.outcome
