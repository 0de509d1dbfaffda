"""Bad configuration and hostile answers end in one line naming what is wrong (issue 14)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sphinxfuzz.cli import app
from sphinxfuzz.synthesis.llm import ExchangeBackend, LLMError, ReplayBackend, load_settings
from sphinxfuzz.synthesis.transcript import Transcript


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ('[llm]\ntimeout = "soon"\n', "llm.timeout: 'soon' is not of type 'number'"),
        ("llm = 5\n", "llm: 5 is not of type 'object'"),
        ('[llm]\napi_key_env = ["A"]\n', "llm.api_key_env: ['A'] is not of type 'string'"),
        ("[llm]\nmodel = 42\n", "llm.model: 42 is not of type 'string'"),
        (
            "[llm]\nmodle = 'x'\n",
            "llm: Additional properties are not allowed ('modle' was unexpected)",
        ),
    ],
)
def test_config_values_of_the_wrong_type_are_one_line_errors(
    tmp_path: Path, toml: str, expected: str
) -> None:
    config = tmp_path / "sphinxfuzz.toml"
    config.write_text(toml)
    with pytest.raises(LLMError) as info:
        load_settings(None, [config])
    assert str(info.value) == f"{config}: {expected}"


def test_build_with_a_bad_config_stops_before_asking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sphinxfuzz.toml").write_text("[llm]\nmodel = 42\n")
    result = CliRunner().invoke(
        app, ["build-generators", "Core", "--llm", f"exchange:{tmp_path / 'x'}"]
    )
    assert result.exit_code == 2
    assert "llm.model: 42 is not of type 'string'" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "x").exists()


def answer_later(folder: Path, data: bytes, then: str) -> threading.Thread:
    def write() -> None:
        answer = folder / "0001-Core-grammar.answer.md"
        while not (folder / "0001-Core-grammar.prompt.md").exists():
            time.sleep(0.02)
        answer.write_bytes(data)
        while answer.exists():  # skipped: moved aside
            time.sleep(0.02)
        answer.write_text(then)

    thread = threading.Thread(target=write)
    thread.start()
    return thread


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"\xff\xfe not utf-8", "not UTF-8 text (byte 0"),
        (b"x" * 2000, "2,000 bytes, over the 1,000-byte"),
    ],
)
def test_exchange_skips_answers_that_are_not_text_or_too_large(
    tmp_path: Path, data: bytes, problem: str
) -> None:
    said: list[str] = []
    backend = ExchangeBackend(
        tmp_path, Transcript(None), poll=0.05, notify=said.append, max_answer_bytes=1000
    )
    thread = answer_later(tmp_path, data, "fine")
    assert backend.complete("grammar", [{"role": "user", "content": "q"}], theory="Core") == "fine"
    thread.join()
    assert any(problem in line for line in said), said
    assert (tmp_path / "0001-Core-grammar.answer.rejected.md").read_bytes() == data


def test_replayed_answer_over_the_limit_is_refused(tmp_path: Path) -> None:
    recording = Transcript(tmp_path / "t.jsonl")
    messages = [{"role": "user", "content": "q"}]
    recording.append(
        {"theory": "Core", "step": "grammar", "messages": messages, "answer": "y" * 50}
    )
    backend = ReplayBackend(tmp_path / "t.jsonl", Transcript(None), max_answer_bytes=10)
    with pytest.raises(LLMError, match="the answer has 50 bytes, over the 10-byte limit"):
        backend.complete("grammar", messages, theory="Core")
