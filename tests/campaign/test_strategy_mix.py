"""Campaigns with `--strategies`: each position draws one strategy, cases with an expected
answer are judged against it (so one target solver is enough), and the statistics say what
each strategy did. Real solvers; the liar is z3 unless a formula carries its marker."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from campaign_helpers import LIAR_UNSAT, SEEDS, config_for
from typer.testing import CliRunner

from sphinxfuzz.bugs import Store, load_record
from sphinxfuzz.bugs.replay import replay
from sphinxfuzz.bugs.report import render_report
from sphinxfuzz.campaign import Budget, CampaignError, run_campaign, worker
from sphinxfuzz.campaign.config_text import read_strategies, read_weights
from sphinxfuzz.cli import app
from sphinxfuzz.datafiles import data_dir
from sphinxfuzz.strategies.scheduler import Scheduler, SchedulerError

EXPECTED = "fusion,storm,sae,janus,strings"
# shipped seeds of several theories, sat and unsat, quantifier-free (storm) and not
SHIPPED = [
    data_dir("skeletons") / name
    for name in (
        "arrays_swap.smt2",
        "arrays_unsat_read_over_write.smt2",
        "bv_extract_concat.smt2",
        "lia_bounded_sum.smt2",
        "lra_unsat_chain.smt2",
        "nra_circle_line.smt2",
        "str_prefix_suffix.smt2",
    )
]


def _log(root: Path) -> list[tuple[int, int, str]]:
    with Store(root) as store:
        return list(store.mutant_log())


def test_expected_answer_strategies_need_one_solver(tmp_path: Path) -> None:
    config = replace(config_for(SHIPPED, "z3", seed=5, per_seed=2), strategies=EXPECTED)
    stats = run_campaign(config, tmp_path / "c", Budget(mutants=40))
    drawn = {name for name, done in stats.strategies.items() if done.positions}
    assert drawn <= set(EXPECTED.split(",")) and len(drawn) >= 3, stats.strategies
    assert sum(done.cases for done in stats.strategies.values()) == stats.mutants == 40
    for name, done in stats.strategies.items():
        assert done.expected == done.cases, name  # every case carries its answer
        assert done.solver_calls > 0, name
    # the same campaign seed gives the same cases
    run_campaign(config, tmp_path / "again", Budget(mutants=40))
    assert _log(tmp_path / "c") == _log(tmp_path / "again")


def test_a_wrong_unsat_on_a_storm_case_is_a_soundness_bug_of_the_one_target(
    tmp_path: Path,
) -> None:
    """The liar (the only target) answers unsat on every case with a model request that
    mentions its marker: STORM's cases are sat by construction, under the trusted z3's
    model, so each such answer is a soundness verdict without a second target."""
    seed = tmp_path / "lie.smt2"
    seed.write_text(
        "(declare-const lie_marker Int)\n(declare-const x Int)\n"
        "(assert (and (> x lie_marker) (< lie_marker 100)))\n(assert (or (= x 3) (> x 7)))\n"
        "(check-sat)\n"
    )
    config = replace(config_for([seed], LIAR_UNSAT, seed=2, per_seed=3), strategies="storm")
    stats = run_campaign(config, tmp_path / "c", Budget())
    assert stats.strategies["storm"].cases == 3
    with Store(tmp_path / "c") as store:
        bugs = store.bugs()
    assert bugs and {(b.kind, b.solver) for b in bugs} == {("soundness", "liar_unsat.py")}
    record = load_record(tmp_path / "c" / bugs[0].folder)
    assert record.strategy == "storm"
    assert record.verdict.expected is not None and record.verdict.expected.answer == "sat"
    assert replay(record.folder).reproduced


def test_fusion_labels_come_from_the_trusted_solver(tmp_path: Path) -> None:
    """The liar would label every marked seed unsat; fusion asks the trusted z3 instead, so
    its sat fusions of marked seeds catch the liar."""
    seeds = []
    for number, (low, high) in enumerate(((0, 9), (5, 20), (-4, 4))):
        path = tmp_path / f"s{number}.smt2"
        path.write_text(
            f"(declare-const lie_marker Int)\n(declare-const y{number} Int)\n"
            f"(assert (< {low} y{number} {high}))\n(assert (> lie_marker y{number}))\n"
            "(check-sat)\n"
        )
        seeds.append(path)
    config = replace(config_for(seeds, LIAR_UNSAT, seed=4, per_seed=2), strategies="fusion")
    stats = run_campaign(config, tmp_path / "c", Budget())
    assert stats.strategies["fusion"].cases >= 2
    assert stats.bugs["soundness"] >= 1
    with Store(tmp_path / "c") as store:
        assert {b.solver for b in store.bugs()} == {"liar_unsat.py"}


def test_a_differential_strategy_in_the_mix_is_judged_by_comparison(tmp_path: Path) -> None:
    config = replace(
        config_for([SEEDS / "plain.smt2", *SHIPPED], "z3;cvc5", seed=9, per_seed=2),
        strategies="sphinx,opfuzz=2,typefuzz,grammar",
        scheduler="bandit",
    )
    stats = run_campaign(config, tmp_path / "c", Budget(mutants=16))
    assert {n for n, d in stats.strategies.items() if d.positions} <= {
        "sphinx",
        "opfuzz",
        "typefuzz",
        "grammar",
    }
    assert all(d.expected == 0 for d in stats.strategies.values())
    run_campaign(config, tmp_path / "again", Budget(mutants=16))
    assert _log(tmp_path / "c") == _log(tmp_path / "again")


def test_the_mix_is_checked_before_the_campaign_starts(tmp_path: Path) -> None:
    for text, wrong in (("nope", "unknown strategy 'nope'"), ("fusion=-1", "0 or more")):
        with pytest.raises(CampaignError, match=wrong) as caught:
            replace(config_for([SEEDS / "plain.smt2"], "z3"), strategies=text).resolve()
        assert caught.value.setting == "strategies"
    assert read_strategies("sphinx,fusion=2").weights == (("sphinx", 1.0), ("fusion", 2.0))
    assert read_weights("fusion=3,opfuzz") == {"fusion": 3.0, "opfuzz": 1.0}
    with pytest.raises(SchedulerError, match="not a number"):
        read_weights("fusion=x")
    with pytest.raises(CampaignError, match="all 0: nothing would be drawn") as zero:
        read_strategies("sphinx=0,fusion=0")
    assert zero.value.setting == "strategies"
    result = CliRunner().invoke(app, ["fuzz", "--strategies", "fusoin", "-c", str(tmp_path / "x")])
    assert result.exit_code == 2
    assert "fusoin" in result.output and "fusion" in result.output


@pytest.mark.parametrize(
    "text", ["sphinx=0,fusion=0", "sphinx=nan,fusion=1", "sphinx=inf", "fusion=1e308,sphinx=1e308"]
)
def test_the_setting_and_the_scheduler_refuse_weights_by_one_rule(text: str) -> None:
    # the campaign checks its `strategies` setting before it starts with the rule the
    # scheduler draws by: the same refusal, word for word, from either
    with pytest.raises(SchedulerError) as setting:
        read_weights(text)
    weights = dict((n, float(w)) for n, _, w in (part.partition("=") for part in text.split(",")))
    with pytest.raises(SchedulerError) as scheduler:
        Scheduler(list(weights), weights)
    assert str(setting.value) == str(scheduler.value)


def test_stats_and_bug_folders_of_a_mix_read_back(tmp_path: Path) -> None:
    config = replace(config_for(SHIPPED, "z3", seed=3, per_seed=2), strategies="strings")
    run_campaign(config, tmp_path / "c", Budget(mutants=6))
    with Store(tmp_path / "c") as store:
        rows = store.db.execute("SELECT data FROM stats").fetchall()
    assert rows and "strings" in json.loads(rows[-1][0])["strategies"]
    html = render_report(tmp_path / "c")
    section = html[html.index('<section id="strategies">') :]
    assert "<td>strings</td>" in section.split("</section>")[0]


def test_janus_reports_unknown_where_the_seed_was_solved(tmp_path: Path) -> None:
    """The stand-in gives up on weakened forms of its seed only: Janus's case is unknown
    where the related seed is sat, an incompleteness stored with the seed as the formula
    that was solved, and replayed as one."""
    seed = tmp_path / "weak.smt2"
    seed.write_text(
        "(declare-const gaveup_marker Int)\n(declare-const x Int)\n"
        "(assert (> x gaveup_marker))\n(assert (< gaveup_marker 100))\n(assert (> x 5))\n"
        "(check-sat)\n"
    )
    standin = str(Path(LIAR_UNSAT).with_name("unknown_when_weakened.py"))
    config = replace(config_for([seed], standin, seed=6, per_seed=4), strategies="janus")
    stats = run_campaign(config, tmp_path / "c", Budget())
    assert stats.strategies["janus"].cases >= 1
    with Store(tmp_path / "c") as store:
        bugs = store.bugs()
    assert bugs and {(b.kind, b.solver) for b in bugs} == {
        ("incompleteness", "unknown_when_weakened.py")
    }
    record = load_record(tmp_path / "c" / bugs[0].folder)
    assert record.strategy == "janus"
    assert record.verdict.related is not None and record.verdict.related.answer == "sat"
    assert "gaveup_marker" in record.verdict.related.text
    assert replay(record.folder).reproduced


OLD_Z3 = pytest.mark.usefixtures("z3_4_8_8")


@OLD_Z3
def test_strings_against_an_old_z3_alone_never_blame_its_older_escapes(tmp_path: Path) -> None:
    """z3 4.8.8 reads `\\u{0}` as the characters `u{0}` (escapes older than SMT-LIB 2.6): a
    string formula with such a literal is another formula to it, so it is not run there and
    counts as a rejection; before that rule this campaign stored such "bugs" (a wrong unsat,
    a model with "u{0}") that no later release shows only because later releases read 2.6."""
    config = replace(
        config_for(SHIPPED[:1], "z3@4.8.8", seed=104, per_seed=2), strategies="strings"
    )
    stats = run_campaign(config, tmp_path / "c", Budget())
    assert sum(stats.bugs.values()) == 0
    misread = [n for cause, n in stats.rejections.items() if "backslash in a string" in cause]
    assert misread and misread[0] >= 1
    assert stats.strategies["strings"].cases > stats.strategies["strings"].accepted


def test_a_mix_without_generated_terms_opens_no_generator_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a generator pool was opened")

    monkeypatch.setattr(worker, "GeneratorPool", refuse)
    config = replace(
        config_for([SEEDS / "plain.smt2", *SHIPPED], "z3;cvc5", seed=3, per_seed=2),
        strategies="opfuzz,typefuzz",
    )
    stats = run_campaign(config, tmp_path / "c", Budget(mutants=6))
    assert stats.mutants == 6 and not stats.theories  # no case has generated terms
    with pytest.raises(AssertionError, match="pool was opened"):  # sphinx draws terms
        run_campaign(replace(config, strategies="sphinx,opfuzz"), tmp_path / "d", Budget(mutants=2))


def test_sphinx_in_the_mix_without_a_loadable_generator_is_a_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "generators" / "Ints"
    folder.mkdir(parents=True)
    (folder / "generator.py").write_text(
        'THEORY = "Ints"\nSOLVERS = ("z3", "cvc5")\n\nraise RuntimeError("broken at load")\n\n\n'
        "def generate(rng):\n    return '', 'true'\n"
    )
    config = replace(
        config_for([SEEDS / "plain.smt2"], "z3;cvc5"),
        generators=str(tmp_path / "generators"),
        strategies="sphinx,opfuzz",
    )
    with pytest.raises(
        CampaignError,
        match="no generator could be loaded from .*Ints: RuntimeError: broken at load",
    ):
        run_campaign(config, tmp_path / "c", Budget(mutants=2))
