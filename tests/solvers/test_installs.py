"""Released solver versions side by side: specs that name them, and clear errors.

No network here: the cache is a temporary folder holding "installed" releases made of the
wheels this environment has (the real z3 binary behind another version number)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sphinxfuzz.errors import Step, StepKind
from sphinxfuzz.solvers import SolverSpecError, parse_specs, solver_version
from sphinxfuzz.solvers.families import Family
from sphinxfuzz.solvers.installs import (
    InstallError,
    _package_version,
    install,
    installed_versions,
    parse_requirement,
)


def fake_release(cache: Path, family: str, version: str, binary: str) -> Path:
    """A cache entry as `sphinxfuzz solvers install` leaves it, running `binary`."""
    folder = cache / "solvers" / f"{family}-{version}"
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "z3").symlink_to(binary)
    (folder / "installed.json").write_text(json.dumps({"family": family, "version": version}))
    return folder


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path))
    return tmp_path


def test_a_spec_names_an_installed_release(cache: Path) -> None:
    z3 = shutil.which("z3")
    assert z3 is not None
    fake_release(cache, "z3", "4.8.17", z3)
    spec = parse_specs("z3@4.8.17 model_validate=true;z3")[0]
    assert (spec.name, spec.family) == ("z3@4.8.17", "z3")
    assert spec.argv == (str(cache / "solvers" / "z3-4.8.17" / "bin" / "z3"), "model_validate=true")
    assert solver_version(spec)  # the binary runs
    assert [(i.family, i.version) for i in installed_versions()] == [("z3", "4.8.17")]


def test_a_release_not_installed_says_how_to_install_it(cache: Path) -> None:
    with pytest.raises(
        SolverSpecError,
        match=r"z3 4\.12\.2 is not installed; install that release",
    ) as refused:
        parse_specs("z3@4.12.2")
    # the way on as data: the CLI names its command (tests/cli/test_errors.py)
    assert refused.value.step == Step(
        StepKind.INSTALL_RELEASE, {"family": "z3", "version": "4.12.2"}
    )
    # cvc4 is Debian's binary: its releases are not installed side by side
    with pytest.raises(SolverSpecError, match="NAME@VERSION"):
        parse_specs("cvc4@1.8")


def test_requirements_and_versions_pip_cannot_find() -> None:
    assert parse_requirement("z3==4.12.2") == ("z3", "4.12.2")
    assert parse_requirement("cvc5@1.1.2") == ("cvc5", "1.1.2")
    with pytest.raises(InstallError, match="SOLVER==VERSION"):
        parse_requirement("boolector==3.2")
    available = ("4.12.1.0", "4.12.2.0", "4.13.0.0")
    assert _package_version(Family.Z3, "4.12.2", available) == "4.12.2.0"
    with pytest.raises(
        InstallError, match=r"no release 4\.12\.9; nearest: 4\.12\.1\.0, 4\.12\.2\.0"
    ):
        _package_version(Family.Z3, "4.12.9", available)


def test_old_cvc5_wheels_are_refused_with_a_way_out(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sphinxfuzz.solvers import installs

    monkeypatch.setattr(installs, "released_versions", lambda family: ("1.0.8", "1.1.2"))
    with pytest.raises(InstallError, match="before 1.1 have no parser API.*cvc5 binary"):
        install(Family.CVC5, "1.0.8", say=lambda _: None)


def test_remove_and_prune_free_the_cache(cache: Path) -> None:
    from typer.testing import CliRunner

    from sphinxfuzz.cli import app

    z3 = shutil.which("z3")
    assert z3 is not None
    for version in ("4.8.8", "4.8.17", "4.12.2"):
        fake_release(cache, "z3", version, z3)
    (cache / "solvers" / "z3-4.9.0.partial").mkdir()  # an interrupted install
    runner = CliRunner()
    removed = runner.invoke(app, ["solvers", "remove", "z3==4.8.17"])
    assert removed.exit_code == 0 and "removed z3@4.8.17" in removed.output
    assert [i.version for i in installed_versions()] == ["4.8.8", "4.12.2"]
    again = runner.invoke(app, ["solvers", "remove", "z3@4.8.17"])
    assert again.exit_code == 2 and "not installed (installed: z3@4.8.8, z3@4.12.2)" in again.output
    dry = runner.invoke(app, ["solvers", "prune", "--keep", "z3@4.8.8", "--dry-run"])
    assert dry.exit_code == 0 and "would remove 2 folder(s)" in dry.output
    assert len(list((cache / "solvers").iterdir())) == 3
    pruned = runner.invoke(app, ["solvers", "prune", "--keep", "z3@4.8.8"])
    assert pruned.exit_code == 0 and "removed z3-4.12.2" in pruned.output
    assert sorted(p.name for p in (cache / "solvers").iterdir()) == ["z3-4.8.8"]
    assert parse_specs("z3@4.8.8")[0].argv  # the kept release still runs


def test_parallel_installs_of_one_release_share_one_install(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes (here threads, each with its own lock handle) installing the same
    release at once: the second waits for the first and keeps its install."""
    import threading
    import time

    from sphinxfuzz.solvers import installs

    z3 = shutil.which("z3")
    assert z3 is not None
    calls: list[str] = []

    def slow_install(family: str, version: str, say: object) -> installs.Installed:
        calls.append(version)
        time.sleep(0.3)  # long enough for the other thread to reach the lock
        fake_release(cache, family, version, z3)  # fails if a second install ran
        found = installs.find_installed(family, version)
        assert found is not None
        return found

    monkeypatch.setattr(installs, "_install", slow_install)
    results: list[installs.Installed] = []
    threads = [
        threading.Thread(target=lambda: results.append(install(Family.Z3, "4.8.17")))
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == ["4.8.17"]
    assert len(results) == 2 and results[0].folder == results[1].folder


def test_the_tests_mark_their_fresh_installs(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sphinxfuzz.solvers import installs

    z3 = shutil.which("z3")
    assert z3 is not None

    def fake_install(family: str, version: str, say: object) -> installs.Installed:
        fake_release(cache, family, version, z3)
        found = installs.find_installed(family, version)
        assert found is not None
        return found

    monkeypatch.setattr(installs, "_install", fake_install)
    assert install(Family.Z3, "4.8.17", by="tests").by == "tests"
    assert install(Family.Z3, "4.12.2").by == "user"
    assert {i.version: i.by for i in installed_versions()} == {"4.8.17": "tests", "4.12.2": "user"}
    assert install(Family.Z3, "4.12.2", by="tests").by == "user"  # present already: left as it was


def test_the_releases_specs_name_are_installed_and_nothing_else(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What a Ray node and the bugs-found replay install for a list of specs: each
    FAMILY@VERSION, options and all; not the newest wheel, a path or a foreign name."""
    from sphinxfuzz.solvers import installs

    asked: list[tuple[Family, str]] = []
    monkeypatch.setattr(installs, "install", lambda family, version, say: asked.append(
        (family, version)))  # fmt: skip
    installs.install_releases(
        "z3@4.8.8 smt.arith.solver=2;cvc5;/usr/bin/cvc5 --check-models;cvc5@1.3.2;cvc4@1.8;"
        "yices@2.6.4",
        say=lambda _: None,
    )
    assert asked == [(Family.Z3, "4.8.8"), (Family.CVC5, "1.3.2"), (Family.YICES, "2.6.4")]
