"""Solver options in campaigns (`--options`): fixed per family or drawn per position from
the targets' option tables, carried on the command lines into every stored bug and replay."""

from __future__ import annotations

import dataclasses
import io
import json
import shutil
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
from campaign_helpers import CRASHER, SEEDS, TESTS, config_for
from rich.console import Console

from sphinxfuzz.bugs import BugRow, Store
from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.option_use import added_options, count_options, option_use
from sphinxfuzz.bugs.record import BugRecord, SolverSummary, load_record
from sphinxfuzz.bugs.replay import replay
from sphinxfuzz.bugs.report import render_report
from sphinxfuzz.campaign import Budget, CampaignError, run_campaign
from sphinxfuzz.campaign.config import CampaignConfig
from sphinxfuzz.campaign.config_text import read_options
from sphinxfuzz.campaign.coordinator import validate
from sphinxfuzz.campaign.position_options import OptionPlan, PositionOptions
from sphinxfuzz.campaign.status_file import options_field, read_status
from sphinxfuzz.cli.fuzz import summary_table
from sphinxfuzz.oracle import Verdict, VerdictKind
from sphinxfuzz.oracle.judge import judge
from sphinxfuzz.oracle.run import run_in_dialect
from sphinxfuzz.solvers import Answer, Family, Outcome, parse_specs
from sphinxfuzz.solvers.options.declared import Declared, Kind
from sphinxfuzz.solvers.options.relevance import Relevance
from sphinxfuzz.solvers.options.table import build_table, cache_dir, save_table

STATUS_SCHEMA = TESTS.parent / "sphinxfuzz" / "schemas" / "status.schema.json"


def test_plans_are_read_or_refused() -> None:
    assert read_options("") == OptionPlan() == read_options(" none ")
    # drawn by default: a new campaign's config says so, one stored before options existed ran without
    assert CampaignConfig.from_settings({"campaign_seed": 1}).options == "random"
    stored = CampaignConfig.from_settings({"campaign_seed": 1}).to_json()
    del stored["options"]
    assert CampaignConfig.from_json(stored).options == ""
    assert read_options("random") == OptionPlan(drawn=3)
    assert read_options("random:5") == OptionPlan(drawn=5)
    fixed = read_options("z3: smt.arith.solver=2 auto_config=false; cvc5: --nl-ext-tplanes")
    assert fixed.fixed == {
        Family.Z3: ("smt.arith.solver=2", "auto_config=false"),
        Family.CVC5: ("--nl-ext-tplanes",),
    }
    for wrong in ("random:0", "randomly", "z3 smt.arith.solver=2", "mathsat: -x", "z3:"):
        with pytest.raises(CampaignError) as caught:
            read_options(wrong)
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


# every option word the small table gives z3
SMALL_TABLE_WORDS = {"auto_config=false", "smt.arith.solver=2", "smt.relevancy=0",
                     "smt.relevancy=1", "rewriter.flat=false"}  # fmt: skip


def test_random_options_depend_on_the_position_alone(small_tables: None) -> None:
    specs = parse_specs("z3 model_validate=true;" + CRASHER)
    options = PositionOptions.prepare(read_options("random:2"), specs, 7)
    draws = [options.words(position) for position in range(12)]
    assert draws == [
        PositionOptions.prepare(read_options("random:2"), specs, 7).words(p) for p in range(12)
    ]
    z3_words = [d["z3"] for d in draws]
    assert all(d[specs[1].name] == () for d in draws)  # a stand-in has no table
    assert all(len(w) <= 2 and len({x.split("=")[0] for x in w}) == len(w) for w in z3_words)
    assert len(set(z3_words)) > 3  # positions differ
    assert {w for words in z3_words for w in words} <= SMALL_TABLE_WORDS
    spec = options.specs_for(3)[0]
    assert spec.name == "z3" and spec.argv[len(specs[0].argv) :] == z3_words[3]
    assert parse_specs(spec.text)[0].argv == spec.argv  # the text runs the same command


def test_drawn_options_are_those_that_can_act_on_the_seed(small_tables: None) -> None:
    options = PositionOptions.prepare(read_options("random:2"), parse_specs("z3"), 7)
    bv = "(declare-const x (_ BitVec 8))\n(assert (= (bvadd x #x01) #x00))\n(check-sat)\n"
    ints = "(declare-const n Int)\n(assert (> n 0))\n(check-sat)\n"
    on_bv, on_ints = ({w for p in range(40) for w in options.words(p, text)["z3"]}
                      for text in (bv, ints))  # fmt: skip
    assert not any(w.startswith("smt.arith.") for w in on_bv)  # no arithmetic in the seed
    assert {"auto_config=false", "rewriter.flat=false"} <= on_bv  # general options stay
    assert "smt.arith.solver=2" in on_ints
    # the same seed at the same position draws the same options
    assert [options.words(p, bv) for p in range(9)] == [options.words(p, bv) for p in range(9)]


def _crash_campaign_bugs(root: Path, options: str, per_seed: int) -> list[BugRow]:
    """The bugs a campaign of the crashing stand-in beside z3 stores with `options`."""
    config = config_for([SEEDS / "crash.smt2"], f"z3;{CRASHER}", per_seed=per_seed)
    run_campaign(dataclasses.replace(config, options=options), root, Budget())
    with Store(root) as store:
        bugs = store.bugs()
    assert bugs
    return bugs


def test_option_tables_are_built_once_and_carried_to_spawned_workers(
    small_tables: None, tmp_path: Path
) -> None:
    """`validate` reads the tables once and the campaign carries them: spawned workers draw
    from those, with the cache gone, and read or build none of their own."""
    config = config_for([SEEDS / "crash.smt2"], f"z3;{CRASHER}", per_seed=3)
    campaign = validate(dataclasses.replace(config, options="random:2"))
    assert campaign.option_tables is not None and set(campaign.option_tables) == {"z3"}
    shutil.rmtree(cache_dir())  # a worker that looked for a table now builds the full one
    stats = run_campaign(campaign, tmp_path / "campaign", Budget(), jobs=2)
    assert stats.mutants == 3
    assert not cache_dir().exists()
    with Store(tmp_path / "campaign") as store:
        z3_lines = [load_record(bug.folder).solvers[0].spec for bug in store.bugs()]
    drawn = {word for line in z3_lines for word in line.split()[1:]} - {"model_validate=true"}
    assert drawn and drawn <= SMALL_TABLE_WORDS  # the small table's options, as carried


def test_fixed_options_reach_every_stored_bug_and_its_replay(tmp_path: Path) -> None:
    options = "z3: smt.arith.solver=2 rewriter.flat=false"
    for bug in _crash_campaign_bugs(tmp_path / "campaign", options, per_seed=2):
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


def test_compare_draws_what_random_draws_and_runs_each_target_plain_too(
    small_tables: None,
) -> None:
    assert read_options("compare") == OptionPlan(drawn=3, compare=True)
    assert read_options("compare:2") == OptionPlan(drawn=2, compare=True)
    specs = parse_specs("z3 model_validate=true;" + CRASHER)
    random, compare = (
        PositionOptions.prepare(read_options(m), specs, 7) for m in ("random:2", "compare:2")
    )
    for position in range(12):
        words = compare.words(position)
        assert words == random.words(position)
        targets = compare.specs_for(position)
        if not words["z3"]:  # nothing drawn: nothing to compare with
            assert targets == specs
            continue
        plain, crasher, copy = targets
        assert (plain, crasher) == (specs[0], specs[1])
        assert copy.name == "z3#2" and copy.argv == (*specs[0].argv, *words["z3"])
        # the names a stored bug's command lines read back to
        assert [s.name for s in parse_specs(";".join(s.text for s in targets))] == [
            s.name for s in targets
        ]
        # a seed that serves the stand-in alone gets no copy of z3
        assert compare.specs_for(position, [specs[1]]) == [specs[1]]


def test_an_option_that_makes_the_answer_unknown_is_no_bug(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """z3 answers sat; without auto_config and MBQI it answers unknown: legitimate, so the
    plain and optioned z3 of `compare` make no verdict."""
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    z3 = parse_specs("z3")[0]
    declared = [Declared("auto_config", Kind.BOOL, "true"), Declared("smt.mbqi", Kind.BOOL, "true")]
    save_table(z3, build_table(z3, declared=declared))
    text = (
        "(declare-fun a (Int) Bool)\n(declare-fun b () Int)\n"
        "(assert (forall ((x Int)) (=> (a x) (a (+ x 1)))))\n(assert (a b))\n"
        "(check-sat)\n(get-model)\n"
    )
    options = PositionOptions.prepare(read_options("compare:2"), [z3], 1)
    position = next(p for p in range(50) if len(options.words(p)["z3"]) == 2)
    targets = options.specs_for(position)
    assert [t.name for t in targets] == ["z3", "z3#2"]
    results = [run_in_dialect(t, text, timeout=10.0) for t in targets]
    assert [r.answers[:1] for r in results] == [[Answer.SAT], [Answer.UNKNOWN]]
    judgement = judge(text, results, lambda spec, check: run_in_dialect(spec, check, timeout=10.0))
    assert judgement.verdicts == []


def test_compare_stores_bugs_whose_command_lines_replay(small_tables: None, tmp_path: Path) -> None:
    copies = 0
    for bug in _crash_campaign_bugs(tmp_path / "campaign", "compare:2", per_seed=3):
        record = load_record(bug.folder)
        names = [s.name for s in record.solvers]
        assert names == [s.name for s in parse_specs(";".join(s.spec for s in record.solvers))]
        copies += "z3#2" in names
        again = replay(bug.folder)
        assert again.reproduced
        assert [r.spec.text for r in again.results] == [s.spec for s in record.solvers]
    assert copies  # some position drew options: its z3 ran twice


def test_options_that_give_unspecified_cases_a_meaning_are_never_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """z3 answers unsat with rewriter.hi_fp_unspecified=true where SMT-LIB leaves the value
    open (sat): plain against optioned, the model check would blame the optioned z3 for a
    legitimate change. The rules leave such options out of every table."""
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    text = (
        "(declare-const n (_ FloatingPoint 8 24))\n(assert (fp.isNaN n))\n"
        "(assert (= ((_ fp.to_ubv 8) RNE n) #x07))\n(check-sat)\n"
    )
    plain, fixed = parse_specs("z3;z3 rewriter.hi_fp_unspecified=true")
    answers = [run_in_dialect(s, text, timeout=10.0).answers for s in (plain, fixed)]
    assert answers == [[Answer.SAT], [Answer.UNSAT]]
    declared = [
        Declared("rewriter.hi_fp_unspecified", Kind.BOOL, "false"),
        Declared("rewriter.hi_div0", Kind.BOOL, "true"),
        Declared("smt.array.extensional", Kind.BOOL, "true"),
        Declared("rewriter.flat", Kind.BOOL, "true"),
    ]
    table = build_table(plain, declared=declared)
    assert [o.name for o in table.options] == ["rewriter.flat"]


def test_options_the_oracle_cannot_run_with_are_never_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cvc5 refuses unconstrained-simp on a command line that checks models (the harness's
    own option): every mutant drawn with it would be rejected, a test of nothing."""
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    text = "(declare-const x Int)\n(assert (> x 1))\n(check-sat)\n"
    plain, optioned = parse_specs("cvc5 --check-models;cvc5 --check-models --unconstrained-simp")
    results = [run_in_dialect(s, text, timeout=10.0) for s in (plain, optioned)]
    assert results[0].answers == [Answer.SAT]
    assert results[1].outcome == Outcome.ERROR
    assert "unconstrained-simp" in results[1].stdout + results[1].stderr
    declared = [
        Declared("unconstrained-simp", Kind.BOOL, "false"),
        Declared("simplification-bcp", Kind.BOOL, "false"),
    ]
    table = build_table(plain, declared=declared)
    assert [o.name for o in table.options] == ["simplification-bcp"]


def test_options_a_target_refuses_together_leave_it_plain_for_the_position(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cvc5 1.4.2 takes --fresh-binders and --minimal-unsat-cores each alone, and refuses
    them together before reading a script. A position that draws the pair, where the rules
    do not know it, loses one case to the refusal; its seed, run once with the options,
    shows the command line is refused, and the position's other cases run cvc5 plainly."""
    monkeypatch.setenv("SPHINXFUZZ_CACHE", str(tmp_path / "cache"))
    cvc5 = parse_specs("cvc5 --check-models")[0]
    declared = [
        Declared("fresh-binders", Kind.BOOL, "false"),
        Declared("minimal-unsat-cores", Kind.BOOL, "false"),
    ]
    save_table(cvc5, build_table(cvc5, declared=declared))
    pair = ("--fresh-binders", "--minimal-unsat-cores")
    together = run_in_dialect(parse_specs(f"cvc5 --check-models {' '.join(pair)}")[0],
                              "(check-sat)\n", timeout=10.0)  # fmt: skip
    assert together.outcome is Outcome.ERROR, together.stdout + together.stderr
    monkeypatch.setattr(Relevance, "compatible", lambda self, family, options: list(options))
    folder = tmp_path / "seeds"
    folder.mkdir()
    for k in range(6):
        (folder / f"s{k}.smt2").write_text(
            f"(declare-const x Int)\n(declare-const y Int)\n(assert (> x {k}))\n"
            "(assert (< (+ x y) 20))\n(check-sat)\n"
        )
    config = dataclasses.replace(
        config_for([folder], "z3;cvc5 --check-models", per_seed=3), options="random:2"
    )
    plan = PositionOptions.prepare(
        read_options("random:2"), parse_specs(config.solvers), config.campaign_seed
    )
    texts = [p.read_text() for p in sorted(folder.iterdir())]
    drew = sum(  # positions whose draw holds the pair (the seed order does not change it)
        set(pair) <= set(plan.words(position, texts[0])["cvc5"]) for position in range(6)
    )
    assert 0 < drew < 6
    stats = run_campaign(config, tmp_path / "campaign", Budget())
    assert stats.mutants == 18
    refusals = [c for c in stats.rejections if "fresh-binders" in c]
    assert sum(stats.rejections[c] for c in refusals) == drew  # one case per such position
    assert sum(stats.options_refused.values()) == drew
    assert all(set(pair) <= set(key.split()) for key in stats.options_refused)
    assert stats.accepted == 18 - drew
