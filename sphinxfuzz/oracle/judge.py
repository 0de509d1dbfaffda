"""Judging: every solver's result on one formula turned into verdicts.

- a crash of any solver is a crash bug (signature: `oracle.crash`);
- a solver's own model check failing (z3 `model_validate`, cvc5 `--check-models`) is an
  invalid-model bug of that solver;
- sat against unsat is settled by checking the sat solver's model: the formula is re-run with
  every declared symbol the model defines replaced by the model's definition. Model holds ->
  the unsat solver is unsound; model fails -> the sat solver's model is invalid; a check that
  decides nothing leaves the disagreement unconfirmed (counted, never reported).
- a lone solver (a seed only one target accepts) has no answer to compare with: its sat
  answer's model is checked on itself, and a model it then calls failing is an invalid-model
  bug of it; no soundness verdict, and no disagreement, can come from one result.

unknown, timeout and error (rejected input) never make a verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sphinxfuzz.oracle.crash import crash_signature
from sphinxfuzz.oracle.model_check import CHECKS, ModelCheckError, build_model_check
from sphinxfuzz.oracle.verdict import OWN_MODEL_CHECK, Judgement, Verdict, VerdictKind
from sphinxfuzz.smtlib import Script, SmtParseError, parse_script
from sphinxfuzz.solvers import DECIDED, Answer, Outcome, SolverResult, SolverSpec

# Runs one check script on one solver in a fresh process (the caller applies the solver's
# dialect and limits). Injected so the oracle stays independent of campaigns and timeouts.
CheckRunner = Callable[[SolverSpec, str], SolverResult]


def crash_verdicts(results: Sequence[SolverResult]) -> list[Verdict]:
    """A crash verdict for every crashed solver, then an invalid-model verdict for every
    other solver whose own model check failed."""
    verdicts = [
        Verdict(
            VerdictKind.CRASH,
            result.spec.name,
            crash_signature(result),
            {"failure_line": result.failure_line, "exit_code": result.exit_code},
        )
        for result in results
        if result.outcome == Outcome.CRASH
    ]
    verdicts += [
        Verdict(
            VerdictKind.INVALID_MODEL,
            result.spec.name,
            f"{result.spec.family}: own model check failed",
            {"failure_line": result.failure_line, "source": OWN_MODEL_CHECK},
        )
        for result in results
        if result.model_check_failed and result.outcome != Outcome.CRASH
    ]
    return verdicts


def _first_disagreement(results: Sequence[SolverResult]) -> int | None:
    longest = max((len(r.answers) for r in results), default=0)
    for index in range(longest):
        seen = {r.answers[index] for r in results if index < len(r.answers)}
        if set(DECIDED) <= seen:
            return index
    return None


def _checkable(script_text: str, parsed: Script | None = None) -> Script | None:
    """The formula parsed (`parsed`: the caller's parse of `script_text`, read only), when a
    model answers its first check-sat: when get-model comes before any other one (parsed
    once for this and the model check)."""
    script = parsed
    if script is None:
        try:
            script = parse_script(script_text)
        except SmtParseError:
            return None
    return script if _model_follows_first_check(script) else None


def _model_follows_first_check(script: Script) -> bool:
    heads = [c.head_name() for c in script.commands]
    checks = [i for i, h in enumerate(heads) if h in CHECKS]
    models = [i for i, h in enumerate(heads) if h == "get-model"]
    if not checks or not models or models[0] < checks[0]:
        return False
    return len(checks) == 1 or models[0] < checks[1]


def _vote(answers: Sequence[Answer | Outcome]) -> Answer | Outcome | None:
    decided = {a for a in answers if a in DECIDED}
    return decided.pop() if len(decided) == 1 else None


def judge(
    script_text: str,
    results: Sequence[SolverResult],
    run_check: CheckRunner,
    parsed: Script | None = None,
) -> Judgement:
    """Verdicts for one formula from every target solver's result on it. `parsed` is the
    formula's script when the caller has it (its text is `script_text`; read only): a model
    check then starts from it instead of parsing the text again."""
    judgement = Judgement(crash_verdicts(results))
    # A rejected input or a crash makes the other answers of that run untrustworthy.
    if judgement.verdicts or any(r.outcome == Outcome.ERROR for r in results):
        return judgement
    if len(results) == 1:
        return _lone_model_check(script_text, results[0], run_check, judgement, parsed)
    index = _first_disagreement(results)
    if index is None:
        return judgement
    answers = {r.spec.name: list(r.answers) for r in results}
    sat_side = [r for r in results if index < len(r.answers) and r.answers[index] == Answer.SAT]
    unsat_side = [r for r in results if index < len(r.answers) and r.answers[index] == Answer.UNSAT]
    witness = next((r for r in sat_side if r.model), None)
    script = None if index != 0 or witness is None else _checkable(script_text, parsed)
    if script is None:
        judgement.unconfirmed = True
        return judgement
    assert witness is not None and witness.model is not None
    try:
        check = build_model_check(script, witness.model)
    except ModelCheckError:
        judgement.unconfirmed = True
        return judgement
    judgement.check_script = check
    checks = {r.spec.name: run_check(r.spec, check) for r in results}
    judgement.check_results = list(checks.values())
    first = {name: res.first for name, res in checks.items()}
    decision = _decision(first, {witness.spec.name} | {r.spec.name for r in unsat_side})
    evidence: dict[str, object] = {
        "answers": answers,
        "model_from": witness.spec.name,
        "model": witness.model,
        "check": first,
    }
    if decision == Answer.SAT:
        for loser in unsat_side:
            judgement.verdicts.append(
                Verdict(
                    VerdictKind.SOUNDNESS,
                    loser.spec.name,
                    f"{loser.spec.family}: unsat but {witness.spec.name}'s model holds",
                    evidence,
                )
            )
    elif decision == Answer.UNSAT:
        judgement.verdicts.append(_invalid_model(witness, evidence))
    else:
        judgement.unconfirmed = True
    return judgement


def _decision(first: dict[str, Answer | Outcome], parties: set[str]) -> Answer | Outcome | None:
    """What the model check's answers (`first`, by solver) decide. Solvers that took no side
    judge first; the `parties` decide only when every one of them answers the check alike:
    a solver vouching alone for its own model would repeat the bug that made it (z3 4.12.2
    evaluates a formula to true that every other solver and its own newer releases evaluate
    to false)."""
    decision = _vote([a for n, a in first.items() if n not in parties])
    if decision is None and not any(n not in parties and a in DECIDED for n, a in first.items()):
        sides = {first[n] for n in parties}
        decision = sides.pop() if len(sides) == 1 else None
    return decision


def _lone_model_check(
    script_text: str,
    result: SolverResult,
    run_check: CheckRunner,
    judgement: Judgement,
    parsed: Script | None,
) -> Judgement:
    """One solver's sat model checked by that solver (the only one that accepts the formula's
    theories): unsat -> its model is invalid; any other answer decides nothing."""
    if not result.answers or result.answers[0] != Answer.SAT or not result.model:
        return judgement
    script = _checkable(script_text, parsed)
    if script is None:
        return judgement
    try:
        check = build_model_check(script, result.model)
    except ModelCheckError:
        return judgement
    checked = run_check(result.spec, check)
    judgement.check_script, judgement.check_results = check, [checked]
    if checked.first == Answer.UNSAT:
        evidence: dict[str, object] = {
            "answers": {result.spec.name: list(result.answers)},
            "model_from": result.spec.name,
            "model": result.model,
            "check": {result.spec.name: checked.first},
        }
        judgement.verdicts.append(_invalid_model(result, evidence))
    return judgement


def _invalid_model(witness: SolverResult, evidence: dict[str, object]) -> Verdict:
    family = witness.spec.family
    return Verdict(
        VerdictKind.INVALID_MODEL,
        witness.spec.name,
        f"{family}: sat with a model that fails the formula",
        evidence,
    )
