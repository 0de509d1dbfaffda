"""The options a reduced bug needs: each option word of the solvers its check runs is left
out in turn, and stays out when the check still finds the bug (`oracle.same_bug.check_options`:
the test ddSMT ran on every candidate, on other command lines).

`reduce` does this after ddSMT, on the reduced formula: each try is one cheap check on the
small formula, and an option the original needed only for parts ddSMT removed goes too. The
formula is not reduced again afterwards (an option left out rarely lets ddSMT cut more, and
the result is checked as a whole: formula and kept options).

Then the bug is tried at a lower standing (`solvers.options.standing`): the blamed solver with
no option at all, then with its regular options only. Maintainers take a bug under default or
regular options; one under an expert option they often decline. `bug_standing` tells the
standing a stored bug needs, reduced or not.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from sphinxfuzz.bugs.option_use import added_options, solver_texts
from sphinxfuzz.bugs.record import BugRecord, Reduction, load_reduction
from sphinxfuzz.bugs.store import Store, StoreError
from sphinxfuzz.errors import SphinxfuzzError
from sphinxfuzz.oracle import Verdict
from sphinxfuzz.oracle.same_bug import CheckSpec, check_options
from sphinxfuzz.solvers import Family, SolverResult, SolverSpec, parse_specs
from sphinxfuzz.solvers.families import program_argv
from sphinxfuzz.solvers.options.standing import Standing, command_standing, highest, warned
from sphinxfuzz.solvers.options.table import release_standings

# what counts as an option word after the program: `-x`, `--x[=v]` (cvc5, yices), `a.b=v`
# (z3); not a script a stand-in's interpreter runs
_OPTION = re.compile(r"-\S+|[\w.]+=\S*")


@dataclass(frozen=True)
class Dropped:
    spec: CheckSpec  # the check with only the needed options
    verdict: Verdict  # the bug, found with them
    results: list[SolverResult]  # the solvers' runs that found it
    words: tuple[str, ...]  # "name: word" for every option left out


def option_words(text: str) -> list[int]:
    """Indexes (into `shlex.split(text)`) of the option words of one spec text."""
    return _option_indexes(shlex.split(text))


def _option_indexes(words: Sequence[str]) -> list[int]:
    """Indexes of the option words of a command line's words (those after its program)."""
    start = len(program_argv(tuple(words)))
    return [i for i in range(start, len(words)) if _OPTION.fullmatch(words[i])]


def drop_options(
    spec: CheckSpec, text: str, verdict: Verdict, results: Sequence[SolverResult]
) -> Dropped:
    """`spec` without the option words of its run solvers that the bug on `text` does not
    need, one word at a time, in spec order (a flaky try keeps its word: never a wrong drop).
    `verdict` and `results` are the check's on `text` with every option."""
    names = [s.name for s in parse_specs(";".join(spec.solvers))]
    solvers, dropped = list(spec.solvers), list[str]()
    found, runs = verdict, list(results)
    for index, name in enumerate(names):
        if name not in spec.run:
            continue
        words, gone = shlex.split(solvers[index]), []
        for position in reversed(option_words(solvers[index])):  # indexes stay valid
            kept = words[:position] + words[position + 1 :]
            trial = [*solvers[:index], shlex.join(kept), *solvers[index + 1 :]]
            again, trial_runs = check_options(replace(spec, solvers=tuple(trial)), text)
            if again is None:
                continue
            gone.append(f"{name}: {words[position]}")
            solvers, words, found, runs = trial, kept, again, trial_runs
        dropped.extend(reversed(gone))
    return Dropped(replace(spec, solvers=tuple(solvers)), found, runs, tuple(dropped))


# -- standing ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Lowered:
    dropped: Dropped  # the check at the lowest standing that shows the bug
    standing: Standing | None  # None: the release did not tell


def _blamed(spec: CheckSpec) -> tuple[int, SolverSpec] | None:
    for index, solver in enumerate(parse_specs(";".join(spec.solvers))):
        if solver.name == spec.solver:
            return index, solver
    return None


def lower_standing(
    spec: CheckSpec,
    text: str,
    dropped: Dropped,
    standings: Mapping[str, Standing] | None = None,
) -> Lowered:
    """After `drop_options` (`dropped`, from `spec`): the bug on `text` with the blamed solver
    under no option at all, else under the regular options of `spec` (not only those the
    drop kept: dropping one word at a time can keep an expert option where a regular one
    would do), less those it does not need; the lowest standing that still shows it.
    `standings` are the blamed release's (read when None; unreadable: only the first try)."""
    found = _blamed(dropped.spec)
    if found is None:
        return Lowered(dropped, None)
    index, solver = found
    kept = shlex.split(dropped.spec.solvers[index])
    options = [kept[p] for p in option_words(dropped.spec.solvers[index])]
    if not options:
        return Lowered(dropped, Standing.DEFAULT)
    if standings is None:
        standings = _standings(solver.family, solver.argv)
    said = warned(
        solver.family, "".join(r.stderr for r in dropped.results if r.spec.name == solver.name)
    )
    now = (None if standings is None
           else command_standing(solver.family, options, standings, said))  # fmt: skip
    plain = _without(dropped.spec, index, lambda word: True)
    again, runs = check_options(plain, text)
    if again is not None:
        gone = tuple(f"{solver.name}: {word}" for word in options)
        return Lowered(Dropped(plain, again, runs, (*dropped.words, *gone)), Standing.DEFAULT)
    if standings is None or now != Standing.EXPERT:
        return Lowered(dropped, now)
    original = shlex.split(spec.solvers[index])
    experts = [original[p] for p in option_words(spec.solvers[index])
               if command_standing(solver.family, [original[p]], standings, said)
               == Standing.EXPERT]  # fmt: skip
    regular = _without(spec, index, lambda word: word in experts)
    if regular.solvers[index] == spec.solvers[index]:
        return Lowered(dropped, now)
    again, runs = check_options(regular, text)
    if again is None:
        return Lowered(dropped, now)
    lower = drop_options(regular, text, again, runs)
    gone = tuple(f"{solver.name}: {word}" for word in experts)
    line = lower.spec.solvers[index]
    left = [shlex.split(line)[p] for p in option_words(line)]
    standing = command_standing(solver.family, left, standings, said)
    return Lowered(replace(lower, words=(*gone, *lower.words)), standing)


def _raised(reduction: Reduction, stored: Standing) -> Standing:
    """A reduction's `stored` standing, raised to what today's standings make of the options
    the blamed solver kept (a mark the standing rules learnt since, `sat.euf`'s
    "preliminary"); never lowered: a warning of the reducing run may have raised it."""
    summary = next((r for r in reduction.results if r.name == reduction.verdict.solver), None)
    if summary is None or not summary.argv:
        return stored
    family, argv = Family.read(summary.family), tuple(summary.argv)
    words = [argv[i] for i in _option_indexes(argv)]
    standings = _standings(family, argv)
    now = None if standings is None else command_standing(family, words, standings)
    return stored if now is None else highest([stored, now])


def _without(spec: CheckSpec, index: int, leave_out: Callable[[str], bool]) -> CheckSpec:
    """`spec` with the option words of solver `index` that `leave_out` picks left out."""
    words = shlex.split(spec.solvers[index])
    gone = {p for p in option_words(spec.solvers[index]) if leave_out(words[p])}
    solvers = list(spec.solvers)
    solvers[index] = shlex.join(w for i, w in enumerate(words) if i not in gone)
    return replace(spec, solvers=tuple(solvers))


def _standings(family: Family, argv: tuple[str, ...]) -> Mapping[str, Standing] | None:
    """A release's standings (`argv` is a command line of it), read once per process and
    release: `bugs list` asks for every bug."""
    return _release_standings(family, program_argv(argv))


@lru_cache(maxsize=32)
def _release_standings(family: Family, program: tuple[str, ...]) -> Mapping[str, Standing] | None:
    spec = SolverSpec(" ".join(program), str(family), family, program)
    try:
        return release_standings(spec)
    except (SphinxfuzzError, OSError, ValueError):
        return None


def campaign_specs(root: Path) -> list[str]:
    """The spec texts of the campaign's `solvers` setting, as its stored bugs start them."""
    with Store(root, read_only=True) as store:  # `bugs list` beside a running campaign
        config = store.config() or {}
    return solver_texts(str(config.get("solvers", "")))


def bug_standing(record: BugRecord, specs: Sequence[str] | None = None) -> Standing | None:
    """The standing a stored bug needs: its reduction's when reduced, else that of the options
    its blamed solver ran with beyond the campaign's spec (`specs`, read from the campaign
    when None); None when that cannot be told (no blamed solver, a spec the campaign no
    longer names, a release that does not say)."""
    reduction = load_reduction(record.folder)
    if reduction is not None and reduction.standing is not None:
        return _raised(reduction, reduction.standing)
    summary = record.summary_of(record.verdict.solver)
    if summary is None:
        return None
    if specs is None:
        try:
            specs = campaign_specs(record.folder.parent.parent)  # root/bugs/<id>
        except StoreError:
            return None
    if not any(summary.spec == s or summary.spec.startswith(s + " ") for s in specs):
        return None
    words = [o.split(" ", 1)[1] for o in added_options(replace(record, solvers=[summary]), specs)]
    if not words:
        return Standing.DEFAULT
    family = Family.read(summary.family)
    standings = _standings(family, tuple(summary.argv))
    if standings is None:
        return None
    said = warned(family, record.output(summary.name, "stderr"))
    return command_standing(family, words, standings, said)
