"""What SAE (`sae.py`) and Janus (`janus.py`) share: literals by parity, and their rewriting.

Both rewrite literals by their parity (positive: under an even number of negations in the
Boolean skeleton). Weakening keeps a sat formula sat: a positive literal becomes a weaker one
(a proved `from => to` rule of approximations.json, or LPI's `l or psi`), a negative one a
stronger one. Strengthening, the reverse, keeps an unsat formula unsat. Literals under `ite`
conditions, `xor`, Boolean `=`/`distinct`, `let` bindings or `!` annotations have no fixed
parity and are left alone.
"""

from __future__ import annotations

import random
from functools import cache

from sphinxfuzz.smtlib import Node, Script, SList, copy_node, infer_sorts, parse_term, sym
from sphinxfuzz.strategies.rules import Rule, load_rules
from sphinxfuzz.strategies.seedparts import split, substitute

CONNECTIVES = {"and", "or", "not", "=>", "ite", "forall", "exists", "xor", "let", "!"}


@cache
def approximations() -> tuple[Rule, ...]:
    return tuple(load_rules("approximations.json"))


def literals(script: Script) -> list[tuple[SList, int, int]]:
    """(parent, index, parity) of every literal with a fixed parity (+1 or -1) in the asserts."""
    found: list[tuple[SList, int, int]] = []

    def visit(parent: SList, index: int, parity: int) -> None:
        node = parent.items[index]
        if not isinstance(node, SList):
            return  # a Boolean constant or variable: nothing to approximate
        head = node.head_name()
        if head == "not" and len(node) == 2:
            visit(node, 1, -parity)
        elif head in ("and", "or"):
            for i in range(1, len(node)):
                visit(node, i, parity)
        elif head == "=>":
            for i in range(1, len(node)):
                visit(node, i, -parity if i < len(node) - 1 else parity)
        elif head == "ite" and len(node) == 4:
            visit(node, 2, parity)
            visit(node, 3, parity)
        elif head in ("forall", "exists") and len(node) == 3:
            visit(node, 2, parity)
        elif head not in CONNECTIVES:
            found.append((parent, index, parity))

    for command in script.commands:
        if command.head_name() == "assert":
            visit(command, 1, 1)
    return found


def _matches(
    rule: Rule, node: SList, pattern_side: str, sorts: dict[int, str]
) -> dict[str, Node] | None:
    """The x, y of `node` when it is the rule's `pattern_side` literal at the rule's sort."""
    pattern = parse_term(str(rule.row[pattern_side]))
    negated = False
    if isinstance(pattern, SList) and pattern.head_name() == "not":
        if node.head_name() != "not":
            return None
        pattern, node, negated = pattern.items[1], node.items[1], True  # type: ignore[assignment]
    if not (isinstance(pattern, SList) and isinstance(node, SList)) or len(node) != 3:
        return None
    if node.head_name() != pattern.head_name() or negated and len(pattern) != 3:
        return None
    order = [item.name for item in pattern.items[1:]]  # type: ignore[union-attr]
    args = {order[0]: node.items[1], order[1]: node.items[2]}
    sort = sorts.get(id(node.items[1]), "")
    wanted = str(rule.row["sort"])
    family = sort.split(" ")[1] if sort.startswith("(_ BitVec") else sort
    if wanted.startswith("(_ BitVec"):
        return args if sort.startswith("(_ BitVec") else None
    if wanted == "Float32":
        return (
            args
            if family in ("Float32", "Float64", "Float16") or sort.startswith("(_ FloatingPoint")
            else None
        )
    return args if sort == wanted else None


def rewrite(
    script: Script, weaken: bool, rng: random.Random, changes: int = 2, lpi_share: float = 0.3
) -> tuple[Script, list[str]] | None:
    """A copy of `script` with up to `changes` literals weakened (or strengthened); None when
    no literal can be rewritten."""
    script = Script([copy_node(c) for c in script.commands], script.filename)
    info = infer_sorts(script)
    sorts = {key: str(value) for key, value in info.sorts.items()}
    parts = split(script)
    sites = literals(script)
    rng.shuffle(sites)
    used: list[str] = []
    for parent, index, parity in sites:
        if len(used) >= changes:
            break
        node = parent.items[index]
        # positive and weakening, or negative and strengthening: the literal gets weaker
        weaker = (parity > 0) == weaken
        if rng.random() < lpi_share:
            psi = _psi(parts.constants, parts.bound, rng)
            if psi is not None:
                parent.items[index] = SList([sym("or" if weaker else "and"), node, psi])
                used.append("lpi-or" if weaker else "lpi-and")
                continue
        side, other = ("from", "to") if weaker else ("to", "from")
        options = []
        for rule in approximations():
            args = _matches(rule, node, side, sorts) if isinstance(node, SList) else None
            if args is not None:
                options.append((rule, args))
        if options:
            rule, args = rng.choice(options)
            parent.items[index] = substitute(parse_term(str(rule.row[other])), args)
            used.append(rule.name)
    return (script, used) if used else None


def _psi(constants: dict[str, str], bound: set[str], rng: random.Random) -> Node | None:
    """A literal over the seed's free constants: a Boolean constant, or two equal-sorted ones
    compared with `=`."""
    usable = {name: sort for name, sort in constants.items() if name not in bound}
    booleans = [name for name, sort in usable.items() if sort == "Bool"]
    by_sort: dict[str, list[str]] = {}
    for name, sort in usable.items():
        by_sort.setdefault(sort, []).append(name)
    pairs = [names for names in by_sort.values() if len(names) >= 2]
    if booleans and (not pairs or rng.random() < 0.3):
        return sym(rng.choice(booleans))
    if not pairs:
        return None
    a, b = rng.sample(rng.choice(pairs), 2)
    return SList([sym("="), sym(a), sym(b)])
