"""The libraries a cvc5 source tree needs, checked against this machine before building.

A cvc5 build uses the dependencies the machine has (configure.sh `--no-auto-download`): a
missing one would otherwise end the build half-way in cmake's log. So each dependency the
tree's CMake asks for (`find_package(GMP 6.3 REQUIRED)`, CaDiCaL's version range in
cmake/FindCaDiCaL.cmake, ...) is looked up first, by its Debian package (dpkg) or else its
header, and every one missing or too old is named with the Debian package that brings it or
the configure.sh switch that does without it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

INCLUDE_DIRS = (Path("/usr/include"), Path("/usr/local/include"))


@dataclass(frozen=True)
class Dependency:
    name: str  # as cvc5's CMake names it: find_package(<name> ...)
    package: str | None  # the Debian package that ships it (None: Debian has none)
    header: str  # a header it installs (relative to an include folder)
    minimum: tuple[str, str] | None = None  # (file of the tree, pattern) of the version asked
    without: str | None = None  # configure.sh's switch that builds without it


DEPENDENCIES = (
    Dependency("GMP", "libgmp-dev", "gmp.h", ("CMakeLists.txt", r"find_package\(GMP\s+([\d.]+)")),
    Dependency("CaDiCaL", "libcadical-dev", "cadical.hpp",
               ("cmake/FindCaDiCaL.cmake", r'CaDiCaL_FIND_VERSION\s+"([\d.]+)"')),
    Dependency("SymFPU", "libsymfpu-dev", "symfpu/core/unpackedFloat.h"),
    Dependency("Poly", None, "poly/poly.h", without="--no-poly"),
)  # fmt: skip
# how a message names the way around a missing dependency: the build's download switch
DOWNLOAD = "a build that downloads the dependencies (configure.sh --auto-download)"


def _asks_for(tree: Path, dependency: Dependency) -> bool:
    try:
        text = (tree / "CMakeLists.txt").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return re.search(rf"find_package\(\s*{dependency.name}\b", text) is not None


def _minimum(tree: Path, dependency: Dependency) -> str | None:
    if dependency.minimum is None:
        return None
    where, pattern = dependency.minimum
    try:
        found = re.search(pattern, (tree / where).read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None
    return found.group(1) if found else None


def debian_version(package: str) -> str | None:
    """The upstream version of an installed Debian package (2:6.2.1+dfsg1-1.1 -> 6.2.1)."""
    if shutil.which("dpkg-query") is None:
        return None
    done = subprocess.run(["dpkg-query", "-W", "-f", "${Status} ${Version}", package],
                          capture_output=True, text=True, check=False)  # fmt: skip
    if done.returncode != 0 or "install ok installed" not in done.stdout:
        return None
    version = done.stdout.split()[-1].rpartition(":")[2]
    found = re.match(r"[\d.]+\d", version)
    return found.group(0) if found else version


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", version))


def _problem(tree: Path, dependency: Dependency) -> str | None:
    """What is wrong with one dependency here, with the fix; None when it will do."""
    version = debian_version(dependency.package) if dependency.package else None
    present = version is not None or any((d / dependency.header).is_file() for d in INCLUDE_DIRS)
    wanted = _minimum(tree, dependency)
    fixes = [f"or configure.sh's {dependency.without} builds without it"] * bool(
        dependency.without
    ) + [f"or {DOWNLOAD} builds it from source"]
    if not present:
        install = (f"sudo apt-get install -y {dependency.package}" if dependency.package
                   else "Debian has no package of it")  # fmt: skip
        return f"{dependency.name}: not found ({install}; {', '.join(fixes)})"
    if wanted and version and _key(version) < _key(wanted):
        return (f"{dependency.name}: {dependency.package} is {version}, this tree asks for "
                f"{wanted} or newer ({', '.join(fixes).removeprefix('or ')})")  # fmt: skip
    return None


def missing_dependencies(tree: Path, switches: tuple[str, ...] = ()) -> list[str]:
    """Each dependency the cvc5 tree asks for that this machine lacks or has too old, with
    its fix; `switches` are configure.sh's (a dependency they turn off is not needed)."""
    return [
        problem
        for dependency in DEPENDENCIES
        if _asks_for(tree, dependency) and dependency.without not in switches
        for problem in [_problem(tree, dependency)]
        if problem is not None
    ]
