"""Seeds whose reporter left declarations out: the missing ones, inferred from the uses.

Bug reports often cut a script down to the assertion that crashes and drop the declarations
of its symbols or sorts; every solver rejects the script then. A sort used in a declaration
or binder but never declared gets `(declare-sort S n)`, `n` the number of arguments its uses
give it. A symbol gets the sort its places pin down (`_expected`): a Bool position, the
other side of an `=`, an operator whose arguments share one sort (a numeral it is compared
with), an argument of a declared function. A symbol applied to arguments becomes a
`declare-fun` over its arguments' sorts. Inference repeats while it finds something, so one
symbol's declaration can pin down the next; a symbol nothing pins down leaves the seed as
written (a guessed sort would be a different formula). Declarations go before the first
command that uses the name; one that would go inside a `push` (the `pop` forgets it) or
before a `reset` leaves the seed as written too.
"""

from __future__ import annotations

from dataclasses import replace

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
    for _ in range(_MAX_ROUNDS):
        info = infer_sorts(script, collect_sites=True)
        found = _inferred(script, info)
        if found is None:
            return None
        if not found:
            own = own_names(script)
            if any(_undeclared(site, info, own)[0] for site in info.sites or ()):
                return None  # a symbol nothing pins down: not guessed
            break
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
    heads = [command.head_name() for command in script.commands]
    top = next((i for i, h in enumerate(heads) if h not in _PREAMBLE), len(heads))
    return _insert(script, {n: (top, f"(declare-sort {n} {a})") for n, a in arity.items()})


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
def _inferred(script: Script, info: SortInfo) -> dict[str, tuple[int, str]] | None:
    """The undeclared symbols this round pins down: name -> (first command using it, its
    declaration's text); None when one is used in ways that disagree."""
    assert info.sites is not None
    own = own_names(script)
    by_node = {id(site.node): site for site in info.sites}
    uses: dict[str, list[tuple[int, tuple[Sort | None, ...] | None, Sort | None]]] = {}
    for site in info.sites:
        name, args = _undeclared(site, info, own)
        if name is None:
            continue
        expected = _expected(site, info, by_node)
        uses.setdefault(name, []).append((site.command, args, expected))
    found: dict[str, tuple[int, str]] = {}
    for name, seen in uses.items():
        arities = {len(args) if args is not None else 0 for _, args, _ in seen}
        if len(arities) > 1:
            return None
        known = {
            (args, result)
            for _, args, result in seen
            if result is not None and (args is None or None not in args)
        }
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
    return found


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


def _expected(site: TermSite, info: SortInfo, by_node: dict[int, TermSite]) -> Sort | None:
    """The sort the place of `site` requires, from its parent; None when it does not say.
    A place whose sort is the application's (an `ite` branch, an argument of `+`) asks the
    application's own place when no other argument tells."""
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
            return _argument_sort(parent, index, info)
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


def _argument_sort(parent: SList, index: int, info: SortInfo) -> Sort | None:
    """The sort argument `index` of a declared function (one signature, no sort parameters),
    an array's index or element or a set's element takes."""
    head, items = parent.head_name(), parent.items
    sigs = info.symbols.funs.get(head or "")
    if sigs and len(sigs) == 1 and not sigs[0].params:
        args = sigs[0].args
        return args[index - 1] if len(args) == len(items) - 1 else None
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
