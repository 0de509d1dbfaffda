"""The bug store: crash signatures stored once and counted, hits not double-counted when a
resumed campaign meets the same mutant again, bug folders complete before their index row."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest
from campaign_helpers import CRASHER

from sphinxfuzz.bugs import Origin, Store, StoreError, index_file, load_record
from sphinxfuzz.bugs.dedup import COARSE_TRIGGERS
from sphinxfuzz.bugs.index_file import bug_folder_count
from sphinxfuzz.bugs.index_file import disk_full as _disk_full
from sphinxfuzz.campaign import Stats
from sphinxfuzz.errors import Step, StepKind
from sphinxfuzz.oracle import Judgement, Verdict, VerdictKind, judge
from sphinxfuzz.solvers import Outcome, SolverResult, SolverSpec, parse_specs, run_solver

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


# -- the index's rules on their own: verdicts and results built here, no solver needed --------
Z3 = SolverSpec("z3", "z3", "z3", ("z3",))


def _record(
    store: Store,
    verdict: Verdict,
    text: str,
    position: int,
    mutant: int,
    check_script: str | None = None,
    check_results: Sequence[SolverResult] = (),
) -> str | None:
    """The one place these tests call `record_bug` (its parameters may change)."""
    results = [SolverResult(Z3, Outcome.CRASH, [], "out\n", "err\n", -11, 0.5)]
    check = Judgement(check_results=list(check_results), check_script=check_script)
    origin = Origin(3, "seed.smt2", position, mutant, "sphinx", ("Ints",))
    return store.record_bug(verdict, origin, text, results, check)


def _formula(operator: str) -> str:
    return f"(declare-const x Int)\n(assert ({operator} x 1))\n(check-sat)\n"


def test_other_bugs_are_stored_once_per_mutant_and_counted_by_signature(tmp_path: Path) -> None:
    wrong = Verdict(VerdictKind.SOUNDNESS, "z3", "z3: unsat but cvc5's model holds")
    with Store(tmp_path, create=True) as store:
        assert _record(store, wrong, _formula(">"), 0, 0) == "0-0-z3-soundness"
        assert _record(store, wrong, _formula(">"), 0, 1) == "0-1-z3-soundness"
        assert _record(store, wrong, _formula(">"), 0, 1) is None  # the same hit again
        assert [(b.id, b.count) for b in store.bugs()] == [
            ("0-0-z3-soundness", 1), ("0-1-z3-soundness", 1),
        ]  # fmt: skip
        assert store.signature_counts() == [(wrong.signature, "soundness", "z3", 2)]
        assert store.has_signature(wrong.signature) and not store.has_signature("z3: other")
        assert store.signatures() == {wrong.signature}
        row = store.bug("0-1-z3-soundness")
        assert row is not None and (row.position, row.mutant, row.theories) == (0, 1, ["Ints"])
        assert (row.kind, row.solver, row.seed_file) == (VerdictKind.SOUNDNESS, "z3", "seed.smt2")
        assert row.reduced_path == tmp_path / "bugs" / "0-1-z3-soundness" / "reduced.smt2"
        assert store.bug("9-9-z3-soundness") is None


def test_signature_counts_rank_the_most_hit_first(tmp_path: Path) -> None:
    once = Verdict(VerdictKind.CRASH, "z3", "z3: a")
    twice = Verdict(VerdictKind.CRASH, "z3", "z3: b")
    with Store(tmp_path, create=True) as store:
        _record(store, once, _formula(">"), 0, 0)
        _record(store, twice, _formula(">"), 1, 0)
        _record(store, twice, _formula("<"), 2, 0)
        assert [(s, n) for s, _, _, n in store.signature_counts()] == [("z3: b", 2), ("z3: a", 1)]
        # every crash bug stands for its signature's hits; one bug per signature
        assert [(b.signature, b.count) for b in store.bugs()] == [("z3: a", 1), ("z3: b", 2)]


def test_a_coarse_crash_keeps_a_few_triggers_with_other_operators(tmp_path: Path) -> None:
    coarse = Verdict(VerdictKind.CRASH, "z3", "z3: killed by signal 11", {"coarse": True})
    with Store(tmp_path, create=True) as store:
        stored = [
            _record(store, coarse, _formula(op), n, 0)
            for n, op in enumerate([">", ">", "<", ">=", "<=", "=", "distinct"])
        ]
        # the second `>` has the operators of the first; the sixth trigger is one too many
        assert [s is not None for s in stored] == [True, False, True, True, True, True, False]
        assert len(store.bugs()) == COARSE_TRIGGERS
        assert store.signature_counts()[0][3] == 7
    # a signed crash (no `coarse`) is stored once, whatever its operators
    signed = Verdict(VerdictKind.CRASH, "z3", "z3: SIGSEGV in f < g")
    with Store(tmp_path / "signed", create=True) as store:
        assert _record(store, signed, _formula(">"), 0, 0) is not None
        assert _record(store, signed, _formula("<"), 1, 0) is None


def test_a_bug_folder_keeps_its_check_script_and_runs(tmp_path: Path) -> None:
    checked = Verdict(VerdictKind.INVALID_MODEL, "z3", "z3: model fails", check_script="(a)")
    check_run = SolverResult(Z3, Outcome.UNSAT, ["unsat"], "unsat\n", "", 0, 0.1)
    with Store(tmp_path, create=True) as store:
        ident = _record(store, checked, _formula(">"), 0, 0, check_results=[check_run])
        other = _record(store, checked, _formula(">"), 0, 1, check_script="(b)")
        plain = Verdict(VerdictKind.SOUNDNESS, None, "all: x")
        assert _record(store, plain, _formula(">"), 0, 2) == "0-2-all-soundness"
    folder = tmp_path / "bugs" / str(ident)
    assert (folder / "check.smt2").read_text() == "(a)"
    assert (folder / "check-z3.stdout").read_text() == "unsat\n"
    assert (folder / "z3.stdout").read_text() == "out\n"
    assert (folder / "z3.stderr").read_text() == "err\n"
    assert (tmp_path / "bugs" / str(other) / "check.smt2").read_text() == "(b)"
    assert not (tmp_path / "bugs" / "0-2-all-soundness" / "check.smt2").exists()
    record = load_record(folder)
    assert [c.answers for c in record.check] == [("unsat",)]
    assert (record.campaign_seed, record.seed_file, record.strategy) == (3, "seed.smt2", "sphinx")


def test_progress_mutants_seeds_and_config(tmp_path: Path) -> None:
    with Store(tmp_path, create=True) as store:
        assert store.config() is None and store.runs() == []
        store.save_config({"timeout": 2.5, "solvers": ["z3"]})
        store.save_config({"timeout": 3.0})
        assert store.config() == {"timeout": 3.0, "solvers": ["z3"]}
        assert (store.start_run(1), store.start_run(4)) == (1, 2)
        assert [(r, j) for r, _, j in store.runs()] == [(1, 1), (2, 4)]
        store.mark_done(4, "b.smt2")
        store.mark_done(1, "a.smt2")
        assert store.done_positions() == {1, 4}
        store.log_mutants([(2, 0, "cc", ["Ints"]), (1, 1, "bb", []), (1, 0, "aa", ["Reals"])])
        assert store.mutant_log() == [(1, 0, "aa"), (1, 1, "bb"), (2, 0, "cc")]
        assert store.seed_status("a.smt2") is None
        store.set_seed_status("a.smt2", "used", "")
        store.set_seed_status("b.smt2", "rejected", "z3: unknown sort")
        store.set_seed_status("c.smt2", "rejected", "cvc5: parse error")
        assert store.seed_status("b.smt2") == ("rejected", "z3: unknown sort")
        assert store.seed_statuses()["a.smt2"] == ("used", "")
        assert store.seed_status_counts() == {"used": 1, "rejected": 2}
        store.save_stats(1, 1, Stats(mutants=2))
        store.save_stats(1, 0, Stats(mutants=1))
        assert [(r, m, s.mutants) for r, m, s in store.stats_rows()] == [(1, 0, 1), (1, 1, 2)]


def test_seed_findings_are_named_by_seed_and_path(tmp_path: Path) -> None:
    wrong = Verdict(VerdictKind.SOUNDNESS, "z3", "z3: sat against unsat")
    with Store(tmp_path, create=True) as store:
        one = store.record_seed_finding("a/s.smt2", _formula(">"), wrong, [])
        two = store.record_seed_finding("b/s.smt2", _formula(">"), wrong, [])
        digest = hashlib.sha1(b"a/s.smt2").hexdigest()[:6]
        assert one == f"s-{digest}-z3-soundness" and two.startswith("s-") and one != two
        assert [f[:2] for f in store.seed_findings()] == [(one, "a/s.smt2"), (two, "b/s.smt2")]
    assert bug_folder_count(tmp_path) == 2


def test_a_full_disk_is_told_from_other_errors(tmp_path: Path) -> None:
    assert _disk_full(OSError(errno.ENOSPC, "full"), tmp_path)
    assert _disk_full(OSError(errno.EDQUOT, "quota"), tmp_path)
    assert not _disk_full(OSError(errno.EACCES, "denied"), tmp_path)
    assert _disk_full(sqlite3.OperationalError("database or disk is full"), tmp_path)
    # "disk I/O error" is a full disk only where the disk has no room left (this one has)
    assert not _disk_full(sqlite3.OperationalError("disk I/O error"), tmp_path)
    assert not _disk_full(sqlite3.OperationalError("disk I/O error"), tmp_path / "gone")
    assert not _disk_full(ValueError("full"), tmp_path)


def _one_bug(root: Path) -> None:
    with Store(root, create=True) as store:
        _record(store, Verdict(VerdictKind.CRASH, "z3", "z3: a"), _formula(">"), 0, 0)


def test_opening_says_what_is_wrong_with_the_folder(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"not a campaign folder \(no campaign.sqlite\)"):
        Store(tmp_path / "none")
    assert not (tmp_path / "none").exists()  # opening to read creates nothing
    _one_bug(tmp_path / "c")
    db = tmp_path / "c" / "campaign.sqlite"
    for journal in ("-wal", "-shm"):
        (tmp_path / "c" / f"campaign.sqlite{journal}").unlink(missing_ok=True)
    db.write_bytes(b"")
    with pytest.raises(StoreError, match="empty while 1 bug folder"):
        Store(tmp_path / "c")
    db.unlink()
    with pytest.raises(StoreError, match="missing while 1 bug folder.*rebuild the index") as caught:
        Store(tmp_path / "c", create=True)
    assert caught.value.step == Step(StepKind.REINDEX, {"folder": str(tmp_path / "c")})
    db.mkdir()
    with pytest.raises(StoreError, match="is a folder, not a campaign index"):
        Store(tmp_path / "c")
    db.rmdir()
    db.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match=r"damaged \(file is not a database\)"):
        Store(tmp_path / "c")
    # an index without some tables while bug folders exist
    db.unlink()
    sqlite3.connect(db).execute("CREATE TABLE config (key TEXT)").connection.close()
    with pytest.raises(StoreError, match=r"damaged \(no table bugs, hits, mutants"):
        Store(tmp_path / "c", read_only=True)


def test_an_empty_index_without_bug_folders(tmp_path: Path) -> None:
    (tmp_path / "campaign.sqlite").write_bytes(b"")
    with pytest.raises(StoreError, match=r"not a campaign folder \(campaign.sqlite is empty\)"):
        Store(tmp_path, read_only=True)
    with Store(tmp_path) as store:  # opened to write, it becomes an index
        assert store.bugs() == []


def test_a_read_only_store_reads_and_refuses_writes(tmp_path: Path) -> None:
    _one_bug(tmp_path)
    with Store(tmp_path, read_only=True) as store:
        assert [b.signature for b in store.bugs()] == ["z3: a"]
        with pytest.raises(StoreError, match=r"campaign.sqlite: cannot be written \("):
            store.save_config({"timeout": 1})
    with Store(tmp_path, create=True, read_only=True) as store:  # read-only wins
        assert store.config() is None
    with pytest.raises(StoreError, match="not a campaign folder"):
        Store(tmp_path / "new", create=True, read_only=True)


def test_a_disk_io_error_is_a_full_disk_below_64_kib_free(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite may say only "disk I/O error" when the disk fills; the free space decides."""
    error = sqlite3.OperationalError("disk I/O error")
    for free, full in ((0, True), (64 * 1024 - 1, True), (64 * 1024, False), (10**9, False)):
        space = os.statvfs_result((4096, 1, 0, 0, free, 0, 0, 0, 0, 255))
        monkeypatch.setattr(index_file.os, "statvfs", lambda root, space=space: space)
        assert _disk_full(error, tmp_path) is full, free


def test_creating_a_campaign_makes_its_parent_folders(tmp_path: Path) -> None:
    with Store(tmp_path / "a" / "b", create=True) as store:
        assert store.bugs() == []
    assert (tmp_path / "a" / "b" / "campaign.sqlite").is_file()


def test_an_open_error_is_a_read_only_index_or_damage(tmp_path: Path) -> None:
    """SQLite's errors at opening, told apart by their text (a disk with room left)."""
    Store(tmp_path, create=True).close()
    db = tmp_path / "campaign.sqlite"
    for text in ("unable to open database file", "attempt to write a readonly database"):
        opened = index_file._open_error(tmp_path, db, sqlite3.OperationalError(text))
        assert str(opened) == f"{db}: cannot be opened for writing ({text})"
    for error in (
        sqlite3.OperationalError("disk I/O error"),
        sqlite3.DatabaseError("readonly"),
    ):
        opened = index_file._open_error(tmp_path, db, error)
        assert str(opened).startswith(f"{db}: damaged ({error}); ")


def test_an_index_that_opens_but_fails_its_check_is_damaged_in_one_line(tmp_path: Path) -> None:
    with Store(tmp_path, create=True) as store:
        store.log_mutants([(n, 0, "x" * 64, ["Ints"]) for n in range(300)])
    for journal in ("-wal", "-shm"):
        (tmp_path / f"campaign.sqlite{journal}").unlink(missing_ok=True)
    db = tmp_path / "campaign.sqlite"
    with sqlite3.connect(db) as raw:
        (page,) = raw.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_mutants_1'"
        ).fetchone()
        (size,) = raw.execute("PRAGMA page_size").fetchone()
    raw.close()
    data = bytearray(db.read_bytes())
    data[(page - 1) * size : page * size] = bytes(size)  # the mutant log's index page zeroed
    db.write_bytes(bytes(data))
    for read_only in (True, False):
        with pytest.raises(StoreError) as caught:
            Store(tmp_path, read_only=read_only)
        message = str(caught.value)
        assert message.startswith(f"{db}: damaged (*** in database main *** Page {page}: ")
        assert "\n" not in message and message.endswith("rebuild the index from the bug folders")
        assert caught.value.step == Step(StepKind.REINDEX, {"folder": str(tmp_path)})
