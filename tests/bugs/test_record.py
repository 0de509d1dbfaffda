"""The bug folder's one loader: a stored record reads back as typed values, and every bad
file is reported by name with what is wrong (never an assert, never a "?")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from campaign_helpers import CRASHER
from typer.testing import CliRunner

from sphinxfuzz.bugs import BugFileError, Origin, SeedFindingRecord, Store, load_record
from sphinxfuzz.bugs.record import (
    Bisection,
    Tried,
    load_bisection,
    load_reduction,
    write_bisection,
)
from sphinxfuzz.cli import app
from sphinxfuzz.oracle import VerdictKind, judge
from sphinxfuzz.solvers import parse_specs, run_solver

FORMULA = """(set-option :produce-models true)
(declare-const crash_marker Int)
(assert (> crash_marker 2))
(check-sat)
(get-model)
"""


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(campaign root, a crash bug's folder, a seed finding's folder)."""
    root = tmp_path_factory.mktemp("records")
    results = [run_solver(s, FORMULA, timeout=10.0) for s in parse_specs(f"z3;{CRASHER}")]
    [verdict] = judge(FORMULA, results, lambda spec, text: run_solver(spec, text)).verdicts
    with Store(root, create=True) as store:
        ident = store.record_bug(
            verdict, Origin(7, "s.smt2", 3, 1, "sphinx", ("Ints",)), FORMULA, results
        )
        finding = store.record_seed_finding("seeds/s.smt2", FORMULA, verdict, results)
    return root, root / "bugs" / str(ident), root / "seed-findings" / finding


def test_a_stored_bug_reads_back_typed(stored: tuple[Path, Path, Path]) -> None:
    _, folder, finding = stored
    record = load_record(folder)
    assert (
        record.verdict.kind == VerdictKind.CRASH and record.verdict.solver == "crash_on_marker.py"
    )
    assert (record.campaign_seed, record.position, record.mutant) == (7, 3, 1)
    assert record.formula() == FORMULA and record.formula_path.name == "mutant.smt2"
    assert [s.name for s in record.solvers] == ["z3", "crash_on_marker.py"]
    assert record.summary_of("z3") is not None and record.summary_of("z3").answers == ("sat",)
    assert record.output("z3", "stdout").startswith("sat")
    seed = load_record(finding)
    assert isinstance(seed, SeedFindingRecord) and seed.formula_path.name == "seed.smt2"
    assert seed.formula() == FORMULA and seed.position is None
    assert load_reduction(folder) is None and load_bisection(folder) is None


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda meta: "{not json", "unreadable"),
        (lambda meta: "[]", "expected a JSON object"),
        (lambda meta: {**meta, "solvers": "z3"}, "'solvers' should be list"),
        (lambda meta: {**meta, "verdict": {**meta["verdict"], "kind": "boom"}}, "'boom'"),
        (lambda meta: {**meta, "position": "3"}, "'position' should be int"),
        (lambda meta: {k: v for k, v in meta.items() if k != "verdict"}, "'verdict' is missing"),
        (lambda meta: {**meta, "solvers": [{"name": "z3"}]}, "solvers[0].'spec' is missing"),
    ],
)
def test_a_bad_verdict_file_is_named_with_what_is_wrong(
    stored: tuple[Path, Path, Path], tmp_path: Path, change, problem: str
) -> None:
    folder = tmp_path / "bug"
    folder.mkdir()
    (folder / "mutant.smt2").write_text(FORMULA)
    meta = json.loads((stored[1] / "verdict.json").read_text())
    changed = change(meta)
    (folder / "verdict.json").write_text(
        changed if isinstance(changed, str) else json.dumps(changed)
    )
    with pytest.raises(BugFileError) as caught:
        load_record(folder)
    assert str(caught.value).startswith(str(folder / "verdict.json")) and problem in str(
        caught.value
    )


def test_a_missing_trigger_is_named(stored: tuple[Path, Path, Path], tmp_path: Path) -> None:
    folder = tmp_path / "bug"
    folder.mkdir()
    (folder / "verdict.json").write_text((stored[1] / "verdict.json").read_text())
    with pytest.raises(BugFileError, match="mutant.smt2: missing"):
        load_record(folder)
    result = CliRunner().invoke(app, ["bugs", "show", str(folder)])
    assert result.exit_code == 2 and "mutant.smt2: missing" in result.output


def test_bisect_json_round_trips_and_a_bad_one_is_named(tmp_path: Path) -> None:
    bisection = Bisection("b", "z3", "crash", [Tried("4.8.6", "clean"), Tried("4.8.5", "bug", "x")])
    write_bisection(tmp_path, bisection)
    loaded = load_bisection(tmp_path)
    assert loaded is not None and loaded.to_json() == bisection.to_json()
    assert (loaded.first_bad, loaded.first_good_after) == ("4.8.5", "4.8.6")
    assert not [p for p in tmp_path.iterdir() if p.name != "bisect.json"]  # nothing staged left
    (tmp_path / "bisect.json").write_text(
        json.dumps({"solver": "z3", "versions": [{"status": "bug"}]})
    )
    with pytest.raises(BugFileError, match=r"versions\[0\]\.'version' is missing"):
        load_bisection(tmp_path)
