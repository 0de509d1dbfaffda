"""Seed paths a hostile user gives (issue 52, defects 6 and 9): walks that cannot be read,
pipes, a string where a list was expected, and a resumed campaign in another folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sphinxfuzz.campaign import CampaignError
from sphinxfuzz.campaign.config import CampaignConfig
from sphinxfuzz.campaign.seeds import SeedsError, collect_seeds

PLAIN = "(declare-const x Int)\n(assert (> x 0))\n(check-sat)\n"


def test_a_folder_the_walk_cannot_read_is_passed_over() -> None:
    with pytest.raises(SeedsError, match=r"^no \.smt2 seed files in /proc$"):
        collect_seeds(["/proc"])  # /proc/<pid>/task/<tid>/net cannot be listed


def test_a_pipe_is_named_for_what_it_is(tmp_path: Path) -> None:
    pipe = tmp_path / "seed.smt2"
    os.mkfifo(pipe)
    with pytest.raises(SeedsError, match="seed.smt2: not a regular file or folder"):
        collect_seeds([str(pipe)])
    (tmp_path / "real.smt2").write_text(PLAIN)  # in a folder, a pipe is no seed
    assert collect_seeds([str(tmp_path)]) == [str(tmp_path / "real.smt2")]


def test_seeds_given_as_one_string_are_one_path(tmp_path: Path) -> None:
    (tmp_path / "a.smt2").write_text(PLAIN)
    config = CampaignConfig.from_settings({"seeds": str(tmp_path), "solvers": "z3"})
    assert config.seeds == (str(tmp_path),)
    assert config.resolve().seed_files == (str(tmp_path / "a.smt2"),)
    with pytest.raises(CampaignError, match="seeds 7: name a path") as info:
        CampaignConfig.from_settings({"seeds": 7})
    assert info.value.setting == "seeds"


def test_seeds_are_stored_absolute_and_a_resume_elsewhere_reads_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "seeds").mkdir()
    (tmp_path / "work" / "deeper").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "work")
    config = CampaignConfig.from_settings({"seeds": ("../seeds",), "solvers": "z3; cvc5"})
    assert config.seeds == (str(tmp_path / "seeds"),)
    monkeypatch.chdir(tmp_path / "work" / "deeper")
    assert config.differences({"seeds": ("../../seeds",), "solvers": "z3;cvc5"}) == []
    assert config.differences({"seeds": ("../seeds",)}) == [
        f"seeds: stored {[str(tmp_path / 'seeds')]!r}, given {[str(tmp_path / 'work/seeds')]!r}"
    ]


def test_a_resume_reads_a_spec_list_however_it_is_spaced(tmp_path: Path) -> None:
    config = CampaignConfig.from_settings({"seeds": str(tmp_path), "solvers": "z3;cvc5"})
    assert config.differences({"solvers": " z3 ;  cvc5;"}) == []
    assert config.differences({"solvers": "z3;cvc5 --incremental"}) != []
