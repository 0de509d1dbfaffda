"""Files a campaign writes get the user's umask, not the private mode of temporary files."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from campaign_helpers import CRASHER, SEEDS, config_for

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.report import write_report
from sphinxfuzz.campaign import Budget, run_campaign


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_bug_folders_and_reports_follow_the_umask(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        root = tmp_path / "campaign"
        config = config_for([SEEDS / "crash.smt2"], f"z3;{CRASHER}", per_seed=1)
        run_campaign(config, root, Budget(), persistent=0)
        report = write_report(root, tmp_path / "report.html")
    finally:
        os.umask(old)
    with Store(root) as store:
        (bug,) = store.bugs()
    assert _mode(bug.folder) == 0o777 & ~umask
    assert {_mode(p) for p in bug.folder.iterdir()} == {0o666 & ~umask}
    assert _mode(report) == 0o666 & ~umask
