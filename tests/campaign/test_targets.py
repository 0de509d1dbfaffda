"""Which theories a campaign may draw from, and the solver options their documents ask for."""

from __future__ import annotations

from pathlib import Path

from sphinxfuzz.campaign.targets import generator_entries, select_theories, theory_options
from sphinxfuzz.generators.catalogue import CatalogueEntry, load_catalogue
from sphinxfuzz.solvers import parse_specs

REPO = Path(__file__).resolve().parents[2]


TABLE = "## Operators\n\n| operator | syntax | signature | conditions |\n|---|---|---|---|\n| `not` | `(not p)` | Bool -> Bool | |\n"


def _entry(theory: str) -> CatalogueEntry:
    return CatalogueEntry(theory, ("cvc5",), Path(f"/nowhere/{theory}/generator.py"), "")


def test_options_come_from_the_theory_documents(tmp_path: Path) -> None:
    generators = tmp_path / "generated_generators"
    generators.mkdir()
    docs = tmp_path / "docs_corpus"
    docs.mkdir()
    (docs / "Sets.md").write_text(
        "---\ntheory: Sets\nsolvers: cvc5\nlogic: ALL\nkind: extension\n"
        "options: sets-exp=true, strings-exp=true\n---\n# Sets\n" + TABLE
    )
    (docs / "Ints.md").write_text(
        "---\ntheory: Ints\nsolvers: z3, cvc5\nlogic: ALL\nkind: standard\n---\n# Ints\n" + TABLE
    )
    found = theory_options(str(generators), [_entry("Sets"), _entry("Ints"), _entry("NoDoc")])
    assert found == {"Sets": ("sets-exp=true", "strings-exp=true")}


def test_the_shipped_sets_document_asks_for_sets_exp() -> None:
    found = theory_options(
        str(REPO / "generated_generators"), [_entry("CVC5_Sets"), _entry("Core")]
    )
    assert found == {"CVC5_Sets": ("sets-exp=true",)}


def test_versions_of_one_solver_get_that_solver_s_own_theories() -> None:
    catalogue = load_catalogue(REPO / "generated_generators")
    both = select_theories(catalogue, parse_specs("z3;cvc5"))
    only_z3 = select_theories(catalogue, parse_specs("z3;z3 smt.arith.solver=2"))
    assert set(both) <= set(only_z3)
    assert all(set(catalogue.entries[t].solvers) >= {"z3", "cvc5"} for t in both)
    extra = set(only_z3) - set(both)
    assert all(catalogue.entries[t].solvers == ("z3",) for t in extra)
    assert [
        e.theory
        for e in generator_entries(str(REPO / "generated_generators"), parse_specs("z3;cvc5"))
    ] == both


def test_the_cvc5_shim_spelled_out_is_cvc5_so_z3_only_theories_stay_out() -> None:
    # peers (yinyang) need cvc5 as a command line; spelled out it must still count as cvc5
    import sys

    catalogue = load_catalogue(REPO / "generated_generators")
    specs = parse_specs(f"z3;{sys.executable} -m sphinxfuzz.solvers.cvc5_shim --check-models")
    assert [s.family for s in specs] == ["z3", "cvc5"]
    chosen = select_theories(catalogue, specs)
    assert "Ints" in chosen and "Z3_Unicode" not in chosen and "CVC5_Sets" not in chosen
    assert all({"z3", "cvc5"} <= set(catalogue.entries[t].solvers) for t in chosen)
