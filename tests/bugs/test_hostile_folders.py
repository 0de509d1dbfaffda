"""A bug folder's command lines are data, never code (issue 52, defect 1): replay, reduce,
bisect and refresh run only stored specs that name a solver found as a campaign finds one,
show each command first, and run anything else only when the folder is trusted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import sphinxfuzz
from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.trust import UntrustedCommand, untrusted_reason
from sphinxfuzz.cli import app

runner = CliRunner()


def _forged(crash_campaign: tuple[Path, list[str]], tmp_path: Path, spec: str) -> Path:
    """A stored crash, in a copy of its campaign, whose second solver's spec is `spec`."""
    with Store(crash_campaign[0]) as store:
        bug = next(b for b in store.bugs() if b.kind == "crash")
    shutil.copytree(crash_campaign[0], tmp_path / "campaign")
    copy = tmp_path / "campaign" / bug.folder.relative_to(crash_campaign[0])
    verdict = json.loads((copy / "verdict.json").read_text())
    verdict["solvers"][1]["spec"] = spec
    (copy / "verdict.json").write_text(json.dumps(verdict))
    return copy


@pytest.mark.parametrize("command", [["bugs", "replay"], ["reduce"], ["bisect"]])
def test_a_forged_command_runs_only_in_a_trusted_folder(
    crash_campaign: tuple[Path, list[str]], tmp_path: Path, command: list[str]
) -> None:
    pwned = tmp_path / "PWNED"
    forged = f"sh -c 'touch {pwned} && exec z3 \"$0\"'"
    folder = _forged(crash_campaign, tmp_path, forged)
    refused = runner.invoke(app, [*command, str(folder)])
    assert refused.exit_code == 2, refused.output
    assert forged in refused.output and "--trust-folder" in refused.output
    assert not pwned.exists()
    with pytest.raises(UntrustedCommand):
        sphinxfuzz.replay(None, str(folder))
    assert not pwned.exists()


def test_a_trusted_folder_shows_the_exact_command_before_running_it(
    crash_campaign: tuple[Path, list[str]], tmp_path: Path
) -> None:
    pwned = tmp_path / "PWNED"
    folder = _forged(crash_campaign, tmp_path, f"sh -c 'touch {pwned} && exec z3 \"$0\"'")
    trusted = runner.invoke(app, ["bugs", "replay", str(folder), "--trust-folder"])
    sh = shutil.which("sh")
    assert f"runs: {sh} -c 'touch {pwned} && exec z3 \"$0\"' <formula>" in trusted.output
    assert pwned.exists()


def test_a_known_solver_runs_without_trust_and_bugs_show_prints_its_spec(
    crash_campaign: tuple[Path, list[str]], tmp_path: Path
) -> None:
    folder = _forged(crash_campaign, tmp_path, "z3")
    replayed = runner.invoke(app, ["bugs", "replay", str(folder)])
    assert replayed.exit_code == 1, replayed.output  # ran (z3 does not crash): not refused
    assert replayed.output.count("runs: ") == 2 and "/z3 " in replayed.output
    shown = runner.invoke(app, ["bugs", "show", str(folder)])
    assert "spec: z3   (replay runs this" in shown.output


@pytest.mark.parametrize(
    ("spec", "refused"),
    [
        ("z3", False),
        ("cvc5 --incremental", False),
        ("z3@4.12.2", False),
        ("z3 smt.arith.solver=2", False),
        ("cvc5 --force-logic=QF_BV", False),
        ("z3 proof.log=x", True),
        ("sh -c 'exec z3 \"$0\"'", True),
        ("/tmp/z3", True),
        ("bugs/1-crash/z3", True),
        ("python3 -m sphinxfuzz.solvers.cvc5_shim", True),
        ("z3 trace=true trace_file_name=.bashrc", True),
        ("cvc5 --regular-output-channel=out", True),
        ("z3 -smt2 /etc/passwd", True),
        ("sh@1.0", True),
    ],
)
def test_the_rule_for_stored_specs(spec: str, refused: bool) -> None:
    assert (untrusted_reason(spec) is not None) == refused
