"""Every command shown in README.md and docs/*.md runs as printed, or is listed below with
the reason it cannot run here (an LLM, the network, a cluster, minutes of work).

A command is a line of a fenced `sh` block. Commands run from a scratch folder standing for
a user's checkout: `fuzz` in one holding only `skeletons/` (fuzz commands naming the same campaign share a
lane, in order), the others where `campaigns/night` is a real campaign with crash bugs. The
bug ids the docs name (`17-3-cvc5-crash`, `4-2-z3-soundness`) are replaced by the id of one
of its crash bugs."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sphinxfuzz.datafiles import data_dir

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
NOT_RUN = {
    "pip install": "installs the package: .ci/run runs the README's test command in a fresh "
    "venv and in the system Python",
    "--llm openai": "needs an LLM endpoint and its key",
    "sphinxfuzz bisect ": "installs solver releases from PyPI (network)",
    "solvers available": "asks PyPI's index (network)",
    "reduce --all": "runs ddSMT on every bug for minutes (reduce on one bug runs)",
    "ray start": "starts Ray daemons on several machines",
    "--ray HEAD_IP": "needs a Ray cluster of several machines",
    "--ray local": "starts a Ray cluster here (a minute); tests/campaign/test_ray.py runs it",
    "python bench/": "benchmarks: read ../shared and run for minutes",
    "--history ~/": "needs a folder of a user's historical bug triggers (tests/strategies/"
    "test_histfuzz.py runs histfuzz on a small one)",
    "record-hand-edit": "changes a shipped generator's manifest in place",
    "solvers build": "compiles a solver: most of an hour (tests/solvers/test_builds.py builds a "
    "tiny tree the same way)",
    "+assert": "needs a build with assertions (`solvers build`, most of an hour)",
    "/opt/cvc5-dev": "a user's own wrapper of a solver (tests/campaign/test_any_solver.py and "
    "tests/solvers/test_survey.py make one and run it)",
}
PLACEHOLDER_BUGS = ("17-3-cvc5-crash", "4-2-z3-soundness")
# exit status 1 is an answer for these, not a failure
ANSWERS_WITH_ONE = ("--fail-on-bug", "bugs replay", "generators validate")


def commands() -> list[tuple[str, str]]:
    """(file, command) for every line of every fenced sh block."""
    found = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for block in re.findall(r"^```(?:sh|bash|shell)\n(.*?)^```", text, re.S | re.M):
            lines = block.splitlines()
            index = 0
            while index < len(lines):
                line = lines[index].strip()
                while line.endswith("\\") and index + 1 < len(lines):
                    index += 1
                    line = line[:-1].rstrip() + " " + lines[index].strip()
                index += 1
                words = shlex.split(line, comments=True)
                if words:
                    found.append((path.relative_to(REPO).as_posix(), line))
    return found


def _excused(line: str) -> bool:
    return any(key in line for key in NOT_RUN)


def _lanes() -> dict[str, list[str]]:
    lanes: dict[str, list[str]] = {}
    seen: set[str] = set()
    for source, line in commands():
        argv = shlex.split(line, comments=True)
        if _excused(line) or " ".join(argv) in seen:  # shown twice (README's tour), run once
            continue
        seen.add(" ".join(argv))
        folder = next(
            (b for a, b in zip(argv, argv[1:], strict=False) if a in ("-c", "--campaign")), None
        )
        if argv[1] == "fuzz" and folder is not None:
            lanes.setdefault(f"{source}:fuzz-{folder.replace('/', '-')}", []).append(line)
        else:
            lanes[f"{source}:{argv[1]}-{len(lanes)}"] = [line]
    return lanes


def test_every_command_is_run_or_excused() -> None:
    shown = commands()
    assert {source for source, _ in shown} >= {"README.md", "docs/campaigns.md", "docs/triage.md"}
    unknown = [
        (s, line) for s, line in shown if not _excused(line) and not line.startswith("sphinxfuzz ")
    ]
    assert unknown == [], "a command the docs test cannot run: run it here or excuse it"
    runnable = sum(len(lane) for lane in _lanes().values())
    distinct = {
        " ".join(shlex.split(line, comments=True)) for _, line in shown if not _excused(line)
    }
    assert runnable >= 20 and runnable == len(distinct)


@pytest.mark.parametrize("key", sorted(NOT_RUN))
def test_every_excuse_still_matches_a_command(key: str) -> None:
    assert any(key in line for _, line in commands())


def test_the_readme_is_a_front_page() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    blocks = re.findall(r"^```sh\n(.*?)^```", readme, re.S | re.M)
    assert [b.strip() for b in blocks[:2]] == [
        "pip install -e . && sphinxfuzz fuzz --time 2m",
        'pip install -e ".[test]" && python -m pytest',
    ]
    for target in re.findall(r"\]\(((?:docs/)?[\w./-]+\.md)\)", readme):
        # docs/findings.md and docs/safety.md come from other branches of this release
        if target not in ("docs/findings.md", "docs/safety.md"):
            assert (REPO / target).is_file(), target


@pytest.fixture(scope="module")
def prepared(crash_campaign: tuple[Path, list[str]], tmp_path_factory: pytest.TempPathFactory):
    from sphinxfuzz.bugs import Store

    using = tmp_path_factory.mktemp("checkout")
    (using / "campaigns").mkdir()
    shutil.copytree(crash_campaign[0], using / "campaigns" / "night")
    with Store(using / "campaigns" / "night") as store:
        bug = next(b.id for b in store.bugs() if b.kind == "crash")
    return using, bug


@pytest.mark.parametrize("lane", sorted(_lanes()))
def test_documented_commands_run_as_printed(
    lane: str, prepared: tuple[Path, str], tmp_path: Path, z3_4_8_8: None
) -> None:
    using, bug = prepared
    # the fuzz folder stands for a checkout too: its seed folder is where the docs say
    (tmp_path / "skeletons").symlink_to(data_dir("skeletons"))
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "120"}
    timings = []
    for line in _lanes()[lane]:
        for placeholder in PLACEHOLDER_BUGS:
            line = line.replace(placeholder, bug)
        argv = shlex.split(line, comments=True)
        if {"reduce", "bisect", "replay", "refresh"} & set(argv[1:3]):
            # the crashing stand-in is named by its path: a bug folder runs it only trusted
            argv.append("--trust-folder")
        started = time.monotonic()
        cwd = tmp_path if argv[1] == "fuzz" else using
        done = subprocess.run([sys.executable, "-m", "sphinxfuzz", *argv[1:]], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        allowed = {0, 1} if any(key in line for key in ANSWERS_WITH_ONE) else {0}
        assert done.returncode in allowed, f"{line}: {done.stdout}\n{done.stderr}"
        assert "Traceback" not in done.stderr, done.stderr
        timings.append(f"{time.monotonic() - started:.1f}s {line}")
    print("\n".join(timings))
