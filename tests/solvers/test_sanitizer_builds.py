"""Sanitizer builds and the toolchain a build chooses (`solvers build --sanitizers`,
`--dry-run`): a tiny z3-like program built with ASan and UBSan that overflows the heap on one
formula and overflows a signed int on another, the signatures its reports get, leak reports
off, ASan's memory limit; and the compiler/CMake plan for a tree that needs C++20's <format>."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sphinxfuzz.bugs.refresh import replay_target
from sphinxfuzz.cli import app
from sphinxfuzz.oracle import VerdictKind
from sphinxfuzz.oracle.crash import crash_signature
from sphinxfuzz.solvers import Outcome, parse_specs, run_solver
from sphinxfuzz.solvers.build_plans import read_sanitizers
from sphinxfuzz.solvers.builds import Request, build, plan_build
from sphinxfuzz.solvers.classify import classify
from sphinxfuzz.solvers.families import Family
from sphinxfuzz.solvers.toolchains import ToolchainError
from tests.solvers.test_builds import BAD, needs_toolchain, tiny_z3_tree

runner = CliRunner()

# the tiny z3 (test_builds.py) with two more bugs: a heap overflow on crash_marker (instead
# of its assertion) and a signed overflow on ubsan_marker, after which it answers as z3
# does; and a leak on --version that LeakSanitizer would report at exit
OVERFLOWS = r"""
#include <climits>
__attribute__((noinline)) int overflow_cells(int past) {
    int* cells = new int[4];
    cells[past] = 1;
    int first = cells[0];
    delete[] cells;
    return first;
}
__attribute__((noinline)) int add_to_max(int more) {
    int big = INT_MAX - 1;
    return big + more;
}
int leak() { return *(new int[8]{}) ; }
"""


def sanitized_tree(where: Path) -> Path:
    tree = tiny_z3_tree(where)
    main = tree / "src" / "main.cpp"
    text = main.read_text()
    text = text.replace(
        "int main(int argc, char** argv) {", OVERFLOWS + "int main(int argc, char** argv) {"
    )
    text = text.replace(
        '        std::cout << "Z3 version 0.1.0 - 64 bit\\n";',
        '        std::cout << "Z3 version 0.1.0 - 64 bit\\n" << leak() << "\\n";',
    )
    text = text.replace(
        "    SASSERT(!(marked && asks_model));",
        "    if (marked) overflow_cells(4 + (int)asks_model);\n"
        '    if (text.str().find("ubsan_marker") != std::string::npos) {\n'
        "        volatile int sink = add_to_max(1 + (int)(text.str().size() > 1)); (void)sink; }",
    )
    main.write_text(text)
    return tree


@pytest.fixture(scope="module")
def asan(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The tiny tree built once with --sanitizers address into a cache of its own."""
    home = tmp_path_factory.mktemp("asan")
    tree = sanitized_tree(home / "tiny-z3")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SPHINXFUZZ_CACHE", str(home / "cache"))
        done = runner.invoke(
            app, ["solvers", "build", "z3", "--source", str(tree), "--sanitizers", "address"]
        )
        assert done.exit_code == 0, done.output
        yield home / "cache"


@needs_toolchain
def test_a_heap_overflow_is_a_crash_signed_by_asans_kind_and_frames(
    asan: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(asan))
    monkeypatch.delenv("ASAN_OPTIONS", raising=False)
    # address brings undefined along: one `+asan` build catches both
    spec = parse_specs("z3@0.1.0+asan")[0]
    # started without the address-space limit (ASan's shadow memory would not fit in it)
    assert run_solver(spec, "(check-sat)\n").answers == ["sat"]
    crashed = run_solver(spec, BAD)
    assert crashed.outcome == Outcome.CRASH
    signature = crash_signature(crashed)
    # the solver's frames (not operator new's, nor the C library's) from the top
    assert signature == "z3: AddressSanitizer: heap-buffer-overflow in overflow_cells < main"


@needs_toolchain
def test_a_ubsan_report_beside_an_answer_is_a_crash_by_its_check_and_line(
    asan: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(asan))
    spec = parse_specs("z3@0.1.0+asan")[0]
    ran = run_solver(spec, "(declare-const ubsan_marker Int)\n(check-sat)\n")
    assert ran.answers == ["sat"] and ran.outcome == Outcome.CRASH
    line = next(n for n, text in enumerate(OVERFLOWS.splitlines()) if "big + more" in text)
    main = (asan.parent / "tiny-z3" / "src" / "main.cpp").read_text().splitlines()
    at = main.index(OVERFLOWS.splitlines()[line]) + 1
    assert crash_signature(ran) == (
        "z3: UndefinedBehaviorSanitizer: signed integer overflow: <n> + <n> cannot be "
        f"represented in type 'int' at main.cpp:{at}"
    )


@needs_toolchain
def test_leak_reports_are_off_unless_asked_for(asan: Path) -> None:
    binary = next((asan / "solvers").glob("z3-*+asan")) / "bin" / "z3"
    env = {k: v for k, v in os.environ.items() if k != "ASAN_OPTIONS"}
    quiet = subprocess.run([binary, "--version"], capture_output=True, text=True, env=env)
    assert quiet.returncode == 0 and "LeakSanitizer" not in quiet.stderr
    asked = subprocess.run([binary, "--version"], capture_output=True, text=True,
                           env={**env, "ASAN_OPTIONS": "detect_leaks=1"})  # fmt: skip
    assert "LeakSanitizer: detected memory leaks" in asked.stderr


def test_asans_memory_limit_is_the_memory_limit_not_a_crash() -> None:
    said = "==7==ERROR: AddressSanitizer: hard rss limit exhausted (4096Mb vs 4101Mb)\n"
    ran = classify("", said, 1, False, Family.Z3)
    assert ran.outcome == Outcome.UNKNOWN and ran.failure_line == "memory limit"
    heap = "==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602 at pc 0x5\n"
    assert classify("", heap, 1, False, Family.Z3).outcome == Outcome.CRASH


def test_sanitizers_are_read_and_named() -> None:
    assert read_sanitizers("address") == ("address", "undefined")
    assert read_sanitizers("undefined") == ("undefined",)
    with pytest.raises(ToolchainError, match="thread unknown"):
        read_sanitizers("address,thread")


FORMAT_MAIN = (
    '#include <format>\n#include <iostream>\nint main() { std::cout << std::format("{}", 1); }\n'
)


def _format_tree(where: Path) -> Path:
    tree = tiny_z3_tree(where)
    (tree / "src" / "main.cpp").write_text(FORMAT_MAIN)
    (tree / "CMakeLists.txt").write_text(
        (tree / "CMakeLists.txt").read_text().replace("VERSION 3.13", "VERSION 3.26")
    )
    return tree


@needs_toolchain
@pytest.mark.skipif(shutil.which("clang++-19") is None, reason="clang-19 is what g++ 12 lacks")
def test_a_tree_that_needs_format_is_planned_with_clang_and_libcxx(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("CXX", raising=False)
    tree = _format_tree(tmp_path / "tree")
    done = runner.invoke(app, ["solvers", "build", "z3", "--source", str(tree), "--assertions",
                               "--sanitizers", "address,undefined", "--dry-run"])  # fmt: skip
    assert done.exit_code == 0, done.output
    text = done.output
    assert "build z3@0.1.0+assert+asan" in text
    assert f"source:    {tree}" in text
    assert "compiler:  clang++-19 -stdlib=libc++" in text
    assert "-DZ3DEBUG -DNO_Z3_DEBUGGER -stdlib=libc++ -fsanitize=address,undefined" in text
    assert f"folder:    {tmp_path / 'cache' / 'solvers' / 'z3-0.1.0+assert+asan'}" in text
    assert "cache:     " in text
    assert not (tmp_path / "cache" / "solvers" / "z3-0.1.0+assert+asan").exists()
    plan = plan_build(Request(Family.Z3, source=tree), say=lambda _: None)
    if "3.25" in plan.cmake:  # Debian 12's cmake is older than the tree asks
        assert "PyPI cmake wheel" in plan.cmake


@needs_toolchain
def test_without_a_compiler_that_has_format_the_apt_line_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _format_tree(tmp_path / "tree")
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("g++", "gcc", "cmake", "ninja", "as", "ld"):  # g++ 12: no <format>
        found = shutil.which(name)
        if found:
            (tools / name).symlink_to(found)
    monkeypatch.setenv("PATH", str(tools))
    monkeypatch.delenv("CXX", raising=False)
    if subprocess.run(["g++", "-std=c++20", "-fsyntax-only", "-x", "c++", "-"],
                      input="#include <format>\n", text=True, capture_output=True).returncode == 0:  # fmt: skip
        pytest.skip("this g++ has <format>: it is chosen, nothing is missing")
    with pytest.raises(ToolchainError) as refused:
        build(Family.Z3, source=tree, say=lambda _: None)
    message = str(refused.value)
    assert "needs a C++ compiler with <format>; tried g++" in message, message
    assert "sudo apt-get install -y clang-19 libc++-19-dev libc++abi-19-dev" in message


def _fake_build(cache: Path, name: str) -> None:
    """A cache entry as `solvers build` leaves it, running the real z3."""
    folder = cache / "solvers" / f"z3-{name}"
    (folder / "bin").mkdir(parents=True)
    z3 = shutil.which("z3")
    assert z3 is not None
    (folder / "bin" / "z3").symlink_to(z3)
    record = {"family": "z3", "version": name, "binary": "bin/z3"}
    (folder / "installed.json").write_text(json.dumps(record))


def test_a_sanitizer_report_is_alive_or_fixed_by_the_newest_sanitizer_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path))
    for name in ("4.12.2+asan", "5.4.1+asan", "5.4.1+assert"):
        _fake_build(tmp_path, name)
    signature = "z3: AddressSanitizer: heap-buffer-overflow in f < g"
    newest = {Family.Z3: "z3"}
    # a release checks nothing ASan does: it would call every such report fixed
    assert replay_target(Family.Z3, "z3@4.12.2+asan", signature, VerdictKind.CRASH, newest) == (
        "z3@5.4.1+asan",
        "5.4.1+asan",
    )
    ubsan = "z3: UndefinedBehaviorSanitizer: signed integer overflow at a.cpp:3"
    assert replay_target(Family.Z3, "z3@5.4.1+asan", ubsan, VerdictKind.CRASH, newest) == (
        "z3@5.4.1+asan",
        "5.4.1+asan",
    )  # no newer build, and it is one of the newest release (the wheel's): it says
    assert replay_target(Family.Z3, "z3@4.12.2+ubsan", ubsan, VerdictKind.CRASH, newest) == (
        "z3",
        None,
    )  # no build of its kind at all: undecided, never "fixed"
    # a build of the same kind named the newest (a trunk checkout's) is the one asked
    trunk = {Family.Z3: "z3@git-1a2b3c4+asan"}
    assert replay_target(Family.Z3, "z3@5.4.1+asan", ubsan, VerdictKind.CRASH, trunk) == (
        "z3@git-1a2b3c4+asan",
        "git-1a2b3c4+asan",
    )
