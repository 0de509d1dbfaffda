"""The built wheel is a whole sphinxfuzz: installed into a fresh virtual environment (not the
checkout), it finds its generators, seeds, theory documents and prompts and runs a campaign
and a validation from an unrelated folder."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from sphinxfuzz.solvers.installs import cache_root

REPO = Path(__file__).resolve().parents[2]
_SKIP_ANYWHERE = shutil.ignore_patterns("__pycache__", "*.egg-info", ".pytest_cache",
                                       ".ruff_cache", ".hypothesis")  # fmt: skip
_SKIP_AT_TOP = {".git", "build", "dist", "campaigns", ".venv"}  # not sphinxfuzz/synthesis/


def _skip(folder: str, names: list[str]) -> set[str]:
    skipped = set(_SKIP_ANYWHERE(folder, names))
    return skipped | (_SKIP_AT_TOP & set(names) if Path(folder) == REPO else set())


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 120) -> str:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{argv}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # build from a copy: an in-tree build leaves build/ and *.egg-info in the checkout
    source = tmp_path_factory.mktemp("source") / "sphinxfuzz"
    shutil.copytree(REPO, source, ignore=_skip)
    out = tmp_path_factory.mktemp("wheel")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    _run([sys.executable, "-m", "pip", "wheel", str(source), "-w", str(out), "--no-deps", "-q",
          "--disable-pip-version-check"], out, env, timeout=300)  # fmt: skip
    (found,) = out.glob("sphinxfuzz-*.whl")
    return found


def test_the_wheel_carries_every_data_folder(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("generated_generators", "skeletons", "docs_corpus", "prompts"):
        shipped = {p.relative_to(REPO / folder).as_posix() for p in (REPO / folder).rglob("*")
                   if p.is_file() and "__pycache__" not in p.parts}  # fmt: skip
        packed = {n.removeprefix(f"sphinxfuzz/_data/{folder}/") for n in names
                  if n.startswith(f"sphinxfuzz/_data/{folder}/")}  # fmt: skip
        assert shipped and packed == shipped, folder
    # every file of the package itself (modules and the data beside them: schemas, tables)
    package = {p.relative_to(REPO).as_posix() for p in (REPO / "sphinxfuzz").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}  # fmt: skip
    assert {"sphinxfuzz/py.typed", "sphinxfuzz/solvers/options/needed_options.json"} <= package
    assert package - names == set()
    assert "sphinxfuzz/_data/docs/bugs-found.json" in names  # known bugs (`bugs.known`)
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)


def _running_site_packages() -> list[str]:
    """The folders this interpreter imports installed packages from: a venv's own
    site-packages (and its base's, with --system-site-packages), or the system's."""
    folders = [*site.getsitepackages(), sysconfig.get_paths()["purelib"]]
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    return list(dict.fromkeys(f for f in folders if Path(f).is_dir()))


def _venv_seeing_this_environment(venv: Path) -> Path:
    """A fresh venv whose interpreter also imports this environment's packages (the
    dependencies, without downloading them): a `.pth` file naming the running environment's
    site-packages, whichever interpreter runs the tests. `--system-site-packages` would give
    the *base* interpreter's packages instead, which inside a venv lack the dependencies."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    own = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         check=True, capture_output=True, text=True).stdout.strip()  # fmt: skip
    # appended after the venv's own folder: the wheel installed there comes first
    (Path(own) / "_running_environment.pth").write_text("\n".join(_running_site_packages()) + "\n")
    return python


def _copy_probe_caches(cache: Path) -> None:
    """The option tables and capability answers this environment has probed already: keyed
    by release and program content, so the wheel's z3 and cvc5 shim find them as a user who
    installed it beside a checkout would. A cold cache costs the test half a minute of
    probing, which tests/solvers and tests/generators cover."""
    own = cache_root().parent
    for folder in ("options", "capabilities"):
        if (own / folder).is_dir():
            shutil.copytree(own / folder, cache / folder)


def test_the_installed_wheel_fuzzes_and_validates(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    _venv_seeing_this_environment(venv)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["SPHINXFUZZ_CACHE"] = str(tmp_path / "cache")
    _copy_probe_caches(tmp_path / "cache")
    python, command = str(venv / "bin" / "python"), str(venv / "bin" / "sphinxfuzz")
    _run([python, "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall",
          "--disable-pip-version-check", str(wheel)], tmp_path, env)  # fmt: skip
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = _run([python, "-c", "import sphinxfuzz; print(sphinxfuzz.__file__)"], elsewhere, env)
    assert Path(where.strip()).is_relative_to(venv), where  # the wheel's copy, not a checkout
    out = _run([command, "fuzz", "--mutants", "20", "--seed", "3", "--out", "camp", "--quiet"],
               elsewhere, env)  # fmt: skip
    assert (elsewhere / "camp" / "campaign.sqlite").is_file()
    # the budget spent, not a run of nothing
    status = json.loads((elsewhere / "camp" / "status.json").read_text())
    assert status["mutants"] == 20 and status["solver_calls"] >= 40, (status, out)
    validated = _run(
        [command, "generators", "validate", "Core", "-n", "20", "--json"], elsewhere, env
    )
    assert '"theory": "Core"' in validated
    # an installed cvc5 release runs through the wheel's own shim (a stand-in release: this
    # Python, which has the cvc5 wheel, as its venv's interpreter)
    release = tmp_path / "cache" / "solvers" / "cvc5-1.4.2"
    (release / "bin").mkdir(parents=True)
    # a script, not a symlink: a venv's python linked from elsewhere loses the venv
    stand_in = release / "bin" / "python"
    stand_in.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    stand_in.chmod(0o755)
    (release / "installed.json").write_text('{"family": "cvc5", "version": "1.4.2"}')
    listed = json.loads(
        _run([command, "solvers", "list", "--solvers", "cvc5@1.4.2", "--json"], elsewhere, env)
    )
    (entry,) = listed["solvers"]
    assert entry["found"] and entry["version"] == "1.4.2", entry
    assert Path(entry["argv"][1]).is_relative_to(venv) and Path(entry["argv"][1]).is_file()
