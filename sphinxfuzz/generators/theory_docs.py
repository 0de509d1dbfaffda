"""Reading the theory documents of `docs_corpus/<Theory>.md`.

Format: front matter between `---` lines (`theory:`, `solvers:`, `logic:`, `kind:`, optional
`options:`), Markdown prose, and a `## Operators` section whose table rows start with the
operator's head symbol in backticks: ``| `bvadd` | ... |``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from sphinxfuzz.datafiles import data_dir
from sphinxfuzz.errors import InputError

KINDS = ("standard", "extension")
REQUIRED_KEYS = ("theory", "solvers", "logic", "kind")
_KEY_LINE = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*$")
_OPERATORS_HEADING = re.compile(r"^##\s+Operators\b", re.IGNORECASE)
_SEPARATOR_ROW = re.compile(r"^\|[\s:|-]+\|?$")
_BACKTICKED = re.compile(r"`([^`]+)`")


class TheoryDocError(InputError):
    """A theory document that does not follow the format; the message is `file:line: cause`."""


@dataclass(frozen=True)
class TheoryDoc:
    theory: str
    solvers: tuple[str, ...]
    logic: str
    kind: str
    options: tuple[str, ...]
    text: str  # the whole document, front matter included (what the LLM reads)
    operators: list[str]  # head symbols of the Operators table, in order, without repeats
    path: Path | None = None


def default_docs_dir() -> Path:
    """The shipped `docs_corpus/` (packaged, or the checkout's)."""
    return data_dir("docs_corpus")


def load_theory_doc(path: Path | str) -> TheoryDoc:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TheoryDocError(f"{path}: cannot read: {exc}") from exc
    return parse_theory_doc(text, str(path))


def parse_theory_doc(text: str, filename: str = "<doc>") -> TheoryDoc:
    lines = text.splitlines()
    fields, body_start = _front_matter(lines, filename)
    for key in REQUIRED_KEYS:
        if not fields.get(key, (0, ""))[1]:
            raise TheoryDocError(f"{filename}:1: front matter lacks '{key}:'")
    kind_line, kind = fields["kind"]
    if kind not in KINDS:
        raise TheoryDocError(f"{filename}:{kind_line}: kind must be one of {KINDS}, not {kind!r}")
    solvers = _list_value(fields["solvers"][1])
    if not solvers:
        raise TheoryDocError(f"{filename}:{fields['solvers'][0]}: 'solvers:' lists no solver")
    options = _list_value(fields["options"][1]) if "options" in fields else ()
    return TheoryDoc(
        theory=fields["theory"][1],
        solvers=solvers,
        logic=fields["logic"][1],
        kind=kind,
        options=options,
        text=text,
        operators=_operators(lines, body_start, filename),
        path=Path(filename) if filename != "<doc>" else None,
    )


def load_corpus(directory: Path | str) -> dict[str, TheoryDoc]:
    """Every `*.md` document with front matter in `directory`, keyed by theory."""
    root = Path(directory)
    if not root.is_dir():
        raise TheoryDocError(f"{root}: docs directory does not exist")
    corpus: dict[str, TheoryDoc] = {}
    for path in sorted(root.glob("*.md")):
        if not path.read_text(encoding="utf-8", errors="replace").startswith("---"):
            continue  # README-like files without front matter are not theory documents
        doc = load_theory_doc(path)
        if doc.theory != path.stem:
            raise TheoryDocError(f"{path}:1: theory is {doc.theory!r} but the file is {path.name}")
        corpus[doc.theory] = doc
    return corpus


def _front_matter(lines: list[str], filename: str) -> tuple[dict[str, tuple[int, str]], int]:
    """Key -> (line number, value) and the index of the first body line."""
    if not lines or lines[0].strip() != "---":
        raise TheoryDocError(f"{filename}:1: document must start with a '---' front matter line")
    fields: dict[str, tuple[int, str]] = {}
    for index in range(1, len(lines)):
        line = lines[index]
        number = index + 1
        if line.strip() == "---":
            return fields, index + 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY_LINE.match(line)
        if not match:
            raise TheoryDocError(f"{filename}:{number}: expected 'key: value' in front matter")
        key = match.group(1).lower()
        if key in fields:
            raise TheoryDocError(f"{filename}:{number}: '{key}:' given twice")
        fields[key] = (number, _unquote(match.group(2)))
    raise TheoryDocError(f"{filename}:1: front matter is not closed by a '---' line")


def _operators(lines: list[str], start: int, filename: str) -> list[str]:
    operators: list[str] = []
    for _number, names, _cells in _operator_rows(lines, start, filename):
        for name in names:
            if name not in operators:
                operators.append(name)
    return operators


def operator_cells(doc: TheoryDoc) -> dict[str, list[str]]:
    """Each operator of the table -> the cells of its (first) row: operator, syntax,
    signature, conditions, as the document writes them."""
    lines = doc.text.splitlines()
    filename = str(doc.path or "<doc>")
    _fields, start = _front_matter(lines, filename)
    cells: dict[str, list[str]] = {}
    for _number, names, row in _operator_rows(lines, start, filename):
        for name in names:
            cells.setdefault(name, row)
    return cells


def _operator_rows(
    lines: list[str], start: int, filename: str
) -> list[tuple[int, list[str], list[str]]]:
    """(line number, operator names, cells) of every row of the Operators tables."""
    section: int | None = None
    rows: list[tuple[int, list[str], list[str]]] = []
    in_table = False
    for index in range(start, len(lines)):
        line = lines[index].strip()
        if _OPERATORS_HEADING.match(line):
            section = index
            continue
        if section is None:
            continue
        if line.startswith("#") and not line.startswith("###"):
            break  # next section at the same or a higher level
        if not line.startswith("|"):
            in_table = False
            continue
        if not in_table:
            in_table = True  # the first row of a table is its header
            continue
        if _SEPARATOR_ROW.match(line):
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        names = [n.strip() for n in _BACKTICKED.findall(cells[0]) if n.strip()]
        if not names:
            raise TheoryDocError(
                f"{filename}:{index + 1}: operator table row does not start with "
                "a backticked operator like | `bvadd` |"
            )
        rows.append((index + 1, names, cells))
    if section is None:
        raise TheoryDocError(f"{filename}: no '## Operators' section")
    if not rows:
        raise TheoryDocError(f"{filename}:{section + 1}: '## Operators' section lists no operator")
    return rows


def _list_value(value: str) -> tuple[str, ...]:
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    return tuple(item for item in (_unquote(p) for p in value.split(",")) if item)


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value
