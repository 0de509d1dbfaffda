"""One mutation step: skeleton of the base script, placeholders filled with generated terms."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from sphinxfuzz.errors import InputError
from sphinxfuzz.mutate.fill import (
    FillReport,
    FreshNames,
    Insertion,
    TermSource,
    adapt,
    symbol_names,
    visible_at,
)
from sphinxfuzz.mutate.logic import (
    declaration_features,
    is_higher_order,
    logic_features,
    needs_widening,
    numerals_to_decimals,
    operators_in,
    real_only,
    rename_symbols,
    reserved_sort_names,
    set_logic_index,
    term_features,
)
from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.mutate.skeleton import Skeleton
from sphinxfuzz.oracle.dialect import for_family
from sphinxfuzz.smtlib import (
    Atom,
    Node,
    Script,
    SList,
    copy_node,
    infer_sorts,
    print_node,
    print_script,
)
from sphinxfuzz.smtlib.infer import TermSite
from sphinxfuzz.smtlib.sorts import Sort

# At most this many placeholders per mutant: enough to change the formula, few enough that
# the seed's structure (what made it interesting) survives.
MAX_PLACEHOLDERS = 4


# (operators, command name -> count) -> options `name=value` the target releases need
NeededOptions = Callable[[set[str], Mapping[str, int]], Sequence[str]]


class MutationError(InputError):
    """The base script has no atom to replace; `cause` is how statistics count it."""

    cause = "nothing to mutate"


class NestedTooDeeply(MutationError):
    """The base script is nested deeper than the mutator's walks read."""

    cause = "nested too deeply"


@dataclass
class Formula:
    """A script to run, printed once for its text and for every family's text."""

    script: Script

    @cached_property
    def printed(self) -> list[str]:
        """Each command printed: once for the text and every family's text."""
        return [print_node(command) for command in self.script.commands]

    @cached_property
    def text(self) -> str:
        return "".join(line + "\n" for line in self.printed)

    def text_for(self, family: str) -> str:
        """The mutant as sent to a solver of `family` (other solvers' lines dropped)."""
        return for_family(self.script, family, self.printed)


@dataclass
class Mutant(Formula):
    seed: Seed
    number: int  # 1 for the first mutant of a seed
    theories: list[str]
    report: FillReport = field(default_factory=FillReport)


def _sym(name: str) -> Atom:
    return Atom(name, "symbol")


def _command(*items: Node) -> SList:
    return SList(list(items))


def mutate(
    base: Seed | Mutant,
    rng: random.Random,
    terms: TermSource,
    *,
    rename_prob: float = 0.8,
    max_placeholders: int = MAX_PLACEHOLDERS,
    theory_options: Mapping[str, Sequence[str]] | None = None,
    theory_weights: Mapping[str, float] | None = None,
    needed_options: NeededOptions | None = None,
    count_weights: Mapping[str, float] | None = None,
) -> Mutant:
    """Make one mutant of `base`: replace a random non-empty subset of its atoms with generated
    terms. Deterministic in `rng` and in what `terms` returns for the seeds it is given.

    `theory_options` maps a theory to the solver options its terms need (`sets-exp=true`):
    a mutant with such terms sets them itself, so only the mutants that need an option get it.
    `theory_weights` makes some theories likelier than others (missing ones weigh 1, zero
    never drawn); without it every theory is equally likely. `needed_options` maps the
    operators of the inserted terms to the options the target releases need for them
    (`solvers.options`). `count_weights` does for the number of atoms replaced (\"1\" to
    \"4\") what `theory_weights` does for theories."""
    try:
        return _mutate(
            base, rng, terms, rename_prob, max_placeholders, theory_options, theory_weights,
            needed_options, count_weights,
        )  # fmt: skip
    except RecursionError:
        # Some real triggers nest thousands of lets; the walks here are recursive by design
        # (clear code for the usual depth), so such a seed is skipped, not fatal.
        seed = base if isinstance(base, Seed) else base.seed
        raise NestedTooDeeply(f"{seed.path}: nested too deeply to mutate") from None


def _uneven(keys: Sequence[str], weights: Mapping[str, float] | None) -> list[float] | None:
    """The draw weights of `keys` (missing ones weigh 1); None when all are even, so that the
    draw keeps rng.choice or rng.randint and the mutants stay as they were."""
    found = [weights.get(k, 1.0) for k in keys] if weights else None
    return None if found is None or all(w == 1.0 for w in found) else found


def _mutate(
    base: Seed | Mutant,
    rng: random.Random,
    terms: TermSource,
    rename_prob: float,
    max_placeholders: int,
    theory_options: Mapping[str, Sequence[str]] | None,
    theory_weights: Mapping[str, float] | None,
    needed_options: NeededOptions | None,
    count_weights: Mapping[str, float] | None,
) -> Mutant:
    seed = base if isinstance(base, Seed) else base.seed
    number = 1 if isinstance(base, Seed) else base.number + 1
    skeleton, names_used = _skeleton(base.script)
    if not skeleton.atoms and skeleton.too_deep is not None:
        raise NestedTooDeeply(skeleton.too_deep)
    if not skeleton.atoms:
        raise MutationError(f"{seed.path}: no atomic formula to replace")
    theories = sorted(terms.theories)
    if not theories:
        raise MutationError("no generator to draw terms from")
    counts = range(1, min(max_placeholders, len(skeleton.atoms)) + 1)
    by_count = _uneven([str(c) for c in counts], count_weights)
    count = rng.choices(counts, by_count)[0] if by_count else rng.randint(1, counts[-1])
    chosen = sorted(rng.sample(range(len(skeleton.atoms)), count))
    script = Script(list(skeleton.commands), base.script.filename)
    # every chosen site found (the lists above it copied) before any is replaced
    fresh: set[int] = set()
    atoms = [skeleton.site_in(script.commands, index, fresh) for index in chosen]
    names = FreshNames(set(names_used))
    filled, pick = _Filled(), _Pick(theories, _uneven(theories, theory_weights), rename_prob)
    # Sites are recorded after their children, so walking the chosen ones backwards meets an
    # enclosing atom before the atoms inside it; those are then skipped (already gone).
    for site in reversed(atoms):
        if not any(_contains(outer, site.node) for outer in filled.replaced):
            filled.fill(site, terms, visible_at(site, skeleton.constants_at), names, rng, pick)
    script = _with_insertions(script, filled, names)
    options = [o for t in sorted(set(filled.theories)) for o in (theory_options or {}).get(t, ())]
    if needed_options is not None and filled.terms:
        options.extend(needed_options(operators_in(filled.terms), {}))
    if options:
        _set_options(script, options)
    return Mutant(script, seed, number, filled.theories, filled.report)


@dataclass(frozen=True)
class _Pick:
    """How a site's generator is drawn, and how often its constants become seed variables."""

    theories: list[str]
    weights: list[float] | None
    rename_prob: float


@dataclass
class _Filled:
    """What filling the chosen sites of one mutant inserted so far."""

    report: FillReport = field(default_factory=FillReport)
    by_command: dict[int, list[SList]] = field(default_factory=dict)  # declarations to insert
    terms: list[Node] = field(default_factory=list)
    theories: list[str] = field(default_factory=list)
    replaced: list[Node] = field(default_factory=list)
    higher_order: bool = False

    def fill(
        self,
        site: TermSite,
        terms: TermSource,
        visible: dict[str, Sort],
        names: FreshNames,
        rng: random.Random,
        pick: _Pick,
    ) -> None:
        """Replace `site` with a generated term of a drawn theory; a term the generator or its
        adaptation rejects leaves the site as it is (counted in the report)."""
        theories, weights = pick.theories, pick.weights
        theory = rng.choices(theories, weights)[0] if weights else rng.choice(theories)
        generator_seed = rng.getrandbits(32)
        try:
            decls, term = terms.generate(theory, generator_seed)
            generated = adapt(decls, term, visible, names, rng, pick.rename_prob)
        except ValueError as exc:
            self.report.rejected.append(f"{theory}: {exc}")
            return
        self.replaced.append(site.node)
        site.parent.items[site.index] = generated.term
        self.by_command.setdefault(site.command, []).extend(generated.declarations)
        self.terms.append(generated.term)
        declared = [*generated.declarations, generated.term]
        self.higher_order = self.higher_order or is_higher_order(declared)
        self.theories.append(theory)
        self.report.insertions.append(Insertion(theory, generated.renamed, generated.fresh))


def _with_insertions(script: Script, filled: _Filled, names: FreshNames) -> Script:
    """`script` (its sites filled) with the inserted declarations before their commands, its
    logic widened to the new terms and models asked for."""
    commands: list[SList] = []
    for index, command in enumerate(script.commands):
        commands.extend(filled.by_command.get(index, ()))
        commands.append(command)
    script = Script(_one_heap(commands), script.filename)
    inserted = [d for decls in filled.by_command.values() for d in decls]
    before = _logic_name(script)
    if filled.higher_order:
        _set_higher_order_logic(script)
    elif filled.terms:
        widen_logic(script, filled.terms, declaration_features(inserted))
    if _logic_name(script) != before:
        # renaming changes lists in place: all but the inserted ones are copied first, the
        # rest shares lists with the skeleton
        keep = {id(node) for node in [*inserted, *filled.terms]}
        script.commands[:] = [copy_node(c, keep) for c in script.commands]
        _rename_reserved_sorts(script, [*inserted, *filled.terms], names)
    _ensure_models(script)
    return script


# The skeletons of the last few bases (a seed and its latest mutant take turns as the base),
# by id of their script, with the script itself: so its id stays its own while kept.
_SKELETONS: dict[int, tuple[Script, Skeleton, frozenset[str]]] = {}
_KEPT_SKELETONS = 4


def _skeleton(base: Script) -> tuple[Skeleton, frozenset[str]]:
    """`base`'s skeleton and symbol names, found once for all the mutants made from it.
    The skeleton shares the base's commands unless its numerals are spelled out as reals,
    which happens in a copy: a base is never changed."""
    kept = _SKELETONS.get(id(base))
    if kept is not None and kept[0] is base:
        return kept[1], kept[2]
    script = base
    if real_only(_logic_name(base)):
        script = Script([copy_node(c) for c in base.commands], base.filename)
        reals_spelled_out(script)
    skeleton = Skeleton.of(script)
    names = frozenset(symbol_names(script))
    while len(_SKELETONS) >= _KEPT_SKELETONS:
        del _SKELETONS[next(iter(_SKELETONS))]
    _SKELETONS[id(base)] = (base, skeleton, names)
    return skeleton, names


def with_needed_options(seed: Seed, needed_options: NeededOptions) -> Seed:
    """The seed with the options its operators and commands need on the target releases
    (a cvc5 binary needs `incremental` for push; mutants inherit them from the seed)."""
    commands = Counter(c.head_name() or "" for c in seed.script.commands)
    options = needed_options(operators_in(list(seed.script.commands)), commands)
    if not options:
        return seed
    script = Script(list(seed.script.commands), seed.script.filename)
    _set_options(script, list(options))
    if len(script.commands) == len(seed.script.commands):
        return seed  # the seed sets them itself
    return replace(seed, script=script, text=print_script(script))


def ready_to_run(script: Script, needed_options: NeededOptions | None = None) -> Script:
    """A copy of a strategy's script as the oracle needs it: models on, a get-model after
    every check-sat, and the options its operators and commands need on the targets."""
    ready = Script(list(script.commands), script.filename)
    _ensure_models(ready)
    if needed_options is not None:
        commands = Counter(c.head_name() or "" for c in ready.commands)
        options = needed_options(operators_in(list(ready.commands)), commands)
        if options:
            _set_options(ready, list(options))
    return ready


def _contains(outer: Node, inner: Node) -> bool:
    if outer is inner:
        return True
    if isinstance(outer, SList):
        return any(_contains(item, inner) for item in outer.items)
    return False


def widen_logic(script: Script, new_terms: list[Node], declared: set[str]) -> None:
    """Every set-logic (a seed may `reset` and name another) that forbids the insertions."""
    indices = [
        i
        for i, c in enumerate(script.commands)
        if c.head_name() == "set-logic"
        and len(c.items) == 2
        and isinstance(c.items[1], Atom)
        and logic_features(c.items[1].name) is not None  # ALL and its kin need no widening
    ]
    if not indices:  # no sorts to infer
        return
    info = infer_sorts(script)
    symbols = info.symbols
    datatypes = {n for n, d in symbols.sorts.items() if d.kind == "datatype"}
    sorts = {n for n, d in symbols.sorts.items() if d.kind == "declared"}
    functions = {
        n
        for n, sigs in symbols.funs.items()
        if any(s.args for s in sigs) and n not in symbols.constructors
    }
    features = term_features(new_terms, info, datatypes, sorts, functions) | declared
    for index in indices:
        logic = script.commands[index].items[1]
        if isinstance(logic, Atom) and needs_widening(logic.name, features):
            script.commands[index] = _command(_sym("set-logic"), _sym("ALL"))


def reals_spelled_out(script: Script) -> None:
    """A real-only logic's numerals are reals (cvc5 reads `3` so under LRA): they become
    decimals before sorts are inferred, so that a mutation and a widened logic see them as
    reals too (under ALL, `(f 0)` for `f` of a Real is an error)."""
    if real_only(_logic_name(script)):
        numerals_to_decimals(script.commands, set())


def _logic_name(script: Script) -> str | None:
    index = set_logic_index(script.commands)
    return None if index is None else script.commands[index].items[1].text  # type: ignore[union-attr]


def _rename_reserved_sorts(script: Script, inserted: list[Node], names: FreshNames) -> None:
    """A widened logic must not turn the seed's own sorts into clashes with built-in ones:
    those are renamed in the seed's commands (the inserted terms mean the built-in ones)."""
    reserved = reserved_sort_names(script.commands)
    if reserved:
        mapping = {name: names.fresh(name) for name in sorted(reserved)}
        rename_symbols(script.commands, mapping, {id(node) for node in inserted})


def _one_heap(commands: list[SList]) -> list[SList]:
    """cvc5 takes one `declare-heap`, before the first assertion: keep the first one there
    (generated heaps are over built-in sorts, declared nowhere else)."""
    heaps = [c for c in commands if c.head_name() == "declare-heap"]
    if not heaps:
        return commands
    rest = [c for c in commands if c.head_name() != "declare-heap"]
    first = next(
        (i for i, c in enumerate(rest) if c.head_name() in ("assert", "check-sat", "push")),
        len(rest),
    )
    return [*rest[:first], heaps[0], *rest[first:]]


def _set_higher_order_logic(script: Script) -> None:
    """Function sorts, lambdas and `@` parse only under an HO_ logic (cvc5), and the default
    logic is not one: such a mutant always names HO_ALL."""
    index = set_logic_index(script.commands)
    command = _command(_sym("set-logic"), _sym("HO_ALL"))
    if index is None:
        script.commands.insert(0, command)
        return
    current = script.commands[index].items[1]
    if not (isinstance(current, Atom) and current.text.startswith("HO_")):
        script.commands[index] = command


def _set_options(script: Script, options: list[str]) -> None:
    """`name=value` options as `(set-option :name value)` at the top (before set-logic, where
    cvc5 wants them), unless the script sets that option already."""
    present = {
        c.items[1].text
        for c in script.commands
        if c.head_name() == "set-option" and len(c.items) >= 2 and isinstance(c.items[1], Atom)
    }
    added: list[SList] = []
    for option in options:
        name, _, value = option.partition("=")
        keyword = ":" + name.strip().lstrip(":")
        if keyword in present:
            continue
        present.add(keyword)
        added.append(
            _command(_sym("set-option"), Atom(keyword, "keyword"), _sym(value.strip() or "true"))
        )
    script.commands[:0] = added


def _ensure_models(script: Script) -> None:
    """Models on, a check-sat present, and a get-model after every check-sat (the oracle
    checks the model of whichever answer disagrees)."""
    commands = [
        c
        for c in script.commands
        if not (
            c.head_name() == "set-option"
            and len(c.items) >= 2
            and isinstance(c.items[1], Atom)
            and c.items[1].text == ":produce-models"
        )
    ]
    commands.insert(
        0, _command(_sym("set-option"), Atom(":produce-models", "keyword"), _sym("true"))
    )
    if not any(
        c.head_name() in ("check-sat", "check-sat-using", "check-sat-assuming") for c in commands
    ):
        commands.append(_command(_sym("check-sat")))
    result: list[SList] = []
    for position, command in enumerate(commands):
        result.append(command)
        if command.head_name() in ("check-sat", "check-sat-using", "check-sat-assuming"):
            following = commands[position + 1] if position + 1 < len(commands) else None
            if following is None or following.head_name() != "get-model":
                result.append(_command(_sym("get-model")))
    script.commands[:] = result
