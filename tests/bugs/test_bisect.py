"""Bisection of a stored bug over releases: a real campaign stores a crash of a "release"
that is the crashing stand-in; later "releases" are the real z3, which does not crash."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from campaign_helpers import CRASHER, SEEDS, config_for

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs import bisect as bisect_module
from sphinxfuzz.bugs.bisect import BisectError, bisect_bug, candidate_versions, coarse_sample
from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.solvers import Family

BUGGY = ("4.9.0", "4.9.1", "4.9.2", "4.10.0")
FIXED = ("4.10.1", "4.10.2", "4.11.0")


def _release(cache: Path, version: str, program: Path) -> None:
    folder = cache / "solvers" / f"z3-{version}"
    (folder / "bin").mkdir(parents=True)
    program_link = folder / "bin" / "z3"
    program_link.symlink_to(program)
    (folder / "installed.json").write_text(json.dumps({"family": "z3", "version": version}))


def _programs(tmp_path: Path) -> tuple[Path, Path]:
    """(the crashing stand-in as a program, the real z3): a buggy and a fixed "release"."""
    crasher = tmp_path / "crashing_release"
    crasher.write_text(f'#!/bin/sh\nexec {sys.executable} {CRASHER} "$@"\n')
    crasher.chmod(0o755)
    z3 = shutil.which("z3")
    assert z3 is not None
    return crasher, Path(z3)


@pytest.fixture
def bug(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    cache = tmp_path / "cache"
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(cache))
    crasher, z3 = _programs(tmp_path)
    for version in BUGGY:
        _release(cache, version, crasher)
    for version in FIXED:
        _release(cache, version, z3)
    root = tmp_path / "campaign"
    config = config_for([SEEDS / "crash.smt2"], "z3@4.9.0;z3", per_seed=1)
    run_campaign(config, root, Budget(), persistent=0)  # the stand-in has no -in mode
    with Store(root) as store:
        (row,) = store.bugs()
    assert (row.kind, row.solver) == ("crash", "z3@4.9.0")
    return root, row.folder


def test_given_versions_give_the_lifespan(bug: tuple[Path, Path]) -> None:
    root, folder = bug
    result = bisect_bug(root, folder, Family.Z3, versions=["4.9.0", "4.10.1"], say=lambda _: None)
    assert [(t.version, t.status) for t in result.versions] == [
        ("4.9.0", "bug"),
        ("4.10.1", "clean"),
    ]
    saved = json.loads((folder / "bisect.json").read_text())
    assert (saved["first_bad"], saved["last_bad"], saved["first_good_after"]) == (
        "4.9.0",
        "4.9.0",
        "4.10.1",
    )


def test_the_sample_is_refined_where_the_bug_goes(
    bug: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, folder = bug
    releases = ("4.8.4.0", *(f"{v}.0" for v in BUGGY + FIXED), "4.11.0.0.post1")
    monkeypatch.setattr(bisect_module, "released_versions", lambda family: releases)
    assert candidate_versions(Family.Z3) == [*BUGGY, *FIXED]  # too old and post releases left out
    # the first and the last patch of every minor
    assert coarse_sample(candidate_versions(Family.Z3)) == [
        "4.9.0",
        "4.9.2",
        "4.10.0",
        "4.10.2",
        "4.11.0",
    ]
    result = bisect_bug(root, folder, Family.Z3, say=lambda _: None, installer=lambda f, v: None)
    tried = {t.version: t.status for t in result.versions}
    # 4.10.0 bad and 4.10.2 good in the sample: 4.10.1 in between decides; 4.9.1 is not needed
    assert tried == {"4.9.0": "bug", "4.9.2": "bug", "4.10.0": "bug", "4.10.1": "clean",
                     "4.10.2": "clean", "4.11.0": "clean"}  # fmt: skip
    assert (result.last_bad, result.first_good_after) == ("4.10.0", "4.10.1")


def _crasher_and_z3(tmp_path: Path) -> tuple[Path, Path]:
    crasher = tmp_path / "crashing_release"
    z3 = shutil.which("z3")
    assert z3 is not None
    return crasher, Path(z3)


def test_a_bug_of_an_old_minors_early_patches_is_found(
    bug: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The z3 4.8.x case: the newest patch of every minor is clean, the oldest is not."""
    root, folder = bug
    crasher, z3 = _crasher_and_z3(tmp_path)
    for version, program in (("4.8.5", crasher), ("4.8.6", crasher), ("4.8.7", z3),
                             ("4.8.8", z3), ("4.8.9", z3)):  # fmt: skip
        _release(tmp_path / "cache", version, program)
    releases = ("4.8.5.0", "4.8.6.0", "4.8.7.0", "4.8.8.0", "4.8.9.0", "4.10.1.0", "4.11.0.0")
    monkeypatch.setattr(bisect_module, "released_versions", lambda family: releases)
    result = bisect_bug(root, folder, Family.Z3, say=lambda _: None, installer=lambda f, v: None)
    assert (result.first_bad, result.last_bad, result.first_good_after) == (
        "4.8.5",
        "4.8.6",
        "4.8.7",
    )
    # bisection inside 4.8.5..4.8.9 tries 4.8.7 and 4.8.6, never every release
    tried = [t["version"] for t in result.to_json()["versions"]]  # type: ignore[union-attr]
    assert tried == ["4.8.5", "4.8.6", "4.8.7", "4.8.9", "4.10.1", "4.11.0"]


def test_the_release_the_bug_was_found_on_is_tried(
    bug: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A bug that only the middle patches of a minor have is found from the stored version."""
    root, folder = bug
    crasher, z3 = _crasher_and_z3(tmp_path)
    for version, program in (("4.8.5", z3), ("4.8.6", crasher), ("4.8.7", crasher), ("4.8.8", z3)):
        _release(tmp_path / "cache", version, program)
    meta = json.loads((folder / "verdict.json").read_text())
    for result in meta["solvers"]:
        if result["name"] == "z3@4.9.0":
            result["version"] = "4.8.6"
    (folder / "verdict.json").write_text(json.dumps(meta))
    releases = ("4.8.5.0", "4.8.6.0", "4.8.7.0", "4.8.8.0")
    monkeypatch.setattr(bisect_module, "released_versions", lambda family: releases)
    result = bisect_bug(root, folder, Family.Z3, say=lambda _: None, installer=lambda f, v: None)
    assert (result.first_bad, result.last_bad, result.first_good_after) == (
        "4.8.6",
        "4.8.7",
        "4.8.8",
    )


def test_the_first_release_is_found_where_older_ones_reject_the_input(
    bug: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root, folder = bug
    rejecter = tmp_path / "rejecting_release"
    rejecter.write_text("#!/bin/sh\necho '(error \"line 1 column 1: unknown constant\")'\nexit 1\n")
    rejecter.chmod(0o755)
    _release(tmp_path / "cache", "4.8.9", rejecter)
    releases = ("4.8.9.0", *(f"{v}.0" for v in BUGGY + FIXED))
    monkeypatch.setattr(bisect_module, "released_versions", lambda family: releases)
    result = bisect_bug(root, folder, Family.Z3, say=lambda _: None, installer=lambda f, v: None)
    tried = {t.version: t.status for t in result.versions}
    # 4.8.9 rejects, 4.9.1 crashes in the sample: 4.9.0 in between is the first that crashes
    assert tried["4.8.9"] == "rejected" and tried["4.9.0"] == "bug"
    assert (result.first_bad, result.last_bad, result.first_good_after) == (
        "4.9.0",
        "4.10.0",
        "4.10.1",
    )


def test_the_wrong_solver_is_a_clear_error(bug: tuple[Path, Path]) -> None:
    root, folder = bug
    with pytest.raises(BisectError, match="blames z3@4.9.0 .a z3 solver., not cvc5"):
        bisect_bug(root, folder, Family.CVC5, versions=["1.1.2"], say=lambda _: None)


def test_cli_names_an_unknown_bug_and_tabulates_all(bug: tuple[Path, Path]) -> None:
    from typer.testing import CliRunner

    from sphinxfuzz.cli import app

    root, folder = bug
    runner = CliRunner()
    missing = runner.invoke(app, ["bisect", folder.name + "x", "--campaign", str(root)])
    assert missing.exit_code == 2 and f"did you mean {folder.name}" in missing.output
    table = runner.invoke(
        app, ["bisect", "--all", "--campaign", str(root), "--versions", "4.10.0,4.11.0"]
    )
    assert table.exit_code == 0, table.output
    assert (
        "bug lifespans" in table.output
        and "Releases tried (2): 4.10.0 bug, 4.11.0 clean." in table.output
    )


def test_a_bug_of_a_build_with_assertions_is_bisected_over_such_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(cache))
    crasher, z3 = _programs(tmp_path)
    for version in ("4.9.0+assert", "4.9.2+assert"):
        _release(cache, version, crasher)
    _release(cache, "4.10.0+assert", z3)
    _release(cache, "4.8.0", crasher)  # a release wheel: not a build, not tried

    def no_index(family: Family) -> tuple[str, ...]:
        raise AssertionError("the package index is not asked for builds")

    monkeypatch.setattr(bisect_module, "released_versions", no_index)
    root = tmp_path / "campaign"
    config = config_for([SEEDS / "crash.smt2"], "z3@4.9.2+assert;z3", per_seed=1)
    run_campaign(config, root, Budget(), persistent=0)
    with Store(root) as store:
        (row,) = store.bugs()
    assert row.solver == "z3@4.9.2+assert"
    result = bisect_bug(root, row.folder, Family.Z3, say=lambda _: None)
    assert [(t.version, t.status) for t in result.versions] == [
        ("4.9.0+assert", "bug"),
        ("4.9.2+assert", "bug"),
        ("4.10.0+assert", "clean"),
    ]
