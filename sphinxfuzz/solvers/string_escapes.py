"""String literals that releases older than SMT-LIB 2.6's strings read differently.

SMT-LIB 2.6 reads `\\u{41}` in a string literal as the character A and `\\x41` as four
characters. Older releases (z3 4.8.8, for one) read z3's earlier escapes: `\\x41` is A and
`\\u{41}` the five characters `u{41}`; `\\n` and the like are escapes there too. So a script
whose string literals hold a backslash may be another formula to such a release, and its
answer and model say nothing about the script: the script is not run there, and the result
is a rejection naming the cause (an `error` outcome, never a verdict). Which reading a
release has is asked once per command line with a probe script, not guessed from versions.
"""

from __future__ import annotations

import os
import tempfile
from functools import lru_cache

from sphinxfuzz.smtlib.lexer import lexemes
from sphinxfuzz.solvers.families import program_argv
from sphinxfuzz.solvers.reaper import run_bounded
from sphinxfuzz.solvers.result import Answer, Outcome, SolverResult
from sphinxfuzz.solvers.spec import SolverSpec
from sphinxfuzz.solvers.versions import solver_version

# `(str.len "\u{41}")` is 1 in SMT-LIB 2.6 and 5 where `\u` is no escape
PROBE = '(assert (= (str.len "\\u{41}") 1))\n(check-sat)\n'
PROBE_TIMEOUT = 10.0
REASON = "a backslash in a string literal: this release reads escapes older than SMT-LIB 2.6's"


def escapes(text: str) -> bool:
    """Some string literal of `text` holds a backslash (an escape to one reading or both)."""
    if "\\" not in text:  # the common case, without lexing
        return False
    return any(kind == "string" and "\\" in body for kind, body, _ in lexemes(text))


@lru_cache(maxsize=64)
def _reads_unicode_escapes(argv: tuple[str, ...]) -> bool:
    with tempfile.NamedTemporaryFile("w", suffix=".smt2", delete=False) as handle:
        handle.write(PROBE)
    try:
        done = run_bounded((*argv, handle.name), timeout=PROBE_TIMEOUT, memory_mb=4096)
    except OSError:
        return True
    finally:
        os.unlink(handle.name)
    # only a plain `unsat` shows the old reading; anything else (no strings, an error, a
    # time-out) leaves the script to the solver as before
    words = done.stdout.decode("utf-8", "replace").split()
    return not words or Answer.read(words[0]) is not Answer.UNSAT


def reads_unicode_escapes(spec: SolverSpec) -> bool:
    """`spec` reads `\\u{..}` in string literals as SMT-LIB 2.6 does (asked once per
    release: a campaign draws new options at every seed position, and asking per command
    line ran the probe, a fresh solver process, at each position with an escaped string)."""
    return _reads_unicode_escapes(tuple(program_argv(spec.argv)))


def misread(spec: SolverSpec, script_text: str) -> SolverResult | None:
    """The rejection `spec` gets instead of a run when it would read the script's string
    literals as another formula; None when it reads them as meant."""
    if not escapes(script_text) or reads_unicode_escapes(spec):
        return None
    return SolverResult(
        spec=spec,
        outcome=Outcome.ERROR,
        stdout=f'(error "{REASON}")\n',
        version=solver_version(spec),
        failure_line=REASON,
    )
