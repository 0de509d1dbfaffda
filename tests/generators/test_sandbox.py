from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable

import pytest

from sphinxfuzz.generators.child_process import header, spawn
from sphinxfuzz.generators.sandbox import sample_terms
from sphinxfuzz.generators.static_check import UnsafeGenerator

Build = Callable[[str], str]


@pytest.mark.parametrize("theory", ["Ints", "FixedSizeBitVectors", "Strings"])
def test_fixture_samples_are_pairs_and_deterministic(
    theory: str, fixture_source: Callable[[str], str]
) -> None:
    source = fixture_source(theory)
    first = sample_terms(source, 30, seed=11)
    again = sample_terms(source, 30, seed=11)
    other = sample_terms(source, 30, seed=12)
    assert first.kind == "ok" and first.failure is None
    assert len(first.samples) == 30
    assert all(isinstance(d, str) and isinstance(t, str) and t for d, t in first.samples)
    assert first.samples == again.samples
    assert first.samples != other.samples
    assert first.per_term_seconds > 0 and first.elapsed > 0


def test_set_iteration_order_does_not_vary(toy_source: Build) -> None:
    # String hashing is randomised per process unless the child fixes the hash seed.
    body = "    names = {f'v{i}' for i in range(20)}\n    return '', ' '.join(names)\n"
    runs = {sample_terms(toy_source(body), 1, seed=0).samples[0][1] for _ in range(3)}
    assert len(runs) == 1


def test_infinite_loop_is_a_timeout(toy_source: Build) -> None:
    start = time.monotonic()
    report = sample_terms(toy_source("    while True:\n        pass\n"), 5, seed=0, timeout=1.5)
    assert report.kind == "timeout"
    assert "1.5 s" in (report.failure or "")
    assert time.monotonic() - start < 1.5 + 1.5


def test_partial_samples_survive_a_timeout(toy_source: Build) -> None:
    body = "    if rng.random() < 0.05:\n        while True:\n            pass\n    return '', 'true'\n"
    report = sample_terms(toy_source(body), 200, seed=3, timeout=1.0)
    assert report.kind == "timeout"
    assert 0 < len(report.samples) < 200
    assert f"after {len(report.samples)} of 200" in (report.failure or "")


def test_memory_hog_is_memory(toy_source: Build) -> None:
    body = "    xs = []\n    while True:\n        xs.append('x' * 10**6)\n"
    report = sample_terms(toy_source(body), 3, seed=0, timeout=20, memory_mb=256)
    assert report.kind == "memory", report.failure
    assert "MemoryError" in (report.failure or "")


def test_exception_traceback_points_at_generator_line(toy_source: Build) -> None:
    source = toy_source("    x = rng.randint(0, 3)\n    return helper(x)\n") + (
        "\n\ndef helper(x):\n    return ('', 'true') if x > 99 else [][x]\n"
    )
    failing_line = source.splitlines().index("    return ('', 'true') if x > 99 else [][x]") + 1
    report = sample_terms(source, 5, seed=0, filename="gen/Toy/generator.py")
    assert report.kind == "exception"
    failure = report.failure or ""
    assert "IndexError" in failure
    assert f'File "gen/Toy/generator.py", line {failing_line}, in helper' in failure
    assert "[][x]" in failure  # the source line is quoted
    assert "sandbox_child" not in failure  # runtime frames are trimmed


def test_module_level_error_is_reported(toy_source: Build) -> None:
    source = toy_source("    return '', 'true'\n") + "\nboom = 1 // 0\n"
    report = sample_terms(source, 2, seed=0)
    assert report.kind == "exception" and "ZeroDivisionError" in (report.failure or "")
    assert report.samples == []


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("    return 'x'\n", "generate returned str"),
        ("    return ['', 'true']\n", "generate returned list"),
        ("    return ('', 'a', 'b')\n", "of length 3"),
        ("    return ('', 5)\n", "term is int"),
        ("    return ('', '   ')\n", "term is empty"),
        ("    return ('', '\\ud800')\n", "not valid text"),
    ],
)
def test_bad_output(body: str, expected: str, toy_source: Build) -> None:
    report = sample_terms(toy_source(body), 3, seed=0)
    assert report.kind == "bad-output"
    assert expected in (report.failure or "") and "sample 0" in (report.failure or "")


def test_prints_do_not_disturb_the_protocol(toy_source: Build) -> None:
    body = "    print('{\"kind\": \"ok\"}')\n    return '', 'true'\n"
    report = sample_terms(toy_source(body), 4, seed=0)
    assert report.kind == "ok" and report.samples == [("", "true")] * 4


def test_unsafe_source_never_runs(toy_source: Build) -> None:
    with pytest.raises(UnsafeGenerator):
        sample_terms(toy_source("    import os\n    return '', 'true'\n"), 1, seed=0)


def test_child_guards_imports_and_builtins_at_run_time() -> None:
    # Talk to the child directly, skipping the static check, to test the second line.
    source = (
        'THEORY = "T"\nSOLVERS = ("z3",)\n'
        "def generate(rng):\n"
        "    try:\n"
        "        import os\n"
        "        imported = 'imported'\n"
        "    except ImportError as exc:\n"
        "        imported = str(exc)\n"
        "    return imported, 'true'\n"
    )
    request = header("sample", 256, 5, source=source, filename="g.py", n=1, seed=0)
    process = spawn(subprocess.PIPE)
    stdout, _ = process.communicate(json.dumps(request).encode() + b"\n", timeout=30)
    first = json.loads(stdout.splitlines()[0])
    assert first["sample"][0] == "import of 'os' is not allowed in a generator"


def test_child_cannot_use_open_at_run_time() -> None:
    source = 'THEORY = "T"\nSOLVERS = ("z3",)\ndef generate(rng):\n    return open("x"), ""\n'
    request = header("sample", 256, 5, source=source, filename="g.py", n=1, seed=0)
    process = spawn(subprocess.PIPE)
    stdout, _ = process.communicate(json.dumps(request).encode() + b"\n", timeout=30)
    final = json.loads(stdout.splitlines()[-1])
    assert final["kind"] == "exception" and "NameError" in final["failure"]
