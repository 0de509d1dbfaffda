"""Seeds whose reporter left declarations out: the missing ones, inferred from the uses.

Bug reports often cut a script down to the assertion that crashes and drop the declarations
of its symbols or sorts; every solver rejects the script then. A sort used in a declaration
or binder but never declared gets `(declare-sort S n)`, `n` the number of arguments its uses
give it. A symbol gets the sort its places pin down (`_expected`): a Bool position, the
other side of an `=`, an operator whose arguments share one sort (a numeral it is compared
with), an argument of a declared function or the same argument of another application of
an undeclared one, the array of a `select`. A symbol applied to arguments becomes a
`declare-fun` over its arguments' sorts. Inference repeats while it finds something, so one
symbol's declaration can pin down the next. A symbol nothing pins down, whose every place
takes any sort (`=`, `distinct`, an `ite` branch, an argument of the script's functions), is
of an open sort: the first such symbol gets a fresh uninterpreted sort (`Open`), the reading
that assumes nothing of it, and inference goes on. One fresh sort serves every open symbol:
no binder names it, so the formula over it is satisfiable exactly when the one with a sort
apiece is. A symbol left open elsewhere (an argument of `<`: an Int or a Real) or whose
places disagree leaves the seed as written. Declarations go before the first command that
uses the name; one that would go inside a `push` (the `pop` forgets it) or before a `reset`
leaves the seed as written too.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sphinxfuzz.mutate.seed import Seed
from sphinxfuzz.mutate.upgrade import own_names
from sphinxfuzz.smtlib import Atom, Node, Script, SList, infer_sorts, parse_nodes, print_script
from sphinxfuzz.smtlib.infer import Env, SortInfo, TermSite
from sphinxfuzz.smtlib.lexer import is_simple_symbol
from sphinxfuzz.smtlib.sorts import BOOL, ROUNDING_MODE, Sort, SortError, parse_sort
from sphinxfuzz.smtlib.symbols import BUILTIN_SORTS
from sphinxfuzz.smtlib.theories import CONSTANTS, RULES
from sphinxfuzz.smtlib.vocabulary import BINDERS, OPTION_COMMANDS

_MAX_ROUNDS = 20  # each round pins down at least one symbol; seeds have few undeclared ones

# Operators whose arguments are all Bool.
_BOOL_ARGUMENTS = frozenset({"not", "and", "or", "=>", "xor", "implies", "iff"})
# Operators whose arguments all have one sort, that of the application for `_SAME_RESULT`.
_SAME_RESULT = frozenset(
    """+ - * ~ bvnot bvand bvor bvxor bvnand bvnor bvxnor bvneg bvadd bvsub bvmul bvudiv bvurem
    bvsdiv bvsrem bvsmod bvshl bvlshr bvashr str.++ fp.abs fp.neg fp.rem fp.min fp.max
    set.union set.inter set.minus""".split()
)
_SAME_ARGUMENTS = _SAME_RESULT | frozenset(
    """= distinct < <= > >= bvult bvule bvugt bvuge bvslt bvsle bvsgt bvsge bvcomp fp.leq fp.lt
    fp.geq fp.gt fp.eq str.< str.<= str.prefixof str.suffixof str.contains set.subset""".split()
)
# Floating-point operators whose first argument is a rounding mode, the rest one sort (the
# application's).
_ROUNDED = frozenset("fp.add fp.sub fp.mul fp.div fp.fma fp.sqrt fp.roundToIntegral".split())
_ITE = frozenset({"ite", "if"})
# the namespaces of theory operators: `str.`, `set.`, `bag.`, `fp.` ...
_THEORY_PREFIXES = frozenset(name.partition(".")[0] + "." for name in RULES if "." in name)
_PREAMBLE = OPTION_COMMANDS | {"set-logic"}
_FORGETTING = frozenset({"reset", "reset-assertions"})


def declared(seed: Seed) -> Seed | None:
    """The seed with declarations for the sorts and symbols it uses but never declares;
    None when it lacks none, or when a symbol's sort is not pinned down by its uses."""
    if any(c.head_name() in _FORGETTING for c in seed.script.commands):
        return None  # a declaration before a reset would be forgotten
    script = _with_sorts(seed.script)
    if script is None:
        return None
    added = script is not seed.script
    open_sort: Sort | None = None
    for _ in range(_MAX_ROUNDS):
        info = infer_sorts(script, collect_sites=True)
        found = _inferred(script, info)
        if found is None:
            return None
        if not found:
            own = own_names(script)
            if not any(_undeclared(site, info, own)[0] for site in info.sites or ()):
                break
            if open_sort is None:  # declared first, so that the next round knows it
                open_sort = Sort(_fresh_sort_name(own))
                found = {str(open_sort): (_top(script), f"(declare-sort {open_sort} 0)")}
            else:
                found = _inferred(script, info, open_sort)
                if not found:
                    return None  # left open by uses that do not accept any sort: not guessed
        new = _insert(script, found)
        if new is None:
            return None
        script, added = new, True
    else:
        return None  # still finding after so many rounds: not a seed's handful of symbols
    if not added:
        return None
    return replace(seed, script=script, text=print_script(script))


# -- sorts ------------------------------------------------------------------------------------
def _with_sorts(script: Script) -> Script | None:
    """`script` with a `declare-sort` for each sort it uses undeclared, after its leading
    `set-logic` and options (before any function declared over the sort); the same object
    when it uses none, None when one is used with different numbers of arguments."""
    own = own_names(script)
    arity: dict[str, int] = {}

    def resolve(name: str, args: tuple[Sort, ...], where: Node) -> Sort:
        if name not in own and name not in BUILTIN_SORTS:
            if arity.setdefault(name, len(args)) != len(args):
                raise SortError(f"sort {name} used with different arities", where)
        return Sort(name, args)

    for command in script.commands:
        for sort in _sort_positions(command):
            try:
                parse_sort(sort, resolve)
            except SortError:
                return None
    if not arity:
        return script
    top = _top(script)
    return _insert(script, {n: (top, f"(declare-sort {n} {a})") for n, a in arity.items()})


def _top(script: Script) -> int:
    """Where declared sorts go: after the leading `set-logic` and options."""
    heads = [command.head_name() for command in script.commands]
    return next((i for i, h in enumerate(heads) if h not in _PREAMBLE), len(heads))


def _fresh_sort_name(own: set[str]) -> str:
    taken = own | set(BUILTIN_SORTS)
    return next(
        n for n in (f"Open{i}" if i else "Open" for i in range(len(taken) + 1)) if n not in taken
    )


def _sort_positions(command: SList) -> list[Node]:
    """The sort expressions of a command: its declaration's sorts, its binders' and `as`'s."""
    head, items = command.head_name(), command.items
    found: list[Node] = []
    if head in ("declare-fun", "declare-const", "define-const") and len(items) > 2:
        if head == "declare-fun" and isinstance(items[2], SList):
            found.extend(items[2].items)
            found.extend(items[3:4])
        else:
            found.append(items[2])
    elif head in ("define-fun", "define-fun-rec") and len(items) > 3:
        found.extend(_variable_sorts(items[2]))
        found.append(items[3])
    for node in _lists(command):
        name = node.head_name()
        if name in BINDERS and name not in ("let", "match") and len(node.items) > 1:
            found.extend(_variable_sorts(node.items[1]))
        elif name == "as" and len(node.items) == 3:
            found.append(node.items[2])
    return found


def _variable_sorts(listing: Node) -> list[Node]:
    if not isinstance(listing, SList):
        return []
    return [v.items[1] for v in listing.items if isinstance(v, SList) and len(v.items) == 2]


def _lists(node: SList) -> list[SList]:
    """Every list under `node`, without recursion: seeds nest deeper than Python's stack."""
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(item for item in current.items if isinstance(item, SList))
    return found


# -- symbols ----------------------------------------------------------------------------------
def _inferred(
    script: Script, info: SortInfo, open_sort: Sort | None = None
) -> dict[str, tuple[int, str]] | None:
    """The undeclared symbols this round pins down: name -> (first command using it, its
    declaration's text); None when one is used in ways that disagree. With `open_sort`, the
    first symbol (by first use) whose arguments are known and whose every place takes any
    sort is of that sort, and nothing else is pinned down."""
    assert info.sites is not None
    own = own_names(script)
    by_node = {id(site.node): site for site in info.sites}
    undeclared = [(site, *_undeclared(site, info, own)) for site in info.sites]
    applied: dict[str, list[SList]] = {}
    for site, name, args in undeclared:
        if name is not None and args is not None and isinstance(site.node, SList):
            applied.setdefault(name, []).append(site.node)
    places = _Places(info, by_node, applied)
    uses: dict[str, list[tuple[int, tuple[Sort | None, ...] | None, Sort | None]]] = {}
    anywhere: dict[str, bool] = {}
    for site, name, args in undeclared:
        if name is None:
            continue
        expected = _expected(site, places)
        uses.setdefault(name, []).append((site.command, args, expected))
        anywhere[name] = anywhere.get(name, True) and _takes_any_sort(site)
    found: dict[str, tuple[int, str]] = {}
    for name, seen in sorted(uses.items(), key=lambda use: min(c for c, _, _ in use[1])):
        arities = {len(args) if args is not None else 0 for _, args, _ in seen}
        if len(arities) > 1:
            return None
        known: set[tuple[tuple[Sort | None, ...] | None, Sort | None]] = {
            (args, result)
            for _, args, result in seen
            if result is not None and (args is None or None not in args)
        }
        if len(known) > 1:
            return None
        if open_sort is not None:
            known = _opened(seen, open_sort) if anywhere[name] else set()
            if len(known) > 1:
                return None
        if not known:
            continue  # perhaps pinned down once another symbol is declared
        args, result = known.pop()
        sorts = (*(args or ()), result)
        if any(s is None or s.has_params() or s.name == "->" for s in sorts):
            return None
        first = min(command for command, _, _ in seen)
        domain = " ".join(str(sort) for sort in args or ())
        found[name] = (first, f"(declare-fun {_quoted(name)} ({domain}) {result})")
        if open_sort is not None:
            break  # one open symbol a round: its declaration may pin down the others
    return found


def _opened(
    seen: list[tuple[int, tuple[Sort | None, ...] | None, Sort | None]], open_sort: Sort
) -> set[tuple[tuple[Sort | None, ...] | None, Sort | None]]:
    """A symbol's signature with `open_sort` as its sort, when no place of it pins one
    down: one per argument list its uses know in full (none when they know none)."""
    if any(result is not None for _, _, result in seen):
        return set()
    return {(args, open_sort) for _, args, _ in seen if args is None or None not in args}


def _undeclared(
    site: TermSite, info: SortInfo, own: set[str]
) -> tuple[str | None, tuple[Sort | None, ...] | None]:
    """The name of the undeclared symbol `site` is or applies, with its arguments' sorts
    (None for a constant); no name when it is neither."""
    node, env = site.node, site.env
    if isinstance(node, Atom):
        if node.kind != "symbol" or site.sort is not None or not _unknown(node.name, env, own):
            return None, None
        if node.name.startswith("-") or _concrete(node.name, info):
            return None, None
        return node.name, None
    head = node.items[0] if node.items else None
    if not isinstance(head, Atom) or head.kind != "symbol" or site.sort is not None:
        return None, None
    name = head.name
    if not _unknown(name, env, own) or name.startswith("is-"):
        return None, None
    if _concrete(name, info) or name in BINDERS or name in ("!", "as", "_"):
        return None, None
    return name, tuple(info.sort_of(arg) for arg in node.items[1:])


def _concrete(name: str, info: SortInfo) -> bool:
    """Whether `name` has a signature that is not generic: one outside the script's own names
    is z3's built-in `List` (`nil`, `insert`), which solvers read only when the script gives
    its sort."""
    return any(not sig.params for sig in info.symbols.funs.get(name, ()))


def _unknown(name: str, env: Env, own: set[str]) -> bool:
    """Whether `name` is neither the script's, nor bound here, nor a theory's: a name of a
    theory's namespace (`bag.is_included`) is an operator the table lacks, not the
    reporter's own symbol."""
    if name in own or name in env or name in CONSTANTS or name in RULES:
        return False
    return name.partition(".")[0] + "." not in _THEORY_PREFIXES


def _takes_any_sort(site: TermSite) -> bool:
    """Whether the place of `site` takes a term of any sort: a side of `=` or `distinct`, an
    `ite` branch, an argument of a function of the script's (no theory operator)."""
    head = site.parent.head_name() or ""
    if head in _ITE:
        return site.index > 1
    if head in RULES or head in BINDERS or head in ("!", "assert"):
        return head in ("=", "distinct")
    return True


@dataclass(frozen=True)
class _Places:
    """What one round knows to tell the sort a place requires."""

    info: SortInfo
    by_node: dict[int, TermSite]
    applied: dict[str, list[SList]]  # the applications of each undeclared function


def _expected(site: TermSite, places: _Places) -> Sort | None:
    """The sort the place of `site` requires, from its parent; None when it does not say.
    A place whose sort is the application's (an `ite` branch, an argument of `+`) asks the
    application's own place when no other argument tells."""
    info, by_node = places.info, places.by_node
    while True:
        parent, index = site.parent, site.index
        head, items = parent.head_name(), parent.items
        if head == "assert" or head in _BOOL_ARGUMENTS or (head in _ITE and index == 1):
            return BOOL
        if head in _ROUNDED and index == 1:
            return ROUNDING_MODE
        if head in _ITE:
            peers = range(2, 4)
        elif head in _ROUNDED:
            peers = range(2, len(items))
        elif head in _SAME_ARGUMENTS:
            peers = range(1, len(items))
        else:
            return _argument_sort(site, places)
        known = {info.sort_of(items[p]) for p in peers if p != index and p < len(items)}
        known.discard(None)
        if known:
            return known.pop() if len(known) == 1 else None
        if head not in _SAME_RESULT and head not in _ROUNDED and head not in _ITE:
            return None
        outer = by_node.get(id(parent))
        if info.sort_of(parent) is not None or outer is None:
            return info.sort_of(parent)
        site = outer


def _argument_sort(site: TermSite, places: _Places) -> Sort | None:
    """The sort an argument takes: of a declared function (one signature, no sort
    parameters), the same argument of the other applications of an undeclared function, an
    array's index or element, the array a `select` reads (its index's and its own place's
    sorts), a set's element."""
    parent, index, info = site.parent, site.index, places.info
    head, items = parent.head_name(), parent.items
    sigs = info.symbols.funs.get(head or "")
    if sigs and len(sigs) == 1 and not sigs[0].params:
        args = sigs[0].args
        return args[index - 1] if len(args) == len(items) - 1 else None
    if head in places.applied:
        peers = {
            info.sort_of(other.items[index])
            for other in places.applied[head]
            if other is not parent and len(other.items) == len(items)
        }
        peers.discard(None)
        return peers.pop() if len(peers) == 1 else None
    if head == "select" and index == 1 and len(items) == 3:
        outer = places.by_node.get(id(parent))
        element = info.sort_of(parent) or (_expected(outer, places) if outer else None)
        key = info.sort_of(items[2])
        return Sort("Array", (key, element)) if key and element else None
    if head in ("select", "store") and index in (2, 3):
        array = info.sort_of(items[1])
        if array is not None and array.name == "Array" and len(array.args) == 2:
            return array.args[index - 2]
    if head == "set.member" and index == 1 and len(items) == 3:
        found = info.sort_of(items[2])
        if found is not None and found.name == "Set" and len(found.args) == 1:
            return found.args[0]
    return None


def _depths(script: Script) -> list[int]:
    """The assertion-stack depth at each command."""
    depths, depth = [], 0
    for command in script.commands:
        depths.append(depth)
        head, items = command.head_name(), command.items
        count = items[1] if len(items) > 1 else None
        levels = int(count.text) if isinstance(count, Atom) and count.kind == "numeral" else 1
        if head == "push":
            depth += levels
        elif head == "pop":
            depth = max(0, depth - levels)
    return depths


def _quoted(name: str) -> str:
    return name if is_simple_symbol(name) else f"|{name}|"


def _insert(script: Script, declarations: dict[str, tuple[int, str]]) -> Script | None:
    """`script` with each declaration's text before the command it names; None when that
    command is inside a `push` (a `pop` would forget the declaration)."""
    depth = _depths(script)
    before: dict[int, list[SList]] = {}
    for index, text in sorted(declarations.values()):
        if depth[index] > 0:
            return None
        nodes = parse_nodes(text)
        if len(nodes) != 1 or not isinstance(nodes[0], SList):
            return None
        before.setdefault(index, []).append(nodes[0])
    commands: list[SList] = []
    for index, command in enumerate(script.commands):
        commands.extend(before.get(index, []))
        commands.append(command)
    return Script(commands, script.filename)
