"""The compiler and CMake a solver build uses, chosen for what its sources ask (builds.py).

A tree may include C++20 headers an older standard library lacks: z3 from 4.15.5 on includes
`<format>`, which Debian 12's g++ 12 does not ship, while its clang-19 with libc++ does. So the
headers a tree includes from `NEWER_HEADERS` are compiled (and linked, with the sanitizers
asked for) by each candidate in turn: g++ first (it is what every machine has), then clang
with libc++. `CXX` in the environment is the user's choice and is the only one tried.

A tree asks for a CMake version; when the one on PATH is older, the PyPI `cmake` wheel is
installed once into `<cache>/tools/cmake` (a venv) and used instead.

What cannot be found here is named in one apt line (`apt_line`), so a fresh Debian machine
needs that line and nothing else.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sphinxfuzz.solvers.installs import InstallError, cache_root

# C++ standard headers newer than what some compilers still in use ship (g++ 12: no <format>)
NEWER_HEADERS = ("format", "expected", "print", "generator", "stacktrace", "flat_map")
_INCLUDE = re.compile(rb"#\s*include\s*<(" + b"|".join(h.encode() for h in NEWER_HEADERS) + rb")>")
SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".c", ".inc")
# the Debian packages of a clang with libc++, and of its sanitizer runtimes
CLANG_VERSION = 19
CLANG_PACKAGES = (f"clang-{CLANG_VERSION}", f"libc++-{CLANG_VERSION}-dev",
                  f"libc++abi-{CLANG_VERSION}-dev")  # fmt: skip
CLANG_SANITIZER_PACKAGE = f"libclang-rt-{CLANG_VERSION}-dev"
SANITIZERS = ("address", "undefined")


class ToolchainError(InstallError):
    """No compiler or CMake here can build the tree; the message names what to install."""


@dataclass(frozen=True)
class Compiler:
    cc: str
    cxx: str
    flags: tuple[str, ...] = ()  # given to compiling and linking: -stdlib=libc++

    @property
    def name(self) -> str:
        return " ".join((self.cxx, *self.flags))


def candidates() -> list[Compiler]:
    """The compilers a build may use, in the order they are tried: the user's CXX alone, else
    g++ and c++, then clang with libc++ (the versioned Debian name first)."""
    if os.environ.get("CXX"):
        return [Compiler(os.environ.get("CC") or "cc", os.environ["CXX"])]
    found: list[Compiler] = []
    for cc, cxx, flags in (
        ("gcc", "g++", ()), ("cc", "c++", ()),
        (f"clang-{CLANG_VERSION}", f"clang++-{CLANG_VERSION}", ("-stdlib=libc++",)),
        ("clang", "clang++", ("-stdlib=libc++",)),
    ):  # fmt: skip
        if shutil.which(cxx) and shutil.which(cc):
            found.append(Compiler(cc, cxx, flags))
    return found


def needed_headers(tree: Path) -> tuple[str, ...]:
    """The headers of NEWER_HEADERS that the sources under `tree` include."""
    found: set[str] = set()
    for here, _dirs, names in os.walk(tree):
        for name in names:
            if name.endswith(SOURCE_SUFFIXES):
                try:
                    text = Path(here, name).read_bytes()
                except OSError:
                    continue
                found.update(m.decode() for m in _INCLUDE.findall(text))
    return tuple(sorted(found))


def sanitizer_flags(sanitizers: Sequence[str]) -> tuple[str, ...]:
    """The compile and link flags of a sanitizer build: readable stacks (frame pointers) and
    UBSan reports that go on running (a report beside an answer is a finding too)."""
    if not sanitizers:
        return ()
    return (f"-fsanitize={','.join(sanitizers)}", "-fno-omit-frame-pointer")


def compiles(compiler: Compiler, headers: Sequence[str], extra: Sequence[str]) -> bool:
    """Whether `compiler` compiles and links a program including `headers` with `extra`."""
    program = "".join(f"#include <{h}>\n" for h in headers) + "int main() { return 0; }\n"
    with tempfile.TemporaryDirectory(prefix="sphinxfuzz-probe-") as folder:
        source = Path(folder, "probe.cpp")
        source.write_text(program, encoding="utf-8")
        command = [compiler.cxx, "-std=c++20", *compiler.flags, *extra, str(source), "-o",
                   str(Path(folder, "probe"))]  # fmt: skip
        try:
            done = subprocess.run(command, capture_output=True, timeout=120, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return False
    return done.returncode == 0


def apt_line(packages: Sequence[str]) -> str:
    return f"sudo apt-get install -y {' '.join(packages)}"


def choose_compiler(tree: Path, sanitizers: Sequence[str], who: str) -> Compiler:
    """The first candidate that compiles what `tree` includes with the sanitizers asked for;
    a ToolchainError names the apt line that brings one."""
    headers = needed_headers(tree / "src" if (tree / "src").is_dir() else tree)
    extra = sanitizer_flags(sanitizers)
    tried = candidates()
    for compiler in tried:
        if compiles(compiler, headers, extra):
            return compiler
    needs = [f"<{h}>" for h in headers] + [f"-fsanitize={s}" for s in sanitizers]
    if os.environ.get("CXX"):
        raise ToolchainError(
            f"{who}: the compiler CXX={os.environ['CXX']} cannot build {' '.join(needs)}; "
            "unset CXX to let sphinxfuzz choose one, or name another"
        )
    packages = [*CLANG_PACKAGES, *([CLANG_SANITIZER_PACKAGE] if sanitizers else []),
                *([] if shutil.which("ccache") else ["ccache"])]  # fmt: skip
    names = ", ".join(c.name for c in tried) or "no C++ compiler on PATH"
    raise ToolchainError(
        f"{who} needs a C++ compiler with {' and '.join(needs) or 'C++20'}; tried {names}. "
        f"Install clang {CLANG_VERSION} with libc++ (Debian/Ubuntu: {apt_line(packages)}), "
        "then build again"
    )


def wheel_cmake() -> Path:
    """The cmake of the PyPI wheel kept in the cache's tools (installed or not yet)."""
    return cache_root().parent / "tools" / "cmake" / "bin" / "cmake"


def install_wheel_cmake(say: object = print) -> str:
    """Install the PyPI `cmake` wheel into its own venv in the cache (once); its cmake."""
    cmake = wheel_cmake()
    if cmake.is_file():
        return str(cmake)
    venv = cmake.parent.parent
    say(f"installing the PyPI cmake wheel into {venv} ...")  # type: ignore[operator]
    for command in ([sys.executable, "-m", "venv", str(venv)],
                    [str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                     "--disable-pip-version-check", "cmake"]):  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            shutil.rmtree(venv, ignore_errors=True)
            lines = (done.stderr or done.stdout).strip().splitlines()
            raise ToolchainError(
                f"cannot install the PyPI cmake wheel ({' '.join(command[-2:])}): "
                f"{lines[-1] if lines else 'failed'}; install a CMake as new as the tree asks"
            )
    return str(cmake)


def newest_wheel_cmake() -> str | None:
    """The newest release of the PyPI `cmake` wheel; None when the index does not answer."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "index", "versions", "cmake",
             "--disable-pip-version-check"],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.search(r"^cmake \(([^)]+)\)", done.stdout, re.MULTILINE)
    return found.group(1) if found else None


# what a sanitizer build links in: its runtime's defaults, so every run of the binary (a
# campaign's, a replay's, ddSMT's, a user's) behaves alike. Leak reports at exit are noise
# for a fuzzer; an allocation too large returns null (the solver's own out-of-memory path)
# instead of a report; UBSan prints the stack of its reports. ASAN_OPTIONS still overrides.
SANITIZER_DEFAULTS = r"""
extern "C" const char* __asan_default_options() {
    return "detect_leaks=0:allocator_may_return_null=1:print_summary=1@SYMBOLIZER@";
}
extern "C" const char* __lsan_default_options() { return "detect_leaks=0"; }
extern "C" const char* __ubsan_default_options() {
    return "print_stacktrace=1:print_summary=1@SYMBOLIZER@";
}
"""


def symbolizer(compiler: Compiler) -> str | None:
    """The llvm-symbolizer beside a clang (its sanitizer runtime names frames with it)."""
    if "clang" not in Path(compiler.cxx).name:
        return None
    version = Path(compiler.cxx).name.rpartition("-")[2]
    for name in (f"llvm-symbolizer-{version}", "llvm-symbolizer"):
        found = shutil.which(name)
        if found:
            return str(Path(found).resolve())
    return None


def sanitizer_defaults(compiler: Compiler, into: Path) -> Path:
    """Compile SANITIZER_DEFAULTS into an object file in `into` for the link."""
    found = symbolizer(compiler)
    text = SANITIZER_DEFAULTS.replace(
        "@SYMBOLIZER@", f":external_symbolizer_path={found}" if found else ""
    )
    source, made = into / "sanitizer_defaults.cpp", into / "sanitizer_defaults.o"
    source.write_text(text, encoding="utf-8")
    done = subprocess.run([compiler.cxx, *compiler.flags, "-c", str(source), "-o", str(made)],
                          capture_output=True, text=True, check=False)  # fmt: skip
    if done.returncode != 0:
        raise ToolchainError(f"{compiler.cxx} cannot compile {source}: {done.stderr.strip()[:300]}")
    return made
