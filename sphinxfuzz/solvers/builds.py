"""Solver builds with assertions and/or sanitizers, in the solver cache beside the installs
(installs.py).

    sphinxfuzz solvers build z3==4.12.2 --assertions        # the z3-solver sdist of PyPI
    sphinxfuzz solvers build z3 --source DIR --assertions   # a z3 tree: a trunk checkout
    sphinxfuzz solvers build cvc5 --source DIR --assertions # a cvc5 tree, its configure.sh
    sphinxfuzz solvers build z3==5.4.1 --sanitizers address,undefined   # z3@5.4.1+asan

put the binary into `<cache>/solvers/z3-4.12.2+assert/bin/z3`, with `installed.json` naming
it, so `z3@4.12.2+assert` runs it like any installed release (and `solvers list/remove/prune`
see it). A git checkout's build is named by its commit (`z3@git-1a2b3c4+assert`). The build
runs in `<folder>.partial/` (its `configure.log` and `build.log` show how far it got); only a
finished build gets the real name, and keeps its logs there. What it will do is decided
first (build_plans.py: the compiler and CMake of toolchains.py), and `plan_build` shows it.

z3's `SASSERT`s are compiled in by `Z3DEBUG` alone. Its cmake sets that for
`CMAKE_BUILD_TYPE=Debug`, which also means `-O0`: a z3 several times slower per mutant and no
faster to build than `-O1`. So the build is optimised (`-O1`, the level the coverage bench
builds at) with `-DZ3DEBUG` given directly: every assertion checked, at a usable speed. It
also gets `-DNO_Z3_DEBUGGER`: a violated assertion then exits (code 110) instead of asking
"(C)ontinue, (A)bort, ..." on stdin, which for a persistent z3 is the pipe of the next
script, so it would eat that script instead of crashing.

cvc5's own `configure.sh --assertions` does the same for cvc5 (an optimised production build
with `Assert`s on). It uses the machine's dependencies (`--no-auto-download`), each checked
first (cvc5_deps.py: a missing one is named with its Debian package before building), unless
the build is asked to download them (`download`: configure.sh's `--auto-download`).

Every build: cmake with Ninja (make without it), ccache as the compiler launcher where it is
installed, `-j` the cores this process may use, under `nice -n 19`.

A tree asks for a CMake version (`cmake_minimum_required`; z3 5.4.1 asks for 3.26, newer than
Debian 12's 3.25): that is checked before configuring, and a configure log saying so is read
the same way, so the error names both versions and the fixes (`pip install cmake`, or the
distribution's backports) instead of ending in cmake's log.

Builds share ccache's objects across releases (bisection builds several): ccache hashes
absolute paths, and a release's work folder names it. So an sdist is unpacked to the
version-free `source/sdist/` of the work folder, and every step runs with `CCACHE_BASEDIR` the
work folder: ccache then hashes paths under it relative to the build folder, the same for
every release. (Without `-g` ccache does not hash the working directory either.)
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sphinxfuzz.solvers.build_plans import (
    CVC5_CONFIGURE,
    RECIPES,
    Z3_CMAKE,
    Z3_OPTIMISE,
    BuildPlan,
    build_marks,
)
from sphinxfuzz.solvers.cvc5_deps import missing_dependencies
from sphinxfuzz.solvers.families import GIT_PREFIX, PACKAGES, Family, short_version, split_build
from sphinxfuzz.solvers.installs import (
    Installed,
    InstallError,
    cache_root,
    find_installed,
    folder_for,
    release_of,
)
from sphinxfuzz.solvers.toolchains import (
    choose_compiler,
    install_wheel_cmake,
    newest_wheel_cmake,
    sanitizer_defaults,
    wheel_cmake,
)

Say = Callable[[str], object]
# what a build needs, with the Debian package that brings it
COMPILERS = ("c++", "g++", "clang++")
_PACKAGE_OF = {"cmake": "cmake", "ninja or make": "ninja-build", "a C++ compiler": "g++"}
# a progress line every this many percent of the build's steps
PROGRESS_STEP = 5
_NINJA_STEP = re.compile(r"^\[(\d+)/(\d+)\]")
_MAKE_STEP = re.compile(r"^\[\s*(\d+)%\]")
# the lowest version in `cmake_minimum_required(VERSION 3.16...3.27)`, and cmake's refusal
_MINIMUM = re.compile(r"cmake_minimum_required\s*\(\s*VERSION\s+(\d+(?:\.\d+)*)", re.IGNORECASE)
_TOO_OLD = re.compile(r"CMake (\d[\d.]*\d) or higher is required\.\s+You are running version (\S+)")
# a standard header the compiler lacks (g++: `fatal error: format: No such file or directory`,
# clang: `fatal error: 'format' file not found`); a project header has a dot or a slash
_NO_HEADER = re.compile(
    r"fatal error: '?([a-z_]+)'?(?:: No such file or directory| file not found)"
)
# where an sdist is unpacked in the work folder: no version in it (module docstring)
SDIST_TREE = "sdist"


class BuildError(InstallError):
    """A build that cannot be done or failed; the message says why and what to do."""


@dataclass(frozen=True)
class Toolchain:
    cmake: str
    generator: str  # cmake's -G: "Ninja", or "Unix Makefiles" without ninja
    builder: str  # the program that runs the generated build: ninja or make
    launcher: str | None  # ccache, when installed

    def build_command(self, folder: Path, target: str, jobs: int) -> list[str]:
        return [*niced(), self.builder, "-C", str(folder), f"-j{jobs}", target]

    def cmake_options(self) -> list[str]:
        if self.launcher is None:
            return []
        return [f"-DCMAKE_{lang}_COMPILER_LAUNCHER={self.launcher}" for lang in ("C", "CXX")]


def toolchain() -> Toolchain:
    """The tools a build needs, found on PATH; a BuildError names the Debian packages of the
    missing ones."""
    cmake = shutil.which("cmake")
    ninja, make = shutil.which("ninja"), shutil.which("make")
    compiler = os.environ.get("CXX") or next((c for c in COMPILERS if shutil.which(c)), None)
    missing = [
        name
        for name, have in (
            ("cmake", cmake),
            ("ninja or make", ninja or make),
            ("a C++ compiler", compiler),
        )  # fmt: skip
        if not have
    ]
    if missing or cmake is None:
        packages = " ".join(_PACKAGE_OF[name] for name in missing)
        raise BuildError(
            f"building a solver needs {', '.join(missing)}, not found on PATH: install them "
            f"(Debian/Ubuntu: sudo apt-get install {packages})"
        )
    builder = ninja or make
    assert builder is not None
    return Toolchain(cmake, "Ninja" if ninja else "Unix Makefiles", builder, shutil.which("ccache"))


def version_key(version: str) -> tuple[int, int, int]:
    """3.25.1 -> (3, 25, 1); 3.26 -> (3, 26, 0); 4.0.0-rc1 -> (4, 0, 0)."""
    major, minor, patch, *_ = [int(n) for n in re.findall(r"\d+", version)] + [0, 0, 0]
    return major, minor, patch


def cmake_version(cmake: str) -> str | None:
    """What `cmake --version` says it is (3.25.1); None when it says nothing readable."""
    try:
        said = subprocess.run([cmake, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.search(r"cmake version (\S+)", said.stdout)
    return found.group(1) if found else None


def newer_cmake(found: str, needed: str, who: str) -> BuildError:
    """The error of a CMake older than a tree asks for, with both ways to a newer one."""
    return BuildError(
        f"{who} needs CMake {needed} or newer, and the cmake on PATH "
        f"({shutil.which('cmake') or 'cmake'}) is {found}. Either "
        "`pip install cmake` (a current CMake, first on PATH in the Python environment that "
        "runs sphinxfuzz) or install a newer cmake from your distribution's backports "
        "(Debian: sudo apt-get install -t <release>-backports cmake), then build again"
    )


def newer_compiler(header: str, who: str) -> BuildError:
    """The error of a compiler whose standard library lacks a header the tree includes: z3
    from 4.15.5 on includes C++20's <format>, which g++ 12 (Debian 12) does not ship."""
    compiler = os.environ.get("CXX") or next((c for c in COMPILERS if shutil.which(c)), "c++")
    return BuildError(
        f"{who}: the C++ compiler ({compiler}) has no standard header <{header}>, which this "
        "release includes. Build with a newer compiler (GCC 13 or newer for <format>: "
        "set CXX=g++-13 for the build), or build an older release (z3 4.15.4 "
        "is the newest without <format>)"
    )


def build_env(work: Path) -> dict[str, str]:
    """The environment of every step of a build in `work`: ccache's base dir is the work
    folder (module docstring). For a `--source` tree outside it too: the tree's own paths are
    the same in every build of that checkout, and what changes between builds is the work
    folder (its name has the release). A wider base (the common parent of tree and cache)
    would share nothing more, and may be `/` or `/usr`, which ccache's manual warns against:
    it would rewrite the system headers' paths as well."""
    return {**os.environ, "CCACHE_BASEDIR": str(work.resolve())}


def niced() -> list[str]:
    """A build shares the machine: it runs at the lowest priority where `nice` exists."""
    return ["nice", "-n", "19"] if shutil.which("nice") else []


def cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def progress_of(line: str) -> tuple[int, int] | None:
    """(done, total) steps of a ninja `[12/900] ...` line, or of a make `[ 14%] ...` line
    (as (14, 100)); None for other lines."""
    found = _NINJA_STEP.match(line)
    if found:
        return int(found.group(1)), int(found.group(2))
    found = _MAKE_STEP.match(line)
    return (int(found.group(1)), 100) if found else None


def run_logged(
    command: Sequence[str], cwd: Path, log: Path, say: Say, what: str,
    env: dict[str, str] | None = None,
) -> None:  # fmt: skip
    """Run one step of a build, its output into `log`; the build's `[n/N]` progress is said
    condensed: a line every PROGRESS_STEP percent. A failure names the log and its tail."""
    started = time.monotonic()
    said = -PROGRESS_STEP
    with open(log, "w", encoding="utf-8", buffering=1) as out:  # a line at a time: tail -f
        out.write(f"$ {' '.join(command)}\n")
        out.flush()
        process = subprocess.Popen(
            list(command), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, text=True, errors="replace", env=env,
        )  # fmt: skip
        assert process.stdout is not None
        for line in process.stdout:
            out.write(line)
            step = progress_of(line)
            if step is not None and step[1] > 0:
                percent = 100 * step[0] // step[1]
                if percent >= said + PROGRESS_STEP:
                    said = percent - percent % PROGRESS_STEP
                    minutes = (time.monotonic() - started) / 60
                    say(f"  {what}: {step[0]}/{step[1]} ({percent}%), {minutes:.1f} min")
        code = process.wait()
    if code != 0:
        text = log.read_text(encoding="utf-8", errors="replace")
        too_old = _TOO_OLD.search(text)  # a subproject's or a dependency's demand, say
        if too_old:
            raise newer_cmake(too_old.group(2), too_old.group(1), f"{what} (log: {log})")
        header = _NO_HEADER.search(text)
        if header:
            raise newer_compiler(header.group(1), f"{what} (log: {log})")
        tail = text.strip().splitlines()[-5:]
        raise BuildError(
            f"{what} failed (exit {code}); the whole log is {log}:\n" + "\n".join(tail)
        )


def fetch_sdist(package: str, version: str, into: Path) -> Path:
    """Download and unpack the sdist of `package==version` from PyPI into `into`; returns
    the unpacked top folder. The archive itself, not `pip download`, which would build the
    sdist's metadata (and its build dependencies) first."""
    index = f"https://pypi.org/simple/{package}/"
    try:
        with urllib.request.urlopen(index, timeout=60) as reply:
            page = reply.read().decode("utf-8")
    except OSError as exc:
        raise BuildError(f"cannot read the package index {index}: {exc}") from None
    names = tuple(f"{stem}-{version}.tar.gz" for stem in (package, package.replace("-", "_")))
    url = next(
        (u for u in re.findall(r'href="([^"]+)"', page) if u.split("#")[0].endswith(names)),
        None,
    )
    if url is None:
        raise BuildError(f"PyPI lists no sdist of {package} {version}")
    url = urllib.parse.urljoin(index, url.split("#")[0])
    into.mkdir(parents=True, exist_ok=True)
    archive = into / url.rsplit("/", 1)[-1]
    try:
        urllib.request.urlretrieve(url, archive)
    except OSError as exc:
        raise BuildError(f"cannot download {url}: {exc}") from None
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
        top = tar.getnames()[0].split("/")[0]
    archive.unlink()
    return into / top


def z3_tree(source: Path) -> Path:
    """The folder with z3's top CMakeLists.txt: the tree itself, or an sdist's `core/`."""
    for candidate in (source, source / "core"):
        if (candidate / "CMakeLists.txt").is_file() and (candidate / "src").is_dir():
            return candidate
    if (source / "core" / "scripts" / "mk_make.py").is_file():
        # z3-solver sdists before 4.8.11 carry only z3's older python build scripts
        raise BuildError(
            f"{source}: this z3-solver sdist has no CMake build (sdists before 4.8.11 do not); "
            "build a checkout of the release's git tag instead (git clone -b z3-4.8.10 "
            "https://github.com/Z3Prover/z3)",
            setting="source",
        )
    raise BuildError(f"{source}: no z3 source tree here (no CMakeLists.txt beside src/)")


def source_version(family: Family, tree: Path) -> str:
    """The release a source tree says it is: z3's `project(Z3 VERSION ...)`, cvc5's
    `CVC5_LAST_RELEASE` (a trunk checkout names the release it follows)."""
    if family.record.build == Z3_CMAKE:
        where, pattern = tree / "CMakeLists.txt", r"project\(\s*Z3\s+VERSION\s+([0-9.]+)"
    else:
        where, pattern = tree / "cmake" / "version-base.cmake", r'CVC5_LAST_RELEASE\s+"([0-9.]+)'
    try:
        found = re.search(pattern, where.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        found = None
    if found is None:
        raise BuildError(f"{where}: cannot read the release of this {family} tree")
    return short_version(family, found.group(1))


def z3_configure(tree: Path, build: Path, tools: Toolchain, plan: BuildPlan,
                 defaults: Path | None = None) -> list[str]:  # fmt: skip
    """The cmake line of a z3 build: the binary only, optimised, with the plan's compiler,
    Z3DEBUG when it has assertions and the sanitizers' flags (`defaults`: their options)."""
    link = [*plan.link_flags(), *([str(defaults)] if defaults else [])]
    return [
        *niced(), plan.cmake_program, "-G", tools.generator, "-S", str(tree), "-B", str(build),
        f"-DCMAKE_C_COMPILER={plan.compiler.cc}", f"-DCMAKE_CXX_COMPILER={plan.compiler.cxx}",
        "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_CXX_FLAGS_RELEASE={Z3_OPTIMISE}",
        f"-DCMAKE_CXX_FLAGS={' '.join(plan.cxx_flags())}",
        f"-DCMAKE_EXE_LINKER_FLAGS={' '.join(link)}",
        "-DZ3_BUILD_LIBZ3_SHARED=OFF", "-DZ3_BUILD_PYTHON_BINDINGS=OFF",
        "-DZ3_BUILD_TEST_EXECUTABLES=OFF", "-DZ3_ENABLE_EXAMPLE_TARGETS=OFF",
        # CMake 4 refuses projects that ask for CMake < 3.5, as z3 4.12 does
        "-DCMAKE_POLICY_VERSION_MINIMUM=3.5",
        *tools.cmake_options(),
    ]  # fmt: skip


def choose_cmake(tree: Path, cmake: str, say: Say, install: bool) -> tuple[str, str]:
    """The cmake to configure `tree` with, and how the plan names it: the one on PATH when it
    is as new as the tree asks, else the PyPI wheel's (installed into the cache when
    `install`); a BuildError when neither is new enough."""
    top = tree / "CMakeLists.txt"
    try:
        needed = _MINIMUM.search(top.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        needed = None
    found = cmake_version(cmake)
    if needed is None or found is None or version_key(found) >= version_key(needed.group(1)):
        return cmake, f"{cmake} {found or '(version unread)'}"
    wheel = wheel_cmake()
    have = cmake_version(str(wheel)) if wheel.is_file() else None
    if have and version_key(have) >= version_key(needed.group(1)):
        return str(wheel), f"{wheel} {have} (the PyPI cmake wheel; {cmake} is {found})"
    newest = newest_wheel_cmake()
    if newest is None or version_key(newest) < version_key(needed.group(1)):
        raise newer_cmake(found, needed.group(1), str(top))
    why = f"the tree asks for {needed.group(1)}, {cmake} is {found}"
    if not install:
        return str(
            wheel
        ), f"the PyPI cmake wheel {newest}, to install into {wheel.parent.parent} ({why})"
    return install_wheel_cmake(say), f"{wheel} (the PyPI cmake wheel; {why})"


def git_commit(tree: Path) -> tuple[str, bool] | None:
    """(short commit, whether the work tree has changes) of a git checkout; None elsewhere."""
    try:
        head = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short=7", "HEAD"],
                              capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
        if head.returncode != 0:
            return None
        changed = subprocess.run(["git", "-C", str(tree), "status", "--porcelain", "-uno"],
                                 capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    return head.stdout.strip(), bool(changed.stdout.strip())


@dataclass(frozen=True)
class Request:
    """What `solvers build` was asked: a family, a release or a tree, and the build's kind."""

    family: Family
    version: str | None = None
    source: Path | None = None
    assertions: bool = True
    sanitizers: tuple[str, ...] = ()
    download: bool = False  # cvc5: let configure.sh download what the machine lacks


def _name(request: Request) -> tuple[str, Path | None, bool]:
    """The build's name (release or commit, with marks), the tree of a source build, and
    whether that tree has changes a commit does not name."""
    family, marks = request.family, build_marks(request.assertions, request.sanitizers)
    if not marks:
        raise BuildError("a build has assertions, sanitizers or both: ask for one",
                         setting="assertions")  # fmt: skip
    if request.source is None:
        assert request.version is not None
        # `z3@4.12.2+assert` names the build to make as well as `z3==4.12.2` does
        release = short_version(family, release_of(family, split_build(request.version)[0]))
        return release + marks, None, False
    source = request.source.resolve()
    tree = z3_tree(source) if family.record.build == Z3_CMAKE else source
    commit = git_commit(source)
    if commit is None:
        return source_version(family, tree) + marks, tree, True
    # uncommitted changes are no commit's: such a build is named so and always made again
    dirty = "-dirty" if commit[1] else ""
    return f"{GIT_PREFIX}{commit[0]}{dirty}{marks}", tree, commit[1]


def build(
    family: Family, version: str | None = None, *, source: Path | None = None,
    say: Say = print, jobs: int | None = None, assertions: bool = True,
    sanitizers: Sequence[str] = (), download: bool = False,
) -> Installed:  # fmt: skip
    """Build `family` with assertions and/or sanitizers, from the sdist of release `version`
    (z3) or from the tree `source`, into the solver cache; returns it as an install
    (`z3@4.12.2+assert`, `z3@git-1a2b3c4+asan`). A build made already is kept, unless it is
    of a tree with changes its commit does not name."""
    request = _check(Request(family, version, source, assertions, tuple(sanitizers), download))
    tools = toolchain()
    name, tree, changed = _name(request)
    checked = family.record.build == CVC5_CONFIGURE and not download
    missing = missing_dependencies(tree) if tree and checked else []
    if missing:  # named before building, never half-way in cmake's log
        raise BuildError(f"{tree}: this cvc5 tree needs what this machine lacks:\n  - "
                         + "\n  - ".join(missing))  # fmt: skip
    present = find_installed(family, name)
    if present is not None and not changed:
        say(f"{family}@{name} is built already: {present.folder}")
        return present
    lock_file = cache_root() / f".{family}-{name}.lock"
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_file, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build(request, name, tree, tools, say, jobs or cores())


def _check(request: Request) -> Request:
    family = request.family
    if family not in PACKAGES or family.record.build not in RECIPES:
        known = (f for f in PACKAGES if f.record.build in RECIPES)
        raise BuildError(f"{family}: builds know {', '.join(known)}")
    if (request.version is None) == (request.source is None):
        raise BuildError("name a release (z3==4.12.2) or a source tree (--source DIR), not both")
    if family.record.build == CVC5_CONFIGURE and request.source is None:
        raise BuildError(
            "cvc5 builds from a source tree only: clone https://github.com/cvc5/cvc5, check "
            "out the release's tag (cvc5-1.1.2) and build that folder",
            setting="source",
        )
    return request


def plan_build(request: Request, say: Say = print) -> BuildPlan:
    """The plan of a build, made and shown without building (an sdist is fetched to read
    it, into a folder removed after)."""
    request = _check(request)
    tools = toolchain()
    name, tree, _changed = _name(request)
    if tree is not None:
        return _plan(request, name, tree, str(tree), tools, say, install=False)
    with tempfile.TemporaryDirectory(prefix="sphinxfuzz-plan-") as folder:
        package_version = release_of(request.family, split_build(name)[0])
        unpacked = fetch_sdist(PACKAGES[request.family], package_version, Path(folder))
        where = f"the {PACKAGES[request.family]} {package_version} sdist from PyPI"
        return _plan(request, name, z3_tree(unpacked), where, tools, say, install=False)


def _plan(request: Request, name: str, tree: Path, source: str, tools: Toolchain, say: Say,
          install: bool) -> BuildPlan:  # fmt: skip
    who = f"{request.family}@{name} ({source})"
    compiler = choose_compiler(tree, request.sanitizers, who)
    cmake, described = choose_cmake(tree, tools.cmake, say, install)
    checked = request.family.record.build == CVC5_CONFIGURE and not request.download
    notes = missing_dependencies(tree) if checked else []
    commit = git_commit(tree)
    if commit is not None:
        source += f" at commit {commit[0]}" + (" with uncommitted changes" if commit[1] else "")
    return BuildPlan(
        request.family, name, source, compiler, described, tools.generator, tools.launcher,
        folder_for(request.family, name), request.assertions, request.sanitizers,
        cache_dir=os.environ.get("CCACHE_DIR"), cmake_program=cmake,
        notes=tuple(f"missing {note}" for note in notes),
    )  # fmt: skip


def _build(request: Request, name: str, tree: Path | None, tools: Toolchain, say: Say,
           jobs: int) -> Installed:  # fmt: skip
    family = request.family
    folder = folder_for(family, name)
    work = folder.with_name(folder.name + ".partial")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    started = time.monotonic()
    if tree is None:
        package_version = release_of(family, split_build(name)[0])
        say(f"downloading the {PACKAGES[family]} {package_version} sdist into {work} ...")
        unpacked = fetch_sdist(PACKAGES[family], package_version, work / "source")
        tree = z3_tree(unpacked.rename(work / "source" / SDIST_TREE))
        where = f"the {PACKAGES[family]} {package_version} sdist from PyPI"
        record: dict[str, object] = {"package_version": package_version, "source": "sdist"}
    else:
        where = str(tree)
        record = {"package_version": name, "source": str(request.source)}
    plan = _plan(request, name, tree, where, tools, say, install=True)
    record.update(family=str(family), version=name, jobs=jobs, launcher=tools.launcher,
                  generator=tools.generator, compiler=plan.compiler.name,
                  sanitizers=list(plan.sanitizers), assertions=plan.assertions)  # fmt: skip
    objects = work / "build"
    kind = " and ".join(["assertions"] * plan.assertions + ["sanitizers"] * bool(plan.sanitizers))
    say(f"building {family}@{name} with {kind} by {plan.compiler.name} ({jobs} jobs; "
        f"log: {work / 'build.log'})")  # fmt: skip
    if family.record.build == Z3_CMAKE:
        made, flags = _z3(tree, objects, tools, plan, work, say, jobs)
    else:
        _cvc5(tree, objects, tools, work, say, jobs, plan, request.download)
        made, flags = objects / "bin" / "cvc5", " ".join(plan.cxx_flags())
    return _install_build(
        family, name, work, folder, made, {**record, "flags": flags}, started, say
    )


def _z3(tree: Path, objects: Path, tools: Toolchain, plan: BuildPlan, work: Path, say: Say,
        jobs: int) -> tuple[Path, str]:  # fmt: skip
    env = build_env(work)
    defaults = sanitizer_defaults(plan.compiler, work) if plan.sanitizers else None
    run_logged(z3_configure(tree, objects, tools, plan, defaults), work, work / "configure.log",
               say, "cmake", env=env)  # fmt: skip
    run_logged(tools.build_command(objects, "shell", jobs), work, work / "build.log", say,
               "z3 build", env=env)  # fmt: skip
    return objects / "z3", " ".join([*plan.cxx_flags(), Z3_OPTIMISE])


def _install_build(family: Family, name: str, work: Path, folder: Path, made: Path,
                   record: dict[str, object], started: float, say: Say) -> Installed:  # fmt: skip
    """Move a finished build's binary into its cache entry, with its record and logs."""
    if not made.is_file():
        raise BuildError(f"the build made no {made.name} binary; see {work / 'build.log'}")
    (work / "bin").mkdir()
    binary = work / "bin" / made.name
    shutil.copy2(made, binary)
    # the objects are ccache's to keep: the cache keeps the binary and the logs
    shutil.rmtree(work / "build", ignore_errors=True)
    shutil.rmtree(work / "source", ignore_errors=True)
    record.update(binary=f"bin/{made.name}", seconds=round(time.monotonic() - started, 1),
                  installed_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"))  # fmt: skip
    (work / "installed.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    shutil.rmtree(folder, ignore_errors=True)
    work.rename(folder)
    built = find_installed(family, name)
    if built is None:
        raise BuildError(f"{folder}: the build left no runnable solver")
    say(f"built {family}@{name} in {record['seconds']} s: {built.argv[0]}")
    return built


def _cvc5(tree: Path, objects: Path, tools: Toolchain, work: Path, say: Say, jobs: int,
          plan: BuildPlan, download: bool) -> None:  # fmt: skip
    """cvc5's configure script with its assertion switch, then its binary's target. ccache
    and the compiler reach cmake through the environment (CMake reads CC, CXX and
    CMAKE_<LANG>_COMPILER_LAUNCHER)."""
    script = tree / "configure.sh"
    if not script.is_file():
        raise BuildError(f"{tree}: no configure.sh here; is it a cvc5 source tree?")
    env = build_env(work)
    env.update(CC=plan.compiler.cc, CXX=plan.compiler.cxx)
    if plan.compiler.flags:
        env.update(CXXFLAGS=" ".join(plan.compiler.flags), LDFLAGS=" ".join(plan.compiler.flags))
    if tools.launcher:
        env.update(CMAKE_C_COMPILER_LAUNCHER=tools.launcher,
                   CMAKE_CXX_COMPILER_LAUNCHER=tools.launcher)  # fmt: skip
    generator = ["--ninja"] if tools.generator == "Ninja" else []
    switches = plan.cxx_flags()[1:]  # after "configure.sh production"
    # the machine's dependencies, checked above: nothing downloaded behind the user's back
    fetch = "--auto-download" if download else "--no-auto-download"
    configure = [*niced(), str(script), "production", *switches, fetch,
                 *generator, f"--name={objects}"]  # fmt: skip
    run_logged(configure, tree, work / "configure.log", say, "configure.sh", env=env)
    run_logged(tools.build_command(objects, "cvc5-bin", jobs), work, work / "build.log", say,
               "cvc5 build", env=env)  # fmt: skip
