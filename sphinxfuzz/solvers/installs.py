"""Released solver versions, installed side by side: one virtual environment per version.

    sphinxfuzz solvers install z3==4.12.2 cvc5==1.1.2

puts `z3-solver==4.12.2.0` into `<cache>/solvers/z3-4.12.2/` (a venv made with this Python)
and records what to run in `installed.json` there. The cache is `$SPHINXFUZZ_CACHE`, else
`~/.cache/sphinxfuzz`. A spec then names the version: `z3@4.12.2`, `cvc5@1.1.2 --strings-exp`.

z3's wheel ships the `z3` binary. cvc5's wheel ships Python bindings only: the version runs
through our shim (`cvc5_shim.py`, which imports nothing but cvc5) under the venv's Python.
cvc5 wheels before 1.1 have no parser API, so they cannot serve as a binary: use a cvc5
binary of that release on the command line instead (any path works as a solver).
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sphinxfuzz.errors import ExternalError, InputError, Step, StepKind
from sphinxfuzz.solvers.families import (
    ASSERT_MARK,
    BUILD_MARKS,
    GIT_PREFIX,
    PACKAGES,
    Family,
    parse_version,
    short_version,
    split_build,
)

_RECORD = "installed.json"
_MARKS = "|".join(re.escape(mark) for mark in BUILD_MARKS)


class InstallError(ExternalError):
    """An install that cannot be done; the message says why and what to do."""


@dataclass(frozen=True)
class Installed:
    family: Family
    version: str  # as the user writes it: 4.12.2 for z3-solver 4.12.2.0
    package_version: str
    folder: Path
    argv: tuple[str, ...]  # the command line of the binary (options are appended)
    by: str = "user"  # who asked for it: "user", or "tests" (the test suite's old releases)


def cache_root() -> Path:
    base = os.environ.get("SPHINXFUZZ_CACHE")
    return _usable(Path(base) if base else Path.home() / ".cache" / "sphinxfuzz") / "solvers"


@lru_cache(maxsize=8)
def _usable(base: Path) -> Path:
    """The cache folder, made if missing; one that is a file, or cannot be made, is an error
    naming it (asked once per process: every cached fact is filed below it)."""
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        why = "a file" if base.exists() and not base.is_dir() else exc.strerror
        raise InputError(
            f"solver cache {base} (SPHINXFUZZ_CACHE, else ~/.cache/sphinxfuzz): not a folder "
            f"that can be made ({why}); name a folder you can write"
        ) from None
    return base


def parse_requirement(text: str) -> tuple[Family, str]:
    """`z3==4.12.2` or `z3@4.12.2` -> ("z3", "4.12.2"); a build keeps its mark:
    `z3@4.12.2+assert` -> ("z3", "4.12.2+assert")."""
    found = re.fullmatch(
        rf"\s*([a-z0-9]+)\s*(?:==|@)\s*((?:[0-9]|git-)[0-9A-Za-z.\-]*(?:{_MARKS})*)\s*",
        text,
    )
    if found is None or found.group(1) not in PACKAGES:
        raise InstallError(
            f"{text!r}: write SOLVER==VERSION with SOLVER one of {', '.join(PACKAGES)}, "
            "e.g. z3==4.12.2 or cvc5==1.1.2"
        )
    return Family(found.group(1)), found.group(2)


def _pip(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pip", *args, "--disable-pip-version-check"],
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


@lru_cache(maxsize=8)
def released_versions(family: Family) -> tuple[str, ...]:
    """Every release of the solver's wheel on the package index, oldest first."""
    try:
        done = _pip("index", "versions", PACKAGES[family], timeout=120)
    except subprocess.TimeoutExpired:
        raise InstallError(f"pip index versions {PACKAGES[family]}: no answer in 120 s") from None
    found = re.search(r"Available versions:\s*(.+)", done.stdout)
    if done.returncode != 0 or found is None:
        why = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise InstallError(f"cannot list the releases of {PACKAGES[family]}: {why[0]}")
    versions = [v.strip() for v in found.group(1).split(",") if v.strip()]
    return tuple(sorted(versions, key=parse_version))


def _package_version(family: Family, version: str, available: tuple[str, ...]) -> str:
    if version in available:
        return version
    if family.record.padded and f"{version}.0" in available:
        return f"{version}.0"
    packaged = [
        v for v in available if family.record.post_packaged and short_version(family, v) == version
    ]
    if packaged:  # the newest packaging of the release
        return max(packaged, key=lambda v: int(v.rpartition("post")[2]))
    wanted = parse_version(version)
    nearest = sorted(available, key=lambda v: _distance(parse_version(v), wanted))[:5]
    raise InstallError(
        f"{PACKAGES[family]} has no release {version}; nearest: "
        f"{', '.join(sorted(nearest, key=parse_version))} (all: `pip index versions {PACKAGES[family]}`)"
    )


def _distance(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    width = max(len(a), len(b))
    a, b = a + (0,) * (width - len(a)), b + (0,) * (width - len(b))
    return tuple(abs(x - y) for x, y in zip(a, b, strict=True))


def _check_supported(family: Family, package_version: str) -> None:
    """Shimmed wheels older than the family's oldest release cannot serve as a binary."""
    oldest = family.record.oldest
    if family.record.shim and oldest and parse_version(package_version) < parse_version(oldest):
        raise InstallError(
            f"{family} {package_version}: wheels before {oldest} have no parser API, so "
            f"sphinxfuzz cannot run them as a solver. Use a {family} binary of that release "
            f"instead: give its path as the solver spec (e.g. Debian's {family} package: "
            f"apt-get download {family}, dpkg -x the .deb, point at usr/bin/{family})."
        )


def folder_for(family: Family, version: str) -> Path:
    return cache_root() / f"{family}-{version}"


def install_releases(solvers: str, *, say: object = print) -> None:
    """Install the releases that the specs of `solvers` ("z3@4.8.17 opt;cvc5") name by
    `FAMILY@VERSION` and that are missing, as `sphinxfuzz solvers install` would; other specs
    (a path, the newest wheel) need nothing."""
    for text in solvers.split(";"):
        name, at, version = (text.split() or [""])[0].partition("@")
        if at and version and name in PACKAGES:
            install(Family(name), version, say=say)


def install(family: Family, version: str, *, say: object = print, by: str = "user") -> Installed:
    """Install one release (a no-op when it is there already). `by` is recorded: `solvers`
    marks the releases the test suite installed ("tests") as test fixtures.

    Processes installing the same release at once (parallel test workers, two campaigns)
    take turns on a lock file: the second finds the first one's install and keeps it."""
    present = find_installed(family, version)
    if present is not None:
        return present
    release, mark = split_build(version)
    if mark == ASSERT_MARK:  # a build is made, not downloaded: only `solvers build` makes one
        raise InstallError(
            f"{family}@{version} is not built: build release {release} with assertions",
            step=Step(StepKind.BUILD_RELEASE, {"family": family, "version": release}),
        )
    if mark or release.startswith(GIT_PREFIX):  # a sanitizer build, a checkout's build
        raise InstallError(f"{family}@{version} is not built: build it from its sources first")
    lock_file = cache_root() / f".{family}-{version}.lock"
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_file, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        present = find_installed(family, version)
        if present is not None:
            return present
        installed = _install(family, version, say)
        return installed if by == "user" else _mark(installed, by)


def _mark(installed: Installed, by: str) -> Installed:
    """Record who asked for a fresh install in its `installed.json`."""
    path = installed.folder / _RECORD
    record = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**record, "installed_by": by}, indent=2), encoding="utf-8")
    return dataclasses.replace(installed, by=by)


def release_of(family: Family, version: str) -> str:
    """The package's release a spec's version names (z3 4.12.2 is z3-solver 4.12.2.0); an
    InstallError names the nearest ones when there is no such release."""
    return _package_version(family, version, released_versions(family))


def _install(family: Family, version: str, say: object) -> Installed:
    package_version = release_of(family, version)
    _check_supported(family, package_version)
    short = short_version(family, package_version)
    folder = folder_for(family, short)
    work = folder.with_name(folder.name + ".partial")
    shutil.rmtree(work, ignore_errors=True)
    work.parent.mkdir(parents=True, exist_ok=True)
    say(f"installing {PACKAGES[family]}=={package_version} into {folder} ...")  # type: ignore[operator]
    started = time.monotonic()
    made = subprocess.run([sys.executable, "-m", "venv", str(work)], capture_output=True, text=True)
    if made.returncode != 0:
        raise InstallError(f"python -m venv {work}: {made.stderr.strip()}")
    python = work / "bin" / "python"
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q",
         f"{PACKAGES[family]}=={package_version}"],
        capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        shutil.rmtree(work, ignore_errors=True)
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise InstallError(
            f"pip install {PACKAGES[family]}=={package_version}: {lines[-1] if lines else 'failed'}"
        )
    record = {
        "family": family,
        "version": short,
        "package_version": package_version,
        "seconds": round(time.monotonic() - started, 1),
        "installed_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    (work / _RECORD).write_text(json.dumps(record, indent=2), encoding="utf-8")
    shutil.rmtree(folder, ignore_errors=True)
    work.rename(folder)  # only a complete install gets the real name
    installed = _read(folder)
    if installed is None:
        raise InstallError(f"{folder}: the install left no runnable solver")
    return installed


def _argv(family: Family, folder: Path, built: str | None = None) -> tuple[str, ...] | None:
    """The command line of an install; `built` is the binary a build recorded (relative to
    its folder), which runs as it is for every family."""
    if built is not None:
        binary = folder / built
        return (str(binary),) if binary.is_file() else None
    record = family.record
    if record.binary is not None:
        binary = folder / "bin" / record.binary
        return (str(binary),) if binary.is_file() else None
    python = folder / "bin" / "python"
    return record.shim_argv(str(python)) if python.exists() else None


def _read(folder: Path) -> Installed | None:
    try:
        record = json.loads((folder / _RECORD).read_text(encoding="utf-8"))
        family, version = Family(str(record["family"])), str(record["version"])
    except (OSError, ValueError, KeyError):
        return None
    argv = _argv(family, folder, record.get("binary"))
    if argv is None:
        return None
    return Installed(family, version, str(record.get("package_version", version)), folder, argv,
                     str(record.get("installed_by", "user")))  # fmt: skip


def find_installed(family: Family, version: str) -> Installed | None:
    for candidate in (version, short_version(family, version)):
        found = _read(folder_for(family, candidate))
        if found is not None:
            return found
    return None


def installed_versions() -> list[Installed]:
    root = cache_root()
    if not root.is_dir():
        return []
    found = [_read(folder) for folder in root.iterdir() if folder.is_dir()]
    present = [i for i in found if i is not None]
    return sorted(present, key=lambda i: (i.family, parse_version(i.version)))


def _size(folder: Path) -> int:
    total = 0
    for here, _dirs, names in os.walk(folder):
        for name in names:
            try:
                total += os.lstat(os.path.join(here, name)).st_size
            except OSError:
                pass
    return total


def remove(family: Family, version: str) -> int:
    """Delete one installed release; returns the bytes freed."""
    found = find_installed(family, version)
    if found is None:
        have = ", ".join(f"{i.family}@{i.version}" for i in installed_versions()) or "none"
        raise InstallError(f"{family}@{version} is not installed (installed: {have})")
    size = _size(found.folder)
    shutil.rmtree(found.folder)
    return size


def prune(keep: set[tuple[Family, str]], *, dry_run: bool = False) -> list[tuple[str, int]]:
    """Delete every installed release but those in `keep` ((family, version) pairs), and
    what interrupted installs left (`*.partial`, folders without a record). Returns (name,
    bytes) of what went (or would go, with `dry_run`)."""
    root = cache_root()
    if not root.is_dir():
        return []
    kept = {(f, short_version(f, v)) for f, v in keep}
    gone: list[tuple[str, int]] = []
    for folder in sorted(root.iterdir()):
        if not folder.is_dir():
            continue
        installed = _read(folder)
        if installed is not None and (installed.family, installed.version) in kept:
            continue
        gone.append((folder.name, _size(folder)))
        if not dry_run:
            shutil.rmtree(folder)
    return gone
