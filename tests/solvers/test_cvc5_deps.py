"""A cvc5 tree's dependencies are checked before building (solvers/cvc5_deps.py): each one
its CMake asks for that the machine lacks, or has older than asked, is named with its Debian
package or the switch that does without it, and nothing is built."""

from __future__ import annotations

from pathlib import Path

import pytest

from sphinxfuzz.solvers.builds import BuildError, Request, build, plan_build
from sphinxfuzz.solvers.cvc5_deps import debian_version, missing_dependencies
from sphinxfuzz.solvers.families import Family
from tests.solvers.test_builds import needs_toolchain


def _tree(where: Path, cmake: str) -> Path:
    (where / "cmake").mkdir(parents=True)
    (where / "CMakeLists.txt").write_text(cmake)
    (where / "cmake" / "version-base.cmake").write_text('set(CVC5_LAST_RELEASE "0.0.9")\n')
    (where / "cmake" / "FindCaDiCaL.cmake").write_text('set(CaDiCaL_FIND_VERSION "2.1.0")\n')
    (where / "configure.sh").write_text("#!/bin/sh\nexit 1\n")
    return where


def test_what_a_tree_asks_for_and_the_machine_lacks_is_named(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "cvc5", "find_package(GMP 99.0 REQUIRED)\nfind_package(Poly 0.2.1)\n")
    missing = missing_dependencies(tree)
    gmp = debian_version("libgmp-dev")
    if gmp is not None:  # a Debian machine with GMP: too old for the 99.0 asked
        assert f"GMP: libgmp-dev is {gmp}, this tree asks for 99.0 or newer" in missing[0]
    else:
        assert missing[0].startswith("GMP: not found (sudo apt-get install -y libgmp-dev")
    assert missing[1].startswith("Poly: not found (Debian has no package of it; or")
    assert "--no-poly" in missing[1]
    # what the tree does not ask for is not looked for; a switch that drops it, neither
    assert [m.split(":")[0] for m in missing] == ["GMP", "Poly"]
    assert [m.split(":")[0] for m in missing_dependencies(tree, ("--no-poly",))] == ["GMP"]


@needs_toolchain
def test_a_cvc5_build_refuses_before_building_and_the_plan_shows_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    tree = _tree(tmp_path / "cvc5", "find_package(Poly 0.2.1)\n")
    with pytest.raises(BuildError, match="this cvc5 tree needs what this machine lacks") as no:
        build(Family.CVC5, source=tree, say=lambda _: None)
    assert "Poly: not found" in str(no.value)
    assert not list((tmp_path / "cache" / "solvers").glob("cvc5-*"))  # nothing half-made
    plan = plan_build(Request(Family.CVC5, source=tree), say=lambda _: None)
    assert any(line.startswith("  note:      missing Poly") for line in plan.lines())
    assert "flags:     configure.sh production --assertions" in "\n".join(plan.lines())
