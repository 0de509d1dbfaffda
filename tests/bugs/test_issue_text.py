"""The issue text stands as written: its title names the newest release that shows the bug,
its lifespan agrees with itself (a release crashing in the same place with another stack shows
the bug), its fences hold any formula, its commands are quoted as a shell reads them, and it
leaves out options the formula never reaches. Real z3 releases on docs/bugs-found.md entry 6."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sphinxfuzz.bugs.bisect import bisect_bug
from sphinxfuzz.bugs.issue_text import fenced, issue, load_facts, plain_command
from sphinxfuzz.bugs.refresh import newest_specs, refresh_bug
from sphinxfuzz.cli import app
from sphinxfuzz.solvers import Family
from tests.bugs.test_known import MATCH_AFTER_RESET, store_seed_finding


@pytest.fixture(scope="module")
def old_crash(tmp_path_factory: pytest.TempPathFactory, z3_4_8_8: None, z3_4_12_2: None) -> Path:
    """The match-after-reset segfault stored from z3 4.12.2, refreshed on the wheel (5.4.1)
    and bisected over 4.8.8 and 4.12.2: three releases, three stacks, one parser path."""
    base = tmp_path_factory.mktemp("issue")
    seed = base / "match.smt2"
    seed.write_text(MATCH_AFTER_RESET)
    folder = store_seed_finding(base / "c", seed, "z3@4.12.2")
    refresh_bug(base / "c", folder, newest_specs(""))
    bisect_bug(base / "c", folder, Family.Z3, versions=["4.8.8", "4.12.2"], say=lambda _: None)
    return folder


def test_the_title_names_the_newest_release_that_shows_the_bug(old_crash: Path) -> None:
    text = issue(load_facts(old_crash))
    assert text.release == "5.4.1" and text.title.startswith("z3 5.4.1: crash: SIGSEGV in ")
    assert "z3 4.12.2 misbehaves" in text.body  # found there, said in the body


def test_the_lifespan_counts_a_crash_in_the_same_place_with_another_stack(old_crash: Path) -> None:
    body = issue(load_facts(old_crash)).body
    assert "The bug shows in z3 4.8.8 to 4.12.2" in body
    assert "(4.8.8 crash in the same place with another stack, counted as showing it)" in body
    assert "only 4.12.2 shows the bug" not in body
    assert "Still happens with z3 5.4.1, the newest release (`z3`): it crashes in the same " \
        "place with another stack" in body  # fmt: skip


def test_bugs_issue_prints_the_markdown_and_json(old_crash: Path) -> None:
    root = old_crash.parent.parent
    shown = CliRunner().invoke(app, ["bugs", "issue", old_crash.name, "-c", str(root)])
    assert shown.exit_code == 0, shown.output
    assert shown.output.startswith("Title: z3 5.4.1: crash")
    as_json = CliRunner().invoke(app, ["bugs", "issue", str(old_crash), "--json"])
    assert as_json.exit_code == 0 and '"schema": "sphinxfuzz/issue/1"' in as_json.output


def test_a_model_option_is_left_out_of_a_script_without_check_sat(tmp_path: Path) -> None:
    seed = tmp_path / "match.smt2"
    seed.write_text(MATCH_AFTER_RESET)  # no check-sat: z3 crashes while reading it
    folder = store_seed_finding(tmp_path / "c", seed, "z3 model_validate=true")
    text = issue(load_facts(folder))
    assert text.command == "z3" and "```sh\nz3 bug.smt2\n```" in text.body
    checked = MATCH_AFTER_RESET + "(check-sat)\n"
    assert plain_command("z3 model_validate=true", "z3", checked) == "z3 model_validate=true"


def test_a_formula_with_backticks_keeps_its_fence(tmp_path: Path) -> None:
    seed = tmp_path / "ticks.smt2"
    seed.write_text(
        "(declare-const |a```b| Int)\n(declare-const |c````| Int)\n" + MATCH_AFTER_RESET
    )
    folder = store_seed_finding(tmp_path / "c", seed, "z3")
    body = issue(load_facts(folder)).body
    fence = "`" * 5
    assert f"{fence}smt2\n(declare-const |a```b| Int)" in body
    assert body.count(f"\n{fence}\n") == 1  # the formula's fence closes once, after it
    assert fenced("no ticks", "sh") == ["```sh", "no ticks", "```"]


def test_commands_are_quoted_as_a_shell_reads_them() -> None:
    spaced = shlex.join(["/opt/my solvers/z3", "smt.some_option=a b"])
    assert plain_command(spaced, "z3") == "z3 'smt.some_option=a b'"
    assert shlex.split(plain_command(spaced, "z3")) == ["z3", "smt.some_option=a b"]
    assert plain_command("z3@4.8.8 model_validate=true", "z3") == "z3 model_validate=true"
