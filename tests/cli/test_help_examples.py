"""Every example in every command's --help runs as printed, and none writes into the shipped
data folders.

Examples run from a scratch folder standing for a checkout's root: the fuzz examples in an
empty one, the others where `campaigns/night` is a real campaign with crash bugs (the crashing
stand-in next to z3) and `generated_generators` is the shipped folder. The bug id an example
names (`17-3-cvc5-crash`) is the one thing replaced: by the id of a bug of that campaign.
A few examples need what a test has not (a model endpoint, an answering model, releases
from PyPI, an edited generator): they are listed below with the reason, so a new example
is either run or explicitly excused."""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import typer.core
import typer.main

from sphinxfuzz.cli import app
from sphinxfuzz.datafiles import data_dir

NOT_RUN = {
    "--llm openai": "needs a model endpoint and its key",
    "--llm exchange:": "waits for a model to answer the prompts",
    "sphinxfuzz bisect ": "installs solver releases from PyPI",
    "reduce --all": "runs ddSMT on every bug for minutes (reduce is run on one bug above)",
    "--commits": "builds the solver at each probed commit (tests/bugs/test_commit_bisect.py"
    " bisects a stand-in's commits)",
}
PLACEHOLDER_BUGS = ("17-3-cvc5-crash", "4-2-z3-soundness")


def _helps() -> list[tuple[str, str]]:
    root = typer.main.get_command(app)
    found: list[tuple[str, str]] = []

    def walk(command: typer.core.TyperCommand | typer.core.TyperGroup, path: str) -> None:
        found.append((path, command.help or ""))
        if hasattr(command, "commands"):  # a group
            for name, sub in sorted(command.commands.items()):
                walk(sub, f"{path} {name}".strip())

    walk(root, "")
    return found


def examples() -> list[tuple[str, str]]:
    """(command, example line) for every `sphinxfuzz ...` line under an Examples heading."""
    found = []
    for path, text in _helps():
        lines = text.splitlines()
        starts = [i for i, line in enumerate(lines) if line.startswith("Examples")]
        for index in range(starts[0] + 1 if starts else len(lines), len(lines)):
            line = lines[index].strip()
            if not line.startswith("sphinxfuzz "):
                continue
            while line.endswith("\\") and index + 1 < len(lines):
                index += 1
                line = line[:-1].rstrip() + " " + lines[index].strip()
            found.append((path, re.split(r"\s{2,}", line)[0]))
    return found


def _tree_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(
        p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    ):
        digest.update(path.as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


def test_every_command_with_examples_is_found() -> None:
    commands = {path.split()[0] for path, _ in examples() if path}
    assert {
        "fuzz",
        "bugs",
        "reduce",
        "bisect",
        "report",
        "generators",
        "build-generators",
    } <= commands


def _lanes() -> dict[str, list[tuple[str, str]]]:
    """Examples grouped into separate tests (so pytest-xdist spreads them): fuzz examples
    naming the same campaign folder share a lane, in order (a --resume continues the one
    before it); every other example runs alone."""
    lanes: dict[str, list[tuple[str, str]]] = {}
    for command, line in examples():
        if _excused(line):
            continue
        argv = shlex.split(line)
        folder = next(
            (b for a, b in zip(argv, argv[1:], strict=False) if a in ("-c", "--campaign")), None
        )
        if command == "fuzz" and folder is not None:
            lanes.setdefault(f"fuzz-{folder.replace('/', '-')}", []).append((command, line))
        else:
            lanes[f"{command.replace(' ', '-')}-{len(lanes)}"] = [(command, line)]
    return lanes


def _excused(line: str) -> bool:
    return any(key in line for key in NOT_RUN)


def test_enough_examples_run() -> None:
    runnable = [(c, line) for c, line in examples() if not _excused(line)]
    assert sum(len(lane) for lane in _lanes().values()) == len(runnable)
    excused = [line for _, line in examples() if _excused(line)]
    assert len(runnable) >= 15 and len(excused) <= len(NOT_RUN) + 2, (runnable, excused)


@pytest.fixture(scope="module")
def prepared(crash_campaign: tuple[Path, list[str]], tmp_path_factory: pytest.TempPathFactory):
    """A checkout-like folder with `campaigns/night` (crash bugs) and the shipped generators,
    and the id of one of its crash bugs."""
    from sphinxfuzz.bugs import Store

    using = tmp_path_factory.mktemp("using")
    (using / "campaigns").mkdir()
    shutil.copytree(crash_campaign[0], using / "campaigns" / "night")
    (using / "generated_generators").symlink_to(data_dir("generated_generators"))
    with Store(using / "campaigns" / "night") as store:
        bug = next(b.id for b in store.bugs() if b.kind == "crash")
    return using, bug


@pytest.mark.parametrize("lane", sorted(_lanes()))
def test_examples_run_as_printed(lane: str, prepared: tuple[Path, str], tmp_path: Path) -> None:
    using, bug = prepared
    fuzzing = tmp_path / "fuzzing"
    fuzzing.mkdir()
    shipped = _tree_digest(data_dir("generated_generators"))
    env = {k: v for k, v in os.environ.items() if k != "SPHINXFUZZ_CACHE"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    timings = []
    for command, line in _lanes()[lane]:
        for placeholder in PLACEHOLDER_BUGS:
            line = line.replace(placeholder, bug)
        argv = shlex.split(line)
        if {"reduce", "bisect", "replay", "refresh"} & set(argv[1:3]):
            # the crashing stand-in is named by its path: a bug folder runs it only trusted
            argv.append("--trust-folder")
        started = time.monotonic()
        cwd = fuzzing if argv[1] == "fuzz" else using
        done = subprocess.run([sys.executable, "-m", "sphinxfuzz", *argv[1:]], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        # 1 is an answer, not a failure: replay's "no longer reproduces", --fail-on-bug's "a
        # bug was stored", validate's "a target missed" (one term never covers the operators)
        answers = "--fail-on-bug" in argv or "replay" in argv or "validate" in argv
        assert done.returncode in ({0, 1} if answers else {0}), (
            f"{line} (in {command}): {done.stdout}\n{done.stderr}")  # fmt: skip
        timings.append(f"{time.monotonic() - started:.1f}s {line}")
    print("\n".join(timings))
    assert _tree_digest(data_dir("generated_generators")) == shipped  # nothing written in place


@pytest.mark.parametrize("key", sorted(NOT_RUN))
def test_every_excuse_still_matches_an_example(key: str) -> None:
    assert any(key in line for _, line in examples())
