"""Every `tests/**/test_*.py` file is collected by the README's test command: a folder that
pytest skips by name (it skipped `tests/build/` once, hiding 32 tests) fails here instead."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


def _collected_here(config: pytest.Config, items: list[pytest.Item]) -> set[str] | None:
    """The test files of this very session, when it is the whole suite unfiltered (as the
    README's command runs it: every xdist worker collects every test); else None."""
    whole = [Path(config.rootpath, arg).resolve() for arg in config.args] == [TESTS]
    if not whole or config.option.keyword or config.option.markexpr:
        return None
    return {item.nodeid.split("::")[0] for item in items}


def _collected_apart() -> set[str]:
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-p", "no:cacheprovider", "-n", "0", str(TESTS)],
        capture_output=True, text=True, cwd=TESTS.parent, timeout=300,
    )  # fmt: skip
    assert listed.returncode == 0, listed.stdout[-2000:] + listed.stderr[-2000:]
    # node ids ("path::test") or, under -qq, "path: count"
    return {
        re.split(r"::|: ", line, maxsplit=1)[0]
        for line in listed.stdout.splitlines()
        if line.startswith("tests/")
    }


def test_every_test_file_is_collected(request: pytest.FixtureRequest) -> None:
    # the session's own collection when it is the whole suite (a second collection in a
    # child costs ten seconds); run alone or on a part, a collection of its own
    session = request.session
    collected = _collected_here(session.config, session.items) or _collected_apart()
    on_disk = {str(p.relative_to(TESTS.parent)) for p in TESTS.rglob("test_*.py")}
    on_disk -= {p for p in on_disk if "/fixtures/" in p}
    assert on_disk - collected == set(), "test files pytest does not collect"
