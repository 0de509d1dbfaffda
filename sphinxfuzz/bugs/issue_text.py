"""What a bug report to the solver's developers says: the formula (reduced when it was), the
exact command line, the solver version, expected against actual behaviour.

The text is Markdown, ready to paste into a GitHub issue.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sphinxfuzz.bugs.record import (
    ALIVE,
    BUG,
    FIXED,
    OTHER_CRASH,
    Bisection,
    BugRecord,
    Known,
    Reduction,
    SolverSummary,
    Today,
    Tried,
    load_bisection,
    load_known,
    load_record,
    load_reduction,
)
from sphinxfuzz.bugs.shapes import same_place
from sphinxfuzz.oracle import Expected, VerdictKind
from sphinxfuzz.oracle.crash import assertion_title
from sphinxfuzz.oracle.dialect import for_family
from sphinxfuzz.smtlib import SmtParseError, parse_script
from sphinxfuzz.solvers import Family
from sphinxfuzz.solvers.families import UNKNOWN_VERSION, parse_version


@dataclass
class BugFacts:
    """Everything a report needs about one stored bug, read from its folder."""

    record: BugRecord
    solvers: list[SolverSummary]  # the run that shows the bug: the reduced one when reduced
    evidence: dict[str, object]
    formula: str  # the reduced formula, else the stored trigger
    original: str
    reduction: Reduction | None
    bisect: Bisection | None
    known: Known | None = None

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def folder(self) -> Path:
        return self.record.folder

    @property
    def kind(self) -> VerdictKind:
        return self.record.verdict.kind

    @property
    def solver(self) -> str | None:
        return self.record.verdict.solver

    @property
    def signature(self) -> str:
        return self.record.verdict.signature

    @property
    def blamed(self) -> SolverSummary | None:
        return next((s for s in self.solvers if s.name == self.solver), None)

    def version_of(self, name: str | None) -> str:
        found = next((s for s in self.solvers if s.name == name), None)
        return (found.version or UNKNOWN_VERSION) if found else UNKNOWN_VERSION


def load_facts(folder: Path) -> BugFacts:
    record = load_record(folder)
    reduction = load_reduction(folder)
    original = record.formula()
    reduced = record.reduced() if reduction else None
    # the reduced run's own outputs and model, when there is one: they match its formula
    solvers = reduction.results if reduction and reduction.results else record.solvers
    verdict = reduction.verdict if reduction else record.verdict
    return BugFacts(
        record=record,
        solvers=list(solvers),
        evidence=dict(verdict.evidence),
        formula=reduced if reduced is not None else original,
        original=original,
        reduction=reduction,
        bisect=load_bisection(folder),
        known=load_known(folder),
    )


def _dialect(text: str, family: str) -> str:
    try:
        return for_family(text, family)
    except SmtParseError:
        return text


def _exit_text(summary: SolverSummary | None) -> str:
    code = summary.exit_code if summary else None
    if code is not None and code < 0:
        return f"killed by signal {-code}"
    return f"exit code {code}"


# a title names the top frames of a stack signature, the body all of them
TITLE_FRAMES = 2
TITLE_STACK_CHARS = 100


def stack_title(sig: str, frames: list[str]) -> str:
    """`SIGSEGV in f0 < f1` (within TITLE_STACK_CHARS): two silent segfaults, two titles."""
    title = f"{sig} in {' < '.join(frames[:TITLE_FRAMES])}"
    if len(title) > TITLE_STACK_CHARS:
        title = f"{sig} in {frames[0]}"
    return title if len(title) <= TITLE_STACK_CHARS else title[: TITLE_STACK_CHARS - 3] + "..."


def _crash(facts: BugFacts, failure: str, blamed: SolverSummary | None) -> tuple[str, str, str]:
    expected = "an answer (sat, unsat or unknown) or an error message, and a normal exit"
    # a crash that printed nothing but "killed by signal N" was signed by its stack
    # (`oracle.backtrace.identified` keeps the frames and the signal in the evidence)
    frames, sig = facts.evidence.get("stack"), facts.evidence.get("signal")
    # a failed assertion is titled by its place and condition, not its first line
    assertion = assertion_title(facts.signature)
    if assertion is not None:
        message = facts.signature.partition(": ")[2]  # the function too, where one is named
        return f"crash: {assertion}", expected, f"{message} ({_exit_text(blamed)})"
    if not (isinstance(frames, list) and frames and isinstance(sig, str)):
        return f"crash: {failure or _exit_text(blamed)}", expected, \
            f"{failure or 'no message'} ({_exit_text(blamed)})"  # fmt: skip
    names = [str(frame) for frame in frames]
    return (
        f"crash: {stack_title(sig, names)}",
        expected,
        f"no message ({_exit_text(blamed)}); under gdb it stops on {sig} in {' < '.join(names)}",
    )


def expected_actual(facts: BugFacts) -> tuple[str, str, str]:
    """(one-line summary for the title, expected, actual)."""
    blamed = facts.blamed
    failure = (blamed.failure_line or "").strip() if blamed else ""
    answers = blamed.answer_text if blamed else "no answer stored"
    evidence = facts.evidence
    model_from = str(evidence.get("model_from") or "")
    checks = evidence.get("check") or {}
    checked = ", ".join(f"{k}: {v}" for k, v in checks.items()) if isinstance(checks, dict) else ""
    expected = facts.record.verdict.expected
    if expected is not None and facts.kind != VerdictKind.CRASH:
        return _against_expected(facts, expected, answers)
    if facts.kind == VerdictKind.CRASH:
        return _crash(facts, failure, blamed)
    if facts.kind == VerdictKind.SOUNDNESS:
        return (
            "unsat on a satisfiable formula",
            f"sat: {model_from} {facts.version_of(model_from)} answers sat with a model, and "
            f"the formula holds under that model (the formula with the model substituted is "
            f"sat for {checked or 'the solvers'})",
            f"unsat ({answers})",
        )
    if facts.record.verdict.own_model_check:
        return (
            "the solver's own model validation fails",
            "sat with a model that satisfies the formula (or unknown)",
            f"{failure or 'model validation failed'} (answers: {answers})",
        )
    others = [s.name for s in facts.solvers if s.name != facts.solver]
    if isinstance(checks, dict) and set(checks) == {facts.solver} and not others:
        # a lone model check (the only target that takes the formula): the solver's two
        # answers disagree, and nothing says which of them is wrong (a wrong unsat on the
        # check is as likely as a wrong model: bugs-found entry 13 was the check)
        return (
            "sat with a model, then unsat for the formula under that model",
            "the same answer twice: sat, and sat for the formula with the model below "
            "substituted (or unsat both times)",
            f"sat with the model below, and unsat for the formula with that model substituted "
            f"({checked}): one of the two answers is wrong",
        )
    return (
        "sat with a model under which the formula is false",
        f"unsat (as {', '.join(others) or 'the other solvers'} answer), or a model that "
        "satisfies the formula",
        f"sat, with the model below; the formula with that model substituted is unsat "
        f"({checked or 'model check'})",
    )


_MODEL_CHECKED = {
    "fails": ", with a model under which the formula is false",
    "undecided": ", with a model the check could not decide",
}


def _against_expected(facts: BugFacts, expected: Expected, answers: str) -> tuple[str, str, str]:
    """A wrong answer against one known by construction, or unknown where a related formula
    with that answer is solved."""
    reference = facts.evidence.get("reference")
    vouch = (
        f"; {reference} {facts.version_of(reference)} answers {expected.answer}"
        if isinstance(reference, str)
        else ""
    )
    related = facts.record.verdict.related
    if facts.kind == VerdictKind.INCOMPLETENESS and related is not None:
        return (
            f"{answers} on a formula whose related formula it solves",
            f"{expected.answer} ({expected.why}{vouch}); it answers {related.answer} on the "
            "related formula below",
            answers,
        )
    checked = facts.evidence.get("model_check")
    return (
        f"{answers} on a formula that is {expected.answer} by construction",
        f"{expected.answer} ({expected.why}{vouch})",
        answers + _MODEL_CHECKED.get(str(checked), ""),
    )


def describe(kind: str, solver: str | None) -> str:
    """A verdict in words: "crash in z3", "disagreement between the solvers"."""
    if solver is None:
        return f"{kind} between the solvers"
    return f"{kind} in {solver}"


def solver_words(name: str | None, family: str) -> str:
    """The solver as a maintainer names it: z3@4.8.8 is z3 (its version is said apart), and
    so is z3#2 (a second z3 command line, such as `fuzz --options compare` runs)."""
    if not name:
        return "the solver"
    if re.fullmatch(rf"{re.escape(family)}(?:@[\w.+-]+)?(?:#\d+)?", name):
        return family
    return name


# option words that act only on a model: a script without check-sat never reaches them
_MODEL_ONLY = re.compile(
    r"model(?:_validate)?=\S*|model\.\S+|--check-models|--produce-models|-m|--dump-models"
)


def checks_sat(text: str) -> bool:
    """Whether a script asks for a satisfiability check (a model exists only after one)."""
    try:
        heads = {c.head_name() for c in parse_script(text).commands}
    except SmtParseError:
        return True  # unreadable here: keep every option rather than drop a needed one
    return bool(heads & {"check-sat", "check-sat-assuming"})


def plain_command(spec: str, family: str, formula: str | None = None) -> str:
    """The command line as the solver's developers run it: `z3 model_validate=true`, not
    `z3@4.8.8 model_validate=true` (a sphinxfuzz name) nor a path on the fuzzing machine;
    quoted as a shell reads it. With `formula`, model options are left out of a script
    that never checks satisfiability."""
    try:
        words = shlex.split(spec)
    except ValueError:
        words = spec.split()
    if not words:
        return family
    head = words[0]
    if re.fullmatch(rf"{re.escape(family)}@[\w.+-]+", head):
        head = family
    elif "/" in head:
        head = head.rsplit("/", 1)[1]
    rest = words[1:]
    if formula is not None and not checks_sat(formula):
        rest = [word for word in rest if not _MODEL_ONLY.fullmatch(word)]
    return shlex.join([head, *rest])


def fenced(text: str, language: str) -> list[str]:
    """`text` in a Markdown code fence longer than any run of backticks inside it (a formula
    holding ``` would otherwise close the fence)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{language}", text, fence]


def _shows(tried: Tried, kind: str, signature: str) -> bool:
    """A release shows the bug when it shows the same verdict, or, for a crash, when it
    crashes in the same place with another stack (`bugs.shapes.same_place`)."""
    if tried.status == BUG:
        return True
    return (
        kind == VerdictKind.CRASH
        and tried.status == OTHER_CRASH
        and bool(signature)
        and same_place(tried.detail, signature)
    )


def lifespan(bisect: Bisection, signature: str = "") -> tuple[list[str], list[str], str | None]:
    """(releases that show the bug oldest first, those of them that crash in the same place
    with another stack, the first release after the last showing one that answers cleanly)."""
    tried = bisect.tried
    showing = [t.version for t in tried if _shows(t, bisect.kind, signature)]
    elsewhere = [t.version for t in tried if t.status == OTHER_CRASH and t.version in showing]
    fixed = None
    if showing:
        last = parse_version(showing[-1])
        fixed = next((t.version for t in tried
                      if parse_version(t.version) > last and t.status == "clean"), None)  # fmt: skip
    return showing, elsewhere, fixed


def bisect_summary(bisect: Bisection | None, signature: str = "") -> str:
    """The lifespan from `sphinxfuzz bisect`'s bisect.json as one sentence naming the
    releases tried, or "" when there is none. With the bug's crash `signature`, a release
    that crashes in the same place with another stack counts as showing it, and the
    sentence says so."""
    if bisect is None:
        return ""
    family = bisect.solver
    showing, elsewhere, fixed = lifespan(bisect, signature)
    tried = bisect.tried
    listing = ", ".join(f"{t.version} {t.status}" for t in tried) or "none"
    first, last = (showing[0], showing[-1]) if showing else (None, None)
    if not first:
        sentence = f"None of the {family} releases tried shows the bug"
    elif first == last:
        sentence = f"Of the {family} releases tried, only {first} shows the bug"
    else:
        sentence = f"The bug shows in {family} {first} to {last}"
    if first and fixed:
        sentence += f"; {fixed} is the first release after that without it"
    elif first and tried and tried[-1].version == last:
        sentence += f"; the newest release tried ({last}) still has it"
    if elsewhere:
        sentence += (f" ({', '.join(elsewhere)} crash in the same place with another stack, "
                     "counted as showing it)")  # fmt: skip
    return f"{sentence}. Releases tried ({len(tried)}): {listing}."


def newest_showing(facts: BugFacts) -> str:
    """The newest release known to show the bug: the newest release when it still does
    (`bugs refresh`), else the newest bisection found, else the release it was found on."""
    found = facts.version_of(facts.solver)
    today = facts.record.today
    if today is not None and today.status == ALIVE and today.version:
        if not today.another_crash or same_place(_crash_of(today.detail), facts.signature):
            return today.version
    candidates = [found]
    if facts.bisect is not None:
        candidates += lifespan(facts.bisect, facts.signature)[0]
    plain = [v for v in candidates if v and v != UNKNOWN_VERSION]
    return max(plain, key=parse_version) if plain else found


def _crash_of(detail: str) -> str:
    return detail.removeprefix("another crash: ")


def today_sentence(today: Today, name: str, signature: str = "") -> str:
    """What the newest release does with the formula (`bugs refresh`), for the issue."""
    release = f"{name} {today.version}".strip()
    if today.another_crash and signature and same_place(_crash_of(today.detail), signature):
        return (f"Still happens with {release}, the newest release (`{today.solver}`): it "
                f"crashes in the same place with another stack: {_crash_of(today.detail)}.")  # fmt: skip
    if today.another_crash:
        return (f"{release}, the newest release (`{today.solver}`), still crashes on it, but "
                f"with another signature: {today.detail}.")  # fmt: skip
    if today.status == ALIVE:
        return f"Still happens with {release}, the newest release (`{today.solver}`)."
    if today.status == FIXED:
        return f"Fixed in {release}, the newest release: it answers {today.detail or 'cleanly'}."
    return f"Not decided on {release}, the newest release: {today.detail}."


@dataclass(frozen=True)
class IssueText:
    """One finding's issue: its title, the Markdown body that follows it, and what it names."""

    id: str
    title: str
    body: str
    family: str
    release: str  # the newest release that shows the bug, which the title names
    command: str  # as a shell reads it, without the formula's file
    formula: str
    reduced: bool
    related: tuple[str, ...]
    known: Known | None

    @property
    def markdown(self) -> str:
        return f"Title: {self.title}\n\n{self.body}"

    def to_json(self) -> dict[str, object]:
        return {
            "schema": "sphinxfuzz/issue/1", "id": self.id, "title": self.title,
            "body": self.body, "markdown": self.markdown, "family": self.family,
            "release": self.release, "command": self.command, "formula": self.formula,
            "reduced": self.reduced, "related": list(self.related),
            "known": self.known.to_json() if self.known else None,
        }  # fmt: skip


def issue(facts: BugFacts, related: Sequence[str] = ()) -> IssueText:
    """The issue text of one finding; `related`: the other findings of its group (ids and
    what they show), listed so the maintainers get one issue for one root cause."""
    blamed = facts.blamed
    family = blamed.family if blamed else Family.OTHER
    name = solver_words(facts.solver, family)
    spec = blamed.spec if blamed else (facts.solver or family)
    version = facts.version_of(facts.solver)
    release = newest_showing(facts)
    title, expected, actual = expected_actual(facts)
    formula = _dialect(facts.formula, family).rstrip()
    command = plain_command(spec, family, formula)
    lines = [
        f"{name} {version} misbehaves on the formula below.",
        "",
        "Formula (`bug.smt2`)" + (", reduced with ddSMT:" if facts.reduction else ":"),
        *fenced(formula, "smt2"),
        "",
        *(
            [f"The reduced formula is {facts.reduction.reference_sentence()}.", ""]
            if facts.reduction and facts.reduction.reference
            else []
        ),
        "Command:",
        *fenced(f"{command} bug.smt2", "sh"),
        "",
        f"Expected: {expected}",
        "",
        f"Actual: {actual}",
    ]
    lines += _evidence_lines(facts, name, family, formula)
    lines += _history_lines(facts, name, related)
    lines += ["", f"Found by sphinxfuzz with {name} {version}."]
    return IssueText(
        facts.id, f"{name} {release}: {title}", "\n".join(lines) + "\n", str(family),
        release, command, formula, facts.reduction is not None, tuple(related), facts.known,
    )  # fmt: skip


def _evidence_lines(facts: BugFacts, name: str, family: str, formula: str) -> list[str]:
    """What backs the finding: the model, the related formula, the other solvers' answers."""
    lines: list[str] = []
    model = facts.evidence.get("model")
    if model and facts.kind in (VerdictKind.SOUNDNESS, VerdictKind.INVALID_MODEL):
        lines += ["", f"Model given by {facts.evidence.get('model_from')}:",
                  *fenced(str(model).rstrip(), "smt2")]  # fmt: skip
    related_formula = facts.record.verdict.related
    if related_formula is not None:
        lines += ["", f"Related formula (`{name}` answers {related_formula.answer}):",
                  *fenced(_dialect(related_formula.text, family).rstrip(), "smt2")]  # fmt: skip
    others = [s for s in facts.solvers if s.name != facts.solver]
    if others:
        lines += ["", "Other solvers on the same formula:"]
        lines += [f"- {solver_words(s.name, s.family)} {s.version} "
                  f"(`{plain_command(s.spec, s.family, formula)}`): {s.answer_text}"
                  for s in others]  # fmt: skip
    return lines


def _history_lines(facts: BugFacts, name: str, related: Sequence[str]) -> list[str]:
    """Its lifespan, its state today, the findings of its group and what it likely is."""
    lines: list[str] = []
    summary = bisect_summary(facts.bisect, facts.signature)
    if summary:
        lines += ["", summary]
    today = facts.record.today
    if today is not None:
        lines += ["", today_sentence(today, name, facts.signature)]
    if related:
        lines += ["", "Related findings (the same root cause, found by other formulas):"]
        lines += [f"- {item}" for item in related]
    if facts.known is not None:
        lines += ["", f"Likely known: {facts.known.label} ({facts.known.link}): "
                  f"{facts.known.why}."]  # fmt: skip
    return lines


def issue_text(facts: BugFacts, related: Sequence[str] = ()) -> str:
    """The issue as Markdown, its title first (`Title: ...`)."""
    return issue(facts, related).markdown
