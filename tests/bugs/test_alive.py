"""Alive today (issue 25 item 5): every stored bug is replayed on the newest release of its
family; `bugs list` (plain and --json), `bugs refresh`, the report and the issue text say
alive or fixed, alive first. The "newest release" is a stand-in that fixed the crash for
formulas mentioning `fixed_later`."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from campaign_helpers import CRASHER, FIXTURES, campaign_on_seeds
from typer.testing import CliRunner

from sphinxfuzz.api import list_bugs
from sphinxfuzz.bugs import Store, load_record
from sphinxfuzz.bugs.issue_text import issue_text, load_facts
from sphinxfuzz.bugs.newest import newest_specs
from sphinxfuzz.bugs.record import ALIVE, FIXED, UNDECIDED
from sphinxfuzz.bugs.refresh import refresh_bug
from sphinxfuzz.bugs.report import render_report
from sphinxfuzz.cli import app
from sphinxfuzz.solvers import parse_specs
from sphinxfuzz.solvers.versions import solver_version

NEWEST = str(FIXTURES / "crash_fixed_later.py")
SEED = """(set-logic ALL)
(declare-const crash_marker Int)
(declare-const {name} Int)
(assert (> {name} (+ crash_marker 2)))
(check-sat)
"""
runner = CliRunner()


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return campaign_on_seeds(
        tmp_path_factory.mktemp("alive"),
        {name: SEED.format(name=name) for name in ("fixed_later", "still_there")},
        f"z3;{CRASHER}",
        seed=7,
        newest=NEWEST,
    )


def _statuses(root: Path) -> dict[str, str]:
    with Store(root) as store:
        rows = store.bugs()
    found = {}
    for row in rows:
        record = load_record(row.folder)
        assert record.today is not None, row.id  # replayed right after storing
        expected = FIXED if "fixed_later" in record.formula() else ALIVE
        assert record.today.status == expected, (row.id, record.today)
        assert record.today.solver == NEWEST and record.today.version
        found[row.id] = record.today.status
    return found


def test_new_bugs_are_recorded_alive_or_fixed_and_listed_alive_first(campaign: Path) -> None:
    statuses = _statuses(campaign)
    assert set(statuses.values()) == {ALIVE, FIXED}
    listed = runner.invoke(app, ["bugs", "list", "--campaign", str(campaign), "--json"])
    assert listed.exit_code == 0, listed.output
    document = json.loads(listed.output)
    order = [bug["today"]["status"] for bug in document["bugs"]]
    assert order == sorted(order, key=lambda s: s != ALIVE)  # alive first
    assert [g["status"] for g in document["groups"]][0] == ALIVE
    assert {g["status"] for g in document["groups"]} == {ALIVE, FIXED}
    alive = runner.invoke(app, ["bugs", "list", "--campaign", str(campaign), "--json", "--alive"])
    assert {b["today"]["status"] for b in json.loads(alive.output)["bugs"]} == {ALIVE}
    plain = runner.invoke(app, ["bugs", "list", "--campaign", str(campaign)])
    lines = [line for line in plain.output.splitlines() if "-crash" in line and " in " in line]
    firsts = [("alive" if "alive in" in line else "fixed") for line in lines]
    assert "alive" in firsts and "fixed" in firsts
    bug_lines = [line for line in plain.output.splitlines() if line.split()[0] in statuses]
    kinds = ["alive" if " alive in " in line else "fixed" for line in bug_lines]
    assert kinds == sorted(kinds)  # "alive" sorts before "fixed"


def test_the_report_and_the_issue_text_say_alive_or_fixed(campaign: Path) -> None:
    statuses = _statuses(campaign)
    report = render_report(campaign)
    # the queue opens the page and lists what it holds back (a fixed bug too): the order is
    # the distinct bugs' own
    bugs = report[report.index('<section id="bugs">') :]
    assert bugs.index("alive in ") < bugs.index("fixed in ")  # alive groups first
    for ident, status in statuses.items():
        text = issue_text(load_facts(campaign / "bugs" / ident))
        sentence = "Still happens with" if status == ALIVE else "Fixed in"
        assert sentence in text and "the newest release" in text, text


def test_bugs_refresh_rechecks_on_the_release_it_is_given(campaign: Path, tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "c"
    shutil.copytree(campaign, root)
    # replayed on the release the campaign ran (the crash everywhere): every bug is alive
    result = runner.invoke(
        app, ["bugs", "refresh", "-c", str(root), "--newest", CRASHER, "--trust-folder"]
    )
    assert result.exit_code == 0, result.output
    with Store(root) as store:
        rows = store.bugs()
    for row in rows:
        today = load_record(row.folder).today
        assert today is not None and today.status == ALIVE and today.solver == CRASHER
        assert f"{row.id}: alive in " in result.output
    bad = runner.invoke(
        app, ["bugs", "refresh", "--campaign", str(root), "--newest", "z3;z3 rewriter.flat=false"]
    )  # two z3 command lines, neither needing an install (a release the machine lacks fails first)
    assert bad.exit_code == 2 and "names two z3 solvers" in bad.output


def test_a_failed_assertion_of_a_build_is_replayed_on_a_newer_build(
    campaign: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A release checks no assertions: it would call every failed one fixed."""
    root, folder = _copied_fixed_later(campaign, tmp_path)
    # the bug as a z3 build with assertions stores it (the crashing stand-in as that build)
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    _blame_build(folder, "4.8.11+assert", _fake_build(tmp_path / "cache", "4.8.11+assert", CRASHER))
    today = refresh_bug(root, folder, newest_specs())  # older than the newest release
    assert today.status == UNDECIDED and "checks no assertions" in today.detail, today
    # a newer build with assertions (the stand-in that fixed the crash) is what it replays on
    _fake_build(tmp_path / "cache", "4.9.1+assert", NEWEST)
    today = refresh_bug(root, folder, newest_specs())
    assert (today.solver, today.version, today.status) == (
        "z3@4.9.1+assert", "4.9.1+assert", FIXED,
    ), today  # fmt: skip


def _copied_fixed_later(campaign: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the campaign, and the folder of its bug that a newer release fixed."""
    root = tmp_path / "campaign"
    shutil.copytree(campaign, root)
    with Store(root) as store:
        folder = next(r.folder for r in store.bugs() if "fixed_later" in r.folder.joinpath(
            "mutant.smt2").read_text())  # fmt: skip
    return root, folder


def _blame_build(folder: Path, version: str, binary: Path) -> None:
    """The stored bug as the z3 build `version` stored it, that build running `binary`."""
    stored = json.loads((folder / "verdict.json").read_text())
    for solver in stored["solvers"]:
        if solver["name"] == stored["verdict"]["solver"]:
            solver.update(name=f"z3@{version}", spec=f"z3@{version}", family="z3",
                          argv=[str(binary)])  # fmt: skip
    stored["verdict"]["solver"] = f"z3@{version}"
    (folder / "verdict.json").write_text(json.dumps(stored))


def test_a_failed_assertion_of_the_newest_build_of_its_kind_is_replayed_on_it(
    campaign: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found on a build with assertions of the newest release (z3@5.4.1+assert, z3 5.4.1 the
    newest installed): no newer build can exist, so that build's own run says alive or
    fixed, not "undecided"."""
    root, folder = _copied_fixed_later(campaign, tmp_path)
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    newest = solver_version(parse_specs("z3")[0])  # the installed wheel's
    build = f"{newest}+assert"
    binary = _fake_build(tmp_path / "cache", build, CRASHER)
    _blame_build(folder, build, binary)
    today = refresh_bug(root, folder, newest_specs())
    assert (today.solver, today.version, today.status) == (f"z3@{build}", build, ALIVE), today
    # a run decides it, not the blame: the same build, crashing no more, calls it fixed
    binary.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{NEWEST}" "$@"\n')
    today = refresh_bug(root, folder, newest_specs())
    assert (today.solver, today.status) == (f"z3@{build}", FIXED), today


def _fake_build(cache: Path, version: str, script: str) -> Path:
    """A z3 build in the solver cache whose binary runs a stand-in `script`."""
    build = cache / "solvers" / f"z3-{version}"
    (build / "bin").mkdir(parents=True)
    binary = build / "bin" / "z3"
    binary.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{script}" "$@"\n')
    binary.chmod(0o755)
    record = {"family": "z3", "version": version, "binary": "bin/z3"}
    (build / "installed.json").write_text(json.dumps(record))
    return binary


def test_the_alive_listing_keeps_the_alive_seed_findings_only(tmp_path: Path) -> None:
    """Seeds that crash unmutated (they ask for a model) are seed findings, listed alive or
    fixed like bugs; `--alive` (api.list_bugs(alive=True)) keeps the alive one alone."""
    asks = SEED + "(get-model)\n"
    root = campaign_on_seeds(
        tmp_path, {name: asks.format(name=name) for name in ("fixed_later", "still_there")},
        f"z3;{CRASHER}", seed=7, newest=NEWEST,
    )  # fmt: skip
    every = list_bugs(root)
    alive = list_bugs(root, alive=True)
    assert sorted(row[-2] for row in every.findings.rows) == ["fixed_later.smt2",
                                                             "still_there.smt2"]  # fmt: skip
    assert {row[1].split()[0] for row in every.findings.rows} == {ALIVE, FIXED}
    assert [row[-2] for row in alive.findings.rows] == ["still_there.smt2"]
    assert alive.findings.rows[0][1].startswith("alive in")
