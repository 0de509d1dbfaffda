"""`sphinxfuzz fuzz` and `sphinxfuzz bugs list/show/replay` through the command line."""

from __future__ import annotations

from pathlib import Path

from campaign_helpers import CRASHER, GENERATORS, SEEDS
from typer.testing import CliRunner

from sphinxfuzz.bugs import Store
from sphinxfuzz.cli import app

runner = CliRunner()


def test_bugs_list_show_replay(crash_campaign: tuple[Path, list[str]]) -> None:
    root, _ = crash_campaign
    with Store(root) as store:
        bug = next(b for b in store.bugs() if b.kind == "crash")
    listed = runner.invoke(app, ["bugs", "list", str(root)])
    assert listed.exit_code == 0, listed.output
    assert bug.id in listed.output and "finding.smt2" in listed.output
    shown = runner.invoke(app, ["bugs", "show", bug.id, "--campaign", str(root)])
    assert shown.exit_code == 0, shown.output
    assert "crash_marker" in shown.output and "ASSERTION VIOLATION" in shown.output
    assert "campaign seed 1" in shown.output
    replayed = runner.invoke(app, ["bugs", "replay", str(bug.folder), "--trust-folder"])
    assert replayed.exit_code == 0, replayed.output
    assert "reproduces" in replayed.output
    missing = runner.invoke(app, ["bugs", "show", "no-such-bug", "--campaign", str(root)])
    assert missing.exit_code == 2 and "no bug 'no-such-bug'" in missing.output


def test_replay_says_when_a_bug_is_gone(
    crash_campaign: tuple[Path, list[str]], tmp_path: Path
) -> None:
    root, _ = crash_campaign
    with Store(root) as store:
        bug = next(b for b in store.bugs() if b.kind == "crash")
    copy = tmp_path / bug.id
    copy.mkdir()
    for path in bug.folder.iterdir():
        text = path.read_text()
        if path.name == "mutant.smt2":
            text = text.replace("crash_marker", "quiet_marker")  # the stand-in no longer crashes
        (copy / path.name).write_text(text)
    replayed = runner.invoke(app, ["bugs", "replay", str(copy), "--trust-folder"])
    assert replayed.exit_code == 1
    assert "does not reproduce" in replayed.output


def test_fuzz_command_runs_and_summarises(tmp_path: Path) -> None:
    out = tmp_path / "c"
    result = runner.invoke(
        app,
        ["fuzz", "--seeds", str(SEEDS / "plain.smt2"), "--solvers", f"z3;{CRASHER}",
         "--generators", str(GENERATORS), "--mutants", "2", "--seed", "9", "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "campaign summary" in result.output and "mutants with" in result.output
    with Store(out) as store:
        assert len(store.mutant_log()) == 2
        assert store.total_stats().mutants == 2


def test_fuzz_without_generators_explains_what_to_do(tmp_path: Path) -> None:
    empty = tmp_path / "none"
    empty.mkdir()
    result = runner.invoke(
        app,
        ["fuzz", "--seeds", str(SEEDS / "plain.smt2"), "--generators", str(empty),
         "--mutants", "1", "--out", str(tmp_path / "c")],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "no generator" in result.output and "build-generators" in result.output


def test_fuzz_help_teaches_with_examples() -> None:
    result = runner.invoke(app, ["fuzz", "--help"])
    assert result.exit_code == 0
    assert "--resume" in result.output and "Examples" in result.output
