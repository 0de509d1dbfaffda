"""Hostile generator modules are stopped on every path that runs generator code (issue 14).

`tests/fixtures/hostile/generators/` holds the modules. The `escape_*` ones passed the old
static check; it now refuses them. The `kernel_*` ones (and the escapes) are also run with
the static check taken out of the way, to show that the kernel confinement alone stops them:
the child dies with SIGSYS, nothing is created, and the generator is reported as refused.
A control run outside the sandbox shows each payload really does what it claims.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from sphinxfuzz.generators import pool as pool_module
from sphinxfuzz.generators import sandbox
from sphinxfuzz.generators.child_process import probe_confinement
from sphinxfuzz.generators.confine import ConfinementError, build_filter
from sphinxfuzz.generators.pool import GeneratorFailure, GeneratorPool
from sphinxfuzz.generators.sandbox import sample_terms
from sphinxfuzz.generators.static_check import check_source
from sphinxfuzz.generators.theory_docs import default_docs_dir, load_theory_doc
from sphinxfuzz.solvers import parse_specs
from sphinxfuzz.synthesis import pipeline
from sphinxfuzz.synthesis.prompts import Prompts

HOSTILE = Path(__file__).resolve().parents[1] / "fixtures" / "hostile" / "generators"
ESCAPES = [
    "escape_self",
    "escape_match",
    "escape_singledispatch",
    # public attributes of allowed modules that walked around the deny-list (issue 29)
    "escape_enum_bltns",
    "escape_enum_eval",
    "escape_dataclasses_inspect",
    "escape_attrgetter",
]
KERNEL = [
    "kernel_write",
    "kernel_mkdir",
    "kernel_read",
    "kernel_socket",
    "kernel_exec",
    "kernel_fork",
]


@dataclass(frozen=True)
class Entry:
    theory: str
    source: str
    path: str
    grammar_path: Path | None = None


def hostile(name: str, target: Path) -> str:
    return (HOSTILE / f"{name}.py").read_text(encoding="utf-8").replace("@TARGET@", str(target))


@pytest.fixture
def target(tmp_path: Path) -> Path:
    """A path the payloads try to create, in a folder even uid nobody may write to."""
    tmp_path.chmod(0o777)
    return tmp_path / "escaped"


@pytest.fixture
def no_static_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the kernel stands between the module and the machine."""
    monkeypatch.setattr(sandbox, "require_safe", lambda source, filename="": None)
    monkeypatch.setattr(pool_module, "require_safe", lambda source, filename="": None)
    monkeypatch.setattr(pipeline, "check_source", lambda source, filename="": [])


def run_unconfined(source: str) -> subprocess.CompletedProcess[str]:
    program = "import random, sys\nexec(sys.stdin.read())\ngenerate(random.Random(0))\n"
    return subprocess.run(
        [sys.executable, "-c", program], input=source, capture_output=True, text=True, timeout=30
    )


@pytest.mark.parametrize("name", [*ESCAPES, *KERNEL, "kernel_load_write"])
def test_payloads_do_harm_without_the_sandbox(name: str, target: Path) -> None:
    # the control: outside the sandbox each module does what the sandbox must stop
    done = run_unconfined(hostile(name, target))
    if name == "kernel_socket":
        assert "ConnectionRefusedError" in done.stderr or done.returncode == 0
    elif name == "kernel_read":
        assert done.returncode == 0, done.stderr
    else:
        assert target.exists(), done.stderr


@pytest.mark.parametrize("name", [*ESCAPES, "escape_format"])
def test_static_check_refuses_each_escape(name: str, target: Path) -> None:
    messages = " ".join(p.message for p in check_source(hostile(name, target)))
    expected = {
        "escape_self": "private attribute '_os'",
        "escape_match": "attribute '__base__'",
        "escape_singledispatch": "'functools.singledispatch' is not on the allow-list",
        "escape_enum_bltns": "'enum.bltns' is not on the allow-list",
        "escape_enum_eval": "'enum.bltns' is not on the allow-list",
        "escape_dataclasses_inspect": "'dataclasses.inspect' is not on the allow-list",
        "escape_attrgetter": "'operator.attrgetter' is not on the allow-list",
        "escape_format": "'.format' is only allowed on a string literal",
    }[name]
    assert expected in messages


def test_static_check_keeps_plain_format_and_refuses_lookups() -> None:
    def problems(body: str) -> list[str]:
        source = f'THEORY = "T"\nSOLVERS = ("z3",)\n\n\ndef generate(rng):\n{body}'
        return [p.message for p in check_source(source)]

    assert problems('    return "", "(= {} {x})".format(1, x=2)\n') == []
    assert problems('    return "", "{0.real}".format(1)\n')
    assert problems('    return "", "{0[1]}".format([1, 2])\n')
    assert problems('    return "", "{:{0.real}}".format(1)\n')
    assert problems('    t = "{}"\n    return "", t.format(1)\n')
    assert problems('    return "", str.format("{}", 1)\n')
    assert problems('    t = "{}"\n    return "", getattr(t, "format")(1)\n')
    assert problems('    return "", getattr("{0.real}", "format")(1)\n')
    assert problems(
        "    match rng:\n        case object(_seed=s):\n            pass\n    return '', 'true'\n"
    )


@pytest.mark.usefixtures("no_static_check")
@pytest.mark.parametrize("name", [*ESCAPES, *KERNEL])
def test_kernel_stops_sample_and_validate(name: str, target: Path) -> None:
    report = sample_terms(hostile(name, target), 3, seed=0, timeout=20)
    assert report.kind == "refused", report.failure
    assert "forbidden system call" in (report.failure or "")
    assert not report.samples
    assert not target.exists()


@pytest.mark.usefixtures("no_static_check")
def test_kernel_stops_validation(target: Path) -> None:
    from sphinxfuzz.generators.theory_validation import validate_theory

    entry = Entry("Hostile", hostile("escape_match", target), "h/generator.py")
    report = validate_theory(entry, None, parse_specs("z3"), n=5, sample_timeout=20)  # type: ignore[arg-type]
    assert report.sample_kind == "refused"
    assert "sampling stopped: refused" in report.shortfalls()
    assert not target.exists()


@pytest.mark.usefixtures("no_static_check")
def test_pool_refuses_hostile_modules_and_keeps_serving(
    target: Path, fixture_source: object, tmp_path: Path
) -> None:
    load_target = tmp_path / "at-load"
    good = Entry("Ints", fixture_source("Ints"), "Ints/generator.py")  # type: ignore[operator]
    at_load = Entry("Loader", hostile("kernel_load_write", load_target), "Loader/generator.py")
    in_call = Entry("Caller", hostile("kernel_fork", target), "Caller/generator.py")
    with GeneratorPool([good, at_load, in_call], timeout=10) as pool:
        assert pool.theories == ["Caller", "Ints"]
        assert "forbidden system call" in pool.refused["Loader"]
        with pytest.raises(GeneratorFailure) as info:
            pool.generate("Caller", 1)
        assert info.value.kind == "refused"
        assert pool.theories == ["Ints"]  # refused for good
        with pytest.raises(GeneratorFailure, match="refused"):
            pool.generate("Caller", 2)
        assert pool.generate("Ints", 3) == pool.generate("Ints", 3)
    assert not target.exists() and not load_target.exists()


@pytest.mark.usefixtures("no_static_check")
def test_build_self_correction_reports_refused_and_never_keeps_it(target: Path) -> None:
    doc = load_theory_doc(default_docs_dir() / "Core.md")
    builder = pipeline.TheoryBuilder(
        doc,
        None,
        Prompts(),
        parse_specs("z3"),
        rounds=1,
        samples=3,
        sample_timeout=10,  # type: ignore[arg-type]
    )
    round_, failure = builder.evaluate(1, hostile("escape_singledispatch", target), "")
    assert round_.failure_kind == "refused" and round_.valid == 0
    assert failure is not None and "forbidden system call" in failure
    assert not target.exists()


def test_socket_and_process_calls_are_killed_in_a_confined_process() -> None:
    # the modules above die at the first file access; here socket, fork and exec are the
    # first forbidden calls (socket is imported before the filter goes on)
    for code, killed in (
        ("s.socket()", True),
        ("os.fork()", True),
        ("os.execv('/bin/true', ['true'])", True),
        ("os.stat('/')", False),  # refused quietly: the interpreter does this itself
        ("print(sum(range(10)))", False),
    ):
        program = (
            "import os, socket as s, sys\n"
            f"sys.path.insert(0, {str(Path(sandbox.__file__).parent)!r})\n"
            "import confine\nconfine.confine()\n"
            f"try:\n    {code}\nexcept OSError:\n    pass\n"
        )
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, timeout=30)
        assert (done.returncode == -signal.SIGSYS) == killed, (code, done)


def test_no_filter_for_an_unknown_machine() -> None:
    with pytest.raises(ConfinementError, match="no seccomp filter for this machine"):
        build_filter("riscv64")
    assert len(build_filter("aarch64")) % 8 == 0


def test_refuses_without_confinement_unless_unconfined(fixture_source: object) -> None:
    # A parent whose own seccomp filter makes prctl fail: its children cannot confine.
    source = fixture_source("Ints")  # type: ignore[operator]
    program = f"""
import ctypes, struct, sys
from sphinxfuzz.generators.confine import SYSCALLS, SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO
import platform
arch, numbers = SYSCALLS[platform.machine()]
code = [(0x20, 0, 0, 0), (0x15, 0, 1, numbers["prctl"]), (0x06, 0, 0, SECCOMP_RET_ERRNO | 1),
        (0x06, 0, 0, SECCOMP_RET_ALLOW)]
libc = ctypes.CDLL(None, use_errno=True)
assert libc.prctl(38, 1, 0, 0, 0) == 0
blob = b"".join(struct.pack("=HBBI", *i) for i in code)
class Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]
assert libc.prctl(22, 2, ctypes.byref(Prog(len(code), blob)), 0, 0) == 0
from sphinxfuzz.generators.sandbox import sample_terms
from sphinxfuzz.generators.confine import ConfinementError
try:
    sample_terms({source!r}, 2, 0)
except ConfinementError as exc:
    print("REFUSED", exc)
print("UNCONFINED", sample_terms({source!r}, 2, 0, unconfined=True).kind)
"""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=60
    )
    assert (
        "REFUSED cannot confine generator code: prctl(PR_SET_NO_NEW_PRIVS) failed" in done.stdout
    ), done.stderr
    assert "unless the caller allows unconfined runs" in done.stdout  # the CLI names --unconfined
    assert "UNCONFINED ok" in done.stdout


def test_probe_reports_what_it_applied() -> None:
    assert probe_confinement().startswith("seccomp")


def test_generator_output_is_unchanged_by_confinement(fixture_source: object) -> None:
    source = fixture_source("Ints")  # type: ignore[operator]
    namespace: dict[str, object] = {}
    exec(compile(source, "Ints", "exec"), namespace)  # noqa: S102 - our own fixture
    rng = random.Random(5)
    expected = [namespace["generate"](rng) for _ in range(5)]  # type: ignore[operator]
    assert sample_terms(source, 5, seed=5).samples == expected
