"""The bug store: crash signatures stored once and counted, hits not double-counted when a
resumed campaign meets the same mutant again, bug folders complete before their index row."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from campaign_helpers import CRASHER

from sphinxfuzz.bugs import Origin, Store
from sphinxfuzz.campaign import Stats
from sphinxfuzz.oracle import judge
from sphinxfuzz.solvers import parse_specs, run_solver

FORMULA = """(set-option :produce-models true)
(declare-const crash_marker Int)
(assert (> crash_marker 2))
(check-sat)
(get-model)
"""


def _crash(store: Store, position: int, mutant: int) -> str | None:
    specs = parse_specs(f"z3;{CRASHER}")
    results = [run_solver(spec, FORMULA, timeout=10.0) for spec in specs]
    judgement = judge(FORMULA, results, lambda spec, text: run_solver(spec, text))
    [verdict] = judgement.verdicts
    return store.record_bug(
        verdict, Origin(7, "seed.smt2", position, mutant, "sphinx", ("Ints",)), FORMULA, results
    )


def test_crash_signature_stored_once_and_counted(tmp_path: Path) -> None:
    with Store(tmp_path, create=True) as store:
        first = _crash(store, 0, 0)
        assert first == "0-0-crash_on_marker.py-crash"
        assert _crash(store, 0, 1) is None  # same signature, other failure line
        assert _crash(store, 0, 1) is None  # the same hit again (a resumed campaign)
        [row] = store.bugs()
        assert row.count == 2
        meta = json.loads((row.folder / "verdict.json").read_text())
        assert meta["campaign_seed"] == 7 and meta["mutant"] == 0
        assert [s["name"] for s in meta["solvers"]] == ["z3", "crash_on_marker.py"]
        assert meta["solvers"][1]["outcome"] == "crash"
        assert (row.folder / "mutant.smt2").read_text() == FORMULA
    # no staging folders left behind, and the index is plain SQLite in WAL mode
    assert [p.name for p in (tmp_path / "bugs").iterdir()] == [first]
    db = sqlite3.connect(tmp_path / "campaign.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_stats_rows_sum_over_runs(tmp_path: Path) -> None:
    with Store(tmp_path, create=True) as store:
        one, two = store.start_run(1), store.start_run(2)
        store.save_stats(one, 0, Stats(mutants=3))
        store.save_stats(one, 1, Stats(mutants=5))
        store.save_stats(two, 0, Stats(mutants=4))
        total = store.total_stats()
    assert total.mutants == 9
