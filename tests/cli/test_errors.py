"""One error path: a library error carries data (its setting, its next step); the command
line words it with the running command's own option and the command for the step, while
the library's message speaks in library terms."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import typer
from campaign_helpers import SEEDS
from typer.testing import CliRunner

from sphinxfuzz.bugs.replay import resolve_campaign
from sphinxfuzz.bugs.store import StoreError
from sphinxfuzz.cli import app
from sphinxfuzz.cli.errors import STEP_COMMANDS
from sphinxfuzz.errors import StepKind

runner = CliRunner()
PACKAGE = Path(__file__).resolve().parents[2] / "sphinxfuzz"
COMMANDS = sorted(typer.main.get_group(app).commands)
# a command or a flag in a message: `sphinxfuzz fuzz`, `bugs reindex`, build-generators, --time
COMMAND_WORDS = re.compile(
    rf"sphinxfuzz ({'|'.join(COMMANDS)})\b|`({'|'.join(COMMANDS)}) |"
    rf"{'|'.join(c for c in COMMANDS if '-' in c)}|(^|\s)--[a-z]"
)


def test_every_step_the_library_names_has_a_command() -> None:
    assert set(STEP_COMMANDS) == set(StepKind)


def _raised_texts(path: Path) -> list[str]:
    """The literal text of every message raised in `path` (f-strings: their fixed parts)."""
    texts = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Raise) and node.exc is not None:
            texts += [
                part.value
                for part in ast.walk(node.exc)
                if isinstance(part, ast.Constant) and isinstance(part.value, str)
            ]
    return texts


def test_library_messages_name_no_command_and_no_flag() -> None:
    named = {
        f"{path.relative_to(PACKAGE)}: {text}"
        for path in PACKAGE.rglob("*.py")
        if "cli" not in path.relative_to(PACKAGE).parts
        for text in _raised_texts(path)
        if COMMAND_WORDS.search(text)
    }
    assert named == set()


def test_the_library_says_what_to_do_and_the_cli_adds_the_command(tmp_path: Path) -> None:
    with pytest.raises(StoreError) as refused:
        resolve_campaign(str(tmp_path))
    assert "start a campaign" in str(refused.value) and "sphinxfuzz" not in str(refused.value)
    done = runner.invoke(app, ["bugs", "list", "-c", str(tmp_path)])
    assert done.exit_code == 2
    assert "`sphinxfuzz fuzz -c DIR`" in done.output and "-c/--campaign DIR:" in done.output


def test_the_hint_is_the_running_commands_own_option() -> None:
    bad_time = runner.invoke(app, ["fuzz", "--time", "soon", "--seeds", str(SEEDS)])
    assert bad_time.exit_code == 2
    assert "'soon' is not a duration" in bad_time.output
    assert "(see --time DURATION: stop after this long: 90s, 10m, 2h)" in bad_time.output
    bad_solver = runner.invoke(app, ["bisect", "x", "--solver", "boolector"])
    assert bad_solver.exit_code == 2
    assert "(see --solver NAME: solver whose releases to try" in bad_solver.output
    # a flag: no value name; `-c/--campaign` is named by both its flags
    resumed = runner.invoke(app, ["fuzz", "--resume"])
    assert resumed.exit_code == 2 and "-c/--campaign/--out DIR: campaign folder" in resumed.output


def test_a_missing_release_names_the_install_command() -> None:
    done = runner.invoke(
        app, ["fuzz", "--solvers", "z3@0.0.1", "--seeds", str(SEEDS), "--mutants", "1"]
    )
    assert done.exit_code == 2
    assert "`sphinxfuzz solvers install z3==0.0.1`" in done.output
    assert "(see --solvers SPECS:" in done.output
