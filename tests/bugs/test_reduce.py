"""`sphinxfuzz reduce`: ddSMT on a stored crash, with the stored command lines; the errors."""

from __future__ import annotations

import json
import os
import shutil
import time
from importlib import metadata
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs import reduce as reduce_module
from sphinxfuzz.bugs.record import load_reduction
from sphinxfuzz.bugs.reduce import ReduceError, formula_size, reduce_bug
from sphinxfuzz.cli import app
from sphinxfuzz.oracle.same_bug import CheckSpec, check
from sphinxfuzz.solvers import Outcome, parse_specs, reaper, run_solver

runner = CliRunner()


def copy_campaign(root: Path, target: Path) -> Path:
    """A private copy: reductions write into bug folders."""
    shutil.copytree(root, target)
    return target


def crash_bug(root: Path) -> str:
    with Store(root) as store:
        return next(b.id for b in store.bugs() if b.kind == "crash")


def test_reduce_shrinks_a_crash_and_keeps_it_a_crash(
    crash_campaign: tuple[Path, list[str]], tmp_path: Path
) -> None:
    root = copy_campaign(crash_campaign[0], tmp_path / "c")
    bug = crash_bug(root)
    result = runner.invoke(app, ["reduce", "--all", "--campaign", str(root), "--trust-folder"])
    assert result.exit_code == 0, result.output
    folder = root / "bugs" / bug
    reduced = (folder / "reduced.smt2").read_text()
    original = (folder / "mutant.smt2").read_text()
    meta = json.loads((folder / "reduce.json").read_text())
    assert meta["ddsmt_version"] == metadata.version("ddsmt")
    assert meta["before"] == formula_size(original).to_json()
    assert meta["after"] == formula_size(reduced).to_json()
    assert meta["after"]["bytes"] < meta["before"]["bytes"] / 3
    assert meta["after"]["nodes"] < meta["before"]["nodes"] / 3
    assert meta["seconds"] > 0 and meta["finished"] is True
    assert f"{meta['before']['bytes']} -> {meta['after']['bytes']} bytes" in result.output
    # still the same crash, checked again here on the stored command lines
    spec = CheckSpec.from_json(meta["check"])
    assert spec.kind == "crash" and spec.run == ("crash_on_marker.py",)
    found, _ = check(spec, reduced)
    assert found is not None and found.signature.startswith("other: ASSERTION VIOLATION")
    # the reference (z3, the newest of another family) read every kept candidate, this too:
    # the stand-in also crashes on broken text, which a maintainer would close as invalid
    assert spec.parsers == ("z3",)
    assert meta["reference"]["solver"] == "z3" and meta["reference"]["accepted"] is True
    z3 = run_solver(parse_specs("z3")[0], reduced, timeout=10)
    complaints = [
        line for line in z3.stdout.splitlines()
        if line.startswith(("(error", "unsupported")) and "model is not available" not in line
    ]  # fmt: skip
    # z3 refuses nothing but the model request after no check-sat (a rejection since 71888de:
    # "model is not available" before any answer), which the reference leaves out
    refused = z3.outcome == Outcome.ERROR and "model is not available" not in z3.stdout
    assert complaints == [] and not refused, (reduced, z3.stdout)
    report = load_reduction(folder)
    assert report is not None and report.reference_sentence().startswith("accepted by z3 ")
    again = runner.invoke(app, ["reduce", "--all", "--campaign", str(root), "--trust-folder"])
    assert again.exit_code == 0 and "reduced already" in again.output
    # the checks' processes this subreaper adopted from ddSMT's tree (its own session) were
    # all reaped; a zombie of this test process's session is another test's (a janitor of a
    # `fuzz` child, orphaned when that child ended, which `reap_adopted` leaves to its owner)
    zombies = [pid for pid in reaper.children() if reaper.state_of(pid) == "Z"]
    assert [pid for pid in zombies if os.getsid(pid) != os.getsid(0)] == []


def test_a_trigger_that_no_longer_fires_writes_nothing(
    crash_campaign: tuple[Path, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    root = copy_campaign(crash_campaign[0], tmp_path / "c")
    folder = root / "bugs" / crash_bug(root)
    mutant = folder / "mutant.smt2"
    mutant.write_text(mutant.read_text().replace("crash_marker", "quiet_marker"))
    with pytest.raises(ReduceError, match="no longer shows the bug.*flaky.*nothing written"):
        reduce_bug(root, folder.name)
    assert not (folder / "reduced.smt2").exists() and not (folder / "reduce.json").exists()
    # named by its folder's path, from a folder with no campaigns/: the path names the campaign
    by_path = runner.invoke(app, ["reduce", str(folder), "--trust-folder"])
    assert by_path.exit_code == 2 and "no longer shows the bug" in by_path.output, by_path.output
    # --all goes on after a bug it cannot reduce; every trigger silenced keeps ddSMT out of it
    # (test_reduce_shrinks_a_crash_and_keeps_it_a_crash reduces every bug with --all)
    crashes = list((root / "bugs").iterdir())  # one per assertion the stand-in failed
    for other in crashes:
        quieted = (other / "mutant.smt2").read_text().replace("crash_marker", "quiet_marker")
        (other / "mutant.smt2").write_text(quieted)
    listed = runner.invoke(app, ["reduce", "--all", "--campaign", str(root), "--trust-folder"])
    assert listed.exit_code == 1 and len(crashes) > 1
    assert listed.output.count("no longer shows the bug") == len(crashes), listed.output
    assert f"{len(crashes)} of {len(crashes)} bugs could not be reduced" in listed.output


def test_without_a_reference_that_reads_the_trigger_nothing_is_reduced(
    crash_campaign: tuple[Path, list[str]], tmp_path: Path
) -> None:
    # a reduced formula is kept only when a reference reads it cleanly; a reference that
    # refuses even the stored trigger could tell no valid candidate, so none is made
    root = copy_campaign(crash_campaign[0], tmp_path / "c")
    folder = root / "bugs" / crash_bug(root)
    with Store(root) as store:
        config = store.config() or {}
        store.save_config({**config, "newest": "z3 smt.no_such_parameter=true"})
    with pytest.raises(ReduceError, match="no reference solver reads the stored formula"):
        reduce_bug(root, folder.name)
    assert not (folder / "reduced.smt2").exists() and not (folder / "reduce.json").exists()


def test_a_reduction_the_time_limit_stopped_goes_on_from_its_result(
    crash_campaign: tuple[Path, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_campaign(crash_campaign[0], tmp_path / "c")
    folder = root / "bugs" / crash_bug(root)
    inputs: list[str] = []

    def stopped_at_once(argv: list[str], *_: object) -> tuple[None, str]:
        inputs.append(Path(argv[-3]).read_text())  # ddSMT's input file
        return None, ""  # as when the time limit stops ddSMT before it writes anything

    monkeypatch.setattr(reduce_module, "_run_ddsmt", stopped_at_once)
    first = reduce_bug(root, folder.name, time_limit=1)
    mutant = (folder / "mutant.smt2").read_text()
    assert not first.finished and inputs == [mutant]
    # its best result so far, as a stopped ddSMT leaves it (still the same crash)
    (folder / "reduced.smt2").write_text(mutant + "; best so far\n")
    second = reduce_bug(root, folder.name, time_limit=1)
    assert inputs[1] == mutant + "; best so far\n"
    meta = json.loads((folder / "reduce.json").read_text())
    assert meta["before"] == formula_size(mutant).to_json()  # sizes from the stored trigger
    assert second.seconds >= first.seconds


def test_unknown_ids_and_missing_ddsmt_are_explained(
    crash_campaign: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = crash_campaign[0]
    bug = crash_bug(root)
    typo = runner.invoke(app, ["reduce", bug.replace("crash_on", "crash-on"), "-c", str(root)])
    assert typo.exit_code == 2 and f"did you mean {bug}" in typo.output
    neither = runner.invoke(app, ["reduce", "-c", str(root)])
    assert neither.exit_code == 2 and "--all" in neither.output
    real_find_spec = reduce_module.importlib.util.find_spec
    monkeypatch.setattr(
        reduce_module.importlib.util, "find_spec",
        lambda name, *a: None if name == "ddsmt" else real_find_spec(name, *a),
    )  # fmt: skip
    missing = runner.invoke(app, ["reduce", "--all", "-c", str(root)])
    assert missing.exit_code == 2
    assert 'pip install "sphinxfuzz[reduce]"' in missing.output and "ddsmt" in missing.output


def test_a_time_limit_keeps_the_best_result_so_far(
    crash_campaign: tuple[Path, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_campaign(crash_campaign[0], tmp_path / "c")
    bug = crash_bug(root)
    real_passes = reduce_module.passes

    def slow_passes(spec: CheckSpec, text: str) -> bool:
        # a check answered in-process takes a few ms: ddSMT could finish inside the limit
        time.sleep(0.25)
        return real_passes(spec, text)

    monkeypatch.setattr(reduce_module, "passes", slow_passes)
    result = reduce_bug(root, bug, time_limit=3.0)
    assert not result.finished and result.seconds < 20
    meta = json.loads((root / "bugs" / bug / "reduce.json").read_text())
    assert meta["finished"] is False and meta["time_limit"] == 3.0
    assert meta["after"]["bytes"] <= meta["before"]["bytes"]
    reduced = (root / "bugs" / bug / "reduced.smt2").read_text()
    assert check(CheckSpec.from_json(meta["check"]), reduced)[0] is not None
