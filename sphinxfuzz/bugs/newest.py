"""The newest release of each solver family: what `bugs refresh` replays a bug on and what
`reduce` takes as the reference that must accept every reduced formula."""

from __future__ import annotations

from sphinxfuzz.errors import InputError
from sphinxfuzz.solvers import BUILTINS, Family, SolverSpecError, parse_specs


class RefreshError(InputError):
    """A `--newest` list that does not parse, or names a family twice."""


def newest_specs(text: str = "") -> dict[Family, str]:
    """Family -> the spec of its newest release: the families' own names (the newest
    installed wheel) unless `text` ("z3@5.4.1;cvc5") names one."""
    chosen: dict[Family, str] = {family: str(family) for family in BUILTINS}
    if not text.strip():
        return chosen
    try:
        specs = parse_specs(text)
    except (SolverSpecError, ValueError) as exc:
        raise RefreshError(f"newest {text!r}: {exc}") from None
    seen: set[Family] = set()
    for spec in specs:
        if spec.family in seen:
            raise RefreshError(f"newest {text!r}: names two {spec.family} solvers, give one")
        seen.add(spec.family)
        chosen[spec.family] = spec.text
    return chosen


def reference_candidates(family: str, newest: dict[Family, str]) -> list[str]:
    """The reference solvers for a bug of `family` (a stored name), in order of preference:
    the newest release of its reference family (an independent reader of SMT-LIB), then
    the newest of the same family (for theories or commands only that family has)."""
    own = Family.read(family)
    found = [newest.get(own.record.reference, ""), newest.get(own, "")]
    return [spec for spec in dict.fromkeys(found) if spec]
