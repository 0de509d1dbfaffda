"""The options a reduced bug needs: each option word of the solvers its check runs is left
out in turn, and stays out when the check still finds the bug (`oracle.interesting.check`,
the test ddSMT ran on every candidate).

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from sphinxfuzz.bugs.option_use import added_options, solver_texts
from sphinxfuzz.bugs.record import BugRecord, load_reduction
from sphinxfuzz.bugs.store import Store, StoreError
from sphinxfuzz.errors import SphinxfuzzError
from sphinxfuzz.oracle import Verdict
from sphinxfuzz.oracle.interesting import CheckSpec, check
from sphinxfuzz.solvers import Family, SolverResult, SolverSpec, parse_specs
from sphinxfuzz.solvers.families import program_argv
from sphinxfuzz.solvers.options.standing import Standing, command_standing
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
    words = shlex.split(text)
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
            # the formula is the one already checked: the references read it already
            again, trial_runs = check(replace(spec, solvers=tuple(trial), parsers=()), text)
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
    """After `drop_options`: the bug on `text` with the blamed solver under no option at all,
    else under its regular options only; the lowest that still shows it. `standings` are the
    blamed release's (`release_standings`, read when None; unreadable: only the first try)."""
    found = _blamed(dropped.spec)
    if found is None:
        return Lowered(dropped, None)
    index, solver = found
    positions = option_words(dropped.spec.solvers[index])
    if not positions:
        return Lowered(dropped, Standing.DEFAULT)
    if standings is None:
        standings = _standings(solver.family, solver.argv)
    words = shlex.split(dropped.spec.solvers[index])
    options = [words[p] for p in positions]
    now = None if standings is None else command_standing(solver.family, options, standings)
    tries = [(Standing.DEFAULT, set(positions))]
    if standings is not None:
        expert = {p for p in positions if _expert(solver.family, words[p], standings)}
        if expert and len(expert) < len(positions):
            tries.append((Standing.REGULAR, expert))
    for standing, left_out in tries:
        if now is not None and now <= standing:
            break  # already there
        kept = [w for i, w in enumerate(words) if i not in left_out]
        solvers = list(dropped.spec.solvers)
        solvers[index] = shlex.join(kept)
        trial = replace(dropped.spec, solvers=tuple(solvers))
        again, runs = check(replace(trial, parsers=()), text)
        if again is None:
            continue
        gone = tuple(f"{solver.name}: {words[i]}" for i in sorted(left_out))
        return Lowered(Dropped(trial, again, runs, (*dropped.words, *gone)), standing)
    return Lowered(dropped, now)


def _expert(family: Family, word: str, standings: Mapping[str, Standing]) -> bool:
    return command_standing(family, [word], standings) == Standing.EXPERT


@lru_cache(maxsize=32)
def _standings(family: Family, argv: tuple[str, ...]) -> Mapping[str, Standing] | None:
    """A release's standings, read once per process (`bugs list` asks for every bug)."""
    spec = SolverSpec(" ".join(argv), str(family), family, argv)
    try:
        return release_standings(spec)
    except (SphinxfuzzError, OSError, ValueError):
        return None


def campaign_specs(root: Path) -> list[str]:
    """The spec texts of the campaign's `solvers` setting, as its stored bugs start them."""
    with Store(root) as store:
        config = store.config() or {}
    return solver_texts(str(config.get("solvers", "")))


def bug_standing(record: BugRecord, specs: Sequence[str] | None = None) -> Standing | None:
    """The standing a stored bug needs: its reduction's when reduced, else that of the options
    its blamed solver ran with beyond the campaign's spec (`specs`, read from the campaign
    when None); None when that cannot be told (no blamed solver, a spec the campaign no
    longer names, a release that does not say)."""
    reduction = load_reduction(record.folder)
    if reduction is not None and reduction.standing is not None:
        return reduction.standing
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
    return None if standings is None else command_standing(family, words, standings)
