"""Reading a solver's output: answers, model, errors, crashes.

Choices worth knowing:
- An error printed after an `unsat` for `get-model`/`get-value` ("model is not available")
  is not a rejection: the mutants we send always ask for a model.
- Running out of memory under the limit is a resource limit, not a bug: outcome `unknown`
  with `failure_line` "memory limit".
- A clean exit with no answer (a script without check-sat) is `unknown`, "no answer".
- A solver checking an expected-answer annotation against its answer (cvc5 aborts on
  "Expected result unsat but got sat", z3 reports "check annotation that says unsat") neither
  crashed nor rejected anything: the outcome is its answer, `annotation_conflict` is set.
- Sanitizer, assertion and fatal-failure text, a signal, or a non-zero exit with no error
  message is a crash, whatever else was printed; so is an error that cvc5's internal
  argument checks raised ("Illegal argument detected" in `cvc5::internal::` code), unless
  it came out as a "Parse Error" (how cvc5 1.0.3 refuses a logic it predates). A command
  line the release refuses (z3's "ERROR: unknown parameter", exit 110: an option of another
  release) is an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sphinxfuzz.smtlib.lexer import error_message, lexemes
from sphinxfuzz.solvers.result import Answer, Outcome

_BENIGN_ERRORS = re.compile(
    r"model is not available|cannot get model|cannot get value|not available|"
    r"after a SAT or UNKNOWN response|no model|context is unsatisfiable",
    re.IGNORECASE,
)
# The solver declines the problem because of how it was built (the cvc5 wheel has no CoCoA,
# so no finite-field solving): it rejected nothing, it cannot answer.
_CANNOT_SOLVE = re.compile(r"not configured with|can't solve .* since", re.IGNORECASE)
# ... and cvc5 aborts when an option needs a library the build lacks (Debian's cvc5 1.0.3
# under --nl-icp: "Unimplemented code encountered ICPSolver requires cvc5 to be configured
# with LibPoly"): no bug either, whatever its exit status
_BUILD_LACKS = re.compile(r"Unimplemented code encountered .*\bconfigured with\b")
_MODEL_CHECK = re.compile(
    r"invalid model|check-model|model check|checkModel|model does not satisfy|incorrect model"
    r"|model violates",
    re.IGNORECASE,
)
# The solver's own model check under an option it says the check does not hold for (cvc5
# --fmf-fun: "Running check-model is not guaranteed to pass when fmf-fun is enabled", and the
# check of a recursive definition then fails, but only as a warning): no verdict
_ADVISORY_MODEL_CHECK = re.compile(r"check-model is not guaranteed to pass", re.IGNORECASE)
_MEMORY = re.compile(
    r"out of memory|std::bad_alloc|MemoryError|cannot allocate memory", re.IGNORECASE
)
_CRASH = re.compile(
    r"Segmentation fault|ASSERTION VIOLATION|Assertion .* failed|assertion failure|"
    r"Fatal failure|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|"
    r"panicked at|UNREACHABLE|Unreachable code|Traceback \(most recent call last\)|"
    r"Internal error|terminate called|Aborted|core dumped|uncaught exception",
)
# cvc5's internal argument checks (`IllegalArgument` in its own code, not the API's "Invalid
# argument" for a caller's mistake) fail like an assertion: printed as an error, yet a crash.
# But the parser checks the input through them too, and says so: "Parse Error: ... Illegal
# argument detected ... LogicInfo::setLogicString ... junk" is cvc5 1.0.3 refusing QF_FFA, a
# logic newer than it, and a maintainer would close that as no bug
_INTERNAL_ERROR = re.compile(
    r"^(?:(?!Parse Error\b).)*Illegal argument detected\b.*\bcvc\d*::internal::", re.DOTALL
)
# a command line the release does not take (z3: "ERROR: unknown parameter 'x' at module 'y'",
# then exit 110 without reading the script): a refusal, not a crash
_COMMAND_LINE = re.compile(r"^ERROR: .*\b(?:parameter|option)\b.*$", re.MULTILINE)
_ANNOTATION = re.compile(
    r"Expected result (?:sat|unsat|unknown) but got (sat|unsat|unknown)|check annotation that says"
)


@dataclass
class Classified:
    outcome: Outcome
    answers: list[Answer]
    model: str | None
    failure_line: str | None
    model_check_failed: bool
    annotation_conflict: bool = False


def _first_line(pattern: re.Pattern[str], text: str) -> str | None:
    for line in text.splitlines():
        if pattern.search(line):
            return line.strip()
    return None


def _top_level(text: str) -> list[tuple[str, bool]] | None:
    """The top-level items of `text` in order, as (text, is_list); None if the parentheses
    do not balance. A scan for structure only: outputs with long models are read per call,
    and building nodes for every atom of a model costs more than the rest of the call."""
    items: list[tuple[str, bool]] = []
    depth, start, gap = 0, 0, 0
    # what matters for nesting: string literals, |quoted| symbols, comments, parentheses
    for kind, token, offset in lexemes(text):
        if kind != "paren":
            continue
        if token == "(":
            if depth == 0:
                items.extend((word, False) for word in _words(text[gap:offset]))
                start = offset
            depth += 1
        else:
            depth -= 1
            if depth < 0:
                return None
            if depth == 0:
                items.append((text[start : offset + 1], True))
                gap = offset + 1
    if depth:
        return None
    items.extend((word, False) for word in _words(text[gap:]))
    return items


def _words(gap: str) -> list[str]:
    return [w for line in gap.splitlines() for w in line.split(";", 1)[0].split()]


def _scan(stdout: str) -> tuple[list[Answer], str | None, list[str]]:
    """(answers, first model, error messages) of stdout."""
    answers: list[Answer] = []
    errors: list[str] = []
    model: str | None = None
    items = _top_level(stdout) if "(" in stdout else [(w, False) for w in _words(stdout)]
    if items is None:  # not S-expressions (a crash dump, say): read line by line
        for line in stdout.splitlines():
            line = line.strip()
            answer = Answer.read(line)
            if answer is not None:
                answers.append(answer)
            elif line.startswith("(error"):
                errors.append(line)
        return answers, model, errors
    for text, is_list in items:
        if not is_list:
            answer = Answer.read(text)
            if answer is not None:
                answers.append(answer)
            continue
        inner = text[1:-1].strip()
        if inner.startswith("error") and (inner[5:6].isspace() or inner[5:6] in ('"', "")):
            message = error_message(text)
            errors.append(
                message.replace('""', '"').strip()
                if message is not None
                else " ".join(text.split())
            )
        elif model is None and answers and answers[-1] is not Answer.UNSAT and _is_model(inner):
            model = text
    return answers, model, errors


def _is_model(inner: str) -> bool:
    """A get-model answer: `(model ...)` or a list of definitions (z3 adds `forall`
    cardinality constraints and comments for uninterpreted sorts)."""
    return (
        not inner
        or inner[0] in "(;"
        or (inner.startswith("model") and inner[5:6] in ("", " ", "\n", "\t", "("))
    )


def classify(stdout: str, stderr: str, exit_code: int, timed_out: bool) -> Classified:
    answers, model, errors = _scan(stdout)
    serious = [e for e in errors if not _BENIGN_ERRORS.search(e)]
    everything = stderr + "\n" + stdout
    model_check_failed = (
        any(_MODEL_CHECK.search(e) for e in errors)
        or bool(_MODEL_CHECK.search(stderr) and "error" in stderr.lower())
    ) and not _ADVISORY_MODEL_CHECK.search(everything)
    if timed_out:
        return Classified(Outcome.TIMEOUT, answers, model, "time limit", model_check_failed)
    memory = _first_line(_MEMORY, everything)
    crash = (
        _first_line(_CRASH, stderr)
        or _first_line(
            _CRASH, "\n".join(line for line in stdout.splitlines() if not line.startswith("(error"))
        )
        or next((" ".join(e.split()) for e in serious if _INTERNAL_ERROR.search(e)), None)
    )
    if memory is not None and (exit_code != 0 or serious):
        return Classified(Outcome.UNKNOWN, answers, model, "memory limit", model_check_failed)
    conflict = _ANNOTATION.search(everything)
    if conflict is not None:
        return _annotation_conflict(conflict, everything, answers, model, model_check_failed)
    lacks = _first_line(_BUILD_LACKS, stderr)
    if lacks is not None:
        return Classified(Outcome.UNKNOWN, answers, model, lacks, model_check_failed)
    if crash is not None or exit_code < 0:
        line = crash or f"killed by signal {-exit_code}"
        return Classified(Outcome.CRASH, answers, model, line, model_check_failed)
    if model_check_failed:
        # the solver answered and then its own model check failed: keep the answer
        outcome = Outcome(answers[-1]) if answers else Outcome.ERROR
        failure = next((e for e in errors if _MODEL_CHECK.search(e)), None) or _first_line(
            _MODEL_CHECK, stderr
        )
        return Classified(outcome, answers, model, failure, True)
    if serious and all(_CANNOT_SOLVE.search(e) for e in serious):
        return Classified(Outcome.UNKNOWN, answers, model, serious[0], False)
    if serious:
        return Classified(Outcome.ERROR, answers, model, serious[0], False)
    refused = _COMMAND_LINE.search(everything)
    if refused is not None and not answers:
        return Classified(Outcome.ERROR, answers, model, refused.group(0).strip(), False)
    if exit_code != 0 and not answers:
        line = (stderr.strip().splitlines() or [f"exit code {exit_code}"])[0]
        return Classified(Outcome.CRASH, answers, model, line, False)
    if not answers:
        # a clean exit without answers: the script asked nothing (a parse-only check)
        return Classified(Outcome.UNKNOWN, answers, model, "no answer", False)
    return Classified(Outcome(answers[-1]), answers, model, None, False)


def _annotation_conflict(
    found: re.Match[str],
    text: str,
    answers: list[Answer],
    model: str | None,
    model_check_failed: bool,
) -> Classified:
    """The solver's answer contradicted the script's `:status`: a fact about the annotation.
    cvc5 aborts before printing the answer; the message names it."""
    got = Answer.read(found.group(1) or "")
    if got and (not answers or answers[-1] != got):
        answers = [*answers, got]
    line = _first_line(_ANNOTATION, text)
    outcome = Outcome(answers[-1]) if answers else Outcome.UNKNOWN
    return Classified(outcome, answers, model, line, model_check_failed, annotation_conflict=True)
