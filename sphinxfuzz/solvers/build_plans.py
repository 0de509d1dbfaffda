"""What a solver build will do, decided before it does it (`solvers build --dry-run` prints
it): the source, the compiler and CMake, the flags, the build folder and the compiler cache.

A build's name is its release (or `git-<commit>` for a checkout) with its marks:
`+assert` for the solver's assertions, `+asan` for AddressSanitizer with UBSan beside it,
`+ubsan` for UBSan alone (`5.4.1+assert+asan`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sphinxfuzz.solvers.families import ASAN_MARK, ASSERT_MARK, UBSAN_MARK, Family
from sphinxfuzz.solvers.toolchains import SANITIZERS, Compiler, ToolchainError, sanitizer_flags

# z3's own switch for its assertions, and no prompt on a violated one (builds.py's docstring)
Z3_ASSERT_FLAGS = ("-DZ3DEBUG", "-DNO_Z3_DEBUGGER")
Z3_OPTIMISE = "-O1"


def read_sanitizers(text: str | None) -> tuple[str, ...]:
    """`address,undefined` -> ("address", "undefined"). AddressSanitizer always brings UBSan
    along: it costs little beside it, and one build then catches both."""
    if not text:
        return ()
    asked = {word.strip() for word in text.split(",") if word.strip()}
    unknown = sorted(asked - set(SANITIZERS))
    if unknown:
        raise ToolchainError(
            f"sanitizers: {', '.join(unknown)} unknown; builds know {', '.join(SANITIZERS)}",
            setting="sanitizers",
        )
    if "address" in asked:
        asked.add("undefined")
    return tuple(s for s in SANITIZERS if s in asked)


# the recipes a family's record names in `build` (`FamilyRecord.build`)
Z3_CMAKE, CVC5_CONFIGURE = "z3-cmake", "cvc5-configure"
RECIPES = (Z3_CMAKE, CVC5_CONFIGURE)


def build_marks(assertions: bool, sanitizers: Sequence[str]) -> str:
    """The marks a build's name carries: `+assert`, `+asan`, `+assert+asan`, `+ubsan`."""
    sanitized = ASAN_MARK if "address" in sanitizers else UBSAN_MARK if sanitizers else ""
    return (ASSERT_MARK if assertions else "") + sanitized


@dataclass(frozen=True)
class BuildPlan:
    family: Family
    name: str  # as specs write it: 5.4.1+assert, git-1a2b3c4+asan
    source: str  # what is built, in words: the sdist, or a folder and its commit
    compiler: Compiler
    cmake: str  # the cmake that configures, and where it comes from
    generator: str
    launcher: str | None  # ccache
    folder: Path  # the cache entry the build becomes
    assertions: bool
    sanitizers: tuple[str, ...]
    cache_dir: str | None = None  # ccache's folder
    cmake_program: str = "cmake"
    notes: tuple[str, ...] = field(default=())

    def cxx_flags(self) -> list[str]:
        """CMAKE_CXX_FLAGS (z3), or configure.sh's switches (cvc5)."""
        if self.family.record.build == CVC5_CONFIGURE:
            sanitized = {"address": "--asan", "undefined": "--ubsan"}
            return ["configure.sh production", *["--assertions"] * self.assertions,
                    *(sanitized[s] for s in self.sanitizers)]  # fmt: skip
        asserts = Z3_ASSERT_FLAGS if self.assertions else ()
        return [*asserts, *self.compiler.flags, *sanitizer_flags(self.sanitizers)]

    def link_flags(self) -> list[str]:
        return [*self.compiler.flags, *sanitizer_flags(self.sanitizers)]

    def lines(self) -> list[str]:
        """The plan as `--dry-run` prints it."""
        z3 = self.family.record.build == Z3_CMAKE
        cache = (
            f"{self.launcher} (objects in {self.cache_dir or 'its default folder'})"
            if self.launcher
            else "none (ccache not installed: every build compiles everything; "
            "Debian/Ubuntu: sudo apt-get install -y ccache)"
        )
        return [
            f"build {self.family}@{self.name}",
            f"  source:    {self.source}",
            f"  compiler:  {self.compiler.name} (C: {self.compiler.cc})",
            f"  cmake:     {self.cmake} (generator {self.generator})",
            f"  flags:     {' '.join(self.cxx_flags())} {Z3_OPTIMISE if z3 else ''}".rstrip(),
            f"  sanitizers: {', '.join(self.sanitizers) or 'none'}",
            f"  folder:    {self.folder}",
            f"  cache:     {cache}",
            *(f"  note:      {note}" for note in self.notes),
        ]
