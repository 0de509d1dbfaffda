"""What findings are compared by: the operators and the shape of a formula, and the place of
a crash (an assertion's file:line, or the top frames of its stack).

The store reads operator sets when it keeps another trigger of a coarse crash, triage groups
by them, the issue text says which releases crash in the same place: one home, below all three
(the store imports nothing that reads the store).
"""

from __future__ import annotations

import re

from sphinxfuzz.oracle.crash import assertion_title
from sphinxfuzz.smtlib import Atom, Node, SList, SmtParseError, parse_script
from sphinxfuzz.smtlib.vocabulary import BINDERS, SYMBOL_DECLARING


def _head(node: SList) -> str | None:
    first = node.items[0] if node.items else None
    if isinstance(first, Atom) and first.kind == "symbol":
        return first.name
    # indexed operators `((_ extract 7 0) x)` and qualified ones `((as const (Array ...)) 0)`
    if isinstance(first, SList) and len(first.items) >= 2 and isinstance(first.items[1], Atom):
        if first.head_name() == "_":
            return first.items[1].name
        if first.head_name() == "as":
            return f"as {first.items[1].name}"
    return None


def operator_heads(text: str) -> set[str]:
    """Operator heads used in the asserted terms; user-declared functions count as `<uf>`."""
    try:
        commands = parse_script(text).commands
    except SmtParseError:
        return set()
    declared = {
        c.items[1].name
        for c in commands
        if c.head_name() in SYMBOL_DECLARING and len(c.items) > 1 and isinstance(c.items[1], Atom)
    }
    heads: set[str] = set()
    stack: list[Node] = [c.items[1] for c in commands if c.head_name() == "assert" and len(c) > 1]
    while stack:
        node = stack.pop()
        if not isinstance(node, SList) or not node.items:
            continue
        head = _head(node)
        items = node.items
        if head == "_":
            continue  # an indexed constant such as (_ bv5 4): a value, not an operator
        if head is not None:
            heads.add("<uf>" if head in declared else head)
        if (head or "").startswith("as "):
            continue  # a sort annotation: no operator inside
        if head in BINDERS and len(items) > 2:
            # the binder list names variables, not operators; keep the bound terms of a let
            if head == "let" and isinstance(items[1], SList):
                stack.extend(
                    b.items[1] for b in items[1].items if isinstance(b, SList) and len(b) == 2
                )
            stack.extend(items[2:])
            continue
        stack.extend(items[1:] if head is not None else items)
    return heads


_LITERALS = {"numeral": "<int>", "decimal": "<real>", "hex": "<bv>", "binary": "<bv>",
             "string": "<str>", "literal": "<lit>"}  # fmt: skip


def formula_shape(text: str) -> str:
    """The asserted terms with names and literals abstracted (see the module docstring);
    asserts sorted and without repeats. "" when the text does not parse."""
    try:
        commands = parse_script(text).commands
    except SmtParseError:
        return ""
    named: set[str] = {
        c.items[1].name
        for c in commands
        if c.head_name() in SYMBOL_DECLARING and len(c.items) > 1 and isinstance(c.items[1], Atom)
    }
    for command in commands:  # bound names, wherever they are bound
        stack: list[Node] = list(command.items)
        while stack:
            node = stack.pop()
            if not isinstance(node, SList):
                continue
            if (
                node.head_name() in BINDERS
                and len(node.items) > 2
                and isinstance(node.items[1], SList)
            ):
                named |= {b.items[0].name for b in node.items[1].items
                          if isinstance(b, SList) and b.items and isinstance(b.items[0], Atom)}  # fmt: skip
            stack.extend(node.items)
    order: dict[str, str] = {}

    def shape(node: Node) -> str:
        if isinstance(node, Atom):
            if node.kind == "symbol" and node.name in named:
                return order.setdefault(node.name, f"x{len(order)}")
            if node.kind == "symbol" and node.name.startswith("bv") and node.name[2:].isdigit():
                return "<bv>"  # the value of (_ bv5 4)
            return _LITERALS.get(node.kind, node.text)
        return "(" + " ".join(shape(item) for item in node.items) + ")"

    asserts = [c.items[1] for c in commands if c.head_name() == "assert" and len(c) > 1]
    try:
        # names are numbered per assert, so the order of the asserts does not matter
        shapes = []
        for term in asserts:
            order.clear()
            shapes.append(shape(term))
    except RecursionError:
        return ""
    return " ".join(sorted(set(shapes)))


# frames of a stack signature that name its place: two crashes whose stacks share these top
# frames are one root cause reached by two paths (`crash_place`)
PLACE_FRAMES = 2
_STACK = re.compile(r"^(?P<family>[^:]+): (?P<signal>SIG[A-Z0-9]+) in (?P<frames>.+)$")
_WHERE = re.compile(r"([\w.+-]+\.(?:cpp|cc|cxx|c|h|hpp|hxx|inc)):(\d+)")


def crash_place(signature: str) -> str | None:
    """Where a crash happened: `family: file:line` of a failed assertion, `family: SIGSEGV in
    f0 < f1` (the top PLACE_FRAMES frames) of a crash signed by its stack; None for any other
    signature (a message without a place, a bare signal, an exit status)."""
    family = signature.partition(": ")[0]
    if assertion_title(signature) is not None:
        where = _WHERE.search(signature)
        return f"{family}: {where.group(1)}:{where.group(2)}" if where else None
    stack = _STACK.match(signature)
    if stack is None:
        return None
    frames = stack["frames"].split(" < ")
    return f"{family}: {stack['signal']} in {' < '.join(frames[:PLACE_FRAMES])}"


# frames too common to name a place: containers, allocators, compiler-split parts
_GENERIC_FRAME = re.compile(
    r"^(?:core_hashtable|vector|svector|ptr_vector|ref_vector_core|obj_ref|memory|std)::"
    r"|^\.|\]$"
)


def _frames(found: re.Match[str]) -> set[str]:
    top = found["frames"].split(" < ")[: PLACE_FRAMES + 1]
    return {frame for frame in top if not _GENERIC_FRAME.search(frame)}


def same_place(signature: str, other: str) -> bool:
    """Whether two crash signatures, of two releases perhaps, crash in the same place: the
    same assertion (file and condition; its line moves between releases), or the same
    signal with a frame in common among the stacks' top PLACE_FRAMES + 1, containers and
    allocators aside (a release that inlines or renames one frame of the path, or crashes
    one call deeper, still crashes there)."""
    if signature == other:
        return True
    mine, theirs = _STACK.match(signature), _STACK.match(other)
    if mine is not None and theirs is not None:
        if (mine["family"], mine["signal"]) != (theirs["family"], theirs["signal"]):
            return False
        return bool(_frames(mine) & _frames(theirs))
    place = crash_place(signature)
    if place is None or crash_place(other) is None:
        return False
    return place == crash_place(other) or _WHERE.sub(r"\1", signature) == _WHERE.sub(r"\1", other)
