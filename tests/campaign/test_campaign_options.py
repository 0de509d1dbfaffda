"""Solver options in campaigns (`--options`): fixed per family or drawn per position from
the targets' option tables, carried on the command lines into every stored bug and replay."""

from __future__ import annotations

import dataclasses
import io
import json
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
from campaign_helpers import CRASHER, SEEDS, TESTS, config_for
from rich.console import Console

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.option_use import added_options, count_options, option_use
from sphinxfuzz.bugs.record import BugRecord, SolverSummary, load_record
from sphinxfuzz.bugs.replay import replay
from sphinxfuzz.bugs.report import render_report
from sphinxfuzz.campaign import Budget, CampaignError, run_campaign
from sphinxfuzz.campaign.options import OptionPlan, PositionOptions
from sphinxfuzz.campaign.status import options_field, read_status
from sphinxfuzz.cli.fuzz import summary_table
from sphinxfuzz.oracle import Verdict, VerdictKind
from sphinxfuzz.solvers import Family, parse_specs
from sphinxfuzz.solvers.options.declared import Declared, Kind
from sphinxfuzz.solvers.options.table import build_table, save_table

STATUS_SCHEMA = TESTS.parent / "sphinxfuzz" / "schemas" / "status.schema.json"


def test_plans_are_read_or_refused() -> None:
    assert OptionPlan.parse("") == OptionPlan()
    assert OptionPlan.parse("random") == OptionPlan(drawn=3)
    assert OptionPlan.parse("random:5") == OptionPlan(drawn=5)
    fixed = OptionPlan.parse("z3: smt.arith.solver=2 auto_config=false; cvc5: --nl-ext-tplanes")
    assert fixed.fixed == {
        Family.Z3: ("smt.arith.solver=2", "auto_config=false"),
        Family.CVC5: ("--nl-ext-tplanes",),
    }
    for wrong in ("random:0", "randomly", "z3 smt.arith.solver=2", "mathsat: -x", "z3:"):
        with pytest.raises(CampaignError) as caught:
            OptionPlan.parse(wrong)
        assert caught.value.setting == "options"


@pytest.fixture
def small_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A z3 table of a few options, probed with the real z3, in a cache of the test's own."""
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    z3 = parse_specs("z3")[0]
    declared = [
        Declared("auto_config", Kind.BOOL, "true"),
        Declared("smt.arith.solver", Kind.ENUM, "6", ("2", "6")),
        Declared("smt.relevancy", Kind.ENUM, "2", ("0", "1", "2")),
        Declared("rewriter.flat", Kind.BOOL, "true"),
    ]
    save_table(z3, build_table(z3, declared=declared))


def test_random_options_depend_on_the_position_alone(small_tables: None) -> None:
    specs = parse_specs("z3 model_validate=true;" + CRASHER)
    options = PositionOptions.prepare("random:2", specs, 7)
    draws = [options.words(position) for position in range(12)]
    assert draws == [PositionOptions.prepare("random:2", specs, 7).words(p) for p in range(12)]
    z3_words = [d["z3"] for d in draws]
    assert all(d[specs[1].name] == () for d in draws)  # a stand-in has no table
    assert all(len(w) <= 2 and len({x.split("=")[0] for x in w}) == len(w) for w in z3_words)
    assert len(set(z3_words)) > 3  # positions differ
    known = {"auto_config=false", "smt.arith.solver=2", "smt.relevancy=0", "smt.relevancy=1",
             "rewriter.flat=false"}  # fmt: skip
    assert {w for words in z3_words for w in words} <= known
    spec = options.specs_for(3)[0]
    assert spec.name == "z3" and spec.argv[len(specs[0].argv) :] == z3_words[3]
    assert parse_specs(spec.text)[0].argv == spec.argv  # the text runs the same command


def test_fixed_options_reach_every_stored_bug_and_its_replay(tmp_path: Path) -> None:
    config = config_for([SEEDS / "crash.smt2"], f"z3;{CRASHER}", per_seed=2)
    config = dataclasses.replace(config, options="z3: smt.arith.solver=2 rewriter.flat=false")
    root = tmp_path / "campaign"
    run_campaign(config, root, Budget())
    with Store(root) as store:
        bugs = store.bugs()
    assert bugs
    for bug in bugs:
        record = load_record(bug.folder)
        z3 = next(s for s in record.solvers if s.name == "z3")
        assert z3.spec == "z3 smt.arith.solver=2 rewriter.flat=false"
        assert z3.argv[-2:] == ("smt.arith.solver=2", "rewriter.flat=false")
        again = replay(bug.folder)
        assert again.reproduced
        z3_again = next(r for r in again.results if r.spec.name == "z3")
        assert z3_again.spec.argv[-2:] == ("smt.arith.solver=2", "rewriter.flat=false")


def test_options_a_solver_refuses_stop_the_campaign_before_it_starts(tmp_path: Path) -> None:
    config = dataclasses.replace(
        config_for([SEEDS / "crash.smt2"], "z3"), options="z3: smt.no_such_option=true"
    )
    with pytest.raises(CampaignError) as caught:
        run_campaign(config, tmp_path / "campaign", Budget())
    assert caught.value.setting == "options" and "no_such_option" in str(caught.value)


def _record(kind: VerdictKind, *specs: tuple[str, str]) -> BugRecord:
    summaries = [SolverSummary(name, spec) for name, spec in specs]
    return BugRecord(Path("bug"), "b", Verdict(kind, specs[0][0]), "seed.smt2", summaries)


def test_options_are_counted_per_word_beyond_the_campaign_spec() -> None:
    specs = ["z3", "z3 model_validate=true", "cvc5@1.1.2"]
    records = [
        _record(VerdictKind.CRASH, ("z3", "z3 smt.relevancy=0"), ("cvc5@1.1.2", "cvc5@1.1.2")),
        _record(
            VerdictKind.SOUNDNESS,
            ("z3#2", "z3 model_validate=true smt.relevancy=0"),
            ("cvc5@1.1.2", "cvc5@1.1.2 --no-nl-ext '--x=a b'"),
        ),  # fmt: skip
        _record(VerdictKind.CRASH, ("z3", "z3")),
    ]
    assert added_options(records[1], specs) == [
        "z3#2 smt.relevancy=0", "cvc5@1.1.2 --no-nl-ext", "cvc5@1.1.2 --x=a b"
    ]  # fmt: skip
    counted = {u.option: (u.bugs, dict(u.kinds)) for u in count_options(records, specs)}
    assert counted == {
        "z3 smt.relevancy=0": (1, {"crash": 1}),
        "z3#2 smt.relevancy=0": (1, {"soundness": 1}),
        "cvc5@1.1.2 --no-nl-ext": (1, {"soundness": 1}),
        "cvc5@1.1.2 --x=a b": (1, {"soundness": 1}),
    }


def test_summary_status_and_report_show_the_bugs_per_option(tmp_path: Path) -> None:
    solvers = f"z3;{CRASHER}"
    config = config_for([SEEDS / "crash.smt2"], solvers, per_seed=2)
    config = dataclasses.replace(config, options="z3: smt.arith.solver=2 rewriter.flat=false")
    root = tmp_path / "campaign"
    stats = run_campaign(config, root, Budget())
    with Store(root) as store:
        bugs = store.bugs()
    assert bugs
    used = option_use(root, solvers)
    assert [(u.option, u.bugs) for u in used] == [
        ("z3 rewriter.flat=false", len(bugs)), ("z3 smt.arith.solver=2", len(bugs))
    ]  # fmt: skip
    assert used[0].kinds == Counter(str(b.kind) for b in bugs)
    live = json.loads(CampaignFolder(root).status.read_text(encoding="utf-8"))
    assert live["options"] == read_status(root)["options"] == options_field(root, solvers)
    assert live["options"]["z3 smt.arith.solver=2"]["bugs"] == len(bugs)
    jsonschema.validate(live, json.loads(STATUS_SCHEMA.read_text()))
    page = render_report(root)
    assert 'id="options"' in page and "<code>z3 smt.arith.solver=2</code>" in page
    console = Console(width=200, file=io.StringIO(), record=True)
    console.print(summary_table(stats, 1.0, options=used))
    lines = console.export_text().splitlines()
    assert any("stored bugs with z3 smt.arith.solver=2" in line and used[1].sentence() in line
               for line in lines)  # fmt: skip


def test_a_campaign_without_options_shows_none(tmp_path: Path) -> None:
    root = tmp_path / "campaign"
    run_campaign(config_for([SEEDS / "crash.smt2"], f"z3;{CRASHER}", per_seed=1), root, Budget())
    assert "options" not in read_status(root)
    assert 'id="options"' not in render_report(root)
