"""The whole pipeline through the real openai SDK against a local server that replays a
recorded transcript: the first generator is broken, the refined one is valid."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from typer.testing import CliRunner

from sphinxfuzz.cli import app
from sphinxfuzz.synthesis.output import validate_manifest
from sphinxfuzz.synthesis.transcript import read_transcript
from tests.synthesis.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "transcripts"
TRANSCRIPT = FIXTURES / "core_refined_once.jsonl"
DOCS = FIXTURES / "docs"  # the Core document as it was when the transcript was recorded


def test_core_is_built_broken_then_refined(tmp_path: Path) -> None:
    records = read_transcript(TRANSCRIPT)
    assert [r["step"] for r in records] == [
        "grammar",
        "implement",
        "distil_errors",
        "refine_errors",
    ]
    recorded_prompts = [r["messages"] for r in records]
    with FakeOpenAI([r["answer"] for r in records], expected=recorded_prompts) as server:
        result = CliRunner(env={"COLUMNS": "200"}).invoke(
            app,
            [
                "build-generators",
                "Core",
                "--llm",
                "openai",
                "--model",
                "recorded",
                "--docs",
                str(DOCS),
                "--out",
                str(tmp_path / "out"),
            ],
            env={"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": server.base_url},
        )
        requests = server.requests
    assert server.mismatches == [], result.output  # every prompt was the recorded one
    assert result.exit_code == 0, result.output
    assert "round 1: valid 16/20" in result.output and "round 2: valid 20/20" in result.output
    assert len(requests) == 4 and all(r["path"].endswith("/chat/completions") for r in requests)
    assert requests[0]["auth"] == "Bearer test-key"
    # the distillation prompt carried the solvers' own messages ...
    distil_prompt = requests[2]["body"]["messages"][-1]["content"]
    assert "arguments missing" in distil_prompt
    # ... and the refinement prompt carried the distilled causes and the valid count
    refine_prompt = requests[3]["body"]["messages"][-1]["content"]
    assert records[2]["answer"].strip() in refine_prompt
    assert "accepted 16 of them" in refine_prompt

    folder = tmp_path / "out" / "Core"
    manifest = json.loads((folder / "manifest.json").read_text())
    validate_manifest(manifest)
    assert manifest["backend"] == "openai" and manifest["model"] == "recorded"
    assert [r["valid"] for r in manifest["rounds"]] == [16, 20]
    assert manifest["best_round"] == 2 and manifest["final_validity"] == 1.0
    generator = (folder / "generator.py").read_text()
    assert "randint(2, 4)" in generator and "randint(0, 3)" not in generator  # the fixed version
    written = read_transcript(folder / "transcript.jsonl")
    assert [r["answer"] for r in written] == [r["answer"] for r in records]
    assert (folder / "grammar.lark").read_text().startswith("start:")
    assert (
        manifest["generator_sha256"]
        == hashlib.sha256((folder / "generator.py").read_bytes()).hexdigest()
    )
    assert manifest["hand_edits"] == []


def test_replay_rebuilds_from_the_transcript_and_refuses_a_changed_document(tmp_path: Path) -> None:
    runner = CliRunner(env={"COLUMNS": "200"})
    log = tmp_path / "all.jsonl"
    args = [
        "build-generators",
        "Core",
        "--llm",
        f"replay:{TRANSCRIPT}",
        "--out",
        str(tmp_path / "out"),
    ]
    result = runner.invoke(app, [*args, "--docs", str(DOCS), "--transcript", str(log)])
    assert result.exit_code == 0, result.output
    assert [r["backend"] for r in read_transcript(log)] == ["replay"] * 4
    assert json.loads((tmp_path / "out" / "Core" / "manifest.json").read_text())["best_round"] == 2

    changed = tmp_path / "docs"
    changed.mkdir()
    text = (DOCS / "Core.md").read_text()
    (changed / "Core.md").write_text(text.replace("Core is the theory", "Core is THE theory", 1))
    result = runner.invoke(app, [*args, "--docs", str(changed)])
    assert result.exit_code == 1
    assert f"{TRANSCRIPT}: exchange 1 does not match" in result.output
    assert "+Core is THE theory" in result.output and "-Core is the theory" in result.output


def test_an_exchange_build_names_the_model_that_answered(tmp_path: Path) -> None:
    import threading
    import time

    records = read_transcript(TRANSCRIPT)
    answers = tmp_path / "answers"
    args = ["build-generators", "Core", "--llm", f"exchange:{answers}", "--docs", str(DOCS),
            "--out", str(tmp_path / "out"), "--exchange-timeout", "60"]  # fmt: skip
    unnamed = CliRunner().invoke(app, args)
    assert unnamed.exit_code == 2 and "--model" in unnamed.output

    def answer() -> None:  # the recorded answers, as a model on another machine would write them
        for index, record in enumerate(records, start=1):
            stem = f"{index:04d}-Core-{record['step']}"
            while not (answers / f"{stem}.prompt.md").exists():
                time.sleep(0.02)
            (answers / f"{stem}.answer.md").write_text(record["answer"])

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    result = CliRunner().invoke(app, [*args, "--model", "qwen2.5-coder:32b"])
    thread.join(timeout=60)
    assert result.exit_code == 0, result.output
    folder = tmp_path / "out" / "Core"
    manifest = json.loads((folder / "manifest.json").read_text())
    assert (manifest["backend"], manifest["model"]) == ("exchange", "qwen2.5-coder:32b")
    assert (
        "model qwen2.5-coder:32b via the exchange backend" in (folder / "generator.py").read_text()
    )
