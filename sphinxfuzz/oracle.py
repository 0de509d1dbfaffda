"""The oracle: turn every solver's result on one formula into bug verdicts.

- a crash of any solver is a crash bug; its signature is the solver family plus the first
  failure line with numbers, addresses, paths and positions normalised away, so one root
  cause found a thousand times is stored once;
- a solver's own model check failing (z3 `model_validate`, cvc5 `--check-models`) is an
  invalid-model bug of that solver;
- sat against unsat is settled by checking the sat solver's model: the formula is re-run with
  every declared symbol the model defines replaced by the model's definition. Model holds ->
  the unsat solver is unsound; model fails -> the sat solver's model is invalid; a check that
  decides nothing leaves the disagreement unconfirmed (counted, never reported).

unknown, timeout and error (rejected input) never make a verdict.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from sphinxfuzz.errors import InputError
from sphinxfuzz.smtlib import (
    Atom,
    Node,
    SList,
    SmtParseError,
    parse_nodes,
    parse_script,
    print_node,
)
from sphinxfuzz.solvers import Outcome, SolverResult, SolverSpec

# Runs one check script on one solver in a fresh process (the campaign applies the solver's
# dialect and limits). Injected so the oracle stays independent of mutation and timeouts.
CheckRunner = Callable[[SolverSpec, str], SolverResult]


class VerdictKind(StrEnum):
    NONE = "none"
    CRASH = "crash"
    SOUNDNESS = "soundness"
    INVALID_MODEL = "invalid-model"
    # sat vs unsat that the model check could not settle: only recorded for seeds
    DISAGREEMENT = "disagreement"


@dataclass(frozen=True)
class Verdict:
    kind: VerdictKind
    solver: str | None = None  # the blamed solver's display name
    signature: str = ""
    evidence: dict[str, object] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "kind": str(self.kind),
            "solver": self.solver,
            "signature": self.signature,
            "evidence": self.evidence,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Verdict:
        evidence = data.get("evidence") or {}
        assert isinstance(evidence, dict)
        solver = data.get("solver")
        return cls(
            VerdictKind(str(data["kind"])),
            None if solver is None else str(solver),
            str(data.get("signature", "")),
            evidence,
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


# -- crash signatures ----------------------------------------------------------------------

_NORMALISERS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"0x[0-9a-fA-F]+"), "<addr>"),
    # temp files and any absolute or relative path with a slash
    (re.compile(r"(?:[A-Za-z]:)?[\w.~-]*(?:/[\w.@+-]+)+/?"), "<path>"),
    (re.compile(r"\b(?:tmp|temp)[\w-]*\.\w+\b", re.IGNORECASE), "<file>"),
    (re.compile(r"[\w-]+\.(?:smt2|smt|cpp|cc|c|h|hpp|py)\b"), "<file>"),
    # line:col and "line 12" style positions, then every remaining number
    (re.compile(r"\b(line|col|column)\s*[:=]?\s*\d+", re.IGNORECASE), r"\1 <n>"),
    (re.compile(r"\d+(?:\.\d+)?"), "<n>"),
    (re.compile(r"\s+"), " "),
]


def normalise_failure(line: str) -> str:
    """The failure line with everything that varies between runs of one bug removed."""
    text = line.strip()
    for pattern, replacement in _NORMALISERS:
        text = pattern.sub(replacement, text)
    return text.strip()[:300]


def crash_signature(result: SolverResult) -> str:
    """`family: normalised first failure line` (falls back to the exit status)."""
    line = result.failure_line
    if not line:
        code = result.exit_code
        line = f"killed by signal {-code}" if code is not None and code < 0 else f"exit {code}"
        # signal numbers identify the crash class, keep them
        return f"{result.spec.family}: {line}"
    return f"{result.spec.family}: {normalise_failure(line)}"


# -- the model-check script ------------------------------------------------------------------


class ModelCheckError(InputError):
    """The model or the formula cannot be turned into a check script."""


_KEEP = {
    "set-option", "set-info", "declare-sort", "define-sort", "declare-datatype",
    "declare-datatypes", "declare-fun", "declare-const", "define-fun", "define-fun-rec",
    "define-funs-rec", "define-const", "assert", "push", "pop",
}  # fmt: skip
_CHECKS = {"check-sat", "check-sat-assuming"}


def _name(node: Node) -> str:
    return node.name if isinstance(node, Atom) else ""


def _model_items(model_text: str) -> list[SList]:
    try:
        nodes = parse_nodes(model_text, "<model>")
    except SmtParseError as exc:
        raise ModelCheckError(f"unreadable model: {exc}") from None
    if len(nodes) != 1 or not isinstance(nodes[0], SList):
        raise ModelCheckError("a model must be one parenthesised list")
    items = list(nodes[0].items)
    if items and isinstance(items[0], Atom) and items[0].is_symbol("model"):
        items = items[1:]  # old z3 format: (model (define-fun ...) ...)
    if not all(isinstance(item, SList) for item in items):
        raise ModelCheckError("a model item is not a parenthesised command")
    return items  # type: ignore[return-value]


class _AbstractValues:
    """cvc5 prints values of uninterpreted sorts as `(as @U_0 U)`, which no solver reads back:
    each becomes a fresh constant of its sort, and constants of one sort are distinct."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}  # @U_0 -> fresh symbol
        self.by_sort: dict[str, list[str]] = {}  # sort text -> fresh symbols
        self.sort_nodes: dict[str, Node] = {}

    def rewrite(self, node: Node) -> Node:
        if isinstance(node, Atom):
            if node.kind == "symbol" and node.name.startswith("@"):
                if node.name in self.names:
                    return Atom(self.names[node.name], "symbol")
                raise ModelCheckError(f"model value {node.text} has no sort annotation")
            return node
        items = node.items
        if (
            len(items) == 3
            and _name(items[0]) == "as"
            and isinstance(items[1], Atom)
            and items[1].name.startswith("@")
        ):
            return Atom(self.fresh(items[1].name, items[2]), "symbol")
        return SList([self.rewrite(item) for item in items], node.pos)

    def fresh(self, value: str, sort: Node) -> str:
        if value not in self.names:
            symbol = f"sphinxfuzz_value_{len(self.names)}"
            self.names[value] = symbol
            key = print_node(sort)
            self.by_sort.setdefault(key, []).append(symbol)
            self.sort_nodes[key] = sort
        return self.names[value]


@dataclass
class _Model:
    definitions: dict[str, SList]  # define-fun items by name
    universe: dict[str, list[str]]  # sort text -> commands declaring its elements (printed)
    constraints: dict[str, list[str]]  # sort text -> cardinality/distinctness assertions


def _read_model(model_text: str) -> _Model:
    abstract = _AbstractValues()
    definitions: dict[str, SList] = {}
    z3_universe: dict[str, list[str]] = {}
    z3_sort_of: dict[str, str] = {}
    constraints: dict[str, list[str]] = {}
    for item in _model_items(model_text):
        head = item.head_name()
        if head == "define-fun" and len(item.items) == 5:
            name = _name(item.items[1])
            rewritten = abstract.rewrite(item)
            assert isinstance(rewritten, SList)
            definitions[name] = rewritten
        elif head in ("declare-fun", "declare-const") and len(item.items) >= 3:
            # z3's elements of an uninterpreted sort: (declare-fun U!val!0 () U)
            sort = print_node(item.items[-1])
            z3_universe.setdefault(sort, []).append(print_node(item))
            z3_sort_of[_name(item.items[1])] = sort
        elif head == "forall":
            # z3's cardinality constraint on a universe: keeps quantified formulas honest
            sorts = {print_node(binding.items[1]) for binding in _bindings(item)}
            key = sorts.pop() if len(sorts) == 1 else ""
            constraints.setdefault(key, []).append(f"(assert {print_node(item)})")
        elif head in ("define-fun-rec", "define-funs-rec", "define-sort", "declare-sort"):
            raise ModelCheckError(f"model item {head!r} is not supported by the model check")
        # anything else (comments are already gone) carries no assignment
    universe: dict[str, list[str]] = dict(z3_universe)
    elements: dict[str, list[str]] = {}
    for element, sort in z3_sort_of.items():
        elements.setdefault(sort, []).append(element)
    for sort, symbols in abstract.by_sort.items():
        universe.setdefault(sort, []).extend(f"(declare-const {s} {sort})" for s in symbols)
        elements.setdefault(sort, []).extend(symbols)
    for sort, names in elements.items():
        if len(names) > 1:
            constraints.setdefault(sort, []).insert(0, f"(assert (distinct {' '.join(names)}))")
    return _Model(definitions, universe, constraints)


def _bindings(forall: SList) -> list[SList]:
    if len(forall.items) < 3 or not isinstance(forall.items[1], SList):
        return []
    return [b for b in forall.items[1].items if isinstance(b, SList) and len(b.items) == 2]


def _symbols_in(node: Node) -> set[str]:
    if isinstance(node, Atom):
        return {node.name} if node.kind == "symbol" else set()
    found: set[str] = set()
    stack: list[Node] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Atom):
            if current.kind == "symbol":
                found.add(current.name)
        else:
            stack.extend(current.items)
    return found


def build_model_check(script_text: str, model_text: str, filename: str = "<mutant>") -> str:
    """The formula up to its first check-sat, with every declared constant or function that
    the model defines replaced by the model's `define-fun`, then `(check-sat)`.

    Under a complete model the check is an evaluation: sat means the model satisfies the
    formula, unsat means it does not. Symbols the model leaves out stay declared.
    """
    try:
        script = parse_script(script_text, filename)
    except SmtParseError as exc:
        raise ModelCheckError(str(exc)) from None
    model = _read_model(model_text)
    declared = {
        _name(cmd.items[1])
        for cmd in script.commands
        if cmd.head_name() in ("declare-fun", "declare-const") and len(cmd.items) >= 3
    }
    auxiliary = {name: d for name, d in model.definitions.items() if name not in declared}
    emitted: set[str] = set()
    out: list[str] = []

    def emit_auxiliary(node: Node) -> None:
        # z3 may define a value through a helper (`(_ as-array k!0)`): define helpers first
        for symbol in sorted(_symbols_in(node.items[4] if isinstance(node, SList) else node)):
            if symbol in auxiliary and symbol not in emitted:
                emitted.add(symbol)
                emit_auxiliary(auxiliary[symbol])
                out.append(print_node(auxiliary[symbol]))

    universe_done: set[str] = set()

    def emit_universe(sort: str) -> None:
        if sort in universe_done:
            return
        universe_done.add(sort)
        out.extend(model.universe.get(sort, []))
        out.extend(model.constraints.get(sort, []))

    for command in script.commands:
        head = command.head_name()
        if head in _CHECKS:
            if head == "check-sat-assuming" and len(command.items) == 2:
                assumptions = command.items[1]
                if isinstance(assumptions, SList):
                    out.extend(f"(assert {print_node(a)})" for a in assumptions.items)
            break
        if head not in _KEEP:
            continue  # set-logic too: model values may leave the declared logic
        if head == "declare-sort" and len(command.items) >= 2:
            out.append(print_node(command))
            emit_universe(print_node(command.items[1]))
            continue
        if head in ("declare-fun", "declare-const") and len(command.items) >= 3:
            name = _name(command.items[1])
            definition = model.definitions.get(name)
            if definition is not None:
                emit_auxiliary(definition)
                out.append(print_node(definition))
                continue
        out.append(print_node(command))
    else:
        raise ModelCheckError(f"{filename}: the formula has no check-sat")
    # universes of sorts no declare-sort introduces, and constraints over several sorts (rare)
    missing = [sort for sort in model.universe if sort not in universe_done]
    prefix: list[str] = []
    for sort in missing:
        prefix.extend(model.universe[sort])
        prefix.extend(model.constraints.get(sort, []))
    prefix.extend(model.constraints.get("", []))
    if prefix:
        # just before the first assertion: every sort is declared by then in usual scripts
        first_assert = next(
            (i for i, line in enumerate(out) if line.startswith("(assert")), len(out)
        )
        out[first_assert:first_assert] = prefix
    out.append("(check-sat)")
    return "\n".join(out) + "\n"


# -- judging -------------------------------------------------------------------------------


def _first_disagreement(results: Sequence[SolverResult]) -> int | None:
    longest = max((len(r.answers) for r in results), default=0)
    for index in range(longest):
        seen = {r.answers[index] for r in results if index < len(r.answers)}
        if {"sat", "unsat"} <= seen:
            return index
    return None


def _model_follows_first_check(script_text: str) -> bool:
    """The model answers the first check-sat only when get-model comes before any other one."""
    try:
        commands = parse_script(script_text).commands
    except SmtParseError:
        return False
    heads = [c.head_name() for c in commands]
    checks = [i for i, h in enumerate(heads) if h in _CHECKS]
    models = [i for i, h in enumerate(heads) if h == "get-model"]
    if not checks or not models or models[0] < checks[0]:
        return False
    return len(checks) == 1 or models[0] < checks[1]


def _vote(answers: Sequence[str]) -> str | None:
    decided = {a for a in answers if a in ("sat", "unsat")}
    return decided.pop() if len(decided) == 1 else None


def judge(
    script_text: str,
    results: Sequence[SolverResult],
    run_check: CheckRunner,
) -> Judgement:
    """Verdicts for one formula from every target solver's result on it."""
    judgement = Judgement()
    for result in results:
        if result.outcome == Outcome.CRASH:
            judgement.verdicts.append(
                Verdict(
                    VerdictKind.CRASH,
                    result.spec.name,
                    crash_signature(result),
                    {"failure_line": result.failure_line, "exit_code": result.exit_code},
                )
            )
    for result in results:
        if result.model_check_failed and result.outcome != Outcome.CRASH:
            judgement.verdicts.append(
                Verdict(
                    VerdictKind.INVALID_MODEL,
                    result.spec.name,
                    f"{result.spec.family}: own model check failed",
                    {"failure_line": result.failure_line, "source": "solver's own model check"},
                )
            )
    # A rejected input or a crash makes the other answers of that run untrustworthy.
    if judgement.verdicts or any(r.outcome == Outcome.ERROR for r in results):
        return judgement
    index = _first_disagreement(results)
    if index is None:
        return judgement
    answers = {r.spec.name: list(r.answers) for r in results}
    sat_side = [r for r in results if index < len(r.answers) and r.answers[index] == "sat"]
    unsat_side = [r for r in results if index < len(r.answers) and r.answers[index] == "unsat"]
    witness = next((r for r in sat_side if r.model), None)
    if index != 0 or witness is None or not _model_follows_first_check(script_text):
        judgement.unconfirmed = True
        return judgement
    assert witness.model is not None
    try:
        check = build_model_check(script_text, witness.model)
    except ModelCheckError:
        judgement.unconfirmed = True
        return judgement
    judgement.check_script = check
    checks = {r.spec.name: run_check(r.spec, check) for r in results}
    judgement.check_results = list(checks.values())
    first = {
        name: (res.answers[0] if res.answers else str(res.outcome)) for name, res in checks.items()
    }
    parties = {witness.spec.name} | {r.spec.name for r in unsat_side}
    # Solvers that took no side judge first; the parties decide only when they agree.
    decision = _vote([a for n, a in first.items() if n not in parties])
    if decision is None and not any(
        n not in parties and a in ("sat", "unsat") for n, a in first.items()
    ):
        decision = _vote([first[n] for n in parties])
    evidence: dict[str, object] = {
        "answers": answers,
        "model_from": witness.spec.name,
        "model": witness.model,
        "check": first,
    }
    if decision == "sat":
        for loser in unsat_side:
            judgement.verdicts.append(
                Verdict(
                    VerdictKind.SOUNDNESS,
                    loser.spec.name,
                    f"{loser.spec.family}: unsat but {witness.spec.name}'s model holds",
                    evidence,
                )
            )
    elif decision == "unsat":
        judgement.verdicts.append(
            Verdict(
                VerdictKind.INVALID_MODEL,
                witness.spec.name,
                f"{witness.spec.family}: sat with a model that fails the formula",
                evidence,
            )
        )
    else:
        judgement.unconfirmed = True
    return judgement
