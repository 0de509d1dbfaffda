"""Solver versions, asked once per command line, the key a release's caches are filed under
(`cache_key`), and the digest of how a cached probe answer was made (`probe_digest`)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from sphinxfuzz.solvers.families import (
    UNKNOWN_VERSION,
    options_argv,
    printed_version,
    program_argv,
)
from sphinxfuzz.solvers.reaper import run_bounded
from sphinxfuzz.solvers.spec import SolverSpec

VERSION_TIMEOUT = 5.0  # seconds; a solver that hangs on --version has UNKNOWN_VERSION
# A first line without a version number is kept as the version, cut here: it travels in every
# result and stored bug (a hostile solver printed a first line of 20 MB).
VERSION_CHARS = 200
# What of a version may appear in a cache file's name; anything else (a path, a long or odd
# line) is named by `cache_key` alone, which digests it.
_NAMEABLE = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+-]{0,39}")


@lru_cache(maxsize=64)
def _version_of(program: tuple[str, ...]) -> str:
    try:
        done = run_bounded([*program, "--version"], timeout=VERSION_TIMEOUT, memory_mb=4096)
    except OSError:
        return UNKNOWN_VERSION
    if done.timed_out:
        return UNKNOWN_VERSION
    text = (done.stdout or done.stderr).decode("utf-8", "replace").strip()
    first = text.splitlines()[0] if text else ""
    return printed_version(first) or first[:VERSION_CHARS] or UNKNOWN_VERSION


def solver_version(spec: SolverSpec) -> str:
    """The version number the solver reports (options of the spec are left out: they can
    change nothing about the version, and `--version` must come alone)."""
    return _version_of(program_argv(spec.argv))


def cache_key(spec: SolverSpec, words: Sequence[str] | None = None) -> str:
    """A short digest naming what a release's cached facts (its option table, capabilities,
    probe answers) depend on: family, version, the program's files by content, and `words`
    (default: the spec's options). By content, not path: every virtual environment installs
    the same z3 binary and cvc5 shim at a path of its own (CI makes one a run), and each new
    path used to cost a rebuild of every cache and leave the old files behind."""
    program = [_content(word) for word in program_argv(spec.argv)]
    rest = list(options_argv(spec.argv) if words is None else words)
    key = json.dumps([str(spec.family), solver_version(spec), program, rest])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def cache_name(spec: SolverSpec, words: Sequence[str] | None = None) -> str:
    """The file name of a release's cached facts in their folder: family, the version when
    it is a plain release number (what the solver printed never makes a path or an over-long
    name), then `cache_key`, which digests the version whatever it is."""
    version = solver_version(spec)
    shown = f"{version}-" if _NAMEABLE.fullmatch(version) else ""
    return f"{spec.family}-{shown}{cache_key(spec, words)}.json"


# The fields of a family's record a probe's runs depend on: how it enters the incremental
# mode a probe's push scopes need, its check-sat limit, and how its output is read
# (`solvers.classify`). A cached probe answer made under other values is asked again.
PROBE_FIELDS = (
    "incremental", "check_limit", "error_exits", "error_prefix", "crash_messages",
    "crash_on_stdout",
)  # fmt: skip


def probe_digest(spec: SolverSpec, rules: object) -> str:
    """What a cached probe answer about `spec` was made by: the probing code's `rules` (its
    version and limits, JSON data) and `PROBE_FIELDS` of the family's record. Stored beside
    the answers and compared when they are read (the idea of the option tables' rules
    digest): a probe changed since is run again, once, without anyone deleting a file."""
    record = spec.family.record
    fields = {name: getattr(record, name) for name in PROBE_FIELDS}
    made = json.dumps([rules, fields], sort_keys=True, default=_sorted)
    return hashlib.sha256(made.encode("utf-8")).hexdigest()[:16]


def _sorted(value: object) -> object:
    """A set as a sorted list (JSON has none, and a set's order changes between runs)."""
    if isinstance(value, frozenset | set):
        return sorted(value, key=str)
    return str(value)


def _content(word: str) -> str:
    """A file's content digest (a program, an interpreter, a shim), else the word itself."""
    path = Path(word)
    try:
        resolved = path.resolve(strict=True)
        stat = resolved.stat()
    except (OSError, RuntimeError):
        return word
    if not resolved.is_file():
        return word
    return _digest(str(resolved), stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=64)
def _digest(path: str, size: int, mtime_ns: int) -> str:
    """(size and time only key the cache: a file rewritten in place is read again)"""
    try:
        with open(path, "rb") as file:
            return "sha256:" + hashlib.file_digest(file, "sha256").hexdigest()
    except OSError:
        return path
