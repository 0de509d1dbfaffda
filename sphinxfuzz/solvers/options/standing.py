"""Where a solver option stands with its maintainers: `default` (no option at all), `regular`
(documented for users) or `expert` (internal, for debugging, experimental). Maintainers take
bugs that need a regular option or none; those needing an expert option they often decline
(z3#3399, #4077; cvc5's safe mode refuses expert options).

A release says it itself (`declared.py` reads it):
- a cvc5 wheel: `getOptionInfo(name)["category"]`, REGULAR/COMMON or EXPERT/UNDOCUMENTED;
- a cvc5 binary: its `--help` lists the expert options apart;
- z3: a parameter's description, `[internal]`, "for debugging", "experimental",
  "preliminary", or its module's ("Non-default parameter settings are not supported"); and a
  run that sets one for debugging may warn "Users should not set ..." (`warned`).
What the solvers do not say is in `standing.json`, each entry with its reason and source.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from sphinxfuzz.solvers.families import Family

NOTES = Path(__file__).with_name("standing.json")


class Standing(StrEnum):
    """Ordered by how far from a plain run: DEFAULT < REGULAR < EXPERT. Comparisons go by
    `rank`, not by the words."""

    DEFAULT = "default"
    REGULAR = "regular"
    EXPERT = "expert"

    @property
    def rank(self) -> int:
        return _RANKS[self.value]

    def __lt__(self, other: object) -> bool:
        return self.rank < _rank(other)

    def __le__(self, other: object) -> bool:
        return self.rank <= _rank(other)

    def __gt__(self, other: object) -> bool:
        return self.rank > _rank(other)

    def __ge__(self, other: object) -> bool:
        return self.rank >= _rank(other)


_RANKS = {"default": 0, "regular": 1, "expert": 2}


def _rank(other: object) -> int:
    if not isinstance(other, Standing):
        raise TypeError(f"a standing compares with a standing, not {other!r}")
    return other.rank


def highest(standings: Iterable[Standing]) -> Standing:
    """The standing of a command line whose options stand at `standings` (DEFAULT: none)."""
    return max(standings, default=Standing.DEFAULT, key=lambda s: s.rank)


# -- what the releases say ------------------------------------------------------------------

# cvc5's option categories (1.2 on): common and regular options are for users
_CVC5_CATEGORIES = {
    "REGULAR": Standing.REGULAR,
    "COMMON": Standing.REGULAR,
    "EXPERT": Standing.EXPERT,
    "UNDOCUMENTED": Standing.EXPERT,
}


def cvc5_category_standing(category: str | None) -> Standing:
    """A cvc5 wheel's `getOptionInfo(name)["category"]` name; a release before categories
    (None) says nothing against the option: regular."""
    if category is None:
        return Standing.REGULAR
    try:
        return _CVC5_CATEGORIES[category.upper()]
    except KeyError:
        raise ValueError(f"unknown cvc5 option category {category!r}") from None


# z3's marks in a parameter's description, as z3 4.8.7 to 5.4.1 write them: "[internal]",
# "(internal parameter)", "debug(ging)", "experimental", "preliminary and not ready for
# general consumption" (sat.euf), "hack for VCC" (nnf.sk_hack), "(broken)" (a value of
# fp.spacer.iuc.arith). "internalize", "internal trace" and "(incomplete)" are no marks.
_Z3_EXPERT = re.compile(
    r"\[internal\]|\binternal parameter\b|\bdebug(?:ging)?\b|\bexperimental\b"
    r"|\bpreliminary\b|\bnot ready\b|\bhack\b|\bbroken\b",
    re.IGNORECASE,
)
# a module's description marks all its parameters the same way: "Experimental Stochastic
# Local Search Solver" (sls, z3 4.x), "Non-default parameter settings are not supported"
# (algebraic); a parameter's own "not supported in incremental mode" is no mark
_Z3_EXPERT_MODULE = re.compile(rf"{_Z3_EXPERT.pattern}|\bnot supported\b", re.IGNORECASE)


def z3_description_standing(description: str, module: str = "") -> Standing:
    """`z3 -pm:MODULE`'s description of one parameter, and its `[module]` line's of the
    module."""
    marked = _Z3_EXPERT.search(description) or _Z3_EXPERT_MODULE.search(module)
    return Standing.EXPERT if marked else Standing.REGULAR


# -- what the solvers do not say ------------------------------------------------------------


@dataclass(frozen=True)
class Note:
    family: Family
    option: str
    standing: Standing
    reason: str
    source: str


@lru_cache(maxsize=4)
def load_notes(path: Path = NOTES) -> tuple[Note, ...]:
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        notes = tuple(
            Note(Family(n["family"]), str(n["option"]), Standing(n["standing"]),
                 str(n["reason"]), str(n["source"]))
            for n in data["options"]
        )  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: unusable option standings: {exc}") from None
    if any(not n.reason.strip() or not n.source.strip() for n in notes):
        raise ValueError(f"{path}: every option standing needs its reason and source")
    return notes


def noted(family: Family) -> dict[str, Note]:
    """The data file's notes of `family`, by option name."""
    return {n.option: n for n in load_notes() if n.family == family}


# -- a command line's options ---------------------------------------------------------------

# cvc5's one-letter options a campaign's own command lines use (`cvc5 --help`)
_CVC5_SHORT = {"-i": "incremental", "-m": "produce-models", "-q": "quiet", "-v": "verbose"}
_Z3_WORD = re.compile(r"^-{0,2}([A-Za-z_][\w.]*)[=:]")  # `smt.core.validate=true`
_CVC5_WORD = re.compile(r"^--(?:no-)?([a-z0-9][a-z0-9-]*)(?:=.*)?$")  # `--no-uf-ho-exp`


def option_name(family: Family, word: str, declared: Mapping[str, object]) -> str | None:
    """The option one command-line word sets, as the release declares it (`declared` holds
    its names), or None when the word sets none of them; read in the option syntax of the
    family's record (`key=value` as z3's, `dashes` as cvc5's)."""
    syntax = family.record.option_syntax
    if syntax == "key=value":
        matched = _Z3_WORD.match(word)
        if matched is None:
            return None
        name = matched.group(1)
        # a global parameter is also a module's (`smt.random_seed`, `random_seed`)
        return name if name in declared else None
    if syntax == "dashes":
        short = _CVC5_SHORT.get(word)
        if short is not None:
            return short if short in declared else None
        matched = _CVC5_WORD.match(word)
        # `--no-x` sets x (no cvc5 option's own name starts with "no-")
        return matched.group(1) if matched and matched.group(1) in declared else None
    return None


def warned(family: Family, stderr: str) -> set[str]:
    """The options a run's standard error says users should not set, by the warning of the
    family's record (z3 warns when a parameter for debugging is set and used: "WARNING:
    Users should not set smt.core.validate. This option is for debugging only.")."""
    pattern = family.record.expert_warning
    return set(re.findall(pattern, stderr)) if pattern else set()


def command_standing(
    family: Family,
    words: Sequence[str],
    standings: Mapping[str, Standing],
    warnings: Collection[str] = (),
) -> Standing | None:
    """The standing of option `words` on a release whose options stand at `standings`
    (`release_standings`), an option the run warned against (`warned`) expert: the highest
    of them; DEFAULT for none; None when a word sets no option the release declares and none
    of the others is expert."""
    found, unknown = [], False
    for word in words:
        name = option_name(family, word, standings)
        if name is None:
            unknown = True
        else:
            found.append(Standing.EXPERT if name in warnings else standings[name])
    top = highest(found)
    if unknown and top != Standing.EXPERT:
        return None
    return top


def standing_digest(path: Path = NOTES) -> str:
    """Of what standings are read by, the data file and the marks above: a table made under
    others has its standings read again (`table.load_table`)."""
    marks = [_Z3_EXPERT.pattern, _Z3_EXPERT_MODULE.pattern, sorted(_CVC5_CATEGORIES.items())]
    digest = hashlib.sha256(path.read_bytes())
    digest.update(json.dumps(marks).encode("utf-8"))
    return digest.hexdigest()[:16]


class Marked(Protocol):
    """An option as its release declares it (`declaration.Declared`, which imports this module:
    named here by shape, not by import)."""

    @property
    def name(self) -> str: ...

    @property
    def standing(self) -> Standing: ...


def standings_of(family: Family, declared: Iterable[Marked]) -> dict[str, Standing]:
    """Each declared option's standing: as its release marks it, unless the data file notes
    otherwise."""
    notes = noted(family)
    return {d.name: notes[d.name].standing if d.name in notes else d.standing for d in declared}
