"""A release's cached probe answers say how they were made: answers an older probe wrote (the
yices probe before it ran yices incremental) are asked again once, never used."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from sphinxfuzz.campaign import theory_probe
from sphinxfuzz.campaign.theory_probe import (
    DECIDE_LIMIT,
    DECIDE_TERMS,
    PROBE_TERMS,
    SECTION,
    _key,
    made_by,
    probe_theories,
    term_seeds,
)
from sphinxfuzz.generators.capabilities import cache_file
from sphinxfuzz.generators.catalogue import load_catalogue
from sphinxfuzz.generators.pool import GeneratorPool
from sphinxfuzz.solvers import Family, families, parse_specs, solver_version

SURE = '''"""Integer terms every solver decides at once."""
import random

THEORY = "Sure"
SOLVERS = ("z3", "cvc5")


def generate(rng: random.Random) -> tuple[str, str]:
    return "(declare-const n Int)", f"(> n {rng.randint(0, 9)})"
'''
# what the probe answered for yices before it ran it in its incremental mode
PUSH = 'error: (error "push is not allowed in non-incremental mode")'


def _pool(tmp_path: Path) -> GeneratorPool:
    (tmp_path / "g" / "Sure").mkdir(parents=True)
    (tmp_path / "g" / "Sure" / "generator.py").write_text(SURE)
    return GeneratorPool(load_catalogue(tmp_path / "g").entries)


def test_answers_the_old_yices_probe_cached_are_probed_again_and_said(tmp_path: Path) -> None:
    yices, cache = parse_specs("yices")[0], tmp_path / "cache"
    with _pool(tmp_path) as pool:
        # the file as the probe before this one wrote it: the same key, no word on how
        checked = set(term_seeds("Sure", DECIDE_TERMS))
        old = {"family": "yices", "version": solver_version(yices), "argv": list(yices.argv),
               SECTION: {_key(pool, "Sure", PROBE_TERMS, 10.0, DECIDE_LIMIT): [
                   [s, None, PUSH, PUSH] if s in checked else [s, None, None, None]
                   for s in term_seeds("Sure", PROBE_TERMS)]}}  # fmt: skip
        cache.mkdir()
        cache_file(yices, cache).write_text(json.dumps(old))
        probe = probe_theories(pool, [yices], folder=cache)
        again = probe_theories(pool, [yices], folder=cache)
    # read as cached, yices decided no checked term either way: the theory left out
    assert probe.stale == ["yices (theory_probe)"] and probe.probed == 1
    assert probe.decided == {"Sure": 1.0}
    assert again.stale == [] and again.probed == 0 and again.decided == {"Sure": 1.0}
    stored = json.loads(cache_file(yices, cache).read_text())
    assert stored["made_by"] == {SECTION: made_by(yices)}


def test_a_new_probe_version_or_mode_asks_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    z3, cache = parse_specs("z3")[0], tmp_path / "cache"
    with _pool(tmp_path) as pool:
        assert probe_theories(pool, [z3], terms=4, folder=cache).probed == 1
        assert probe_theories(pool, [z3], terms=4, folder=cache).probed == 0
        monkeypatch.setattr(theory_probe, "THEORY_PROBE", theory_probe.THEORY_PROBE + 1)
        newer = probe_theories(pool, [z3], terms=4, folder=cache)
    assert newer.probed == 1 and newer.stale == ["z3 (theory_probe)"]
    # how a family enters its incremental mode decides the answers too
    yices = parse_specs("yices")[0]
    before = made_by(yices)
    record = dataclasses.replace(Family.YICES.record, incremental=None)
    monkeypatch.setitem(families.RECORDS, Family.YICES, record)
    assert made_by(yices) != before
