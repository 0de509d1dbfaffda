"""Silent crashes named by their stacks where a maintainer reads them (issue 25): the
issue's title and text carry the stack signature, not "killed by signal 11", and "alive
today" says which crash the newest release shows, "another crash" when it is not the
stored one. Real processes: the segfaulting stand-ins under gdb."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from campaign_helpers import FIXTURES, SEGFAULTER, SEGV_SEED, campaign_on_seeds
from typer.testing import CliRunner

from sphinxfuzz.bugs import Store, load_record
from sphinxfuzz.bugs.issue_text import TITLE_STACK_CHARS, issue_text, load_facts, stack_title
from sphinxfuzz.bugs.record import ALIVE
from sphinxfuzz.cli import app

needs_gdb = pytest.mark.skipif(shutil.which("gdb") is None, reason="needs gdb")
MOVED = f"{sys.executable} {FIXTURES / 'segfault_moved.py'}"
runner = CliRunner()


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return campaign_on_seeds(
        tmp_path_factory.mktemp("titles"),
        {site: SEGV_SEED.format(site=site) for site in ("null_site", "other_site")},
        f"z3;{SEGFAULTER}",
        seed=4,
        newest=SEGFAULTER,
    )


def _by_site(root: Path) -> dict[str, Path]:
    with Store(root) as store:
        folders = [b.folder for b in store.bugs() if b.kind == "crash"]
    found = {("null_site" if "null_site" in load_record(f).formula() else "other_site"): f
             for f in folders}  # fmt: skip
    assert set(found) == {"null_site", "other_site"} and len(folders) == 2, folders
    return found


@needs_gdb
def test_two_silent_segfaults_get_two_titles_from_their_stacks(campaign: Path) -> None:
    titles = {}
    for site, folder in _by_site(campaign).items():
        signature = load_record(folder).verdict.signature
        text = issue_text(load_facts(folder))
        title = text.splitlines()[0]
        assert title.startswith("Title: ") and "crash: SIGSEGV in " in title, title
        assert "killed by signal" not in title
        assert len(title.split("crash: ", 1)[1]) <= TITLE_STACK_CHARS
        # the body has the whole stack signature (all its frames), the exit status too
        frames = signature.split(" in ", 1)[1]
        assert f"under gdb it stops on SIGSEGV in {frames}" in text, text
        assert "no message (killed by signal 11)" in text
        titles[site] = title
    assert titles["null_site"] != titles["other_site"]


@needs_gdb
def test_alive_today_names_the_crash_and_another_crash_apart(
    campaign: Path, tmp_path: Path
) -> None:
    sites = _by_site(campaign)
    for folder in sites.values():  # replayed right after storing, on the same stand-in
        record = load_record(folder)
        assert record.today is not None and record.today.status == ALIVE
        assert record.today.detail == record.verdict.signature and not record.today.another_crash
    root = tmp_path / "c"
    shutil.copytree(campaign, root)
    result = runner.invoke(
        app, ["bugs", "refresh", "-c", str(root), "--newest", MOVED, "--trust-folder"]
    )
    assert result.exit_code == 0, result.output
    moved = {site: load_record(root / "bugs" / folder.name) for site, folder in sites.items()}
    same, other = moved["other_site"], moved["null_site"]
    assert same.today is not None and same.today.status == ALIVE
    assert same.today.detail == same.verdict.signature and not same.today.another_crash
    assert other.today is not None and other.today.status == ALIVE and other.today.another_crash
    # the newest release faults where the other bug does: its stack, not the stored one
    shown = other.today.detail
    assert shown.startswith("other: SIGSEGV in ") and shown != other.verdict.signature
    assert shown == same.verdict.signature
    assert f"{other.id}: alive (another crash) in " in result.output
    assert f"{same.id}: alive in " in result.output
    text = issue_text(load_facts(other.folder))
    assert f"still crashes on it, but with another signature: {shown}." in text
    show = runner.invoke(app, ["bugs", "show", other.id, "--campaign", str(root)])
    assert show.exit_code == 0, show.output
    assert "today: alive (another crash) in " in show.output and shown in show.output


@needs_gdb
def test_a_bug_stored_coarse_is_not_called_another_crash(campaign: Path, tmp_path: Path) -> None:
    """Stored where gdb was missing ("killed by signal 11"), replayed where it is: the stack
    the newest release shows cannot be told from the stored crash, so it is plain alive."""
    root = tmp_path / "c"
    shutil.copytree(campaign, root)
    folder = root / "bugs" / _by_site(campaign)["null_site"].name
    stored = json.loads((folder / "verdict.json").read_text())
    coarse = "other: killed by signal 11"
    stored["verdict"]["signature"] = coarse
    stored["verdict"]["evidence"] = {"coarse": True}
    if isinstance(stored.get("check"), dict):
        stored["check"]["signature"] = coarse
    (folder / "verdict.json").write_text(json.dumps(stored))
    result = runner.invoke(
        app, ["bugs", "refresh", "-c", str(root), "--newest", MOVED, "--trust-folder"]
    )
    assert result.exit_code == 0, result.output
    today = load_record(folder).today
    assert today is not None and today.status == ALIVE and not today.another_crash, today
    assert today.detail.startswith("other: SIGSEGV in ")


def test_a_title_keeps_the_top_frames_within_its_length() -> None:
    assert stack_title("SIGSEGV", ["f", "g", "h"]) == "SIGSEGV in f < g"
    assert stack_title("SIGABRT", ["libz3.so+0x1a2b"]) == "SIGABRT in libz3.so+0x1a2b"
    long_second = ["rational::power_of_two", "n::" * 40 + "g", "h"]
    assert stack_title("SIGSEGV", long_second) == "SIGSEGV in rational::power_of_two"
    long_first = stack_title("SIGSEGV", ["n::" * 60 + "f", "g"])
    assert len(long_first) == TITLE_STACK_CHARS
    assert long_first.startswith("SIGSEGV in n::n::") and long_first.endswith("...")
