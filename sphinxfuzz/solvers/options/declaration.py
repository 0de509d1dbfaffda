"""One option as a release declares it (`Declared`), what the listings of every family
(`declared.py`, `yices_help.py`) make; apart from them so that each imports it one way."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from sphinxfuzz.errors import ExternalError
from sphinxfuzz.solvers.options.standing import Standing

LIST_TIMEOUT = 60.0  # seconds for one listing command (cvc5's child imports the wheel)


class Kind(StrEnum):
    BOOL = "bool"
    INT = "int"
    ENUM = "enum"
    OTHER = "other"  # reals, strings, file names: no small set of values


@dataclass(frozen=True)
class Declared:
    """One option as its release declares it; `default` as the solver spells values."""

    name: str
    kind: Kind
    default: str | None = None  # None: the release did not say
    choices: tuple[str, ...] = ()  # an enum's values
    minimum: int | None = None
    maximum: int | None = None
    type_name: str = ""  # the release's own word for the type ("unsigned int", "mode")
    standing: Standing = Standing.REGULAR  # as the release marks it (`standing.py`)


class ListingError(ExternalError):
    """A release whose option list cannot be read."""
