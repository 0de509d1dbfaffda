"""Reading SMT-LIB scripts into commands of nodes with positions."""

from __future__ import annotations

from pathlib import Path

from sphinxfuzz.smtlib.errors import SmtParseError
from sphinxfuzz.smtlib.lexer import tokenize
from sphinxfuzz.smtlib.nodes import Atom, Node, SList


class Script:
    """A parsed script: its top-level commands, in order."""

    __slots__ = ("commands", "filename")

    def __init__(self, commands: list[SList], filename: str = "<string>") -> None:
        self.commands = commands
        self.filename = filename

    def __len__(self) -> int:
        return len(self.commands)

    def __repr__(self) -> str:
        return f"Script({self.filename!r}, {len(self.commands)} commands)"


def parse_nodes(text: str, filename: str = "<string>") -> list[Node]:
    """Every top-level S-expression of `text`."""
    top: list[Node] = []
    stack: list[tuple[list[Node], tuple[int, int]]] = []
    current = top
    for kind, token, line, col in tokenize(text, filename):
        if kind == "lpar":
            stack.append((current, (line, col)))
            current = []
        elif kind == "rpar":
            if not stack:
                raise SmtParseError(filename, line, col, "unbalanced ')': no '(' is open here")
            parent, start = stack.pop()
            parent.append(SList(current, start))
            current = parent
        else:
            current.append(Atom(token, kind, (line, col)))
    if stack:
        line, col = stack[-1][1]
        raise SmtParseError(filename, line, col, "'(' is never closed (unexpected end of input)")
    return top


def parse_script(text: str, filename: str = "<string>") -> Script:
    """Read a whole script; every top-level item must be a command `(name ...)`."""
    commands: list[SList] = []
    for node in parse_nodes(text, filename):
        if isinstance(node, Atom):
            line, col = node.pos
            raise SmtParseError(
                filename, line, col, f"expected a command '(...)', found {node.text!r}"
            )
        if not node.items or not isinstance(node.items[0], Atom) or node.items[0].kind != "symbol":
            line, col = node.pos
            raise SmtParseError(filename, line, col, "a command must start with its name")
        commands.append(node)
    return Script(commands, filename)


def parse_file(path: str | Path) -> Script:
    """Read a script from a file; undecodable bytes are an error naming the position."""
    path = Path(path)
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        raise SmtParseError(str(path), line, col, f"not UTF-8 text ({exc.reason})") from None
    return parse_script(text, str(path))


def parse_term(text: str, filename: str = "<term>") -> Node:
    """Read exactly one S-expression (a term or a sort)."""
    nodes = parse_nodes(text, filename)
    if len(nodes) != 1:
        raise SmtParseError(filename, 1, 1, f"expected one expression, found {len(nodes)}")
    return nodes[0]
