"""Real models' habits, replayed through the real openai SDK against the local test server:
each misbehaving answer of the corpus (tests/fixtures/misbehaving/answers.json, written for
these tests) ends in a repair round or a per-theory failure naming the cause, never a
traceback, and the transcript keeps every exchange."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sphinxfuzz.cli import app
from sphinxfuzz.generators.theory_docs import default_docs_dir, load_theory_doc
from sphinxfuzz.solvers import parse_specs
from sphinxfuzz.synthesis.llm import OpenAIBackend, Settings
from sphinxfuzz.synthesis.pipeline import BuildError, TheoryBuilder
from sphinxfuzz.synthesis.prompts import Prompts
from sphinxfuzz.synthesis.transcript import Transcript, read_transcript
from tests.synthesis.fake_openai import FakeOpenAI

CORPUS: dict[str, dict[str, Any]] = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "misbehaving" / "answers.json").read_text()
)


def build(server: FakeOpenAI, log: Transcript) -> Any:
    backend = OpenAIBackend(
        Settings(model="test", base_url=server.base_url), log, attempts=1, backoff=0.01
    )
    doc = load_theory_doc(default_docs_dir() / "Core.md")
    return TheoryBuilder(
        doc, backend, Prompts(), parse_specs("z3"), rounds=3, samples=5, sample_timeout=5
    ).build()


@pytest.mark.parametrize("shape", sorted(CORPUS))
def test_each_misbehaving_answer_is_repaired_or_fails_its_theory(
    shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = CORPUS[shape]
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    log = Transcript(None)
    with FakeOpenAI(list(case["answers"])) as server:
        if case["ends"] == "failure":
            with pytest.raises(BuildError, match=case["says"]):
                build(server, log)
        else:
            result = build(server, log)
            assert result.best.valid == result.best.samples == 5
        requests = server.requests
    # every answer was asked for, and every exchange is in the transcript, failed ones too
    assert len(requests) == len(case["answers"]) == len(log.records)
    finishes = [r.get("finish_reason") for r in log.records]
    assert finishes == [a.get("finish_reason", "stop") if isinstance(a, dict) else "stop"
                        for a in case["answers"]]  # fmt: skip
    if case["ends"] == "built" and case["says"]:
        sent_back = [r["body"]["messages"][-1]["content"] for r in requests[1:]]
        assert any(case["says"] in text for text in sent_back), sent_back


def _docs(folder: Path, theories: list[str]) -> None:
    core = (default_docs_dir() / "Core.md").read_text(encoding="utf-8")
    folder.mkdir()
    for theory in theories:
        text = core.replace("theory: Core", f"theory: {theory}", 1)
        text = text.replace("solvers: z3, cvc5", "solvers: z3", 1)
        (folder / f"{theory}.md").write_text(text, encoding="utf-8")


def _good(theory: str) -> list[str]:
    grammar, code = CORPUS["prose around the code"]["answers"]
    return [grammar, code.replace('THEORY = "Core"', f'THEORY = "{theory}"')]


def test_a_batch_with_one_misbehaving_theory_writes_the_other_four(tmp_path: Path) -> None:
    theories = ["T1", "T2", "T3", "T4", "T5"]
    _docs(tmp_path / "docs", theories)
    answers: list[Any] = []
    for theory in theories:
        answers += ["", "", ""] if theory == "T3" else _good(theory)
    out = tmp_path / "out"
    with FakeOpenAI(answers) as server:
        result = CliRunner(env={"COLUMNS": "200"}).invoke(
            app,
            ["build-generators", "--llm", "openai", "--model", "test", "--docs",
             str(tmp_path / "docs"), "--out", str(out), "--samples", "5", "--review-terms", "5",
             "--transcript", str(tmp_path / "log.jsonl")],
            env={"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": server.base_url},
        )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "T3: grammar: no usable answer in 3 tries: the answer is empty" in result.output
    built = sorted(p.name for p in out.iterdir())
    assert built == ["T1", "T2", "T4", "T5"]
    for theory in built:
        assert (out / theory / "generator.py").is_file() and (out / theory / "REVIEW.md").is_file()
    assert len(read_transcript(tmp_path / "log.jsonl")) == len(answers)
