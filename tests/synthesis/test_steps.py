"""Pipeline steps with a scripted model: what goes back to the model when its answer fails."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from sphinxfuzz.generators.theory_docs import default_docs_dir, load_theory_doc
from sphinxfuzz.solvers import parse_specs
from sphinxfuzz.synthesis.llm import (
    ExchangeBackend,
    LLMError,
    Messages,
    OpenAIBackend,
    ReplayBackend,
    Settings,
)
from sphinxfuzz.synthesis.pipeline import BuildError, TheoryBuilder, extract_block
from sphinxfuzz.synthesis.prompts import Prompts
from sphinxfuzz.synthesis.transcript import Transcript
from tests.synthesis.fake_openai import FakeOpenAI

GOOD_GRAMMAR = '```lark\nstart: "(" "and" SYMBOL SYMBOL ")"\nSYMBOL: /[a-z][a-z0-9]*/\n%import common.WS\n%ignore WS\n```'
GOOD_CODE = """```python
import random

THEORY = "Core"
SOLVERS = ("z3", "cvc5")


def generate(rng: random.Random) -> tuple[str, str]:
    a, b = f"p{rng.randint(0, 9)}", f"q{rng.randint(0, 9)}"
    return f"(declare-const {a} Bool)\\n(declare-const {b} Bool)", f"(and {a} {b})"
```"""


class ScriptedModel:
    """Answers in order and keeps every prompt, as a test double for the model."""

    backend = "test"
    model = "scripted"

    def __init__(self, answers: list[str]) -> None:
        self.answers = list(answers)
        self.prompts: list[tuple[str, Messages]] = []

    def complete(self, step: str, messages: Messages, *, theory: str = "") -> str:
        self.prompts.append((step, messages))
        return self.answers.pop(0)


def builder(model: ScriptedModel, rounds: int = 3) -> TheoryBuilder:
    doc = load_theory_doc(default_docs_dir() / "Core.md")
    return TheoryBuilder(
        doc, model, Prompts(), parse_specs("z3"), rounds=rounds, samples=5, sample_timeout=5
    )


def code(body: str) -> str:
    return '```python\nimport random\n\nTHEORY = "Core"\nSOLVERS = ("z3",)\n\n' + body + "\n```"


def test_a_grammar_lark_rejects_goes_back_with_its_error() -> None:
    model = ScriptedModel(["```lark\nstart: undefined_rule\n```", GOOD_GRAMMAR, GOOD_CODE])
    result = builder(model).build()
    assert result.best.valid == 5
    step, messages = model.prompts[1]
    assert step == "grammar" and messages[-1]["role"] == "user"
    assert "Lark cannot load this grammar" in messages[-1]["content"]
    assert "undefined_rule" in messages[-1]["content"]
    assert messages[-2]["content"].startswith("```lark\nstart: undefined_rule")


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        (
            "import os\n\ndef generate(rng):\n    os.system('true')\n    return ('', 'true')",
            "import of 'os'",
        ),
        ("def generate(rng):\n    open('/etc/passwd').read()\n    return ('', 'true')", "open"),
    ],
)
def test_unsafe_code_is_refused_before_it_runs(bad: str, problem: str, tmp_path: Path) -> None:
    model = ScriptedModel([GOOD_GRAMMAR, code(bad), GOOD_CODE])
    result = builder(model).build()
    assert result.rounds[0].failure_kind == "unsafe"
    step, messages = model.prompts[2]
    assert step == "refine_traceback"
    assert "static check refused" in messages[-1]["content"] and problem in messages[-1]["content"]
    assert result.best_round == 2


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ("def generate(rng):\n    while True:\n        pass", "timeout"),
        (
            "def generate(rng):\n    hog = ['x' * 10**7 + str(n) for n in range(10**4)]\n    return ('', 'true')",
            "memory",
        ),
        ("def generate(rng):\n    return ('', 'true' + 1)", "exception"),
    ],
)
def test_runaway_generators_are_stopped_and_sent_back(body: str, kind: str) -> None:
    model = ScriptedModel([GOOD_GRAMMAR, code(body), GOOD_CODE])
    started = time.monotonic()
    result = builder(model).build()
    assert time.monotonic() - started < 60
    assert result.rounds[0].failure_kind == kind
    step, messages = model.prompts[2]
    assert step == "refine_traceback" and body.splitlines()[0] in messages[-1]["content"]
    assert result.best.valid == 5


def test_no_running_version_is_a_build_error() -> None:
    broken = code("def generate(rng):\n    raise ValueError('no')")
    with pytest.raises(BuildError, match="no version of the generator ran"):
        builder(ScriptedModel([GOOD_GRAMMAR, broken, broken]), rounds=2).build()


def test_extract_block_prefers_the_marked_language() -> None:
    answer = "text\n```\nplain\n```\n```python\nx = 1\n```"
    assert extract_block(answer, "python") == "x = 1\n"
    assert extract_block("no fence", "lark") == "no fence\n"


def test_replay_mismatch_is_a_clear_error(tmp_path: Path) -> None:
    recorded = Transcript(tmp_path / "t.jsonl")
    recorded.append(
        {
            "step": "grammar",
            "theory": "Core",
            "messages": [{"role": "user", "content": "old prompt"}],
            "answer": "x",
        }
    )
    replay = ReplayBackend(tmp_path / "t.jsonl", Transcript(None))
    with pytest.raises(LLMError) as excinfo:
        replay.complete("grammar", [{"role": "user", "content": "new prompt"}], theory="Core")
    message = str(excinfo.value)
    assert "t.jsonl: exchange 1 does not match" in message
    assert "-old prompt" in message and "+new prompt" in message
    with pytest.raises(LLMError, match="transcript ended after 1 exchanges"):
        replay.complete("implement", [], theory="Core")


def _backend(server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> OpenAIBackend:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    return OpenAIBackend(
        Settings(model="m", base_url=server.base_url, timeout=10),
        Transcript(None),
        attempts=4,
        backoff=0.01,
    )


def test_retries_on_rate_limits_and_server_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI(["fine"], statuses=[429, 500, 503]) as server:
        backend = _backend(server, monkeypatch)
        assert (
            backend.complete("grammar", [{"role": "user", "content": "hi"}], theory="Core")
            == "fine"
        )
        assert len(server.requests) == 4
    assert backend.transcript.records[0]["answer"] == "fine"


def test_gives_up_after_the_last_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI([], statuses=[502] * 4) as server:
        with pytest.raises(LLMError, match="failed 4 times"):
            _backend(server, monkeypatch).complete(
                "grammar", [{"role": "user", "content": "hi"}], theory="Core"
            )


@pytest.mark.parametrize("status", [401, 403])
def test_stops_at_once_on_a_rejected_key(status: int, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI(["never"], statuses=[status]) as server:
        with pytest.raises(LLMError, match="rejected the API key"):
            _backend(server, monkeypatch).complete(
                "grammar", [{"role": "user", "content": "hi"}], theory="Core"
            )
        assert len(server.requests) == 1


def test_missing_key_for_openai_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMError, match="set OPENAI_API_KEY"):
        OpenAIBackend(Settings(), Transcript(None))


def test_exchange_round_trip(tmp_path: Path) -> None:
    # a time-out: an answering thread that fails makes the test fail instead of hang
    backend = ExchangeBackend(
        tmp_path, Transcript(None), timeout=60, poll=0.05, notify=lambda _m: None
    )

    def answer() -> None:
        prompt = tmp_path / "0001-Core-grammar.prompt.md"
        while not prompt.exists():
            time.sleep(0.02)
        assert "the question" in prompt.read_text()
        (tmp_path / "0001-Core-grammar.answer.md").write_text("the answer")

    thread = threading.Thread(target=answer)
    thread.start()
    assert (
        backend.complete("grammar", [{"role": "user", "content": "the question"}], theory="Core")
        == "the answer"
    )
    thread.join()
    assert backend.transcript.records[0]["prompt_file"] == "0001-Core-grammar.prompt.md"
    with pytest.raises(LLMError, match="no answer in"):
        ExchangeBackend(
            tmp_path, Transcript(None), timeout=0.2, poll=0.05, notify=lambda _m: None
        ).complete("implement", [], theory="Core")


def test_settings_come_from_config_file_environment_and_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sphinxfuzz.synthesis.llm import load_settings

    config = tmp_path / "sphinxfuzz.toml"
    config.write_text(
        '[llm]\nmodel = "qwen2.5-coder"\nbase_url = "http://localhost:11434/v1"\ntemperature = 0.5\n'
    )
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    settings = load_settings(None, [config])
    assert (settings.model, settings.base_url, settings.temperature) == (
        "qwen2.5-coder",
        "http://localhost:11434/v1",
        0.5,
    )
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:8000/v1")
    settings = load_settings("served", [config])
    assert (settings.model, settings.base_url) == ("served", "http://localhost:8000/v1")
    config.write_text("[llm\n")
    with pytest.raises(LLMError, match="sphinxfuzz.toml: not valid TOML"):
        load_settings(None, [config])
