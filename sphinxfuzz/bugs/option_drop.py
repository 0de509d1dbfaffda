"""The options a reduced bug needs: each option word of the solvers its check runs is left
out in turn, and stays out when the check still finds the bug (`oracle.interesting.check`,
the test ddSMT ran on every candidate).

`reduce` does this after ddSMT, on the reduced formula: each try is one cheap check on the
small formula, and an option the original needed only for parts ddSMT removed goes too. The
formula is not reduced again afterwards (an option left out rarely lets ddSMT cut more, and
the result is checked as a whole: formula and kept options).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sphinxfuzz.oracle import Verdict
from sphinxfuzz.oracle.interesting import CheckSpec, check
from sphinxfuzz.solvers import SolverResult, parse_specs
from sphinxfuzz.solvers.families import program_argv

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
