"""bench/depth.py: a row whose build with assertions is missing is said, with the command that
makes it, and the other rows are not held up; each row says the options it runs, and a row
kept from an earlier run says those it ran (the rows themselves take minutes: run by hand,
docs/benchmarks.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest
from bench_helpers import load_bench

from sphinxfuzz.bugs import Store

depth = load_bench("depth")


@pytest.fixture
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))


def test_rows_c_and_d_run_the_build_with_assertions_of_the_same_release() -> None:
    assert [depth.z3_of(row, "z3@4.12.2") for row in depth.ROWS] == [
        "z3@4.12.2", "z3@4.12.2", "z3@4.12.2+assert", "z3@4.12.2+assert",
        "z3@5.4.1+assert", "z3@5.4.1+asan",  # rows e and f: the newest z3's builds
    ]  # fmt: skip


@pytest.mark.usefixtures("empty_cache")
def test_a_missing_build_names_the_command_that_makes_it() -> None:
    assert depth.missing_build("z3") is None  # pip's z3 runs
    why = depth.missing_build("z3@4.12.2+assert")
    assert why is not None and why.endswith("`sphinxfuzz solvers build z3==4.12.2 --assertions`")
    release = depth.missing_build("z3@4.12.2")
    assert release is not None and "`sphinxfuzz solvers install z3==4.12.2`" in release
    assert "NAME@VERSION" in str(depth.missing_build("z3+assert"))  # pip's z3 has no build
    asan = depth.missing_build("z3@5.4.1+asan")
    assert str(asan).endswith("`sphinxfuzz solvers build z3==5.4.1 --sanitizers address,undefined`")


@pytest.mark.usefixtures("empty_cache")
def test_skipped_rows_are_printed_not_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    corpora = (tmp_path / "bug-triggers", tmp_path / "regressions")
    for corpus in corpora:
        corpus.mkdir()
        (corpus / "a.smt2").write_text("(check-sat)\n")
    monkeypatch.setattr(sys.modules["strategies"], "CORPORA", corpora)
    argv = ["depth.py", "--z3", "z3@4.12.2", "--rows", "c,d", "--out", str(tmp_path / "out")]
    monkeypatch.setattr(sys, "argv", argv)
    assert depth.main() == 0  # nothing could run, nothing failed
    out = capsys.readouterr().out
    for row in ("(c) assertions", "(d) options + assertions"):
        assert f"skipped: {row}: " in out and f"| {row} | skipped: " in out
    assert out.count("`sphinxfuzz solvers build z3==4.12.2 --assertions`") == 4


def test_rows_a_and_c_run_without_options_the_others_draw_them() -> None:
    """`sphinxfuzz fuzz` draws options when not told: rows a and c say none."""
    drawn = {row.key: depth.options_of(row, "random") for row in depth.ROWS}
    assert drawn == {"a": "none", "b": "random", "c": "none", "d": "random", "e": "random",
                     "f": "random"}  # fmt: skip


def test_a_kept_row_shows_the_options_its_campaign_ran(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Row (a) kept from a run that drew options (before rows said none) is shown as what
    ran, and said; a config stored before options existed ran with none."""
    args = argparse.Namespace(z3="z3", newest_z3="z3", cvc5="cvc5", minutes=1.0, seed=1,
                              options="random", strategies="")  # fmt: skip
    row = depth.ROWS[0]
    for work, stored in (tmp_path / "drew", {"options": "random"}), (tmp_path / "older", {}):
        with Store(work / "a-default", create=True) as store:
            store.save_config({"solvers": "z3;cvc5", **stored})
    result = depth.run_row(row, args, tmp_path / "seeds", tmp_path / "drew")
    assert result["options"] == "random" and "| random |" in depth.table([result], {}, 1.0)
    assert "kept: (a) default ran with options random, not none" in capsys.readouterr().out
    assert depth.run_row(row, args, tmp_path / "seeds", tmp_path / "older")["options"] == "none"
    assert "ran with options" not in capsys.readouterr().out
