"""Reading a solver's output: answers, model, errors, crashes.

Choices worth knowing:
- An error printed after an `unsat` for `get-model`/`get-value` ("model is not available")
  is not a rejection: the mutants we send always ask for a model.
- Running out of memory under the limit is a resource limit, not a bug: outcome `unknown`
  with `failure_line` "memory limit".
- A clean exit with no answer (a script without check-sat) is `unknown`, "no answer".
- A solver checking an expected-answer annotation against its answer (cvc5 aborts on
  "Expected result unsat but got sat", z3 reports "check annotation that says unsat",
  bitwuzla "'sat' but status is 'unsat'") neither
  crashed nor rejected anything: the outcome is its answer, `annotation_conflict` is set.
- A crash is read from how the process ended and from its failure channel: a signal, or a
  sanitizer, assertion or fatal-failure message on stderr, whatever else was printed; so is
  an error that cvc5's internal argument checks raised ("Illegal argument detected" in
  `cvc5::internal::` code), unless it came out as a "Parse Error" (how cvc5 1.0.3 refuses a
  logic it predates). Never from words the script chose: answers, models and `echo` text
  (z3 prints it unquoted) are on stdout, which is read for crash messages only for a
  family that prints them there (`FamilyRecord.crash_on_stdout`), after a non-zero exit,
  and outside S-expressions, strings and comments; a model sent to stderr
  (`:regular-output-channel`) is read past the same way.
- A family that prints its errors on stderr (`FamilyRecord.error_prefix`: bitwuzla's
  `[error] `) has them read as another's `(error ...)` answers; its own abort messages
  (`FamilyRecord.crash_messages`) are crash messages beside everyone's.
- An exit with one of the family's error statuses (`FamilyRecord.error_exits`) and no crash
  message is a rejection, whatever it printed or did not print (cvc5 1.4.2 refusing a
  higher-order logic under --no-uf-ho-exp; cvc5 1.0.3 exiting 1 silently under
  --use-portfolio). A non-zero exit with neither an answer nor a message, in a status the
  family does not use for errors, is a crash. A command line the release refuses (z3's
  "ERROR: unknown parameter", exit 110: an option of another release) is an error.
- An error that says a model is not available is a rejection unless an answer came before
  it (the mutants always ask for a model, also after `unsat`).
- The solver's own model check failing is a bad model, never a crash: cvc5 aborts
  ("ERRORS SATISFYING ASSERTIONS WITH MODEL", before printing the sat answer it checked),
  z3 prints "an invalid model was generated" after the answer.
"""

from __future__ import annotations

import re
from functools import lru_cache

from sphinxfuzz.smtlib.lexer import blotted, error_message, lexemes
from sphinxfuzz.solvers.families import Family, FamilyRecord
from sphinxfuzz.solvers.result import Answer, Classified, Outcome
from sphinxfuzz.solvers.sanitizer_reports import memory_exhausted

_BENIGN_ERRORS = re.compile(
    r"model is not available|cannot get model|cannot get value|not available|"
    r"after a SAT or UNKNOWN response|no model|context is unsatisfiable",
    re.IGNORECASE,
)
# ... of which these name the model or value asked for: no rejection even before any answer
# (z3 asked for a model before a check-sat; bitwuzla asked without produce-models)
_NO_MODEL = re.compile(
    r"model is not available|cannot get model|cannot get value|model generation is not enabled",
    re.IGNORECASE,
)
# The solver declines the problem because of how it was built (the cvc5 wheel has no CoCoA,
# so no finite-field solving): it rejected nothing, it cannot answer.
_CANNOT_SOLVE = re.compile(r"not configured with|can't solve .* since", re.IGNORECASE)
# ... and cvc5 aborts when an option needs a library the build lacks (Debian's cvc5 1.0.3
# under --nl-icp: "Unimplemented code encountered ICPSolver requires cvc5 to be configured
# with LibPoly"; Debian's cvc4 1.8 on floating point: "Unimplemented code
# encounteredConversion is dependent on SymFPU"): no bug either, whatever its exit status
_BUILD_LACKS = re.compile(
    r"Unimplemented code encountered ?.*(?:\bconfigured with\b|\bis dependent on SymFPU\b)"
)
_MODEL_CHECK = re.compile(
    r"invalid model|check-model|model check|checkModel|model does not satisfy|incorrect model"
    r"|model violates",
    re.IGNORECASE,
)
# The solver's own model check under an option it says the check does not hold for (cvc5
# --fmf-fun: "Running check-model is not guaranteed to pass when fmf-fun is enabled", and the
# check of a recursive definition then fails, but only as a warning): no verdict
_ADVISORY_MODEL_CHECK = re.compile(r"check-model is not guaranteed to pass", re.IGNORECASE)
# how cvc5 --check-models says that the model it found fails the assertions: an
# `InternalError` of its check_models.cpp, a fatal failure on stderr and an abort
_MODEL_REFUTED = re.compile(r"ERRORS SATISFYING ASSERTIONS WITH MODEL")
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
# cvc5, z3, then bitwuzla ("'unsat' but status is 'sat'"): the answer is the group that matched
_ANNOTATION = re.compile(
    r"Expected result (?:sat|unsat|unknown) but got (sat|unsat|unknown)|check annotation that says"
    r"|'(sat|unsat|unknown)' but status is '(?:sat|unsat|unknown)'"
)


def _first_line(pattern: re.Pattern[str], text: str) -> str | None:
    for line in text.splitlines():
        if pattern.search(line):
            return line.strip()
    return None


# a list that starts a line: an answer, a model, an `(error ...)`, never a crash message
# (those start with words: "Traceback (most recent", "Fatal failure within f(...)")
_LINE_LIST = re.compile(r"^[ \t]*\(", re.MULTILINE)
_PARENS = re.compile(r"[()]")
_NOT_NEWLINE = re.compile(r"[^\n]")


def _outside_answers(text: str) -> str:
    """`text` with its strings, quoted symbols and comments (`blotted`) and every list that
    starts a line blanked out, offsets and newlines kept: what is left cannot be a word of
    an answer, a model or a string the script chose."""
    plain = blotted(text)
    if "(" not in plain:
        return plain
    pieces, done = [], 0
    while (found := _LINE_LIST.search(plain, done)) is not None:
        start = found.end() - 1
        end = _list_end(plain, start)
        pieces += [plain[done:start], _NOT_NEWLINE.sub(" ", plain[start:end])]
        done = end
    pieces.append(plain[done:])
    return "".join(pieces)


def _list_end(plain: str, start: int) -> int:
    """Just past the `)` that closes the list opening at `start`; the end of its line when
    it never closes (a dump cut short)."""
    depth = 0
    for paren in _PARENS.finditer(plain, start):
        depth += 1 if paren.group() == "(" else -1
        if depth == 0:
            return paren.end()
    line_end = plain.find("\n", start)
    return len(plain) if line_end < 0 else line_end


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


def _stderr_errors(record: FamilyRecord, stderr: str) -> list[str]:
    """The errors a family says on stderr (bitwuzla's `[error] `), without their prefix."""
    if not record.error_prefix:
        return []
    start = len(record.error_prefix)
    return [
        line[start:].strip() for line in stderr.splitlines() if line.startswith(record.error_prefix)
    ]


def classify(
    stdout: str, stderr: str, exit_code: int, timed_out: bool, family: Family = Family.OTHER
) -> Classified:
    """How a run of a solver of `family` ended, from what it printed and its exit status
    (negative: killed by that signal). An unknown family's conventions are the loosest."""
    record = family.record
    answers, model, errors = _scan(stdout)
    errors += _stderr_errors(record, stderr)
    # "model is not available" after an unsat is no rejection (the mutants always ask for a
    # model), but "not available" from a run that answered nothing is (cvc5 1.4.2:
    # "Higher-order logic not available in this configuration" under --no-uf-ho-exp)
    serious = [
        e for e in errors if not ((answers and _BENIGN_ERRORS.search(e)) or _NO_MODEL.search(e))
    ]
    # the failure channel: stderr, and the errors the solver answered (never its other words)
    channel = "\n".join([stderr, *errors])
    model_check_failed = (
        any(_MODEL_CHECK.search(e) for e in errors)
        or bool(_MODEL_CHECK.search(stderr) and "error" in stderr.lower())
    ) and not _ADVISORY_MODEL_CHECK.search(channel)
    if timed_out:
        return Classified(Outcome.TIMEOUT, answers, model, "time limit", model_check_failed)
    memory = (
        _first_line(_MEMORY, channel) or _line_outside(_MEMORY, stdout) or memory_exhausted(stderr)
    )
    crash = (
        _line_outside(_CRASH, stderr)
        or _own_crash(record.crash_messages, stderr)
        or (_line_outside(_CRASH, stdout) if record.crash_on_stdout and exit_code != 0 else None)
        or next((" ".join(e.split()) for e in serious if _INTERNAL_ERROR.search(e)), None)
    )
    if memory is not None and (exit_code != 0 or serious):
        return Classified(Outcome.UNKNOWN, answers, model, "memory limit", model_check_failed)
    conflict = _ANNOTATION.search(channel)
    if conflict is not None:
        return _annotation_conflict(conflict, channel, answers, model, model_check_failed)
    lacks = _first_line(_BUILD_LACKS, stderr)
    if lacks is not None:
        return Classified(Outcome.UNKNOWN, answers, model, lacks, model_check_failed)
    refuted = _line_outside(_MODEL_REFUTED, stderr)
    if refuted is not None and not _ADVISORY_MODEL_CHECK.search(channel):
        # cvc5 checks a sat answer's model before it prints the answer, and aborts
        if exit_code != 0 or not answers:
            answers = [*answers, Answer.SAT]
        return Classified(Outcome(answers[-1]), answers, model, refuted, True)
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
    return _no_crash(stdout, stderr, exit_code, record, answers, model, errors, serious)


def _no_crash(
    stdout: str, stderr: str, exit_code: int, record: FamilyRecord, answers: list[Answer],
    model: str | None, errors: list[str], serious: list[str],
) -> Classified:  # fmt: skip
    """How a run ended that neither crashed, ran out of time or memory, nor failed its own
    model check: it could not solve, refused the input or the command line, or answered."""
    if serious and all(_CANNOT_SOLVE.search(e) for e in serious):
        return Classified(Outcome.UNKNOWN, answers, model, serious[0], False)
    if serious:
        return Classified(Outcome.ERROR, answers, model, serious[0], False)
    refused = _COMMAND_LINE.search(stderr + "\n" + stdout)
    if refused is not None and not answers:
        return Classified(Outcome.ERROR, answers, model, refused.group(0).strip(), False)
    if exit_code != 0 and not answers:
        said = stderr.strip().splitlines() or errors
        line = said[0] if said else f"exit code {exit_code}"
        # the family's error status without a crash message: it refused the input or the
        # command line (a release that cannot honour an option may say nothing at all)
        outcome = Outcome.ERROR if exit_code in record.error_exits else Outcome.CRASH
        return Classified(outcome, answers, model, line, False)
    if not answers:
        # a clean exit without answers: the script asked nothing (a parse-only check)
        return Classified(Outcome.UNKNOWN, answers, model, "no answer", False)
    return Classified(Outcome(answers[-1]), answers, model, None, False)


def _own_crash(patterns: tuple[str, ...], stderr: str) -> str | None:
    """The first line of `stderr` that one of a family's own abort messages finds."""
    for pattern in patterns:
        found = _line_outside(_compiled(pattern), stderr)
        if found is not None:
            return found
    return None


@lru_cache(maxsize=32)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.MULTILINE)


def _line_outside(pattern: re.Pattern[str], text: str) -> str | None:
    """The first line of `text` that `pattern` finds outside its answers, as printed."""
    if not pattern.search(text):
        return None
    found = pattern.search(_outside_answers(text))
    if found is None:
        return None
    start = text.rfind("\n", 0, found.start()) + 1
    end = text.find("\n", found.start())
    return text[start : len(text) if end < 0 else end].strip()


def _annotation_conflict(
    found: re.Match[str],
    text: str,
    answers: list[Answer],
    model: str | None,
    model_check_failed: bool,
) -> Classified:
    """The solver's answer contradicted the script's `:status`: a fact about the annotation.
    cvc5 aborts before printing the answer; the message names it."""
    got = Answer.read(next((g for g in found.groups() if g), ""))
    if got and (not answers or answers[-1] != got):
        answers = [*answers, got]
    line = _first_line(_ANNOTATION, text)
    outcome = Outcome(answers[-1]) if answers else Outcome.UNKNOWN
    return Classified(outcome, answers, model, line, model_check_failed, annotation_conflict=True)
