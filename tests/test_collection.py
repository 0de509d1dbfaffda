"""Every `tests/**/test_*.py` file is collected by the README's test command: a folder that
pytest skips by name (it skipped `tests/build/` once, hiding 32 tests) fails here instead."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_every_test_file_is_collected() -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-p", "no:cacheprovider", "-n", "0", str(TESTS)],
        capture_output=True, text=True, cwd=TESTS.parent, timeout=300,
    )  # fmt: skip
    assert listed.returncode == 0, listed.stdout[-2000:] + listed.stderr[-2000:]
    # node ids ("path::test") or, under -qq, "path: count"
    collected = {
        re.split(r"::|: ", line, maxsplit=1)[0]
        for line in listed.stdout.splitlines()
        if line.startswith("tests/")
    }
    on_disk = {str(p.relative_to(TESTS.parent)) for p in TESTS.rglob("test_*.py")}
    on_disk -= {p for p in on_disk if "/fixtures/" in p}
    assert on_disk - collected == set(), "test files pytest does not collect"
