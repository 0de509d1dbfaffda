"""Every reader of a campaign file reports a damaged or hand-edited file in one line naming
it, never a traceback (issue 52, defect 8)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sphinxfuzz.bugs import Store
from sphinxfuzz.campaign.lock import CampaignLock
from sphinxfuzz.cli import app

runner = CliRunner()


@pytest.fixture
def copy(crash_campaign: tuple[Path, list[str]], tmp_path: Path) -> Path:
    root = tmp_path / "c"
    shutil.copytree(crash_campaign[0], root)
    return root


def _one_line_naming(result, name: str) -> None:  # type: ignore[no-untyped-def]
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.output.startswith("error: ") and name in result.output
    assert result.output.count("\n") == 1, result.output


def test_a_verdict_with_numbers_too_long_to_read(copy: Path) -> None:
    with Store(copy) as store:
        folder = store.bugs()[0].folder
    verdict = folder / "verdict.json"
    data = json.loads(verdict.read_text())
    text = json.dumps(data).replace(f'"position": {data["position"]}', '"position": ' + "7" * 5000)
    verdict.write_text(text)
    for command in (["bugs", "show", str(folder)], ["bugs", "list", "-c", str(copy)],
                    ["report", "-c", str(copy), "-o", str(copy / "r.html")],
                    ["bugs", "reindex", "-c", str(copy)]):  # fmt: skip
        result = runner.invoke(app, command)
        assert "Traceback" not in result.output and not isinstance(result.exception, ValueError), (
            command,
            result.output,
        )
        if result.exit_code != 0:  # refused in one line, or the bug skipped with its file named
            _one_line_naming(result, "verdict.json")
        else:
            assert "verdict.json" in result.output, (command, result.output)


def test_a_check_time_of_400_digits(copy: Path) -> None:
    with Store(copy) as store:
        folder = store.bugs()[0].folder
    verdict = folder / "verdict.json"
    data = json.loads(verdict.read_text())
    data["today"] = {"status": "alive", "solver": "z3", "version": "4", "checked_at": 10**400}
    verdict.write_text(json.dumps(data))
    _one_line_naming(runner.invoke(app, ["bugs", "show", str(folder)]), "checked_at")


@pytest.mark.parametrize(
    ("text", "running"),
    [("[]", False), ('{"seeds": {}}', False), ('{"seeds": {"total": "x"}}', False),
     ('{"pid": 1}', True), ('{"pid": 1}', False)],
)  # fmt: skip
def test_a_forged_status_file(copy: Path, text: str, running: bool) -> None:
    (copy / "status.json").write_text(text)
    if running:  # as if a campaign ran there: the file is then trusted as the live status
        with CampaignLock(copy, create=False):
            result = runner.invoke(app, ["status", "-c", str(copy)])
    else:
        result = runner.invoke(app, ["status", "-c", str(copy)])
    _one_line_naming(result, "status.json")
