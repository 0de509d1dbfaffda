"""REVIEW.md of a rebuild: its figures are those of the manifest and of a fresh validation of
each version with the same seed."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from typer.testing import CliRunner

from sphinxfuzz.cli import app
from sphinxfuzz.generators.catalogue import default_generators_dir, load_entry
from sphinxfuzz.generators.theory_docs import default_docs_dir, load_corpus
from sphinxfuzz.generators.theory_validation import validate_theory
from sphinxfuzz.solvers import parse_specs, solver_version
from tests.synthesis.fake_openai import FakeOpenAI
from tests.synthesis.test_misbehaving_models import CORPUS

TERMS = 30


def rows(text: str) -> dict[str, tuple[str, str]]:
    found = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 3 and cells[0]:
            found[cells[0]] = (cells[1], cells[2])
    return found


def test_review_shows_before_and_after_as_validated(tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(default_generators_dir() / "Core", out / "Core")  # the committed version
    committed = load_entry(out / "Core")
    grammar, code = CORPUS["prose around the code"]["answers"]
    with FakeOpenAI([grammar, code]) as server:
        result = CliRunner(env={"COLUMNS": "200"}).invoke(
            app,
            ["build-generators", "Core", "--llm", "openai", "--model", "test", "--out", str(out),
             "--samples", "5", "--review-terms", str(TERMS)],
            env={"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": server.base_url},
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    review = CliRunner().invoke(app, ["generators", "review", "Core", "--generators", str(out)])
    assert review.exit_code == 0, review.output
    text = review.stdout
    assert text == (out / "Core" / "REVIEW.md").read_text(encoding="utf-8")
    table = rows(text)
    doc = load_corpus(default_docs_dir())["Core"]
    specs = parse_specs("z3;cvc5")
    before = validate_theory(committed, doc, specs, n=TERMS, seed=0)
    after = validate_theory(load_entry(out / "Core"), doc, specs, n=TERMS, seed=0)
    for spec in specs:
        label = f"valid {spec.name} {solver_version(spec)}"
        assert table[label] == (
            f"{before.validity_by_solver[spec.name]:.1%}",
            f"{after.validity_by_solver[spec.name]:.1%}",
        )
    reached = len(doc.operators) - len(after.missing_operators)
    assert table["operators reached"][1] == f"{reached}/{len(doc.operators)}"
    old = json.loads((default_generators_dir() / "Core" / "manifest.json").read_text())
    new = json.loads((out / "Core" / "manifest.json").read_text())
    assert table["build rounds"] == (str(len(old["rounds"])), str(len(new["rounds"])))
    assert re.search(r"\*\*Recommendation: (better|same|worse)\*\* \(.+\)\.", text)
    # the after column's samples are the fresh validation's first terms
    assert after.verdicts[0].term[:200] in text
    assert len(text.splitlines()) < 60  # short enough for a pull request
