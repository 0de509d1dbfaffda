"""Which solvers check a theory's terms: the one helper `build-generators` and
`generators validate` share."""

from __future__ import annotations

from collections.abc import Iterable

from sphinxfuzz.generators.theory_docs import TheoryDoc
from sphinxfuzz.solvers import BUILTINS, Family, SolverSpec, parse_specs


def builtin_families(families: Iterable[str]) -> tuple[str, ...]:
    """The families of `families` that have a built-in solver, in their order."""
    return tuple(family for family in families if family in BUILTINS)


def spec_text_for(families: Iterable[str], doc: TheoryDoc | None) -> str:
    """The solver specs that check a theory: each family's built-in solver, with the options
    the theory's document says it needs when its record takes them (`theory_options`), in
    its option syntax (cvc5's `sets-exp=true` -> `--sets-exp=true`)."""
    parts = []
    for family in families:
        record = Family.read(family).record
        if record.theory_options and doc is not None and doc.options:
            dashes = "--" if record.option_syntax == "dashes" else ""
            parts.append(" ".join([family, *(dashes + option for option in doc.options)]))
        else:
            parts.append(family)
    return ";".join(parts)


def solvers_for_theory(families: Iterable[str], doc: TheoryDoc | None) -> list[SolverSpec]:
    """The built-in solvers of `families` (a generator's SOLVERS or a document's `solvers:`),
    with the options the theory's document asks for; empty when none is built in."""
    return parse_specs(spec_text_for(builtin_families(families), doc))
