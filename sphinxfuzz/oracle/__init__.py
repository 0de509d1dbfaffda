"""The oracle: from solver results to typed verdicts.

- `verdict`: VerdictKind, Verdict, Expected, Related, Judgement (values, never wording);
- `crash`: crash signatures; `model_check`: the model-check script;
- `judge`: crashes, invalid models and sat-vs-unsat disagreements (`judge`);
- `expected`: answers known by construction (`judge_expected`, `judge_related`);
- `interesting`: "is a candidate still the bug?" for reduction and bisection;
- `dialect` and `run`: a script as one solver family reads it, and running it so.
"""

from sphinxfuzz.oracle.crash import crash_signature, normalise_failure
from sphinxfuzz.oracle.expected import ModelChecker, judge_again, judge_expected, judge_related
from sphinxfuzz.oracle.judge import CheckRunner, judge
from sphinxfuzz.oracle.model_check import ModelCheckError, build_model_check
from sphinxfuzz.oracle.verdict import (
    NO_BUG,
    Expected,
    Judgement,
    Related,
    Verdict,
    VerdictKind,
)

__all__ = [
    "NO_BUG",
    "CheckRunner",
    "Expected",
    "Judgement",
    "ModelCheckError",
    "ModelChecker",
    "Related",
    "Verdict",
    "VerdictKind",
    "build_model_check",
    "crash_signature",
    "judge",
    "judge_again",
    "judge_expected",
    "judge_related",
    "normalise_failure",
]
