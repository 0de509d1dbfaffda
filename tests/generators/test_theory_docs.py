from __future__ import annotations

from pathlib import Path

import pytest

from sphinxfuzz.generators.theory_docs import (
    TheoryDocError,
    default_docs_dir,
    load_corpus,
    load_theory_doc,
    parse_theory_doc,
)

DOC = """---
theory: FixedSizeBitVectors
solvers: z3, cvc5
logic: QF_BV
kind: standard
options: "--bv-solver=bitblast"
---
# Bit-vectors

Prose mentioning `bvmul` which is not in the table.

## Sorts

| sort | meaning |
|---|---|
| `(_ BitVec n)` | vectors of n bits |

## Operators

| operator | syntax | signature | conditions |
|----------|--------|-----------|------------|
| `bvadd` | `(bvadd s t)` | BV BV -> BV | same width |
| `extract` | `((_ extract i j) t)` | BV -> BV | i >= j |
| `bvadd` | `(bvadd s t u)` | BV+ -> BV | n-ary in z3 |

### Comparisons

| operator | syntax | signature | conditions |
|---|---|---|---|
| `bvult` | `(bvult s t)` | BV BV -> Bool | |

## Examples

| `bvudiv` | not an operator row of the Operators section |
"""


def test_parse_document() -> None:
    doc = parse_theory_doc(DOC, "docs/FixedSizeBitVectors.md")
    assert doc.theory == "FixedSizeBitVectors"
    assert doc.solvers == ("z3", "cvc5")
    assert doc.logic == "QF_BV" and doc.kind == "standard"
    assert doc.options == ("--bv-solver=bitblast",)
    assert doc.operators == ["bvadd", "extract", "bvult"]
    assert doc.text == DOC


@pytest.mark.parametrize(
    ("broken", "expected"),
    [
        (DOC.replace("---\ntheory", "theory", 1), ":1: document must start with"),
        (DOC.replace("kind: standard", "kind: weird"), ":5: kind must be one of"),
        (DOC.replace("logic: QF_BV\n", ""), ":1: front matter lacks 'logic:'"),
        (DOC.replace("solvers: z3, cvc5", "solvers: "), "lacks 'solvers:'"),
        (
            DOC.replace("kind: standard\n", "kind: standard\nkind: standard\n"),
            ":6: 'kind:' given twice",
        ),
        (DOC.replace("logic: QF_BV", "logic QF_BV"), ":4: expected 'key: value'"),
        (DOC.replace("## Operators", "## Functions"), "no '## Operators' section"),
        (DOC.replace("| `extract` |", "| extract |"), ":23: operator table row does not start"),
    ],
)
def test_errors_name_file_and_line(broken: str, expected: str) -> None:
    with pytest.raises(TheoryDocError) as info:
        parse_theory_doc(broken, "docs/X.md")
    assert str(info.value).startswith("docs/X.md")
    assert expected in str(info.value)


def test_unclosed_front_matter() -> None:
    with pytest.raises(TheoryDocError, match="not closed"):
        parse_theory_doc("---\ntheory: X\n", "x.md")


def test_load_corpus(tmp_path: Path) -> None:
    (tmp_path / "FixedSizeBitVectors.md").write_text(DOC, encoding="utf-8")
    (tmp_path / "README.md").write_text("# not a theory document\n", encoding="utf-8")
    corpus = load_corpus(tmp_path)
    assert list(corpus) == ["FixedSizeBitVectors"]
    assert load_theory_doc(tmp_path / "FixedSizeBitVectors.md") == corpus["FixedSizeBitVectors"]
    (tmp_path / "Ints.md").write_text(DOC, encoding="utf-8")
    with pytest.raises(
        TheoryDocError, match="theory is 'FixedSizeBitVectors' but the file is Ints.md"
    ):
        load_corpus(tmp_path)


def test_default_docs_dir() -> None:
    assert default_docs_dir().name == "docs_corpus"
    assert (default_docs_dir().parent / "sphinxfuzz").is_dir()
