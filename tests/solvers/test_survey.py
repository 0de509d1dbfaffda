"""`solvers check`: what sphinxfuzz learns of a command line, asked of real solvers."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sphinxfuzz.cli import app
from sphinxfuzz.solvers import parse_specs
from sphinxfuzz.solvers.survey import family_by_version, survey

QUIET = Path(__file__).resolve().parents[1] / "fixtures" / "hostile" / "solvers" / "cvc5_quiet.sh"


def test_bitwuzla_reads_its_five_theories_and_says_errors_on_stderr() -> None:
    found = survey(parse_specs("bitwuzla")[0])
    assert (found.family, found.family_by_version) == ("bitwuzla", "bitwuzla")
    assert (found.sat, found.unsat, found.model) == ("sat", "unsat", True)
    assert found.errors == "a message on stderr, exit 1: read as error"
    assert found.accepted == [
        "bit-vectors", "floating point", "arrays", "uninterpreted functions", "quantifiers",
    ]  # fmt: skip
    assert found.theories["integers"] == "error: <script>:1:12: unsupported logic 'QF_LIA'"
    assert "options to draw of" in found.option_table and "set by argv" in found.option_table


def test_a_program_named_like_a_family_shows_what_it_is() -> None:
    # named like cvc5, it is z3 inside and prints no help: its --version tells, its options
    # cannot be listed, and it runs as given
    done = CliRunner().invoke(app, ["solvers", "check", str(QUIET), "--json"])
    assert done.exit_code == 0, done.output
    found = json.loads(done.stdout)
    assert found["schema"] == "sphinxfuzz/solver-check/1"
    assert (found["family"], found["family_by_version"]) == ("cvc5", "z3")
    assert found["errors"] == "(error ...) on stdout, exit 1: read as error"
    assert found["option_table"].startswith(f"no option table for {QUIET} (")
    assert found["option_table"].endswith("it runs as given") and len(found["accepted"]) == 8
    assert family_by_version("This is CVC4 version 1.8") == "cvc4"
    assert family_by_version("MathSAT5 version 5.6.10") is None
