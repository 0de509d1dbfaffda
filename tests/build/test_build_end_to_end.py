"""The whole pipeline through the real openai SDK against a local server that replays a
recorded transcript: the first generator is broken, the refined one is valid."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sphinxfuzz.build.output import validate_manifest
from sphinxfuzz.build.transcript import read_transcript
from sphinxfuzz.cli import app
from tests.build.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPT = ROOT / "tests" / "fixtures" / "transcripts" / "core_refined_once.jsonl"


def test_core_is_built_broken_then_refined(tmp_path: Path) -> None:
    records = read_transcript(TRANSCRIPT)
    assert [r["step"] for r in records] == ["grammar", "implement", "distil_errors", "refine_errors"]
    with FakeOpenAI([r["answer"] for r in records]) as server:
        result = CliRunner(env={"COLUMNS": "200"}).invoke(
            app,
            ["build-generators", "Core", "--llm", "openai", "--model", "recorded", "--out", str(tmp_path)],
            env={"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": server.base_url},
        )
        requests = server.requests
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

    folder = tmp_path / "Core"
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
