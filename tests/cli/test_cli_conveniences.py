"""What scripts and CI use: --json documents, one way to name a campaign, progress lines in
logs, --quiet, and --fail-on-bug's exit status; real solvers, real campaigns."""

from __future__ import annotations

import json
import re
from pathlib import Path

from campaign_helpers import CRASHER, GENERATORS, SEEDS
from typer.testing import CliRunner

from sphinxfuzz.bugs import Store
from sphinxfuzz.cli import app

runner = CliRunner()  # result.stdout and result.stderr apart, result.output both


def _json(args: list[str]) -> dict:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output + result.stderr
    return json.loads(result.stdout)


def test_bugs_list_and_show_print_json(crash_campaign: tuple[Path, list[str]]) -> None:
    root, _ = crash_campaign
    with Store(root) as store:
        stored = store.bugs()
    listed = _json(["bugs", "list", "-c", str(root), "--json"])
    assert listed["schema"] == "sphinxfuzz/bugs-list/1"
    assert [b["id"] for b in listed["bugs"]] == [b.id for b in stored]
    assert sum(g["hits"] for g in listed["groups"]) == sum(b.count for b in stored)
    assert {i for g in listed["groups"] for i in g["bugs"]} == {b.id for b in stored}
    assert any(f["seed_file"].endswith("finding.smt2") for f in listed["seed_findings"])
    crash = next(b for b in stored if b.kind == "crash")
    shown = _json(["bugs", "show", crash.id, "--campaign", str(root), "--json"])
    assert shown["verdict"]["kind"] == "crash" and "crash_marker" in shown["formula"]
    blamed = next(s for s in shown["solvers"] if s["name"] == crash.solver)
    assert "ASSERTION VIOLATION" in blamed["stderr"]


def test_the_old_positional_campaign_still_works_with_a_note(
    crash_campaign: tuple[Path, list[str]], tmp_path: Path
) -> None:
    root, _ = crash_campaign
    old = runner.invoke(app, ["bugs", "list", str(root)])
    assert old.exit_code == 0 and "deprecated; write -c" in old.stderr
    new = runner.invoke(app, ["bugs", "list", "-c", str(root)])
    assert new.exit_code == 0 and new.stderr == "" and new.stdout == old.stdout
    clash = runner.invoke(app, ["bugs", "list", str(root), "-c", str(tmp_path)])
    assert clash.exit_code == 2
    report = runner.invoke(app, ["report", "-c", str(root), "--out", str(tmp_path / "r.html")])
    assert report.exit_code == 0 and (tmp_path / "r.html").is_file()


def test_solvers_and_generators_print_json() -> None:
    solvers = _json(["solvers", "--json"])
    z3 = next(s for s in solvers["solvers"] if s["name"] == "z3")
    assert z3["found"] and re.fullmatch(r"\d+\.\d+\.\d+", z3["version"])
    listed = _json(["solvers", "list", "--solvers", "z3;/no/such/solver", "--json"])
    assert [s["found"] for s in listed["solvers"]] == [True, False]
    generators = _json(["generators", "list", "--generators", str(GENERATORS), "--json"])
    theories = [g["theory"] for g in generators["generators"]]
    assert theories and theories == sorted(theories)
    validated = _json(["generators", "validate", "Core", "-n", "10", "--json"])
    (core,) = validated["theories"]
    assert core["terms"] == 10 and core["validity_by_solver"]["z3"] == 1.0 and core["meets"]


def _fuzz(tmp_path: Path, solvers: str, *extra: str) -> tuple[int, str]:
    result = runner.invoke(
        app,
        ["fuzz", "--seeds", str(SEEDS / "crash.smt2"), "--solvers", solvers, "--generators",
         str(GENERATORS), "--mutants", "3", "--seed", "1", "-c", str(tmp_path / "c"),
         "--fresh-processes", "--no-reduce", *extra],
    )  # fmt: skip
    return result.exit_code, result.stdout


def test_fail_on_bug_sets_the_exit_status(tmp_path: Path) -> None:
    code, out = _fuzz(tmp_path / "a", f"z3;{CRASHER}", "--fail-on-bug")
    assert code == 1 and "bugs: crash" in out
    code, _ = _fuzz(tmp_path / "b", f"z3;{CRASHER}")  # without the flag: still 0
    assert code == 0
    code, _ = _fuzz(tmp_path / "c", "z3;cvc5", "--fail-on-bug")  # nothing found
    assert code == 0


def test_logs_get_timestamped_statistics_lines_and_quiet_none(tmp_path: Path) -> None:
    code, out = _fuzz(tmp_path / "a", "z3;cvc5", "--log-every", "0.2")
    assert code == 0
    lines = re.findall(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d +\d+s  mutants \d+ .* accepted \d+%.*bugs: ",
                       out, flags=re.M)  # fmt: skip
    assert lines, out
    code, quiet = _fuzz(tmp_path / "b", "z3;cvc5", "--log-every", "0.2", "--quiet")
    assert code == 0 and "campaign summary" in quiet
    assert "mutants 0" not in quiet and not re.search(r"^\d{4}-\d\d-\d\dT", quiet, flags=re.M)
