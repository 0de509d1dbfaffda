"""The options a solver release declares, read from the release itself.

- z3: `z3 -p` prints the global parameters and names the modules; `z3 -pm:MODULE` prints
  each module parameter as `name (type) description (default: value)`. A symbol's choices
  and an unsigned integer's numbered choices (`0 - no solver, 1 - ...`) are read from its
  description: the probe later keeps only the values the release takes.
- a cvc5 wheel: `getOptionNames()` and `getOptionInfo(name)` in a child process under the
  release's own Python (`cvc5_info.py`), with type, default, modes, range and (1.2 on)
  category.
- a cvc5 binary: `--help` (`--name [*]` is a Boolean, `--name=MODE` a mode whose choices
  `--name=help` lists, `--name=N` an integer, "(EXPERTS only)" an expert option) and one
  script of `get-option`s for the defaults. A help text that marks no expert option: the
  options its `--safe-mode=stable` refuses.

A release that says nothing of standings (cvc5 1.1, a binary without marks or safe mode)
takes those this environment's cvc5 wheel gives the same options.

Each option also gets the standing its release marks (`standing.py`).
"""

from __future__ import annotations

import json
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from sphinxfuzz.solvers.families import Family, program_argv
from sphinxfuzz.solvers.options.declaration import LIST_TIMEOUT as LIST_TIMEOUT
from sphinxfuzz.solvers.options.declaration import Declared as Declared
from sphinxfuzz.solvers.options.declaration import Kind as Kind
from sphinxfuzz.solvers.options.declaration import ListingError as ListingError
from sphinxfuzz.solvers.options.standing import (
    Standing,
    cvc5_category_standing,
    z3_description_standing,
)
from sphinxfuzz.solvers.options.yices_help import yices_declared
from sphinxfuzz.solvers.reaper import run_bounded
from sphinxfuzz.solvers.spec import SolverSpec

_MEMORY_MB = 4096


def _run(argv: list[str] | tuple[str, ...], stdin: bytes | None = None) -> str:
    try:
        done = run_bounded(argv, timeout=LIST_TIMEOUT, memory_mb=_MEMORY_MB, stdin=stdin)
    except OSError as exc:
        raise ListingError(f"{' '.join(argv)}: {exc}") from None
    if done.timed_out:
        raise ListingError(f"{' '.join(argv)}: no answer in {LIST_TIMEOUT:.0f} s")
    return done.stdout.decode("utf-8", "replace")


def _text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# -- z3 ------------------------------------------------------------------------------------

_Z3_LINE = re.compile(r"^ {4}(\S+) \(([a-z ]+)\)\s?(.*?)\s*(?:\(default: (.*)\))?$")
_MODULE = re.compile(r"^\[module\] (\w+)")
_NUMBERED = re.compile(r"(?<![\w.])(\d+) ?[-=] ?(?=[A-Za-z])")  # "0 - no solver", "0- eager"
_WORD = re.compile(r"[A-Za-z_][\w-]*")


def _z3_symbol_choices(about: str, default: str | None) -> tuple[str, ...]:
    """The words a symbol's description lists after its last colon ('vsids, chb';
    "'lex' (lexicographic), 'pareto'"), when they include the default."""
    head, colon, listed = about.rpartition(":")
    if not colon:
        listed = about.replace("either", "")
    plain = re.sub(r"\([^)]*\)", "", listed)
    words = [w.strip(" '\"") for w in re.split(r",|\bor\b", plain)]
    choices = tuple(dict.fromkeys(w for w in words if _WORD.fullmatch(w)))
    return choices if default in choices and len(choices) > 1 else ()


def _z3_option(
    name: str, type_name: str, about: str, default: str | None, module: str = ""
) -> Declared:
    standing = z3_description_standing(about, module)
    return replace(_z3_typed(name, type_name, about, default), standing=standing)


def _z3_typed(name: str, type_name: str, about: str, default: str | None) -> Declared:
    if type_name == "bool":
        return Declared(name, Kind.BOOL, default, type_name=type_name)
    if type_name == "unsigned int":
        numbered = tuple(dict.fromkeys(_NUMBERED.findall(about)))
        if len(numbered) > 1 and default in numbered:
            return Declared(name, Kind.ENUM, default, numbered, type_name=type_name)
        return Declared(name, Kind.INT, default, minimum=0, type_name=type_name)
    if type_name == "symbol":
        choices = _z3_symbol_choices(about, default)
        if choices:
            return Declared(name, Kind.ENUM, default, choices, type_name=type_name)
    return Declared(name, Kind.OTHER, default, type_name=type_name)


def parse_z3_parameters(text: str, module: str | None) -> list[Declared]:
    """The parameters of one `z3 -p` (module None: the globals) or `z3 -pm:MODULE` text."""
    found: list[Declared] = []
    about_module = ""  # `[module] sls, description: Experimental ...` speaks for them all
    for line in text.splitlines():
        if _MODULE.match(line):
            if module is None:
                break  # the module list follows the globals
            about_module = line.partition("description:")[2]
            continue
        matched = _Z3_LINE.match(line)
        if matched is None:
            continue
        name, type_name, about, default = matched.groups()
        full = f"{module}.{name}" if module else name
        found.append(_z3_option(full, type_name, about, default, about_module))
    return found


def z3_declared(program: tuple[str, ...]) -> list[Declared]:
    overview = _run([*program, "-p"])
    modules = [m.group(1) for m in map(_MODULE.match, overview.splitlines()) if m]
    if not modules:
        raise ListingError(f"{' '.join(program)}: its parameter overview names no modules")
    found = parse_z3_parameters(overview, None)
    for module in modules:
        found.extend(parse_z3_parameters(_run([*program, f"-pm:{module}"]), module))
    return found


# -- cvc5 ----------------------------------------------------------------------------------

_API_KINDS = {"bool": Kind.BOOL, "int": Kind.INT, "mode": Kind.ENUM}


def _cvc5_rows(python: str, family: Family = Family.CVC5) -> list[dict[str, object]]:
    """The rows the family's info script (`FamilyRecord.info`) prints under `python`."""
    out = _run([python, str(family.record.info_path)])
    try:
        rows = json.loads(out)
    except ValueError:
        raise ListingError(f"{python}: {family} listed no options ({out[:200]!r})") from None
    return list(rows)


def cvc5_api_declared(python: str, family: Family = Family.CVC5) -> list[Declared]:
    """A wheel's options (cvc5's, or another family's info script's), asked of its own
    Python."""
    return api_options(_cvc5_rows(python, family))


def api_options(rows: list[dict[str, Any]]) -> list[Declared]:
    """`cvc5_info.py`'s rows as options. A release before option categories (1.2) says no
    standing: each option takes the one this environment's wheel gives it
    (`newest_cvc5_standings`), else regular."""
    told = any(row.get("category") for row in rows)
    borrowed = {} if told else newest_cvc5_standings()
    found = []
    for row in rows:
        kind = _API_KINDS.get(str(row["type"]), Kind.OTHER)
        name = str(row["name"])
        standing = (cvc5_category_standing(row.get("category")) if told
                    else borrowed.get(name, Standing.REGULAR))  # fmt: skip
        found.append(
            Declared(
                name, kind, _text(row.get("default")),
                tuple(str(m) for m in row.get("modes") or ()),
                row.get("minimum"), row.get("maximum"), str(row["type"]), standing,
            )
        )  # fmt: skip
    return found


@lru_cache(maxsize=1)
def newest_cvc5_standings() -> dict[str, Standing]:
    """The standings this environment's cvc5 wheel (the built-in `cvc5`) gives its options,
    for releases that do not say (cvc5 1.1 has neither categories nor a safe mode): an
    option's standing rarely changes between releases. Empty when the wheel says none."""
    try:
        rows = _cvc5_rows(sys.executable)
    except ListingError:
        return {}
    return {str(row["name"]): cvc5_category_standing(str(row["category"]))
            for row in rows if row.get("category")}  # fmt: skip


_HELP_LINE = re.compile(r"^  --([a-z0-9][a-z0-9-]*)(?:=(\S+))?")
_MODE_LINE = re.compile(r"^\+ (\S+)( \(default\))?")


def parse_cvc5_help(text: str) -> list[tuple[str, str | None, bool]]:
    """(name, argument word or None, marked Boolean `[*]`) of each option `--help` lists."""
    found: list[tuple[str, str | None, bool]] = []
    for line in text.splitlines():
        matched = _HELP_LINE.match(line)
        if matched is not None:
            found.append((matched.group(1), matched.group(2), False))
        elif found and not line.startswith(" "):
            continue
        if found and line.rstrip().endswith("[*]"):
            name, word, _ = found[-1]
            found[-1] = (name, word, True)
    return found


def _cvc5_modes(program: tuple[str, ...], name: str) -> tuple[tuple[str, ...], str | None]:
    """A mode option's choices and default, which `--NAME=help` prints on standard error."""
    try:
        done = run_bounded([*program, f"--{name}=help"], timeout=LIST_TIMEOUT, memory_mb=_MEMORY_MB)
    except OSError as exc:
        raise ListingError(f"{' '.join(program)}: {exc}") from None
    text = (done.stdout + done.stderr).decode("utf-8", "replace")
    modes, default = [], None
    for matched in filter(None, map(_MODE_LINE.match, text.splitlines())):
        modes.append(matched.group(1))
        default = matched.group(1) if matched.group(2) else default
    return tuple(modes), default


_ECHO = "sphinxfuzz-option "


def _cvc5_defaults(program: tuple[str, ...], names: list[str]) -> dict[str, str]:
    """The values `get-option` prints, in one script: each after an echoed name, since a
    value may take several lines or none ("unsupported" counts as none)."""
    script = "".join(f'(echo "{_ECHO}{n}")\n(get-option :{n})\n' for n in names)
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in _run([*program, "--lang=smt2"], stdin=script.encode()).splitlines():
        bare = line.strip().strip('"')  # cvc5 echoes the string with its quotes
        if bare.startswith(_ECHO):
            current = found.setdefault(bare[len(_ECHO) :], [])
        elif current is not None:
            current.append(line.strip())
    return {n: v[0] for n, v in found.items() if len(v) == 1 and v[0] != "unsupported"}


_EXPERT_MARK = "(EXPERTS only)"  # cvc5's help generator appends it to expert options


def cvc5_help_experts(text: str) -> set[str]:
    """The options `--help` marks for experts: the mark ends an option's text, which may
    wrap over several lines (undocumented options are not listed at all)."""
    experts: set[str] = set()
    name, about = None, ""
    for line in [*text.splitlines(), ""]:
        matched = _HELP_LINE.match(line)
        if matched is not None or not line.startswith(" "):
            if name is not None and _EXPERT_MARK in " ".join(about.split()):
                experts.add(name)
            name, about = (matched.group(1), line) if matched is not None else (None, "")
        else:
            about += " " + line
    return experts


_STABLE = "--safe-mode=stable"
_REFUSED_IN_STABLE = "cannot be set in stable mode"  # "expert option X cannot be set ..."
_SAFE_MODE_WORKERS = 2  # processes at once: the machine is shared with the fuzzing


def cvc5_safe_mode_experts(program: tuple[str, ...], options: list[Declared]) -> set[str]:
    """The options a cvc5 binary refuses in its stable safe mode, which refuses exactly the
    expert ones: one run per option (the first refusal ends a run), each set to its default
    or, for a Boolean, to true; none for a release without that mode."""
    script = b"(set-logic ALL)\n(check-sat)\n"

    def said(words: list[str]) -> str:
        try:
            done = run_bounded([*program, _STABLE, "--lang=smt2", *words], stdin=script,
                               timeout=LIST_TIMEOUT, memory_mb=_MEMORY_MB)  # fmt: skip
        except OSError as exc:
            raise ListingError(f"{' '.join(program)}: {exc}") from None
        return (done.stdout + done.stderr).decode("utf-8", "replace")

    if "sat" not in said([]).split():
        return set()  # no stable mode to ask
    words = {
        o.name: f"--{o.name}" if o.kind == Kind.BOOL else f"--{o.name}={o.default}"
        for o in options
        if o.kind == Kind.BOOL or o.default is not None
    }
    with ThreadPoolExecutor(_SAFE_MODE_WORKERS) as pool:
        answers = dict(zip(words, pool.map(lambda w: said([w]), words.values()), strict=True))
    return {name for name, text in answers.items() if _REFUSED_IN_STABLE in text}


def cvc5_binary_declared(program: tuple[str, ...]) -> list[Declared]:
    help_text = _run([*program, "--help"])
    listed = parse_cvc5_help(help_text)
    if not listed:
        raise ListingError(f"{' '.join(program)}: its help text lists no options")
    found = _cvc5_binary_options(program, listed)
    # a help text that marks no expert option: ask the release's stable mode, else the wheel
    experts = cvc5_help_experts(help_text) or cvc5_safe_mode_experts(program, found)
    if not experts:
        borrowed = newest_cvc5_standings()
        experts = {d.name for d in found if borrowed.get(d.name) == Standing.EXPERT}
    return [replace(d, standing=Standing.EXPERT) if d.name in experts else d for d in found]


def _cvc5_binary_options(
    program: tuple[str, ...], listed: list[tuple[str, str | None, bool]]
) -> list[Declared]:
    defaults = _cvc5_defaults(
        program, [n for n, word, _ in listed if word is None or word != "MODE"]
    )
    found = []
    for name, word, boolean in listed:
        if boolean and word is None:
            found.append(Declared(name, Kind.BOOL, defaults.get(name), type_name="bool"))
        elif word == "MODE":
            modes, default = _cvc5_modes(program, name)
            kind = Kind.ENUM if modes else Kind.OTHER
            found.append(Declared(name, kind, default, modes, type_name="mode"))
        elif word == "N":
            found.append(Declared(name, Kind.INT, defaults.get(name), type_name="N"))
        else:
            found.append(Declared(name, Kind.OTHER, defaults.get(name), type_name=word or "flag"))
    return found


def declared_options(spec: SolverSpec) -> list[Declared]:
    """Every option `spec`'s release declares, in its own order."""
    program = program_argv(spec.argv)
    # the shim under a wheel's Python, or a binary: the family's record says how to list
    source = spec.family.record.table_source(shimmed=len(program) > 1)
    try:
        if source == "z3-parameters":
            return z3_declared(program)
        if source == "api":
            return cvc5_api_declared(program[0], spec.family)
        if source == "help":
            return cvc5_binary_declared(program)
        if source == "yices-help":
            return yices_declared(program)
    except ListingError as exc:
        if not spec.guessed:  # a family by name: no guess to mention
            raise
        # a program named by its path: its family is a guess from its file name (a campaign
        # runs it without drawn options, `table.option_tables`)
        raise ListingError(
            f"{exc}; {Path(program[-1]).name} was taken for {spec.family} by its file name",
            setting="options",
        ) from None
    raise ListingError(f"solver {spec.text!r}: sphinxfuzz reads no option list of {spec.family}")
