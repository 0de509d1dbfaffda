"""Solver options a campaign sets per seed position (the `options` setting):

- `none` (or ""): every target runs as its spec says;
- `random` (the default) or `random:K`: each position draws up to K options (3 by default)
  for each target whose family has option tables (`solvers.options.table`), from
  `rng_for(campaign_seed, position, "options")`, each with one of its probed values, among
  the options that can act on the position's seed (`solvers.options.relevance`: no string
  options for a bit-vector seed);
- `z3: smt.arith.solver=2; cvc5: --nl-ext-tplanes`: the same options on every target of
  each family named, for every position;
- `compare` or `compare:K`: each target runs plain and, beside it, with the options `random`
  draws at that position (the same draw): a differential of one solver against itself that
  needs no second family. The copy is one more target, named as `solvers.parse_specs` names
  the stored command lines again (`z3#2` beside `z3`), so it is judged as a version
  differential is: an `unknown` is never a verdict, sat against unsat is settled by the
  model check (or the expected answer and the doubt gate), and replay, reduce and bisect
  run the same two command lines.

The options of a position go on the targets' command lines (`solvers.spec.with_options`), so
every result carries them in its spec and every stored bug, replay, reduction and bisection
runs the same command. The targets keep long-lived processes all the same: a position's
command line retires the last one (`campaign.solver_calls.SolverCalls`), so its mutants share one
start. A release whose table says it honours options only by `set-option`
gets none drawn (z3 and cvc5 releases so far all take them on the command line).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sphinxfuzz.campaign.rngs import rng_for
from sphinxfuzz.solvers import Family, SolverSpec, parse_specs
from sphinxfuzz.solvers.options.probe import option_words
from sphinxfuzz.solvers.options.relevance import load_relevance, relevant
from sphinxfuzz.solvers.options.table import OptionTable, option_tables
from sphinxfuzz.solvers.spec import with_options


@dataclass(frozen=True)
class OptionPlan:
    """The `options` setting, read (`config_text.read_options`)."""

    drawn: int = 0  # up to this many options per target and position (random mode)
    fixed: dict[Family, tuple[str, ...]] = field(default_factory=dict)  # command-line words
    compare: bool = False  # each target also runs plain, beside its drawn options


class PositionOptions:
    """The targets' specs of each position, with the options the plan gives them."""

    def __init__(
        self, plan: OptionPlan, specs: Sequence[SolverSpec], campaign_seed: int,
        tables: dict[str, OptionTable],
    ) -> None:  # fmt: skip
        self.plan, self.specs, self.campaign_seed, self.tables = (
            plan,
            list(specs),
            campaign_seed,
            tables,
        )

    @classmethod
    def prepare(
        cls, plan: OptionPlan, specs: Sequence[SolverSpec], campaign_seed: int,
        say: Callable[[str], None] | None = None,
    ) -> PositionOptions:  # fmt: skip
        """`plan` with the option tables random draws need (read from the cache, built
        first for a release that has none, saying so to `say`)."""
        tables: dict[str, OptionTable] = {}
        if plan.drawn:
            tables = option_tables(specs, say)
        return cls(plan, specs, campaign_seed, tables)

    def words(self, position: int, text: str | None = None) -> dict[str, tuple[str, ...]]:
        """Target name -> the command-line words of its options at `position`, drawn among
        those that can act on a seed of `text` (`solvers.options.relevance`; any, None)."""
        if self.plan.fixed:
            return {s.name: self.plan.fixed.get(s.family, ()) for s in self.specs}
        if not self.plan.drawn:
            return {s.name: () for s in self.specs}
        rng = rng_for(self.campaign_seed, position, "options")
        found: dict[str, tuple[str, ...]] = {}
        for spec in self.specs:  # in spec order, so each draw has a fixed place
            table = self.tables.get(spec.name)
            if table is None or not table.options or table.delivery != "argv":
                found[spec.name] = ()
                continue
            options = relevant(table, text)
            count = rng.randint(0, min(self.plan.drawn, len(options)))
            chosen = rng.sample(options, count)
            # a pair the release refuses loses its later option (the draws stay the same)
            kept = set(load_relevance().compatible(spec.family, [o.name for o in chosen]))
            values = [rng.choice(o.values) for o in chosen]
            settings = [(o.name, v) for o, v in zip(chosen, values, strict=True) if o.name in kept]
            found[spec.name] = option_words(spec.family, settings)
        return found

    def plain(self, specs: Sequence[SolverSpec], refused: set[str]) -> list[SolverSpec]:
        """`specs` with the targets named in `refused` as the campaign gives them, without
        the position's options (a compared copy, nothing but those options, leaves)."""
        given = {s.name: s for s in self.specs}
        return [
            given[s.name] if s.name in refused and s.name in given else s
            for s in specs
            if s.name in given or s.name not in refused
        ]

    def extra_words(self, spec: SolverSpec) -> tuple[str, ...]:
        """The words `spec`'s command line has beyond the campaign's own (a compared copy's:
        beyond the target it copies)."""
        ordered = sorted(self.specs, key=lambda s: s.name != spec.name)
        for given in ordered:
            if given.family is spec.family and spec.argv[: len(given.argv)] == given.argv:
                return spec.argv[len(given.argv) :]
        return ()

    def specs_for(
        self, position: int, served: Sequence[SolverSpec] | None = None, text: str | None = None
    ) -> list[SolverSpec]:
        """The targets at `position` (those of `served`, every one by default) with their
        options for the seed of `text`; comparing, each plain and then the optioned copies, named as `parse_specs`
        names their command lines (the stored bug's names, whichever targets it ran)."""
        words = self.words(position, text)
        names = {s.name for s in (self.specs if served is None else served)}
        chosen = [s for s in self.specs if s.name in names]
        if not self.plan.compare:
            return [with_options(s, words[s.name]) for s in chosen]
        copies = [with_options(s, words[s.name]) for s in chosen if words[s.name]]
        if not copies:
            return chosen
        named = parse_specs(";".join(s.text for s in (*chosen, *copies)))
        return [*chosen, *named[len(chosen) :]]
