"""Skeletons: the atoms of a script's assertions, the places a placeholder may go.

An atom is a Bool-sorted term whose head is not a Boolean connective (`not and or => xor`,
a Bool `ite`, `=`/`distinct` over Bool). Binders (`let`, quantifiers, `!`, `match`) are
structure, not atoms: the search goes through them, so atoms under them are found with the
bound variables in scope.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sphinxfuzz.smtlib import Atom, Node, Script, SList, infer_sorts
from sphinxfuzz.smtlib.infer import SortInfo, TermSite
from sphinxfuzz.smtlib.sorts import BOOL, Sort

_CONNECTIVES = {"not", "and", "or", "=>", "xor", "ite", "implies", "iff", "if"}
_STRUCTURE = {"let", "forall", "exists", "!", "match", "lambda"}
_EQUALITIES = {"=", "distinct"}


def is_atom(site: TermSite, info: SortInfo) -> bool:
    if site.sort != BOOL:
        return False
    node = site.node
    if isinstance(node, Atom):
        return node.kind == "symbol"  # a Bool constant or variable
    head = node.head_name()
    if head in _CONNECTIVES or head in _STRUCTURE:
        return False
    if head in _EQUALITIES:
        # `=` over Bool is a connective (iff); over other sorts it is an atom
        return info.sort_of(node.items[1]) != BOOL if len(node.items) > 1 else False
    return True


def find_atoms(script: Script) -> tuple[list[TermSite], SortInfo]:
    """The atom sites of every `assert` of `script` (in order), with the inference result."""
    info = infer_sorts(script, collect_sites=True)
    assert info.sites is not None
    commands = script.commands
    atoms = [
        site
        for site in info.sites
        if commands[site.command].head_name() == "assert" and is_atom(site, info)
    ]
    if any(_names_a_term(c) for c in commands if c.head_name() == "assert"):
        # replacing an atom that holds `(! t :named n)` would drop n, which other
        # assertions (or get-unsat-core) may use: such atoms stay
        atoms = [site for site in atoms if not _names_a_term(site.node)]
    return atoms, info


def _names_a_term(node: Node) -> bool:
    # a plain stack, not `walk`: this reads every assertion of each mutant that becomes a base
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, SList):
            items = current.items
            if current.head_name() == "!" and any(
                isinstance(item, Atom) and item.text == ":named" for item in items
            ):
                return True
            stack.extend(items)
    return False


def command_of(script: Script, site: TermSite) -> SList:
    return script.commands[site.command]


@dataclass(frozen=True)
class Skeleton:
    """A script's atoms found once, for many mutants of it: each mutant copies the lists on
    the way to the atoms it fills and shares the rest (`commands` are never changed
    themselves), finding the atoms by position (`site_in`) without inferring sorts again."""

    commands: tuple[SList, ...]
    atoms: tuple[TermSite, ...]  # sites in `commands`
    constants_at: dict[int, dict[str, Sort]]  # `SortInfo.constants_at`
    too_deep: str | None  # `SortInfo.too_deep`: atoms past it were not found
    # per command some mutant filled: id of each list in it -> (its parent, its index there);
    # noted when first needed (a mutant fills few commands, a base often serves one mutant)
    above: dict[int, dict[int, tuple[SList, int]]] = field(
        default_factory=dict, repr=False, compare=False
    )

    @classmethod
    def of(cls, script: Script) -> Skeleton:
        atoms, info = find_atoms(script)
        return cls(tuple(script.commands), tuple(atoms), info.constants_at, info.too_deep)

    def path(self, number: int) -> tuple[int, ...]:
        """The item indices from atom `number`'s command down to its parent."""
        site = self.atoms[number]
        command = self.commands[site.command]
        above = self.above.get(site.command)
        if above is None:
            above = self.above[site.command] = _parents(command)
        path: list[int] = []
        node = site.parent
        while node is not command:
            node, index = above[id(node)]
            path.append(index)
        return tuple(reversed(path))

    def site_in(self, commands: list[SList], number: int, fresh: set[int]) -> TermSite:
        """Atom `number`'s site in `commands` (at first a list of `self.commands`), whose
        lists on the way to the atom's parent are copied here unless their ids are in `fresh`
        (the copies made so far, which this adds to): the site can then be filled in place.
        A mutant asks for the few atoms it replaces, before replacing any."""
        site = self.atoms[number]
        parent = _fresh(commands, site.command, fresh)
        for index in self.path(number):
            parent = _fresh(parent.items, index, fresh)
        node = parent.items[site.index]
        return TermSite(node, site.sort, site.env, parent, site.index, site.command)


def _fresh(items: list[SList] | list[Node], index: int, fresh: set[int]) -> SList:
    """`items[index]`, replaced by a copy of itself (its items shared) unless fresh already."""
    node = items[index]
    assert isinstance(node, SList)  # a path leads through lists only
    if id(node) not in fresh:
        node = SList(list(node.items), node.pos)
        items[index] = node
        fresh.add(id(node))
    return node


def _parents(command: SList) -> dict[int, tuple[SList, int]]:
    """Id of each list in `command` -> (its parent, its index there); the command is its own
    parent. A list met twice keeps its last place, parents before children, left to right."""
    above: dict[int, tuple[SList, int]] = {}
    stack: list[tuple[SList, SList, int]] = [(command, command, -1)]
    while stack:
        node, parent, index = stack.pop()
        above[id(node)] = (parent, index)
        items = node.items
        for inner in range(len(items) - 1, -1, -1):
            item = items[inner]
            if isinstance(item, SList):
                stack.append((item, node, inner))
    return above
