from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from sphinxfuzz.cli import app

runner = CliRunner(env={"COLUMNS": "200"})  # wide enough that table headers stay on one line


def test_list_and_sample(fixtures_dir: Path) -> None:
    listed = runner.invoke(app, ["generators", "list", "--generators", str(fixtures_dir)])
    assert listed.exit_code == 0, listed.output
    for theory in ("Ints", "FixedSizeBitVectors", "Strings"):
        assert theory in listed.output
    sampled = runner.invoke(
        app,
        [
            "generators",
            "sample",
            "Ints",
            "-n",
            "3",
            "--seed",
            "4",
            "--generators",
            str(fixtures_dir),
        ],
    )
    assert sampled.exit_code == 0, sampled.output
    assert sampled.output.count("; sample") == 3 and "(declare-const" in sampled.output


def test_sample_unknown_theory(fixtures_dir: Path) -> None:
    result = runner.invoke(
        app, ["generators", "sample", "Reals", "--generators", str(fixtures_dir)]
    )
    assert result.exit_code == 2 and "no generator for 'Reals'" in result.output


def test_validate_table(fixtures_dir: Path, tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "generators",
            "validate",
            "Strings",
            "-n",
            "40",
            "--generators",
            str(fixtures_dir),
            "--docs",
            str(tmp_path),
        ],  # fmt: skip
    )
    assert result.exit_code == 0, result.output
    header = next(line for line in result.output.splitlines() if "theory" in line)
    assert "z3" in header and "cvc5" in header and "any" in header
    row = next(line for line in result.output.splitlines() if "Strings" in line)
    assert row.count("100.0%") == 3  # z3, cvc5, any


def test_validate_flags_a_generator_below_target(tmp_path: Path) -> None:
    """A generator whose terms one solver rejects half the time misses the 98% target:
    the row says so, the notes say why, and the exit status is 1."""
    folder = tmp_path / "gens" / "Halfway"
    folder.mkdir(parents=True)
    (folder / "generator.py").write_text(
        'import random\nTHEORY = "Halfway"\nSOLVERS = ("z3",)\n\n\n'
        "def generate(rng: random.Random) -> tuple[str, str]:\n"
        '    if rng.random() < 0.5:\n        return "(declare-const a Int)", "(> a 1)"\n'
        '    return "(declare-const a Int)", "(> a undeclared_symbol)"\n'
    )
    result = runner.invoke(
        app, ["generators", "validate", "Halfway", "-n", "40", "--generators", str(tmp_path / "gens"),
              "--docs", str(tmp_path), "--markdown"],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    row = next(line for line in result.output.splitlines() if line.startswith("| Halfway"))
    assert row.endswith("| no |") and "| standard |" in row
    assert "misses target: z3 valid" in result.output


def test_list_names_the_families_a_validation_found_a_generator_fit_for(
    fixtures_dir: Path, tmp_path: Path
) -> None:
    """A family its build did not name is served once a validation lists it in `serves`."""
    import json
    import shutil

    folder = tmp_path / "Ints"
    shutil.copytree(fixtures_dir / "Ints", folder)
    validation = {
        "releases": {"z3": "5.4.1", "bitwuzla": "0.10.0", "yices": "2.6.5"},
        "validity_by_solver": {"z3": 1.0, "bitwuzla": 1.0, "yices": 0.5},
        "serves": ["bitwuzla"],
    }
    manifest = {"theory": "Ints", "validations": [validation]}
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    listed = runner.invoke(app, ["generators", "list", "--generators", str(tmp_path), "--json"])
    assert listed.exit_code == 0, listed.output
    (row,) = json.loads(listed.output)["generators"]
    assert row["serves"] == [*row["solvers"], "bitwuzla"] and "yices" not in row["serves"]
