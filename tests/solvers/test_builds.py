"""Builds with assertions (`solvers build`): the cmake path on a tiny C++ project made here
that behaves like a z3 binary with one SASSERT, the cache entry it leaves (`z3@0.1.0+assert`
in specs, `solvers list/remove/prune`), and the message when the tools are missing."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from campaign_helpers import SEEDS, config_for
from typer.testing import CliRunner

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.issue_text import issue_text, load_facts
from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.cli import app
from sphinxfuzz.errors import Step, StepKind
from sphinxfuzz.oracle.crash import assertion_title, crash_signature
from sphinxfuzz.solvers import Outcome, SolverSpecError, parse_specs, run_solver
from sphinxfuzz.solvers import builds as builds_module
from sphinxfuzz.solvers.builds import BuildError, build, progress_of, toolchain
from sphinxfuzz.solvers.families import Family
from sphinxfuzz.solvers.installs import (
    InstallError,
    install,
    installed_versions,
    parse_requirement,
    prune,
    remove,
)

runner = CliRunner()


def _toolchain_missing() -> str | None:
    try:
        toolchain()
    except BuildError as exc:
        return str(exc)
    return None


# the tests below without this mark (the missing-tool message, progress lines, the refusals)
# run everywhere
needs_toolchain = pytest.mark.skipif(
    _toolchain_missing() is not None, reason=f"a real build: {_toolchain_missing()}"
)

# z3's SASSERT as its src/util/debug.h spells it with Z3DEBUG and NO_Z3_DEBUGGER: the
# program violates its assertion where crash_on_marker.py does (a formula with crash_marker
# that asks for a model), and is the real z3 otherwise
TINY_Z3 = r"""
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <unistd.h>
#define REAL_Z3 "@REAL_Z3@"
#ifdef NO_Z3_DEBUGGER
#define INVOKE_DEBUGGER() std::exit(110)
#else
#define INVOKE_DEBUGGER() std::abort()
#endif
#ifdef Z3DEBUG
#define SASSERT(COND) if (!(COND)) { std::cerr << "ASSERTION VIOLATION\nFile: " << __FILE__ \
    << "\nLine: " << __LINE__ << "\n" << #COND << "\n"; INVOKE_DEBUGGER(); }
#else
#define SASSERT(COND)
#endif
int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--version") == 0) {
        std::cout << "Z3 version 0.1.0 - 64 bit\n";
        return 0;
    }
    std::ifstream in(argv[argc - 1]);
    std::stringstream text;
    text << in.rdbuf();
    bool marked = text.str().find("crash_marker") != std::string::npos;
    bool asks_model = text.str().find("(get-model)") != std::string::npos;
    SASSERT(!(marked && asks_model));
    execv(REAL_Z3, argv);
    return 1;
}
"""
ASSERTION_LINE = TINY_Z3.splitlines().index("    SASSERT(!(marked && asks_model));") + 1
SIGNATURE = f"z3: ASSERTION VIOLATION main.cpp:{ASSERTION_LINE} !(marked && asks_model)"
TINY_CMAKE = """cmake_minimum_required(VERSION 3.13)
project(Z3 VERSION 0.1.0.0 LANGUAGES CXX)
add_executable(shell src/main.cpp)
set_target_properties(shell PROPERTIES OUTPUT_NAME z3)
"""
BAD = "(declare-const crash_marker Int)\n(check-sat)\n(get-model)\n"


def tiny_z3_tree(where: Path) -> Path:
    (where / "src").mkdir(parents=True)
    z3 = shutil.which("z3")
    assert z3 is not None
    (where / "src" / "main.cpp").write_text(TINY_Z3.replace("@REAL_Z3@", z3))
    (where / "CMakeLists.txt").write_text(TINY_CMAKE)
    return where


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """The tiny tree built once by the command line into a cache of its own: (cache, output)."""
    home = tmp_path_factory.mktemp("builds")
    tree = tiny_z3_tree(home / "tiny-z3")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SPHINXFUZZ_CACHE", str(home / "cache"))
        done = runner.invoke(app, ["solvers", "build", "z3", "--source", str(tree), "--assertions"])
        assert done.exit_code == 0, done.output
        yield home / "cache", done.output


@needs_toolchain
def test_a_source_tree_builds_into_the_cache_with_its_assertions_on(
    built: tuple[Path, str],
) -> None:
    cache, output = built
    folder = cache / "solvers" / "z3-0.1.0+assert"
    assert "built z3@0.1.0+assert" in output
    assert "z3 build: " in output  # ninja's [n/N] lines, condensed
    record = json.loads((folder / "installed.json").read_text())
    assert record["binary"] == "bin/z3" and "-DZ3DEBUG" in record["flags"]
    assert "[" in (folder / "build.log").read_text()  # the build's own log is kept
    assert not (folder / "build").exists()  # the objects are ccache's to keep


@needs_toolchain
def test_a_built_release_is_a_spec_and_its_assertion_a_crash_signature(
    built: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, _ = built
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(cache))
    spec = parse_specs("z3@0.1.0+assert")[0]
    assert (spec.name, spec.family) == ("z3@0.1.0+assert", Family.Z3)
    assert run_solver(spec, "(check-sat)\n").answers == ["sat"]
    crashed = run_solver(spec, BAD)
    assert crashed.outcome == Outcome.CRASH and crashed.exit_code == 110
    assert crash_signature(crashed) == SIGNATURE
    # `install` (as bisect calls it) finds the build; a build not made says how to make it
    assert install(Family.Z3, "0.1.0+assert").argv == spec.argv
    with pytest.raises(InstallError, match="not built") as refused:
        install(Family.Z3, "0.2.0+assert")
    assert refused.value.step == Step(StepKind.BUILD_RELEASE, {"family": "z3", "version": "0.2.0"})
    with pytest.raises(SolverSpecError, match="with assertions is not built"):
        parse_specs("z3@0.2.0+assert")


@needs_toolchain
def test_builds_are_listed_removed_and_pruned_like_installs(
    built: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    cache, _ = built
    copy = tmp_path / "cache"
    shutil.copytree(cache, copy, symlinks=True)
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(copy))
    assert parse_requirement("z3@0.1.0+assert") == (Family.Z3, "0.1.0+assert")
    assert [(i.family, i.version) for i in installed_versions()] == [("z3", "0.1.0+assert")]
    listed = runner.invoke(app, ["solvers", "list", "--json"])
    assert '"z3@0.1.0+assert"' in listed.output
    assert prune({(Family.Z3, "0.1.0+assert")}, dry_run=True) == []
    assert remove(Family.Z3, "0.1.0+assert") > 0
    assert installed_versions() == []


def test_without_the_tools_the_build_names_the_debian_packages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = tiny_z3_tree(tmp_path / "tree")
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("CXX", raising=False)
    with pytest.raises(BuildError, match=r"apt-get install cmake ninja-build g\+\+"):
        toolchain()
    done = runner.invoke(app, ["solvers", "build", "z3", "--source", str(tree), "--assertions"])
    assert done.exit_code != 0 and "sudo apt-get install cmake ninja-build g++" in done.output
    assert "Traceback" not in done.output
    with pytest.raises(BuildError, match="not both"):
        build(Family.Z3, "4.12.2", source=tree)
    with pytest.raises(BuildError, match="source tree only"):
        build(Family.CVC5, "1.1.2")


def test_only_a_family_whose_record_names_a_recipe_is_built() -> None:
    # yices's record names no build recipe: refused before anything is fetched
    with pytest.raises(BuildError, match="yices: builds know z3, cvc5$"):
        build(Family.YICES, "2.6.5")


def test_build_progress_is_read_from_ninja_and_make_lines() -> None:
    assert progress_of("[12/830] Building CXX object src/util/CMakeFiles/util.dir/a.cpp.o") == (
        12,
        830,
    )
    assert progress_of("[ 14%] Building CXX object src/x.cpp.o") == (14, 100)
    assert progress_of("-- Build type: Release") is None


def test_a_build_not_made_names_the_build_command(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "a.smt2").write_text("(check-sat)\n")
    done = runner.invoke(
        app, ["fuzz", "--solvers", "z3@0.0.1+assert", "--seeds", str(seeds), "--mutants", "1"]
    )
    assert done.exit_code == 2
    assert "`sphinxfuzz solvers build z3==0.0.1 --assertions`" in done.output


# a cvc5 tree in miniature: configure.sh takes cvc5's build type, --assertions, --ninja and
# --name=DIR and configures cmake; the binary target is cvc5-bin, written to bin/cvc5, and an
# `Assert` prints as cvc5's base/check.h prints it, then aborts
TINY_CVC5_CONFIGURE = """#!/bin/bash
set -e
root=$(pwd); build=build; options=""
for arg in "$@"; do
  case $arg in
    production) options="$options -DCMAKE_BUILD_TYPE=Release";;
    --assertions) options="$options -DENABLE_ASSERTIONS=ON";;
    --ninja) options="$options -G Ninja";;
    --name=*) build=${arg##*=};;
    --no-auto-download) ;;
    *) echo "invalid option $arg"; exit 1;;
  esac
done
mkdir -p "$build" && cd "$build" && cmake "$root" $options
"""
TINY_CVC5_CMAKE = """cmake_minimum_required(VERSION 3.13)
project(cvc5 LANGUAGES CXX)
if(ENABLE_ASSERTIONS)
  add_compile_definitions(CVC5_ASSERTIONS)
endif()
add_executable(cvc5-bin src/main.cpp)
set_target_properties(cvc5-bin PROPERTIES OUTPUT_NAME cvc5
                      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
"""
TINY_CVC5 = r"""
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#ifdef CVC5_ASSERTIONS
#define Assert(cond) if (!(cond)) { std::cerr << "Fatal failure within " << __PRETTY_FUNCTION__ \
    << " at " << __FILE__ << ":" << __LINE__ << "\n" << "Check failure\n\n " << #cond << "\n"; \
    std::abort(); }
#else
#define Assert(cond)
#endif
void check(const std::string& formula) { Assert(formula.find("crash_marker") == std::string::npos); }
int main(int argc, char** argv) {
    std::ifstream in(argv[argc - 1]);
    std::stringstream text;
    text << in.rdbuf();
    check(text.str());
    std::cout << "sat\n";
    return 0;
}
"""


@needs_toolchain
def test_a_cvc5_tree_builds_by_its_configure_script_with_assertions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    tree = tmp_path / "cvc5"
    (tree / "src").mkdir(parents=True)
    (tree / "cmake").mkdir()
    (tree / "src" / "main.cpp").write_text(TINY_CVC5)
    (tree / "CMakeLists.txt").write_text(TINY_CVC5_CMAKE)
    (tree / "cmake" / "version-base.cmake").write_text('set(CVC5_LAST_RELEASE "0.0.9")\n')
    (tree / "configure.sh").write_text(TINY_CVC5_CONFIGURE)
    (tree / "configure.sh").chmod(0o755)
    built = build(Family.CVC5, source=tree, say=lambda _: None)
    assert built.version == "0.0.9+assert"
    spec = parse_specs("cvc5@0.0.9+assert")[0]
    assert spec.family == Family.CVC5 and spec.argv == built.argv
    crashed = run_solver(spec, BAD)
    assert crashed.outcome == Outcome.CRASH
    line = TINY_CVC5.splitlines().index(
        'void check(const std::string& formula) { Assert(formula.find("crash_marker") == std::string::npos); }'
    )
    signature = crash_signature(crashed)
    assert signature == (
        f"cvc5: Fatal failure in void check(const std::string&) at main.cpp:{line + 1} "
        'formula.find("crash_marker") == std::string::npos'
    )
    assert assertion_title(signature) == (
        f'Fatal failure at main.cpp:{line + 1} formula.find("crash_marker") == std::string::npos'
    )


@needs_toolchain
def test_a_campaign_stores_the_builds_assertion_and_replays_it(
    built: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    cache, _ = built
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(cache))
    root = tmp_path / "c"
    config = config_for([SEEDS / "crash.smt2"], "z3@0.1.0+assert;z3", per_seed=3)
    run_campaign(config, root, Budget(), persistent=0)  # the program has no -in mode
    with Store(root) as store:
        crashes = [b for b in store.bugs() if b.kind == "crash"]
    # one assertion, one bug, whatever the mutants look like
    assert [(b.solver, b.signature) for b in crashes] == [("z3@0.1.0+assert", SIGNATURE)]
    title = issue_text(load_facts(crashes[0].folder)).splitlines()[0]
    assert title.endswith(f"crash: {SIGNATURE.removeprefix('z3: ')}"), title
    replayed = runner.invoke(app, ["bugs", "replay", crashes[0].id, "-c", str(root)])
    assert replayed.exit_code == 0 and "reproduces" in replayed.output, replayed.output


@needs_toolchain
def test_a_release_built_already_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path))
    folder = tmp_path / "solvers" / "z3-4.12.2+assert"
    (folder / "bin").mkdir(parents=True)
    z3 = shutil.which("z3")
    assert z3 is not None
    (folder / "bin" / "z3").symlink_to(z3)
    record = {"family": "z3", "version": "4.12.2+assert", "binary": "bin/z3"}
    (folder / "installed.json").write_text(json.dumps(record))
    # the package index, as it answers for z3 (no network here)
    monkeypatch.setattr(builds_module, "release_of", lambda family, version: f"{version}.0")
    said: list[str] = []
    for named in ("4.12.2", "4.12.2+assert"):  # z3==4.12.2 and z3@4.12.2+assert alike
        kept = build(Family.Z3, named, say=said.append)
        assert kept.argv == (str(folder / "bin" / "z3"),)
    assert said == [f"z3@4.12.2+assert is built already: {folder}"] * 2


def _sub_tree(where: Path, top: str, sub: str | None = None) -> Path:
    """A tree with the tiny z3's layout whose CMakeLists.txt files say `top` (and `sub`, in
    src/, the part cmake reads after the top one)."""
    tree = tiny_z3_tree(where)
    (tree / "CMakeLists.txt").write_text(top)
    if sub is not None:
        (tree / "src" / "CMakeLists.txt").write_text(sub)
    return tree


@needs_toolchain
def test_a_cmake_older_than_the_tree_asks_for_names_both_versions_and_the_fixes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    found = builds_module.cmake_version(toolchain().cmake)
    assert found is not None
    fixes = ("pip install cmake", "first on PATH", "backports")
    # z3 5.4.1 asks for 3.26 in its top CMakeLists.txt: refused before configuring
    asks = _sub_tree(tmp_path / "asks", TINY_CMAKE.replace("VERSION 3.13", "VERSION 99.0...99.5"))
    done = runner.invoke(app, ["solvers", "build", "z3", "--source", str(asks), "--assertions"])
    assert done.exit_code != 0 and "Traceback" not in done.output
    text = " ".join(done.output.split())  # the console wraps long lines
    assert "needs CMake 99.0 or newer, and the cmake on PATH" in text and f"is {found}." in text
    assert all(fix in text for fix in fixes), text
    assert not (
        tmp_path / "cache" / "solvers" / "z3-0.1.0+assert.partial" / "configure.log"
    ).exists()
    # a demand the top file does not make (a subproject's, a dependency's) is read from the log
    nested = _sub_tree(
        tmp_path / "nested",
        "cmake_minimum_required(VERSION 3.13)\nproject(Z3 VERSION 0.3.0.0 LANGUAGES NONE)\n"
        "add_subdirectory(src)\n",
        "cmake_minimum_required(VERSION 99.0)\n",
    )
    with pytest.raises(BuildError) as refused:
        build(Family.Z3, source=nested, say=lambda _: None)
    message = str(refused.value)
    assert message.startswith("cmake (log: ") and "configure.log" in message
    assert "needs CMake 99.0 or newer" in message and f"is {found}." in message
    assert all(fix in message for fix in fixes), message


@needs_toolchain
def test_a_compiler_without_a_standard_header_the_tree_needs_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as z3 4.15.5+ includes <format> that g++ 12 lacks: a header no standard library has
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    tree = tiny_z3_tree(tmp_path / "newer")
    main = tree / "src" / "main.cpp"
    main.write_text("#include <sphinxfuzz_no_such_header>\n" + main.read_text())
    with pytest.raises(BuildError) as refused:
        build(Family.Z3, source=tree, say=lambda _: None)
    message = str(refused.value)
    assert "has no standard header <sphinxfuzz_no_such_header>" in message, message
    assert "GCC 13" in message and "build.log" in message


def test_an_sdist_without_cmake_names_the_git_tag_way(tmp_path: Path) -> None:
    old = tmp_path / "z3-solver-4.8.8.0"
    (old / "core" / "scripts").mkdir(parents=True)
    (old / "core" / "scripts" / "mk_make.py").write_text("# z3's older build script\n")
    with pytest.raises(BuildError, match="sdists before 4.8.11 do not.*git tag") as refused:
        builds_module.z3_tree(old)
    assert refused.value.setting == "source"  # the command line names its --source


def _ccache_stats() -> dict[str, int]:
    said = subprocess.run(["ccache", "--print-stats"], capture_output=True, text=True, check=True)
    return {k: int(v) for k, v in (line.split("\t") for line in said.stdout.splitlines())}


@needs_toolchain
@pytest.mark.skipif(shutil.which("ccache") is None, reason="builds share objects by ccache")
def test_releases_built_one_after_another_share_ccaches_objects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two releases of the tiny z3 (the same sources, another version), each from its sdist
    as PyPI would serve it (unpacked as z3_solver-<version>/core), into one cache: the second
    compiles nothing, although its sdist and work folder name another version."""
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CCACHE_DIR", str(tmp_path / "ccache"))
    monkeypatch.setattr(builds_module, "release_of", lambda family, version: f"{version}.0")

    def unpack(package: str, version: str, into: Path) -> Path:  # the sdist, no network
        top = into / f"{package.replace('-', '_')}-{version}"
        tree = tiny_z3_tree(top / "core")
        (tree / "CMakeLists.txt").write_text(TINY_CMAKE.replace("0.1.0.0", version))
        return top

    monkeypatch.setattr(builds_module, "fetch_sdist", unpack)
    build(Family.Z3, "0.1.0", say=lambda _: None)
    subprocess.run(["ccache", "--zero-stats"], capture_output=True, check=True)
    second = build(Family.Z3, "0.2.0", say=lambda _: None)
    stats = _ccache_stats()
    assert stats["direct_cache_hit"] + stats["preprocessed_cache_hit"] >= 1, stats
    assert stats["cache_miss"] == 0, stats
    assert [i.version for i in installed_versions()] == ["0.1.0+assert", "0.2.0+assert"]
    # the build is the program it was: its assertion names the source file
    crashed = run_solver(parse_specs("z3@0.2.0+assert")[0], BAD)
    assert crash_signature(crashed) == SIGNATURE and second.folder.name == "z3-0.2.0+assert"
