"""Printing nodes back to SMT-LIB text that solvers read as the original."""

from __future__ import annotations

from collections.abc import Iterable

from sphinxfuzz.smtlib.nodes import Atom, Node, SList


def print_node(node: Node) -> str:
    """Compact text of one node: tokens as read, one space between list items."""
    if isinstance(node, Atom):
        return node.text
    try:
        return _joined(node)  # the fast way (this prints every mutant)
    except RecursionError:
        parts: list[str] = []
        _emit(node, parts)
        return "".join(parts)


def _joined(node: SList) -> str:
    return "(" + " ".join([i.text if isinstance(i, Atom) else _joined(i) for i in node.items]) + ")"


def _emit(node: Node, out: list[str]) -> None:
    # Iterative to survive deeply nested terms (bug reports often nest thousands deep).
    stack: list[object] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, Atom):
            out.append(item.text)
        else:
            assert isinstance(item, SList)
            out.append("(")
            stack.append(")")
            children = item.items
            for index in range(len(children) - 1, -1, -1):
                stack.append(children[index])
                if index:
                    stack.append(" ")


def print_script(script: object) -> str:
    """One command per line. Accepts a `Script` or any iterable of command nodes."""
    commands = getattr(script, "commands", script)
    if not isinstance(commands, Iterable):
        raise TypeError(f"print_script: {type(script).__name__} holds no commands")
    return "".join(print_node(command) + "\n" for command in commands)
