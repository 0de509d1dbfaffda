"""The shipped generators' records: every manifest names its generator's hash and passes the
schema, every recorded edit matches the files, and no grammar offers an operator of the
theory document that the generator never uses."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from sphinxfuzz.generators.catalogue import default_generators_dir, load_catalogue
from sphinxfuzz.generators.sandbox import sample_terms
from sphinxfuzz.generators.term_metrics import operator_coverage
from sphinxfuzz.generators.theory_docs import default_docs_dir, load_corpus
from sphinxfuzz.synthesis.hand_edits import hand_edited, unrecorded_edit
from sphinxfuzz.synthesis.output import validate_manifest

CATALOGUE = load_catalogue(default_generators_dir())
THEORIES = sorted(CATALOGUE.entries)


@pytest.mark.parametrize("theory", THEORIES)
def test_manifest_records_the_generator(theory: str) -> None:
    folder = default_generators_dir() / theory
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    validate_manifest(manifest, str(folder / "manifest.json"))
    assert re.fullmatch(r"[0-9a-f]{64}", manifest.get("generator_sha256", ""))
    assert unrecorded_edit(folder) is None
    grammar_edits = [e for e in manifest["hand_edits"] if e.get("file") == "grammar.lark"]
    if grammar_edits:  # the grammar is as its last recorded edit left it
        digest = hashlib.sha256((folder / "grammar.lark").read_bytes()).hexdigest()
        assert grammar_edits[-1]["sha256"] == digest
    if not manifest["hand_edits"]:
        assert hand_edited(folder) is None


@pytest.mark.parametrize("theory", THEORIES)
def test_the_grammar_offers_only_operators_the_generator_uses(theory: str) -> None:
    entry = CATALOGUE.entries[theory]
    doc = load_corpus(default_docs_dir())[theory]
    report = sample_terms(entry.source, 400, 0, filename=str(entry.path))
    assert report.ok, report.failure
    _, missing = operator_coverage(doc, [term for _, term in report.samples])
    grammar = entry.path.with_name("grammar.lark").read_text(encoding="utf-8")
    rules = "\n".join(line for line in grammar.splitlines() if not line.lstrip().startswith("//"))
    offered = [op for op in missing if f'"{op}"' in rules]
    assert not offered, f"{theory}: grammar.lark offers {offered}, which no sampled term uses"
