"""The campaign's theory probe and `generators validate` judge a term alike: the probe names
the seed of the term a solver rejected, and validation of that seed with the campaign's
solvers gives the same rejection; the shipped ArraysEx is no longer rejected by cvc5."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from sphinxfuzz.campaign.theory_probe import probe_theories
from sphinxfuzz.cli import app
from sphinxfuzz.generators.catalogue import default_generators_dir, load_catalogue
from sphinxfuzz.generators.pool import GeneratorPool
from sphinxfuzz.solvers import parse_specs

CAMPAIGN_SOLVERS = "z3 model_validate=true;cvc5 --check-models"

# what ArraysEx did before its fix: sometimes a constant array of a negative value
GENERATOR = '''"""Constant arrays: cvc5 takes a literal value, not (- 2)."""
import random

THEORY = "Toy"
SOLVERS = ("z3", "cvc5")


def generate(rng: random.Random) -> tuple[str, str]:
    value = rng.choice(("2", "(- 2)"))
    return "(declare-const a (Array Int Int))", f"(= a ((as const (Array Int Int)) {value}))"
'''


def _validate(generators: Path, theory: str, seed: int) -> dict:
    result = CliRunner().invoke(app, [
        "generators", "validate", theory, "-n", "1", "--seed", str(seed), "--solvers",
        CAMPAIGN_SOLVERS, "--generators", str(generators), "--json"])  # fmt: skip
    return json.loads(result.stdout)["theories"][0]


def test_the_term_the_probe_rejects_is_the_one_validation_rejects(tmp_path: Path) -> None:
    generators = tmp_path / "generators"
    (generators / "Toy").mkdir(parents=True)
    (generators / "Toy" / "generator.py").write_text(GENERATOR)
    entries = load_catalogue(generators).entries
    with GeneratorPool(entries) as pool:
        probe = probe_theories(pool, parse_specs(CAMPAIGN_SOLVERS), folder=tmp_path / "cache")
    assert 0 < probe.accepted["Toy"] < 1
    said = re.fullmatch(r"cvc5, term seed (\d+): (.*)", probe.first_error["Toy"], flags=re.S)
    assert said is not None and "(- 2)" in said.group(2)
    again = _validate(generators, "Toy", int(said.group(1)))
    assert again["validity_by_solver"] == {"z3": 1.0, "cvc5": 0.0}
    assert "invalid argument" in again["errors"][0] and "expected a value" in again["errors"][0]


def test_the_shipped_arrays_generator_passes_the_probe(tmp_path: Path) -> None:
    entries = load_catalogue(default_generators_dir()).entries
    with GeneratorPool({"ArraysEx": entries["ArraysEx"]}) as pool:
        probe = probe_theories(pool, parse_specs(CAMPAIGN_SOLVERS), terms=300, folder=tmp_path)
    assert probe.accepted["ArraysEx"] == 1.0, probe.first_error
