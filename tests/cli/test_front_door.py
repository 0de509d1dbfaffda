"""What a new user meets first: --help at 80 columns, shell completion, the line a campaign
ends with, the error outside a project, and old releases the tests installed."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from campaign_helpers import SEEDS
from typer.testing import CliRunner

from sphinxfuzz.cli import app
from sphinxfuzz.cli.fuzz import closing_line
from sphinxfuzz.cli.parameters import first_sentence

REPO = Path(__file__).resolve().parents[2]


def _commands() -> list[tuple[list[str], object]]:
    found: list[tuple[list[str], object]] = []

    def walk(command: object, path: list[str]) -> None:
        found.append((path, command))
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return found


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("path", [" ".join(p) for p, _ in _commands()])
def test_help_at_80_columns_keeps_every_word(path: str) -> None:
    command = dict((" ".join(p), c) for p, c in _commands())[path]
    done = CliRunner().invoke(app, [*path.split(), "--help"], terminal_width=80,
                              env={"COLUMNS": "80", "TERMINAL_WIDTH": "80"})  # fmt: skip
    assert done.exit_code == 0, done.output
    out = done.output
    assert "…" not in out and "<bool>" not in out and "<list[" not in out and "<str>" not in out
    # every option's help, word for word (wrapping only moves line breaks)
    for param in getattr(command, "params", []):
        if param.help:
            assert _squeezed(param.help) in _squeezed(out), (param.opts, out)
    # every sub-command's first sentence, whole (not cut with "...")
    for sub in getattr(command, "commands", {}).values():
        assert _squeezed(first_sentence(sub.help)) in _squeezed(out), (sub.name, out)
    if path == "fuzz":
        assert "pip install 'sphinxfuzz[ray]'" in " ".join(out.split())
        assert "--time DURATION" in out and "--jobs N" in out and "--seeds DIR|FILE" in out


def _cli(
    *argv: str, cwd: Path, env: dict[str, str] | None = None, from_bash: bool = False
) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    command = [
        sys.executable,
        "-c",
        "from sphinxfuzz.cli import app; app(prog_name='sphinxfuzz')",
        *argv,
    ]
    if from_bash:  # two commands, so bash stays the parent instead of exec-ing the first
        command = ["bash", "-c", '"$@"\nexit $?', "bash", *command]
    return subprocess.run(command, cwd=cwd, env=full, capture_output=True, text=True, timeout=300)  # fmt: skip


def test_shell_completion_is_shown_and_completes(tmp_path: Path) -> None:
    # Typer finds the shell among the process's parents, as the README's command is typed in
    # one: a test run with no shell above it (a detached job) got "Shell  not supported."
    script = _cli("--show-completion", cwd=tmp_path, from_bash=True)
    assert script.returncode == 0 and "_SPHINXFUZZ_COMPLETE=complete_bash" in script.stdout
    words = {"_SPHINXFUZZ_COMPLETE": "complete_bash", "COMP_WORDS": "sphinxfuzz fuzz --ti",
             "COMP_CWORD": "2"}  # fmt: skip
    completed = _cli(cwd=tmp_path, env=words)
    assert completed.stdout.split() == ["--time", "--timeout", "--timeout-factor"]
    commands = _cli(cwd=tmp_path, env={**words, "COMP_WORDS": "sphinxfuzz st", "COMP_CWORD": "1"})
    assert commands.stdout.split() == ["status"]


def test_outside_a_project_the_error_names_the_flag_and_the_next_command(tmp_path: Path) -> None:
    for argv in (["bugs", "list"], ["status"], ["report"], ["bugs", "show", "x"]):
        done = _cli(*argv, cwd=tmp_path)
        assert done.returncode == 2, done
        assert "-c/--campaign DIR" in done.stderr and "sphinxfuzz fuzz" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr


def test_a_campaign_without_bugs_ends_with_a_true_line(tmp_path: Path) -> None:
    root = tmp_path / "quiet"
    done = _cli("fuzz", "--mutants", "3", "--seeds", str(SEEDS), "--solvers", "z3", "--seed", "1",
                "-c", str(root), "--quiet", cwd=tmp_path, env={"COLUMNS": "200"})  # fmt: skip
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("no new bug stored") and f"sphinxfuzz status -c {root}" in last
    assert not (root / "bugs").exists()
    assert closing_line(2, root).startswith(f"2 new bug(s) stored in {root}")


def test_old_releases_the_tests_installed_are_marked_as_fixtures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    z3 = shutil.which("z3")
    assert z3 is not None
    for version, by in (("4.8.17", "tests"), ("4.12.2", None)):  # None: before the mark
        folder = tmp_path / "solvers" / f"z3-{version}"
        (folder / "bin").mkdir(parents=True)
        (folder / "bin" / "z3").symlink_to(z3)
        record = {"family": "z3", "version": version, **({"installed_by": by} if by else {})}
        (folder / "installed.json").write_text(json.dumps(record))
    env = {"SPHINXFUZZ_CACHE": str(tmp_path), "COLUMNS": "200"}
    listed = json.loads(_cli("solvers", "--json", cwd=tmp_path, env=env).stdout)
    marks = {row["name"]: row["installed_by"] for row in listed["solvers"]}
    assert marks["z3@4.8.17"] == "tests" and marks["z3@4.12.2"] == "user" and marks["z3"] is None
    table = _cli("solvers", cwd=tmp_path, env=env).stdout
    (fixture,) = [line for line in table.splitlines() if "z3@4.8.17" in line]
    (user,) = [line for line in table.splitlines() if "z3@4.12.2" in line]
    assert "test fixture" in fixture and "test fixture" not in user
