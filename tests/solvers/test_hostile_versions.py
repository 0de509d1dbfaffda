"""What a solver prints as its version never names a file outside the cache, an over-long file
or a left-over temporary file (issue 52, defect 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sphinxfuzz.fileio import write_atomic
from sphinxfuzz.generators.capabilities import cache_file, load_section, save_section
from sphinxfuzz.solvers import parse_specs, solver_version
from sphinxfuzz.solvers.versions import VERSION_CHARS, cache_name

HOSTILE = Path(__file__).resolve().parents[1] / "fixtures" / "hostile" / "solvers"


@pytest.mark.parametrize("name", ["z3_version_escape.sh", "z3_version_huge.sh"])
def test_a_hostile_version_line_is_digested_into_a_cache_name(tmp_path: Path, name: str) -> None:
    spec = parse_specs(str(HOSTILE / name))[0]
    assert len(solver_version(spec)) <= VERSION_CHARS
    folder = tmp_path / "cache" / "capabilities"
    path = cache_file(spec, folder)
    assert path.parent == folder and "/" not in cache_name(spec) and len(path.name) < 80
    save_section(path, spec, "features", {"+": None}, "made-by")
    assert load_section(path, "features", "made-by") == {"+": None}
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert written == [path.relative_to(tmp_path)]  # nothing escaped, no temporary file left


def test_a_plain_release_keeps_its_number_in_the_name() -> None:
    spec = parse_specs("z3")[0]
    assert cache_name(spec).startswith(f"z3-{solver_version(spec)}-")


def test_a_failed_atomic_write_leaves_no_temporary_file(tmp_path: Path) -> None:
    taken = tmp_path / "taken.json"
    (taken / "inside").mkdir(parents=True)  # a folder where the file should go: rename fails
    with pytest.raises(OSError):
        write_atomic(taken, "{}")
    assert [p.name for p in tmp_path.iterdir()] == ["taken.json"]
