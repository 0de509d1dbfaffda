"""`--source` builds of a git checkout and `bisect --commits A..B`, on a small repository
made here whose "solver" is the tiny z3 of test_builds.py (cmake, seconds to build): four
commits, the third adds the assertion a stored bug violates."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.commit_bisect import COMMITS_FILE, _search, bisect_commits, marks_of
from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.cli import app
from sphinxfuzz.solvers.builds import build
from sphinxfuzz.solvers.checkouts import CheckoutError, commits_between
from sphinxfuzz.solvers.families import Family
from tests.campaign_helpers import SEEDS, config_for
from tests.solvers.test_builds import SIGNATURE, TINY_Z3, needs_toolchain, tiny_z3_tree

runner = CliRunner()
ASSERTION = "    SASSERT(!(marked && asks_model));"


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def _commit(repo: Path, message: str) -> str:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    """The checkout and its four commits, oldest first; the solver cache and ccache's folder
    are the test's own."""
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CCACHE_DIR", str(tmp_path / "ccache"))
    tree = tiny_z3_tree(tmp_path / "z3")
    main = tree / "src" / "main.cpp"
    with_assertion = main.read_text()
    main.write_text(with_assertion.replace(ASSERTION, ""))
    _git(tree, "init", "-q")
    commits = [_commit(tree, "the solver")]
    (tree / "README").write_text("a change beside the code\n")
    commits.append(_commit(tree, "docs"))
    main.write_text(with_assertion)
    commits.append(_commit(tree, "an assertion"))
    (tree / "README").write_text("another change\n")
    commits.append(_commit(tree, "more docs"))
    return tree, commits


@needs_toolchain
def test_a_checkout_is_built_by_its_commit_kept_and_rebuilt_when_changed(
    repo: tuple[Path, list[str]],
) -> None:
    tree, commits = repo
    said: list[str] = []
    first = build(Family.Z3, source=tree, say=said.append)
    assert first.version == f"git-{commits[-1][:7]}+assert"
    again = build(Family.Z3, source=tree, say=said.append)
    assert again.folder == first.folder and said[-1].endswith(
        "is built already: " + str(first.folder)
    )
    (tree / "src" / "main.cpp").write_text(TINY_Z3.replace("@REAL_Z3@", "/bin/false"))
    dirty = build(Family.Z3, source=tree, say=said.append)
    assert dirty.version == f"git-{commits[-1][:7]}-dirty+assert"


@needs_toolchain
def test_bisect_commits_finds_the_commit_that_brought_the_bug(
    repo: tuple[Path, list[str]], tmp_path: Path
) -> None:
    tree, commits = repo
    built = build(Family.Z3, source=tree, say=lambda _: None)  # the newest commit
    root = tmp_path / "campaign"
    config = config_for([SEEDS / "crash.smt2"], f"z3@{built.version};z3", per_seed=3)
    run_campaign(config, root, Budget(), persistent=0)
    with Store(root) as store:
        crash = next(b for b in store.bugs() if b.kind == "crash")
    assert crash.signature == SIGNATURE
    said: list[str] = []
    found = bisect_commits(crash.folder, Family.Z3, tree, f"{commits[0]}..{commits[-1]}",
                           say=said.append)  # fmt: skip
    assert found.first_bad == commits[2], said
    stored = json.loads((crash.folder / COMMITS_FILE).read_text())
    assert stored["first_bad"] == commits[2]
    statuses = {t["version"]: t["status"] for t in stored["tried"]}
    assert statuses[commits[0]] == statuses[commits[1]] == "clean"
    assert statuses[commits[2]] == statuses[commits[3]] == "bug"
    # every probed commit built with the bug's marks, named by its commit
    assert stored["builds"][commits[1]] == f"git-{commits[1][:7]}+assert"
    # the user's checkout was never moved: its HEAD is where it was
    assert _git(tree, "rev-parse", "HEAD") == commits[-1]
    # the command line says the same
    done = runner.invoke(app, ["bisect", crash.id, "-c", str(root), "--source", str(tree),
                               "--commits", f"{commits[0]}..{commits[-1]}"])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert f"first bad commit: {commits[2]}" in done.output


def test_a_commit_range_is_read_or_refused(repo: tuple[Path, list[str]]) -> None:
    tree, commits = repo
    assert commits_between(tree, f"{commits[0]}..HEAD") == commits
    with pytest.raises(CheckoutError, match="A..B"):
        commits_between(tree, commits[0])
    with pytest.raises(CheckoutError, match="no commit after"):
        commits_between(tree, f"{commits[-1]}..{commits[-1]}")
    assert marks_of("+assert") == (True, ())
    assert marks_of("+asan") == (False, ("address", "undefined"))
    assert marks_of("") == (True, ())
    # the first commit on the last one's side: where a bug came, or where it went
    assert _search(list("abcdef"), lambda c: c >= "d") == "d"
    assert _search(list("abcdef"), lambda c: c < "c") == "c"
    assert _search(list("abcdef"), lambda c: True) is None
