"""Messages that misled a hostile user (issue 52, defect 12), each saying what went wrong and
what mends it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sphinxfuzz.campaign.config import parse_duration
from sphinxfuzz.cli import app
from sphinxfuzz.solvers import SolverSpecError, parse_specs

TESTS = Path(__file__).resolve().parents[1]
SEED = str(TESTS / "fixtures" / "campaign" / "seeds" / "plain.smt2")
QUIET_CVC5 = str(TESTS / "fixtures" / "hostile" / "solvers" / "cvc5_quiet.sh")
runner = CliRunner()


def test_a_family_guessed_from_a_file_name_runs_as_given_and_says_so_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 55's `cvc5-dev` wrapper: a program taken for cvc5 by its name that prints no
    help runs to its end without drawn options, saying so once."""
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    done = runner.invoke(app, ["fuzz", "--seeds", SEED, "--solvers", QUIET_CVC5,
                               "--generators", str(TESTS / "fixtures" / "generators"),
                               "-c", str(tmp_path / "c"), "--mutants", "1",
                               "--no-reduce"])  # fmt: skip
    assert done.exit_code == 0, done.output
    said = [line for line in done.output.splitlines() if "no option table for" in line]
    assert len(said) == 1, done.output
    assert "its help text lists no options" in said[0] and "it runs as given" in said[0]
    assert "cvc5_quiet.sh was taken for cvc5 by its file name" in said[0]


def test_a_folder_a_path_with_a_semicolon_and_a_bad_release(tmp_path: Path) -> None:
    with pytest.raises(SolverSpecError, match="is a folder, not a program"):
        parse_specs(str(tmp_path))
    odd = tmp_path / "a;b"
    odd.mkdir()
    (odd / "z3").symlink_to(shutil.which("z3") or "z3")
    first, second = parse_specs(f"'{odd / 'z3'}';cvc5")
    assert first.argv == (str(odd / "z3"),) and second.name == "cvc5"
    with pytest.raises(SolverSpecError, match="'..' is not a release number") as info:
        parse_specs("z3@..")
    assert info.value.step is None  # no install of `z3==..` suggested


def test_an_escape_in_the_campaign_name_is_spelled_out(tmp_path: Path) -> None:
    folder = tmp_path / "night\x1b[2J"
    done = runner.invoke(app, ["fuzz", "--seeds", SEED, "--solvers", "z3", "-c", str(folder),
                               "--mutants", "1", "--no-reduce"])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "\x1b" not in done.output and "night\\x1b[2J" in done.output


def test_option_values_and_defaults_read_as_written() -> None:
    floor = runner.invoke(app, ["fuzz", "--log-every", "0.0001"])
    assert floor.exit_code == 2 and "at least 0.1 seconds, or 0 for none" in floor.output
    helped = runner.invoke(app, ["fuzz", "--help"], env={"COLUMNS": "400"})
    assert "Default: 'z3'." in helped.output and "<Family" not in helped.output
    assert parse_duration("1h30m") == 5400 and parse_duration("2d 3h") == 183600
    with pytest.raises(ValueError, match="examples: 90s, 10m, 2h, 1h30m"):
        parse_duration("1h30")
