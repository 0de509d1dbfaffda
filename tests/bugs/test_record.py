"""The bug folder's one loader: a stored record reads back as typed values, and every bad
file is reported by name with what is wrong (never an assert, never a "?")."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from campaign_helpers import CRASHER
from typer.testing import CliRunner

from sphinxfuzz.bugs import BugFileError, BugRecord, Origin, SeedFindingRecord, Store, load_record
from sphinxfuzz.bugs.record import (
    ALIVE,
    FIXED,
    UNDECIDED,
    Bisection,
    Reduction,
    Size,
    SolverSummary,
    Today,
    Tried,
    _Fields,
    is_bug_folder,
    is_reduced,
    load_bisection,
    load_reduction,
    read_text,
    safe_name,
    write_bisection,
    write_reduction,
    write_today,
)
from sphinxfuzz.cli import app
from sphinxfuzz.oracle import Verdict, VerdictKind, judge
from sphinxfuzz.solvers import Outcome, SolverResult, SolverSpec, parse_specs, run_solver

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


# -- the record's parts on their own: written here, read back --------------------------------
Z3 = SolverSpec("z3@4.8.8", "z3@4.8.8", "z3", ("/opt/z3", "-smt2"))
CRASH = Verdict(VerdictKind.CRASH, "z3@4.8.8", "z3: killed by signal 11", {"exit_code": -11})


def _folder(tmp_path: Path, meta: dict[str, object], trigger: str = "mutant.smt2") -> Path:
    folder = tmp_path / "bug"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / trigger).write_text(FORMULA)
    (folder / "verdict.json").write_text(json.dumps(meta))
    return folder


def _meta(**changes: object) -> dict[str, object]:
    return {"seed_file": "s.smt2", "verdict": CRASH.to_json(), "solvers": [],
            "campaign_seed": 1, "position": 2, "mutant": 3, **changes}  # fmt: skip


def test_fields_name_the_key_the_kind_and_the_value(tmp_path: Path) -> None:
    fields = _Fields(tmp_path / "f.json", {"n": True, "x": None, "l": ["a", 1], "o": [{}, 2]})
    with pytest.raises(BugFileError, match=r"f\.json: 'n' should be int, not True"):
        fields.get("n", int)  # a bool is no count
    assert fields.get("n", bool) is True
    assert fields.get("x", int, 5) == 5  # null is as good as absent
    with pytest.raises(BugFileError, match="'x' is missing"):
        fields.get("x", int)
    with pytest.raises(BugFileError, match="'n' should be int or float, not '7'"):
        _Fields(tmp_path / "f.json", {"n": "7"}).get("n", (int, float))
    with pytest.raises(BugFileError, match="'l' should be a list of strings"):
        fields.strings("l")
    with pytest.raises(BugFileError, match="'o' should be a list of objects"):
        fields.objects("o")
    assert fields.strings("absent") == [] and fields.objects("absent") == []
    long = _Fields(tmp_path / "f.json", {"k": "v" * 500})
    with pytest.raises(BugFileError) as caught:
        long.get("k", int)
    assert len(str(caught.value)) == len(f"{tmp_path / 'f.json'}: 'k' ") + 200  # the value cut


def test_a_summary_reads_back_as_it_was_written() -> None:
    result = SolverResult(Z3, Outcome.CRASH, ["sat"], "", "", -11, 1.234567,
                          failure_line="killed by signal 11", model_check_failed=True,
                          version="4.8.8")  # fmt: skip
    summary = SolverSummary.of(result)
    assert summary.elapsed == 1.2346 and summary.argv == ("/opt/z3", "-smt2")
    again = SolverSummary.from_json(_Fields(Path("v.json"), summary.to_json()))
    assert again == summary
    assert summary.answer_text == "sat"
    record = BugRecord(Path("b"), "b", CRASH, "s.smt2", [summary, replace(summary, name="cvc5")])
    assert record.summary_of("cvc5") is record.solvers[1] and record.summary_of("yices") is None
    unrun = SolverSummary("z3", "z3", outcome="timeout")
    assert unrun.answer_text == "timeout" and unrun.elapsed == 0.0
    numeric = SolverSummary.from_json(_Fields(Path("v.json"), {"name": "z", "spec": "z",
                                                               "version": 4.8, "elapsed": 2}))  # fmt: skip
    assert (numeric.version, numeric.elapsed, numeric.family) == ("4.8", 2.0, "other")


def test_today_reads_back_and_says_where(tmp_path: Path) -> None:
    today = Today(ALIVE, "z3@5.4.1", "5.4.1", "z3: killed by signal 11", 12.5)
    folder = _folder(tmp_path, _meta())
    record = write_today(load_record(folder), today)
    assert load_record(folder).today == today == record.today
    assert today.sentence() == "alive in z3@5.4.1"
    assert Today(FIXED, "z3", "5.4.1").sentence() == "fixed in z3 (5.4.1)"
    # a crash alive with another signature: still "alive", said apart, and read back as such
    elsewhere = replace(today, detail="z3: SIGSEGV in f < g", another_crash=True)
    write_today(load_record(folder), elsewhere)
    assert load_record(folder).today == elsewhere and elsewhere.another_crash
    assert elsewhere.sentence() == "alive (another crash) in z3@5.4.1"
    assert not today.another_crash
    assert Today(UNDECIDED, "z3", "5.4.1", "timeout").sentence() == (
        "undecided in z3 (5.4.1): timeout"
    )
    _folder(tmp_path, _meta(today={"status": "gone", "solver": "z3", "version": "1"}))
    with pytest.raises(BugFileError, match="today.'status' is 'gone', not one of alive"):
        load_record(folder)
    _folder(tmp_path, _meta(today={"status": FIXED, "solver": "z3", "version": "1"}))
    read = load_record(folder).today
    assert read is not None and (read.detail, read.checked_at) == ("", 0.0)


def test_defaults_of_a_record_and_a_seed_finding(tmp_path: Path) -> None:
    record = load_record(_folder(tmp_path, _meta()))
    # a folder older than strategies names none: the bug store knows no strategy by name
    assert (record.id, record.strategy, record.theories, record.check) == ("bug", "", [], [])
    assert record.today is None and "today" not in record.to_json()
    assert record.reduced() is None and record.output("z3@4.8.8", "stdout") == ""
    (record.folder / "reduced.smt2").write_text("(check-sat)\n")
    (record.folder / "z3_4.8.8.stderr").write_text("boom\n")
    assert record.reduced() == "(check-sat)\n" and record.output("z3@4.8.8", "stderr") == "boom\n"
    seed = load_record(
        _folder(tmp_path / "s", {"id": "f", "seed_file": "s.smt2", "verdict": CRASH.to_json()},
                "seed.smt2")
    )  # fmt: skip
    assert isinstance(seed, SeedFindingRecord) and seed.id == "f"
    assert set(seed.to_json()) == {"id", "seed_file", "verdict", "solvers"}
    assert is_bug_folder(seed.folder) and not is_bug_folder(tmp_path)
    assert safe_name("z3@4.8.8 -T:5/x") == "z3_4.8.8_-T_5_x"


def test_a_verdict_file_that_is_missing_or_not_text(tmp_path: Path) -> None:
    with pytest.raises(BugFileError, match="verdict.json: missing"):
        load_record(tmp_path)
    (tmp_path / "verdict.json").write_bytes(b"\xff\xfe")
    with pytest.raises(BugFileError, match="verdict.json: unreadable"):
        load_record(tmp_path)
    (tmp_path / "mutant.smt2").write_bytes(b"\xff")
    with pytest.raises(BugFileError, match="mutant.smt2: unreadable") as caught:
        read_text(tmp_path / "mutant.smt2")
    assert caught.value.path == tmp_path / "mutant.smt2"


def _reduction(reference: dict[str, object] | None) -> Reduction:
    return Reduction("b", "ddsmt 2.0", 3.5, False, 60.0, Size(100, 20), Size(10, 4),
                     "mutant.smt2", {"run": ["z3"]}, [], CRASH, reference)  # fmt: skip


def test_reduce_json_round_trips_and_names_its_reference(tmp_path: Path) -> None:
    accepted = {"solver": "cvc5", "version": "1.3.0", "accepted": True, "detail": ""}
    reduction = _reduction(accepted)
    write_reduction(tmp_path, "(check-sat)\n", reduction)
    assert is_reduced(tmp_path) and (tmp_path / "reduced.smt2").read_text() == "(check-sat)\n"
    assert load_reduction(tmp_path) == reduction
    assert reduction.reference_sentence() == "accepted by cvc5 1.3.0 without an error line"
    refused = _reduction({"solver": "cvc5", "accepted": False, "detail": "parse error"})
    assert refused.reference_sentence() == "NOT accepted by cvc5: parse error"
    assert _reduction(None).reference_sentence() == "not checked by a reference solver"
    nobody = _reduction({"solver": None, "detail": "no other family installed"})
    assert nobody.reference_sentence() == "no reference solver: no other family installed"
    assert _reduction({"solver": ""}).reference_sentence() == "no reference solver"
    # an older reduce.json: only the sizes and the verdict
    (tmp_path / "reduce.json").write_text(json.dumps({
        "before": {"bytes": 5, "nodes": 2}, "after": {"bytes": 3, "nodes": 1},
        "verdict": CRASH.to_json()}))  # fmt: skip
    old = load_reduction(tmp_path)
    assert old is not None
    assert (old.bug, old.ddsmt_version, old.seconds, old.finished, old.source, old.reference) == (
        tmp_path.name, "unknown", 0.0, True, "mutant.smt2", None,
    )  # fmt: skip
    (tmp_path / "reduce.json").write_text(json.dumps({"before": {"bytes": 5}}))
    with pytest.raises(BugFileError, match="before.'nodes' is missing"):
        load_reduction(tmp_path)


def test_a_bisection_orders_releases_by_number() -> None:
    tried = [Tried("4.8.10", "clean"), Tried("4.8.9", "bug"), Tried("4.8.7", "bug"),
             Tried("4.8.8", "rejected"), Tried("4.8.12", "clean"), Tried("4.8.6", "clean")]  # fmt: skip
    bisection = Bisection("b", "z3", "crash", tried)
    assert [t.version for t in bisection.tried] == [
        "4.8.6", "4.8.7", "4.8.8", "4.8.9", "4.8.10", "4.8.12",
    ]  # fmt: skip
    assert (bisection.first_bad, bisection.last_bad, bisection.first_good_after) == (
        "4.8.7", "4.8.9", "4.8.10",
    )  # fmt: skip
    clean = Bisection("b", "z3", "crash", [Tried("4.8.6", "clean")])
    assert (clean.first_bad, clean.last_bad, clean.first_good_after) == (None, None, None)
    alive = Bisection("b", "z3", "crash", [Tried("4.8.6", "clean"), Tried("4.8.7", "bug")])
    assert alive.first_good_after is None
    read = Bisection.from_json({"solver": "z3", "versions": []}, Path("c/7/bisect.json"))
    assert (read.bug, read.kind, read.versions) == ("7", "", [])
