"""Known bugs: a finding in the place of one of our own docs/bugs-found.json entries, of an
upstream reproducer on the same release, or whose seed file names an issue, is marked likely
known; a crash of another family, or another place, is not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.known import (
    _cache_path,
    _crash_match,
    _digest,
    bugs_found,
    corpus_signatures,
    from_bugs_found,
    from_corpus,
    from_seed_name,
    made_by,
    recognise,
    reproducers,
)
from sphinxfuzz.bugs.record import load_known, load_record
from sphinxfuzz.datafiles import doc_file
from sphinxfuzz.oracle.backtrace import gdb_backtrace, identified
from sphinxfuzz.oracle.dialect import for_family
from sphinxfuzz.oracle.judge import judge
from sphinxfuzz.oracle.run import run_in_dialect
from sphinxfuzz.solvers import Family, parse_specs

# docs/bugs-found.md entry 6: z3 5.4.1 (the wheel) segfaults on `match` after `(reset)`
MATCH_AFTER_RESET = """(declare-datatypes ((T 0)) (((A) (B))))
(assert (match A ((A true) (B false))))
(reset)
(declare-datatypes ((U 0)) (((C) (D))))
(assert (match C ((C true) (D false))))
"""
# the same crash with other names: what a campaign's mutant would show
RENAMED = MATCH_AFTER_RESET.replace("T 0", "S 0").replace("(A)", "(P)").replace("A (", "P (")
RENAMED = RENAMED.replace("(A true)", "(P true)")


def store_seed_finding(root: Path, seed: Path, solvers: str) -> Path:
    """The seed run as a campaign's seed check runs it (real solvers, crashes signed by their
    stack under gdb), its verdict stored as a seed finding; the finding's folder."""
    text = seed.read_text()

    def run(spec, script):  # type: ignore[no-untyped-def]
        return run_in_dialect(spec, script, timeout=10)

    results = [run(spec, text) for spec in parse_specs(solvers)]
    verdicts = identified(
        judge(text, results, run).verdicts, results, lambda s: for_family(text, s.family),
        lambda s, t: gdb_backtrace(s, t, timeout=10, memory_mb=4096),
    )  # fmt: skip
    assert verdicts, [r.outcome for r in results]
    with Store(root, create=True) as store:
        ident = store.record_seed_finding(str(seed), text, verdicts[0], results)
    return CampaignFolder(root).finding(ident)


@pytest.fixture(scope="module")
def match_crash(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("known")
    seed = base / "renamed.smt2"
    seed.write_text(RENAMED)
    return store_seed_finding(base / "campaign", seed, "z3")


def test_a_crash_in_the_place_of_a_bugs_found_entry_is_that_entry(match_crash: Path) -> None:
    assert bugs_found()[5].id == "z3-5.4.1-match-after-reset"  # the shipped data is found
    known = recognise(match_crash)
    assert known is not None and known.label == "bugs-found 6"
    assert "docs/bugs-found.md" in known.link and load_known(match_crash) == known


def test_a_reproducer_of_the_same_family_and_place_makes_it_known(
    match_crash: Path, tmp_path: Path
) -> None:
    record = load_record(match_crash)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    # another family's tracker with the very same formula is never run against z3
    (corpus / "cvc5_1111_0.smt2").write_text(MATCH_AFTER_RESET)
    (corpus / "z3_2222_0.smt2").write_text("(declare-const x Int)(assert (> x 0))(check-sat)\n")
    assert from_corpus(record, corpus) is None
    (corpus / "z3_3333_0.smt2").write_text(MATCH_AFTER_RESET)
    known = from_corpus(record, corpus)
    assert known is not None and known.label == "z3#3333"
    assert known.link == "https://github.com/Z3Prover/z3/issues/3333"


def test_a_reproducer_crashing_the_release_in_another_place_is_another_bug(
    match_crash: Path, tmp_path: Path
) -> None:
    """docs/bugs-found.md entry 7 segfaults z3 5.4.1 too, in the datatype theory's final
    check: a crash, but not entry 6's, so it names no issue for entry 6's finding."""
    record = load_record(match_crash)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    entry = json.loads(doc_file("bugs-found.json").read_text(encoding="utf-8"))[6]
    assert entry["id"] == bugs_found()[6].id and entry["newest"] == "5.4.1"
    (corpus / "z3_7777_0.smt2").write_text("\n".join(entry["formula"]) + "\n")
    assert from_corpus(record, corpus) is None


def test_only_the_family_s_own_trackers_and_crashes_with_a_place_or_message_match(
    tmp_path: Path,
) -> None:
    for name in ("z3_1_0.smt2", "cvc5_2_0.smt2", "yices2_3_0.smt2", "cvc5-projects_4_0.smt2"):
        (tmp_path / name).write_text("(check-sat)\n")
    named = {family: {r.path.name for r in reproducers(tmp_path, family)} for family in Family}
    assert named[Family.CVC5] == {"cvc5_2_0.smt2", "cvc5-projects_4_0.smt2"}
    assert named[Family.Z3] == {"z3_1_0.smt2"} and named[Family.YICES] == {"yices2_3_0.smt2"}
    # a bare signal says nothing of where: two of them are not one bug; a message is
    assert not _crash_match("z3", "z3: killed by signal 11", "z3", "z3: killed by signal 11")
    assert _crash_match("z3", "z3: Fatal failure x", "z3", "z3: Fatal failure x")
    assert not _crash_match("z3", "z3: Fatal failure x", "cvc5", "z3: Fatal failure x")
    # only crash entries are matched: entry 11 is an invalid model, never a crash's twin
    assert bugs_found()[10].kind == "invalid-model"
    assert from_bugs_found("z3", "crash", bugs_found()[10].signature) is None


def test_a_seed_file_that_names_an_issue_of_the_blamed_family_is_that_issue(tmp_path: Path) -> None:
    z3 = from_seed_name("seeds/z3_3453_0.smt2", Family.Z3)
    assert z3 is not None and z3.label == "z3#3453"
    cvc5 = from_seed_name("regressions/cvc5/regress1/issue9078-1.smt2", Family.CVC5)
    assert cvc5 is not None and cvc5.link == "https://github.com/cvc5/cvc5/issues/9078"
    assert from_seed_name("regressions/cvc5/regress1/issue9078-1.smt2", Family.Z3) is None
    assert from_seed_name("seeds/tissue9078.smt2", Family.CVC5) is None
    # z3 crashing on a cvc5 reproducer is news to z3; on one of z3's own, it is that issue
    other = tmp_path / "cvc5-projects_114_0.smt2"
    other.write_text(RENAMED)
    own = tmp_path / "z3_4444_0.smt2"
    own.write_text(RENAMED)
    for seed, label in ((other, "bugs-found 6"), (own, "z3#4444")):
        known = recognise(store_seed_finding(tmp_path / "campaign", seed, "z3"))
        assert known is not None and known.label == label


def test_bugs_list_shows_the_mark(match_crash: Path) -> None:
    import json

    from typer.testing import CliRunner

    from sphinxfuzz.cli import app

    recognise(match_crash)
    root = match_crash.parent.parent
    shown = CliRunner().invoke(app, ["bugs", "list", "-c", str(root)])
    assert shown.exit_code == 0 and "likely bugs-found 6" in shown.output, shown.output
    data = json.loads(CliRunner().invoke(app, ["bugs", "list", "-c", str(root), "--json"]).output)
    (finding,) = data["seed_findings"]
    assert finding["known"]["label"] == "bugs-found 6"


def test_an_older_release_crashing_in_the_same_place_is_that_entry(
    tmp_path: Path, z3_4_12_2: None
) -> None:
    """z3 4.12.2 segfaults on entry 6's formula one frame off 5.4.1's stack (in
    get_datatype_constructors, under check_patterns): the same bug."""
    seed = tmp_path / "renamed.smt2"
    seed.write_text(RENAMED)
    folder = store_seed_finding(tmp_path / "campaign", seed, "z3@4.12.2")
    assert load_record(folder).verdict.signature != bugs_found()[5].signature
    known = recognise(folder)
    assert known is not None and known.label == "bugs-found 6"


def test_a_campaign_with_known_reproducers_marks_its_seed_finding(tmp_path: Path) -> None:
    """fuzz --known: the campaign runs the reproducers of the blamed family once it stores
    the finding, and names the issue in its message and in known.json."""
    from dataclasses import replace

    from sphinxfuzz.api import run_campaign
    from tests.campaign_helpers import config_for

    seed = tmp_path / "seeds" / "renamed.smt2"
    seed.parent.mkdir()
    seed.write_text(RENAMED)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "z3_7777_0.smt2").write_text(MATCH_AFTER_RESET)
    config = replace(config_for([seed.parent], "z3", per_seed=1), known=str(corpus))
    messages: list[str] = []
    run_campaign(config, tmp_path / "c", mutants=1, on_message=messages.append)
    (folder,) = (tmp_path / "c" / "seed-findings").iterdir()
    known = load_known(folder)
    assert known is not None and known.label == "z3#7777"


def test_signatures_cached_by_an_older_run_are_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reproducer's cached signature says how it was made: one cached before (no word on
    how, or another run's limits or signing) is run again on the release, never used."""
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    z3, corpus = parse_specs("z3")[0], tmp_path / "corpus"
    corpus.mkdir()
    text = "(declare-const x Int)(assert (> x 0))(check-sat)\n"
    (corpus / "z3_2222_0.smt2").write_text(text)
    old = {"spec": z3.text, "files": {"z3_2222_0.smt2": {
        "sha": _digest(text), "signature": "z3: ASSERTION VIOLATION File: a.cpp Line: 1"}}}  # fmt: skip
    _cache_path(z3).parent.mkdir(parents=True)
    _cache_path(z3).write_text(json.dumps(old))
    assert corpus_signatures(corpus, z3) == {"z3_2222_0.smt2": ""}  # it answers sat
    assert json.loads(_cache_path(z3).read_text())["made_by"] == made_by(z3)
