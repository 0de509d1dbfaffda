"""Settings and API arguments a hostile user gives (issue 52, defects 10 and 11): each is
refused in one line naming it, before any campaign folder exists."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import sphinxfuzz
from sphinxfuzz.campaign import CampaignError
from sphinxfuzz.campaign.config import CampaignConfig
from sphinxfuzz.cli import app
from sphinxfuzz.errors import InputError
from sphinxfuzz.solvers.installs import cache_root
from sphinxfuzz.synthesis.llm import LLMError, load_settings

SEED = str(Path(__file__).parent.parent / "fixtures" / "campaign" / "seeds" / "plain.smt2")
runner = CliRunner()


@pytest.mark.parametrize(("cache", "why"), [("/etc/passwd", "a file"), ("/proc/x", "No such")])
def test_a_cache_that_cannot_be_a_folder(
    monkeypatch: pytest.MonkeyPatch, cache: str, why: str
) -> None:
    monkeypatch.setenv("SPHINXFUZZ_CACHE", cache)
    with pytest.raises(InputError, match=f"solver cache {cache} .*: not a folder .*{why}"):
        cache_root()


def test_a_config_file_nested_too_deep(tmp_path: Path) -> None:
    path = tmp_path / "sphinxfuzz.toml"
    path.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(LLMError, match="sphinxfuzz.toml: nested too deep"):
        load_settings(paths=[path])


@pytest.mark.parametrize(
    ("weights", "why"),
    [("sphinx=1e400,fusion=1", "a finite number"), ("sphinx=nan", "a finite number"),
     ("sphinx=-1", "0 or more"), ("sphinx=1e308,fusion=1e308", "add up past")],
)  # fmt: skip
def test_strategy_weights_that_cannot_be_drawn(tmp_path: Path, weights: str, why: str) -> None:
    folder = tmp_path / "c"
    result = runner.invoke(app, ["fuzz", "--seeds", SEED, "-c", str(folder), "--strategies",
                                 weights, "--mutants", "1"])  # fmt: skip
    assert result.exit_code == 2 and why in result.output, result.output
    assert "e.g. 'sphinx,fusion=2,storm'" in result.output  # the help is quoted whole
    assert not folder.exists()


@pytest.mark.parametrize(
    ("setting", "value", "why"),
    [("timeout", "abc", "should be a number"), ("timeout", -5, "more than 0"),
     ("mutants_per_seed", 0, "more than 0"), ("solvers", ["z3", "cvc5"], "should be a text"),
     ("rename_prob", 2.0, "share from 0 to 1"), ("adapt_theories", "yes", "true or false")],
)  # fmt: skip
def test_from_settings_checks_each_value(setting: str, value: object, why: str) -> None:
    with pytest.raises(CampaignError, match=why) as info:
        CampaignConfig.from_settings({setting: value})
    assert info.value.setting == setting


def test_run_campaign_checks_its_arguments_before_making_the_folder(tmp_path: Path) -> None:
    config = CampaignConfig.from_settings({"seeds": SEED, "solvers": "z3"})
    folder = tmp_path / "c"
    with pytest.raises(CampaignError, match="config: a dict, not a CampaignConfig"):
        sphinxfuzz.run_campaign({"solvers": "z3"}, folder)  # type: ignore[arg-type]
    with pytest.raises(CampaignError, match="mutants '2': should be a whole number"):
        sphinxfuzz.run_campaign(config, folder, mutants="2")  # type: ignore[arg-type]
    with pytest.raises(CampaignError, match="time inf: should be a number of seconds"):
        sphinxfuzz.run_campaign(config, folder, time=float("inf"))
    assert not folder.exists()
    with pytest.raises(InputError, match="bug: 123 is not a bug id"):
        sphinxfuzz.replay(folder, 123)  # type: ignore[arg-type]
