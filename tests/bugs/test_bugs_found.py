"""docs/bugs-found.md is what docs/bugs-found.json renders, and bench/bugs_found.py replays an
entry on its real release (and fails when the bug or the page's word about it is gone)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from bench_helpers import load_bench

from sphinxfuzz.smtlib import parse_script
from sphinxfuzz.solvers import parse_specs

REPO = Path(__file__).resolve().parents[2]


bench = load_bench("bugs_found")


def test_the_page_shows_exactly_the_data() -> None:
    page = (REPO / "docs" / "bugs-found.md").read_text(encoding="utf-8")
    entries = bench.load()
    assert bench.generated_part(page) == bench.render(entries)
    assert len(entries) >= 5


def test_every_entry_is_a_parsed_formula_with_its_own_anchor() -> None:
    entries = bench.load()
    assert len({e.id for e in entries}) == len(entries)
    for entry in entries:
        assert parse_script(entry.formula).commands, entry.id


def _fma(entries: list[Any]) -> Any:  # the z3 4.8.8 entry: the test suite installs that release
    return next(e for e in entries if e.release == "4.8.8" and "fp.fma" in e.formula)


@pytest.mark.usefixtures("z3_4_8_8")
def test_an_entry_reproduces_on_its_release_and_is_fixed_in_the_newest() -> None:
    replayed = bench.replay(_fma(bench.load()), say=lambda _: None)
    assert replayed.on_release == "bug" and replayed.today == "fixed"
    assert replayed.read == "" and replayed.failures == []


@pytest.mark.usefixtures("z3_4_8_8")
def test_an_entry_that_no_longer_holds_fails_the_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fixed rounding mode takes the crash away, and the page calls it alive: both are
    reported and the exit status is 1; the page written for that data passes the check."""
    item = next(i for i in json.loads(bench.DATA.read_text()) if i["id"] == _fma(bench.load()).id)
    item["formula"] = [line.replace("fp.fma r ", "fp.fma RNE ") for line in item["formula"]]
    item["status"] = "alive"
    data, page = tmp_path / "bugs.json", tmp_path / "bugs.md"
    data.write_text(json.dumps([item]))
    page.write_text(f"intro\n{bench.BEGIN}\n{bench.END}\n")
    assert bench.main(["--data", str(data), "--page", str(page), "--write"]) == 0
    assert bench.main(["--data", str(data), "--page", str(page)]) == 1
    err = capsys.readouterr().err
    assert "4.8.8 no longer shows it: clean" in err
    assert re.search(r"the page says alive, [0-9.]+ is fixed", err)


def test_a_wrong_answer_is_listed_with_its_referees_and_only_then() -> None:
    entries = bench.load()
    wrong = [e for e in entries if e.kind == "soundness"]
    assert wrong and all(e.referees for e in wrong)
    assert all(not e.referees for e in entries if e.kind != "soundness")
    item = next(i for i in json.loads(bench.DATA.read_text()) if i["kind"] == "soundness")
    with pytest.raises(ValueError, match="names its referees"):
        bench.Entry.from_json({**item, "referees": []})
    crash = next(i for i in json.loads(bench.DATA.read_text()) if i["kind"] == "crash")
    with pytest.raises(ValueError, match="names its referees"):
        bench.Entry.from_json({**crash, "referees": ["z3"]})


def test_an_entry_whose_build_is_missing_is_still_judged_on_the_newest_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """z3 4.8.11+assert is made, not downloaded: without it the replay names the command that
    makes it and fails, yet still checks the page's word on the newest build with assertions
    in the cache, newer than 4.8.11 (here `4.9.1+assert`, running the installed z3, which
    answers sat: fixed)."""
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    build = tmp_path / "cache" / "solvers" / "z3-4.9.1+assert"
    (build / "bin").mkdir(parents=True)
    (build / "bin" / "z3").write_text(f'#!/bin/sh\nexec "{parse_specs("z3")[0].argv[0]}" "$@"\n')
    (build / "bin" / "z3").chmod(0o755)
    record = {"family": "z3", "version": "4.9.1+assert", "binary": "bin/z3"}
    (build / "installed.json").write_text(json.dumps(record))
    item = next(
        i for i in json.loads(bench.DATA.read_text()) if i["options"] == ["sat.ddfw_search=true"]
    )
    data, page = tmp_path / "bugs.json", tmp_path / "bugs.md"
    for status in ("fixed", "alive"):
        data.write_text(json.dumps([{**item, "status": status}]))
        page.write_text(f"intro\n{bench.BEGIN}\n{bench.END}\n")
        assert bench.main(["--data", str(data), "--page", str(page), "--write"]) == 0
        assert bench.main(["--data", str(data), "--page", str(page)]) == 1
        captured = capsys.readouterr()
        assert "z3 4.8.11+assert  no (not built)  z3 4.9.1+assert  fixed" in captured.out
        assert "(sphinxfuzz solvers build z3==4.8.11 --assertions)" in captured.err
        judged = "the page says alive, 4.9.1+assert is fixed" in captured.err
        assert judged == (status == "alive"), captured.err
