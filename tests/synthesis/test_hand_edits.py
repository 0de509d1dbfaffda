"""A hand edit of a built generator shows in its manifest, and a rebuild does not lose it."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sphinxfuzz.cli import app
from sphinxfuzz.generators.catalogue import default_generators_dir
from sphinxfuzz.synthesis.hand_edits import hand_edited, unrecorded_edit
from sphinxfuzz.synthesis.output import make_manifest, validate_manifest, write_theory
from sphinxfuzz.synthesis.pipeline import BuildResult, Round

CODE = 'import random\n\nTHEORY = "Core"\nSOLVERS = ("z3",)\n\n\ndef generate(rng):\n    return "", "true"\n'


def built(tmp_path: Path) -> Path:
    result = BuildResult(
        "Core", 'start: "true"\n', CODE, [Round(1, 3, 5), Round(2, 5, 5, conformance=1.0)], 2
    )
    manifest = make_manifest(
        result,
        solvers=("z3",),
        model="m",
        backend="replay",
        prompt_hashes={},
        solver_versions={"z3": "4"},
        document_sha256="0" * 64,
        build_seconds=1.0,
        tokens=None,
    )
    return write_theory(tmp_path, result, manifest, "")


def test_a_hand_edit_is_detected_refused_and_recorded(tmp_path: Path) -> None:
    folder = built(tmp_path)
    assert unrecorded_edit(folder) is None and hand_edited(folder) is None
    generator = folder / "generator.py"
    generator.write_text(generator.read_text().replace('"true"', '"false"'))
    assert "edited by hand after the build" in (unrecorded_edit(folder) or "")

    runner = CliRunner()
    # the replay file does not exist: the refusal comes before the model is set up
    rebuild = [
        "build-generators",
        "Core",
        "--llm",
        "replay:/nonexistent.jsonl",
        "--out",
        str(tmp_path),
    ]
    refused = runner.invoke(app, rebuild)
    assert (
        refused.exit_code == 2
        and "edited by hand" in refused.output
        and "--force" in refused.output
    )

    args = [
        "record-hand-edit",
        "Core",
        "--by",
        "Ada",
        "--what",
        "false, not true",
        "--out",
        str(tmp_path),
    ]
    recorded = runner.invoke(app, args)
    assert recorded.exit_code == 0, recorded.output
    manifest = json.loads((folder / "manifest.json").read_text())
    validate_manifest(manifest)
    [edit] = manifest["hand_edits"]
    assert (edit["by"], edit["what"]) == ("Ada", "false, not true")
    assert unrecorded_edit(folder) is None
    assert "1 recorded hand edit" in (hand_edited(folder) or "")
    assert "1 recorded hand edit" in runner.invoke(app, rebuild).output

    again = runner.invoke(app, args)
    assert again.exit_code == 2 and "nothing to record" in again.output
    forced = runner.invoke(app, [*rebuild, "--force"])
    assert "no such transcript" in forced.output  # got past the check to the model set-up


def test_older_manifests_are_checked_against_their_transcript(tmp_path: Path) -> None:
    shipped = default_generators_dir() / "Core"
    folder = tmp_path / "Core"
    folder.mkdir()
    for name in ("generator.py", "manifest.json", "transcript.jsonl"):
        (folder / name).write_text((shipped / name).read_text())
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest.pop("generator_sha256", None)  # as written before the build stored the hash
    (folder / "manifest.json").write_text(json.dumps(manifest))
    assert unrecorded_edit(folder) is None
    generator = folder / "generator.py"
    generator.write_text(
        generator.read_text().replace("import random\n", "import random\nimport math\n", 1)
    )
    assert "edited by hand" in (unrecorded_edit(folder) or "")


def test_shipped_manifests_are_valid_and_no_generator_was_edited_unrecorded() -> None:
    folders = [
        f for f in sorted(default_generators_dir().iterdir()) if (f / "manifest.json").is_file()
    ]
    assert folders, "no shipped generator has a manifest"
    for folder in folders:
        validate_manifest(
            json.loads((folder / "manifest.json").read_text()), str(folder / "manifest.json")
        )
        assert unrecorded_edit(folder) is None


def test_a_grammar_edit_is_recorded_apart_from_the_code(tmp_path: Path) -> None:
    folder = built(tmp_path)
    (folder / "grammar.lark").write_text('start: "false"\n')
    args = ["record-hand-edit", "Core", "--out", str(tmp_path), "--by", "Ada"]
    done = CliRunner().invoke(app, [*args, "--file", "grammar.lark", "--what", "only false"])
    assert done.exit_code == 0, done.output
    (entry,) = json.loads((folder / "manifest.json").read_text())["hand_edits"]
    assert entry["file"] == "grammar.lark" and len(entry["sha256"]) == 64
    # the code is still as built: not an unrecorded code edit
    assert unrecorded_edit(folder) is None
    again = CliRunner().invoke(app, [*args, "--file", "grammar.lark", "--what", "same"])
    assert again.exit_code == 2 and "nothing to record" in again.output
    (folder / "generator.py").write_text(CODE + "# edited\n")
    assert unrecorded_edit(folder) is not None  # a code edit still needs its own entry
