from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from sphinxfuzz.generators.catalogue import load_catalogue
from sphinxfuzz.generators.pool import GeneratorFailure, GeneratorPool
from sphinxfuzz.generators.sandbox import sample_terms
from sphinxfuzz.generators.static_check import UnsafeGenerator

Build = Callable[[str], str]


@dataclass(frozen=True)
class Entry:
    theory: str
    source: str
    path: str


def toy(theory: str, toy_source: Build, body: str) -> Entry:
    source = toy_source(body).replace('THEORY = "Toy"', f'THEORY = "{theory}"')
    return Entry(theory, source, f"gen/{theory}/generator.py")


def test_fixture_catalogue_is_served_deterministically(fixtures_dir: Path) -> None:
    catalogue = load_catalogue(fixtures_dir)
    with GeneratorPool(catalogue.entries) as pool:
        assert pool.theories == ["FixedSizeBitVectors", "Ints", "Strings"]
        for theory in pool.theories:
            first = [pool.generate(theory, seed) for seed in range(20)]
            again = [pool.generate(theory, seed) for seed in reversed(range(20))][::-1]
            assert first == again
            assert len(set(first)) > 10
            # The same as a one-term sample with that seed: both call generate(Random(seed)).
            single = sample_terms(catalogue.entries[theory].source, 1, seed=7).samples[0]
            assert pool.generate(theory, 7) == single


def test_fresh_state_hides_module_globals(toy_source: Build) -> None:
    body = "    global COUNT\n    COUNT += 1\n    return '', f'(> {COUNT} 0)'\n"
    entry = toy("Counter", toy_source, body)
    entry = Entry(entry.theory, entry.source + "\nCOUNT = 0\n", entry.path)
    with GeneratorPool([entry]) as pool:
        assert pool.generate("Counter", 1) == pool.generate("Counter", 1)
    with GeneratorPool([entry], fresh_state=False) as pool:
        assert pool.generate("Counter", 1) != pool.generate("Counter", 1)


def test_exception_names_theory_and_pool_keeps_serving(toy_source: Build) -> None:
    bad = toy("Bad", toy_source, "    if rng.random() < 2:\n        raise ValueError('nope')\n")
    good = toy("Good", toy_source, "    return '', 'true'\n")
    with GeneratorPool([bad, good]) as pool:
        with pytest.raises(GeneratorFailure) as info:
            pool.generate("Bad", 3)
        assert info.value.theory == "Bad" and info.value.kind == "exception"
        assert "ValueError: nope" in str(info.value) and "'Bad'" in str(info.value)
        assert "gen/Bad/generator.py" in info.value.detail
        assert pool.generate("Good", 3) == ("", "true")
        assert pool.restarts == 0


def test_hang_is_reported_and_child_restarted(toy_source: Build) -> None:
    hang = toy("Hang", toy_source, "    while rng.random() < 2:\n        pass\n")
    good = toy("Good", toy_source, "    return '', f'(> {rng.randint(0, 9)} 0)'\n")
    with GeneratorPool([hang, good], timeout=0.5) as pool:
        expected = pool.generate("Good", 5)
        start = time.monotonic()
        with pytest.raises(GeneratorFailure) as info:
            pool.generate("Hang", 1)
        assert time.monotonic() - start < 0.5 + 1.0
        assert info.value.kind == "timeout" and info.value.theory == "Hang"
        assert pool.generate("Good", 5) == expected
        assert pool.restarts == 1


def test_memory_and_bad_output(toy_source: Build) -> None:
    hog = toy("Hog", toy_source, "    xs = []\n    while True:\n        xs.append('x' * 10**6)\n")
    odd = toy("Odd", toy_source, "    return 42\n")
    with GeneratorPool([hog, odd], memory_mb=256, timeout=20) as pool:
        with pytest.raises(GeneratorFailure) as info:
            pool.generate("Hog", 0)
        assert info.value.kind == "memory"
        with pytest.raises(GeneratorFailure) as info:
            pool.generate("Odd", 0)
        assert info.value.kind == "bad-output" and "returned int" in info.value.detail


def test_module_level_failure_is_isolated(toy_source: Build) -> None:
    broken = toy("Broken", toy_source, "    return '', 'true'\n")
    broken = Entry(broken.theory, broken.source + "\nx = 1 // 0\n", broken.path)
    good = toy("Good", toy_source, "    return '', 'true'\n")
    with GeneratorPool([broken, good]) as pool:
        assert pool.theories == ["Good"]
        assert "ZeroDivisionError" in pool.load_failures["Broken"]
        with pytest.raises(GeneratorFailure):
            pool.generate("Broken", 0)
        with pytest.raises(KeyError):
            pool.generate("Missing", 0)


def test_unsafe_entry_is_refused(toy_source: Build) -> None:
    with pytest.raises(UnsafeGenerator):
        GeneratorPool([toy("Evil", toy_source, "    import os\n    return '', 'true'\n")])


def test_close_ends_the_child(fixtures_dir: Path) -> None:
    pool = GeneratorPool(load_catalogue(fixtures_dir).entries)
    process = pool._process
    assert process is not None and process.poll() is None
    pool.close()
    assert process.poll() is not None
