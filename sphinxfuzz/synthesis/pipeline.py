"""Building one theory's generator (Algorithm 1 of the method).

1. grammar: the model distils a Lark grammar from the theory document; a grammar Lark cannot
   load goes back with Lark's error.
2. implement: the model writes the generator module from the document and the grammar.
3. self-correction: each round takes one version of the code through the static check (an
   unsafe module never runs; the problems go back), samples terms in the sandbox (a crash,
   time-out or memory blow-up goes back with the traceback), and has every solver that
   supports the theory parse each term with its declarations. A term is valid when one such
   solver accepts it. While not all samples are valid and rounds remain, the distinct errors
   are distilled by the model and sent back with the code. The version with the most valid
   terms is kept.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sphinxfuzz.errors import ExternalError
from sphinxfuzz.generators.sandbox import sample_terms
from sphinxfuzz.generators.static_check import ALLOWED_MODULES, check_source
from sphinxfuzz.generators.term_metrics import load_grammar
from sphinxfuzz.generators.theory_docs import TheoryDoc
from sphinxfuzz.generators.theory_folder import GeneratorFolder
from sphinxfuzz.generators.theory_validation import (
    GrammarLoadError,
    check_terms,
    error_counts,
    grammar_conformance,
)
from sphinxfuzz.solvers import SolverSpec
from sphinxfuzz.synthesis.llm import LLM, Messages, UnusableAnswer
from sphinxfuzz.synthesis.prompts import Prompts

GRAMMAR_ATTEMPTS = 3
ANSWER_ATTEMPTS = 3  # asks per step when the answer has the wrong shape (empty, cut off, ...)
_FENCE = re.compile(r"```([A-Za-z0-9_+-]*)[ \t]*\n(.*?)```", re.DOTALL)


class BuildError(ExternalError):
    """The theory could not be built (no loadable grammar, no usable generator)."""


def extract_block(answer: str, language: str) -> str:
    """The first fenced block marked `language` (or the first unmarked one, or the whole
    answer when it has no fence at all)."""
    blocks = _FENCE.findall(answer)
    for marked, body in blocks:
        if marked.lower() == language:
            return body.strip() + "\n"
    for marked, body in blocks:
        if not marked:
            return body.strip() + "\n"
    return answer.strip() + "\n"


def answer_problem(answer: str, language: str | None) -> str | None:
    """Why `answer` cannot be used as it stands, or None. `language` is the fenced block the
    step asks for (None: free text)."""
    if not answer.strip():
        return "the answer is empty"
    if language is None:
        return None
    marked = [body for mark, body in _FENCE.findall(answer) if mark.lower() == language]
    if len(marked) > 1:
        return (
            f"the answer has {len(marked)} fenced blocks marked {language}; "
            "which one is meant is not clear"
        )
    if answer.count("```") % 2:
        return "the answer has a fence (```) that never closes: it looks cut off"
    return None


def prints(code: str) -> bool:
    """The module calls `print`: a generator returns its text, its output goes nowhere, and
    a model that prints is usually debugging instead of answering."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False  # the static check reports it
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
        for node in ast.walk(tree)
    )


@dataclass
class Round:
    number: int
    valid: int
    samples: int
    failure_kind: str | None = None  # unsafe / exception / timeout / memory / bad-output
    conformance: float | None = None
    counted: list[tuple[str, int]] = field(default_factory=list)  # distinct error, times seen

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.number,
            "valid": self.valid,
            "samples": self.samples,
            "failure_kind": self.failure_kind,
            "grammar_conformance": self.conformance,
            "distinct_errors": [message for message, _ in self.counted[:10]],
        }


@dataclass
class BuildResult:
    theory: str
    grammar: str
    code: str
    rounds: list[Round]
    best_round: int

    @property
    def best(self) -> Round:
        return self.rounds[self.best_round - 1]


class TheoryBuilder:
    def __init__(
        self,
        doc: TheoryDoc,
        llm: LLM,
        prompts: Prompts,
        specs: list[SolverSpec],
        *,
        rounds: int = 10,
        samples: int = 20,
        seed: int = 0,
        sample_timeout: float = 30.0,
        memory_mb: int = 1024,
        progress: Callable[[str], None] = lambda _line: None,
        unconfined: bool = False,
    ) -> None:
        self.doc = doc
        self.llm = llm
        self.prompts = prompts
        self.specs = specs
        self.rounds = rounds
        self.samples = samples
        self.seed = seed
        self.sample_timeout = sample_timeout
        self.memory_mb = memory_mb
        self.progress = progress
        self.unconfined = unconfined  # run sampled code even without kernel confinement
        self.solvers_text = ", ".join(doc.solvers)

    # -- talking to the model ---------------------------------------------------------------
    def ask(self, step: str, prompt: str, language: str | None = "python") -> str:
        messages: Messages = [
            {"role": "system", "content": self.prompts.texts["system"].strip()},
            {"role": "user", "content": prompt},
        ]
        answer = self.usable(step, messages, language)
        return extract_block(answer, language) if language else answer

    def usable(self, step: str, messages: Messages, language: str | None) -> str:
        """The model's answer to `messages`, once it has the shape the step needs (a fenced
        `language` block, or any text). An answer of the wrong shape goes back with what is
        wrong; after ANSWER_ATTEMPTS asks the theory fails, naming the cause."""
        problem = "no answer"
        for _attempt in range(ANSWER_ATTEMPTS):
            try:
                answer = self.llm.complete(step, messages, theory=self.doc.theory)
                problem = answer_problem(answer, language) or ""
            except UnusableAnswer as exc:
                answer, problem = exc.answer, str(exc)
            if not problem:
                return answer
            self.progress(f"{step}: unusable answer: {problem}")
            wanted = (
                f"the whole answer again, complete, in ONE fenced block marked `{language}` "
                "and nothing else"
                if language
                else "your answer again, complete and shorter"
            )
            messages = [
                *messages,
                {"role": "assistant", "content": answer},
                {
                    "role": "user",
                    "content": f"Your answer cannot be used: {problem}. Give {wanted}.",
                },
            ]
        raise BuildError(
            f"{self.doc.theory}: {step}: no usable answer in {ANSWER_ATTEMPTS} tries: {problem}"
        )

    # -- step 1 ---------------------------------------------------------------------------
    def grammar(self) -> str:
        prompt = self.prompts.render("grammar", theory=self.doc.theory, document=self.doc.text)
        messages: Messages = [
            {"role": "system", "content": self.prompts.texts["system"].strip()},
            {"role": "user", "content": prompt},
        ]
        for attempt in range(1, GRAMMAR_ATTEMPTS + 1):
            answer = self.usable("grammar", messages, "lark")
            grammar = extract_block(answer, "lark")
            try:
                load_grammar(grammar)
                return grammar
            except GrammarLoadError as exc:
                self.progress(f"grammar attempt {attempt}: {exc}")
                messages = [
                    *messages,
                    {"role": "assistant", "content": answer},
                    {
                        "role": "user",
                        "content": f"Lark cannot load this grammar:\n\n{exc}\n\n"
                        "Fix it and answer with the whole grammar in one fenced block marked `lark`.",
                    },
                ]
        raise BuildError(
            f"{self.doc.theory}: no loadable grammar after {GRAMMAR_ATTEMPTS} attempts"
        )

    # -- steps 2 and 3 --------------------------------------------------------------------
    def implement(self, grammar: str) -> str:
        prompt = self.prompts.render(
            "implement",
            theory=self.doc.theory,
            solvers=self.solvers_text,
            solvers_tuple=repr(tuple(self.doc.solvers)),
            allowed_modules=", ".join(sorted(ALLOWED_MODULES)),
            grammar=grammar.strip(),
            document=self.doc.text,
        )
        return self.ask("implement", prompt)

    def refine_traceback(self, code: str, failure: str) -> str:
        prompt = self.prompts.render(
            "refine_traceback",
            theory=self.doc.theory,
            failure=failure.strip(),
            code=code.strip(),
            allowed_modules=", ".join(sorted(ALLOWED_MODULES)),
        )
        return self.ask("refine_traceback", prompt)

    def refine_errors(self, code: str, valid: int, total: int, errors: str) -> str:
        prompt = self.prompts.render(
            "refine_errors",
            theory=self.doc.theory,
            samples=str(total),
            valid=str(valid),
            solvers=self.solvers_text,
            errors=errors.strip(),
            code=code.strip(),
            document=self.doc.text,
        )
        return self.ask("refine_errors", prompt)

    def distil(self, counted: list[tuple[str, int]]) -> str:
        if not counted:
            # Rejections without a message (e.g. every solver timed out): nothing to distil.
            return "The solvers rejected some terms without an error message (they timed out or gave no answer)."
        listing = "\n".join(f"- ({count}x) {message}" for message, count in counted)
        prompt = self.prompts.render("distil_errors", theory=self.doc.theory, errors=listing)
        return self.ask("distil_errors", prompt, language=None)

    def evaluate(self, number: int, code: str, grammar: str) -> tuple[Round, str | None]:
        """One round's verdict on `code`, and the failure text to send back if it did not run."""
        problems = check_source(code, GeneratorFolder.GENERATOR)
        if problems:
            text = "The static check refused the module before running it:\n" + "\n".join(
                str(p) for p in problems
            )
            return Round(number, 0, self.samples, "unsafe"), text
        if prints(code):
            text = (
                "The module calls print(). A generator does no I/O: generate(rng) returns the "
                "declarations and the term; remove every print call."
            )
            return Round(number, 0, self.samples, "bad-output"), text
        report = sample_terms(
            code, self.samples, self.seed + number, timeout=self.sample_timeout,
            memory_mb=self.memory_mb, unconfined=self.unconfined,
        )  # fmt: skip
        if not report.ok:
            return Round(number, 0, self.samples, report.kind), report.failure or report.kind
        verdicts = check_terms(report.samples, self.specs)
        valid = sum(v.valid for v in verdicts)
        terms = [term for _, term in report.samples]
        try:
            conformance = grammar_conformance(grammar, terms)
        except GrammarLoadError:
            conformance = None
        counted = error_counts(v for v in verdicts if not v.valid).most_common(20)
        return Round(number, valid, len(verdicts), None, conformance, counted), None

    def build(self) -> BuildResult:
        grammar = self.grammar()
        self.progress("grammar loads")
        code = self.implement(grammar)
        rounds: list[Round] = []
        versions: list[str] = []
        best = 0
        for number in range(1, self.rounds + 1):
            round_, failure = self.evaluate(number, code, grammar)
            rounds.append(round_)
            versions.append(code)
            if best == 0 or round_.valid > rounds[best - 1].valid:
                best = number
            shown = round_.failure_kind or f"valid {round_.valid}/{round_.samples}"
            self.progress(f"round {number}: {shown}")
            if failure is None and round_.valid == round_.samples:
                break
            if number == self.rounds:
                break
            if failure is not None:
                code = self.refine_traceback(code, failure)
            else:
                distilled = self.distil(round_.counted)
                code = self.refine_errors(code, round_.valid, round_.samples, distilled)
        if rounds[best - 1].failure_kind is not None:
            raise BuildError(
                f"{self.doc.theory}: no version of the generator ran in {len(rounds)} rounds "
                f"(last: {rounds[-1].failure_kind})"
            )
        return BuildResult(self.doc.theory, grammar, versions[best - 1], rounds, best)
