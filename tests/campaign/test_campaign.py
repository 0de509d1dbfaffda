"""Campaigns end to end on real solvers: crashes, seed findings, malformed seeds,
determinism, and a SIGKILLed campaign that keeps its bugs and resumes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from campaign_helpers import CRASHER, FIXTURES, GENERATORS, LIAR_UNSAT, SEEDS, config_for

from sphinxfuzz.bugs import Store
from sphinxfuzz.campaign import Budget, CampaignError, run_campaign
from sphinxfuzz.campaign.budget import KNOWN_IN_A_ROW
from sphinxfuzz.campaign.config import SeedCheck
from sphinxfuzz.campaign.seedcheck import _checked
from sphinxfuzz.solvers import Outcome, SolverResult, parse_specs


def test_crash_is_stored_once_per_signature(crash_campaign: tuple[Path, list[str]]) -> None:
    root, _messages = crash_campaign
    with Store(root) as store:
        bugs = store.bugs()
        signatures = store.signature_counts()
        stats = store.total_stats()
    crashes = [b for b in bugs if b.kind == "crash"]
    # every mutant of crash.smt2 crashes the stand-in, with noise (build directory, address)
    # that varies each time, at an assertion that depends on the formula: one bug per
    # assertion, every hit counted under its signature
    assert len({b.signature for b in crashes}) == len(crashes) >= 1, bugs
    assert sum(b.count for b in crashes) == 3 and stats.duplicates == 3 - len(crashes)
    for bug in crashes:
        text = (bug.folder / "mutant.smt2").read_text()
        site = (
            "theory_lra.cpp:1234"
            if "(ite " in text
            else ("arith_rewriter.cpp:77" if "(* " in text else "smt_context.cpp:4021")
        )
        assert bug.signature.startswith(f"other: ASSERTION VIOLATION {site} "), bug.signature
        assert "<addr>" in bug.signature and "build" not in bug.signature
        assert [count for sig, _k, _s, count in signatures if sig == bug.signature] == [bug.count]
    bug = crashes[0]
    assert bug.solver == "crash_on_marker.py"
    folder = bug.folder
    assert {"mutant.smt2", "verdict.json", "z3.stdout", "crash_on_marker.py.stderr"} <= {
        p.name for p in folder.iterdir()
    }
    assert "crash_marker" in (folder / "mutant.smt2").read_text()


def test_a_seed_whose_mutants_crash_only_as_stored_is_left_early(tmp_path: Path) -> None:
    """Every mutant of crash.smt2 crashes the stand-in at one of three sites: once its cases
    find only stored crashes KNOWN_IN_A_ROW times in a row, the seed is left."""
    config = config_for([SEEDS / "crash.smt2"], f"z3;{CRASHER}", per_seed=30)
    stats = run_campaign(config, tmp_path / "c", Budget())
    with Store(tmp_path / "c") as store:
        crashes = [b for b in store.bugs() if b.kind == "crash"]
    assert 1 <= len(crashes) <= 3 and stats.seeds_left_early == 1
    assert stats.mutants < 30 and stats.duplicates >= KNOWN_IN_A_ROW
    assert sum(b.count for b in crashes) == stats.mutants  # every one crashed


def test_seed_findings_and_malformed_seeds_do_not_stop_the_campaign(
    crash_campaign: tuple[Path, list[str]],
) -> None:
    root, messages = crash_campaign
    with Store(root) as store:
        findings = store.seed_findings()
        stats = store.total_stats()
        logged = store.mutant_log()
    malformed = [m for m in messages if m.startswith("skipping seed: ")]
    assert len(malformed) == 1
    assert f"{SEEDS / 'bad.smt2'}:3:1:" in malformed[0]  # file:line:col of the open '('
    assert stats.seeds_malformed == 1
    # finding.smt2 crashes the stand-in unmutated: kept apart, never mutated
    assert [(Path(f[1]).name, f[2]) for f in findings] == [("finding.smt2", "crash")]
    assert stats.seed_findings == 1
    assert stats.seeds_used == 2 and stats.mutants == 6 and len(logged) == 6
    assert stats.solver_calls >= 2 * stats.mutants
    assert sum(stats.theories.values()) >= stats.mutants


def test_fixed_seed_gives_identical_mutant_sequences(tmp_path: Path) -> None:
    config = config_for([SEEDS / "plain.smt2", SEEDS / "crash.smt2"], "z3", seed=42, per_seed=4)
    logs = []
    for name in ("one", "two"):
        run_campaign(config, tmp_path / name, Budget(mutants=6))
        with Store(tmp_path / name) as store:
            logs.append(store.mutant_log())
    assert len(logs[0]) == 6
    assert logs[0] == logs[1]
    other = config_for([SEEDS / "plain.smt2", SEEDS / "crash.smt2"], "z3", seed=43, per_seed=4)
    run_campaign(other, tmp_path / "three", Budget(mutants=6))
    with Store(tmp_path / "three") as store:
        assert store.mutant_log() != logs[0]


def test_seeds_are_counted_once_over_several_rounds(tmp_path: Path) -> None:
    # two seeds, two mutants each a round: 10 mutants take five rounds over the same seeds
    config = config_for([SEEDS / "plain.smt2", SEEDS / "crash.smt2"], "z3", seed=5, per_seed=2)
    stats = run_campaign(replace(config, fast_seed_factor=1), tmp_path / "c", Budget(mutants=10))
    assert stats.mutants == 10
    assert stats.seeds_used + stats.seeds_partial + stats.seeds_set_aside == 2


def test_soundness_bug_found_by_fuzzing(tmp_path: Path) -> None:
    seed = tmp_path / "lie.smt2"
    seed.write_text(
        "(declare-const lie_marker Int)\n(declare-const x Int)\n"
        "(assert (> x lie_marker))\n(assert (< lie_marker 100))\n(check-sat)\n"
    )
    config = config_for([seed], f"z3;{LIAR_UNSAT}", seed=3, per_seed=4)
    stats = run_campaign(config, tmp_path / "c", Budget())
    with Store(tmp_path / "c") as store:
        bugs = store.bugs()
    # the liar answers unsat on every mutant: those z3 finds sat (with a model that holds)
    # are soundness bugs of the liar, and nothing is ever blamed on z3
    assert bugs, "no mutant of a satisfiable seed stayed satisfiable"
    assert {(b.kind, b.solver) for b in bugs} == {("soundness", "liar_unsat.py")}
    assert stats.bugs["soundness"] == len(bugs)
    assert all((b.folder / "check.smt2").is_file() for b in bugs)


def test_missing_generators_fail_with_advice(tmp_path: Path) -> None:
    empty = tmp_path / "gens"
    empty.mkdir()
    config = config_for([SEEDS / "plain.smt2"], "z3;cvc5")
    config = type(config)(**{**config.__dict__, "generators": str(empty)})
    with pytest.raises(CampaignError, match="no generator .* supports every target solver"):
        run_campaign(config, tmp_path / "c", Budget(mutants=1))


def test_killed_campaign_keeps_bugs_and_resumes(tmp_path: Path) -> None:
    root = tmp_path / "killed"
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    crash = (SEEDS / "crash.smt2").read_text()
    for index in range(6):  # several crashing seeds: plenty of work to interrupt
        (seeds / f"crash{index}.smt2").write_text(crash)
    args = ["--seeds", str(seeds), "--solvers", f"z3;{CRASHER}", "--generators", str(GENERATORS),
            "--seed", "5", "--mutants-per-seed", "4", "--fast-seed-factor", "1", "--timeout", "5",
            "--no-reduce"]  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-c", "from sphinxfuzz.cli import main; main()", "fuzz", "--out", str(root), *args],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            bug_dirs = list((root / "bugs").glob("*")) if (root / "bugs").exists() else []
            if any((d / "verdict.json").exists() for d in bug_dirs) and _done(root) >= 1:
                break
            time.sleep(0.2)
        else:
            pytest.fail("the campaign stored no bug within 60 s")
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    with Store(root) as store:
        before = {b.id for b in store.bugs()}
        done_before = store.done_positions()
    assert before and len(done_before) < 6
    resumed = subprocess.run(
        [sys.executable, "-c", "from sphinxfuzz.cli import main; main()", "fuzz", "--out", str(root),
         "--resume"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr + resumed.stdout
    with Store(root) as store:
        after = store.bugs()
        assert store.done_positions() == set(range(6))
        tested = len(store.mutant_log())
    # 4 mutants a seed, fewer for a seed whose mutants found only stored crashes three times
    # in a row (`budget.KNOWN_IN_A_ROW`)
    assert 6 * KNOWN_IN_A_ROW <= tested <= 24
    assert before <= {b.id for b in after}
    crash_rows = [b for b in after if b.kind == "crash"]
    # one bug per assertion the stand-in fails (three of them here), every hit counted once
    assert 1 <= len(crash_rows) <= 3 and sum(b.count for b in crash_rows) == tested
    assert len({b.signature for b in crash_rows}) == len(crash_rows)


def test_ctrl_c_stops_gracefully(tmp_path: Path) -> None:
    root = tmp_path / "interrupted"
    process = subprocess.Popen(
        [sys.executable, "-c", "from sphinxfuzz.cli import main; main()", "fuzz", "--out", str(root),
         "--seeds", str(SEEDS / "plain.smt2"), "--solvers", "z3", "--generators", str(GENERATORS),
         "--seed", "4", "--time", "5m", "--timeout", "5"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while _done(root) < 1 and time.monotonic() < deadline:
            time.sleep(0.2)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stderr
    assert "campaign summary" in stdout
    with Store(root) as store:
        stats = store.total_stats()  # flushed on the way out
    assert stats.mutants >= 10
    assert json.loads((root / "status.json").read_text())["exit_reason"] == "stopped"
    assert "fuzzing ended" in stdout and "stopped on request" in stdout


def _done(root: Path) -> int:
    try:
        with Store(root) as store:
            return len(store.done_positions())
    except Exception:  # the database may not exist yet
        return 0


def test_resume_refuses_a_different_config(tmp_path: Path) -> None:
    config = config_for([SEEDS / "plain.smt2"], "z3", per_seed=1)
    run_campaign(config, tmp_path / "c", Budget(mutants=1))
    changed = config_for([SEEDS / "plain.smt2"], "z3", per_seed=2)
    with pytest.raises(CampaignError, match="mutants_per_seed"):
        run_campaign(changed, tmp_path / "c", Budget(mutants=1), resume=True)
    with pytest.raises(CampaignError, match="already holds a campaign"):
        run_campaign(config, tmp_path / "c", Budget(mutants=1))


def test_two_jobs_share_the_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))  # where the spawned workers put solver scripts
    config = config_for([SEEDS / "plain.smt2", SEEDS / "crash.smt2"], f"z3;{CRASHER}", per_seed=2)
    stats = run_campaign(config, tmp_path / "c", Budget(), jobs=2)
    assert list(scratch.glob("sphinxfuzz-run-*")) == []  # workers remove their scratch folders
    assert stats.exit_reason == "seeds"  # each spawned worker made its one pass
    with Store(tmp_path / "c") as store:
        assert store.done_positions() == {0, 1}
        assert len(store.mutant_log()) == 4
        assert [b.kind for b in store.bugs()] == ["crash"]
    assert stats.mutants == 4
    assert FIXTURES.is_dir()


def test_a_seed_whose_mutants_time_out_is_left_early(tmp_path: Path) -> None:
    slow = str(FIXTURES / "slow_on_model.py")
    config = config_for([SEEDS / "plain.smt2"], f"z3;{slow}", per_seed=10, timeout=1.0)
    stats = run_campaign(config, tmp_path / "c", Budget())
    # max_mutant_timeouts (1) mutant timed out, the other 9 were never made
    assert stats.mutants == 1 and stats.timeouts == 1 and stats.seeds_left_early == 1
    assert stats.undecided == 1 and stats.undecided_share == 1.0


def test_a_seed_with_fast_mutants_gets_more_of_them(tmp_path: Path) -> None:
    # z3 answers plain.smt2's mutants in milliseconds: the seed earns fast_seed_factor times
    # its share; a solver that takes longer than FAST_MUTANT_SECONDS keeps it to the base
    fast = config_for([SEEDS / "plain.smt2"], "z3", per_seed=4, fast_factor=3)
    assert run_campaign(fast, tmp_path / "fast", Budget()).mutants == 12
    slow = str(FIXTURES / "slow_on_model.py")
    sluggish = config_for(
        [SEEDS / "plain.smt2"], f"z3;{slow} --delay 0.3", per_seed=4, fast_factor=3
    )
    assert run_campaign(sluggish, tmp_path / "slow", Budget()).mutants == 4


def test_mutant_limits_are_calibrated_on_the_seed(tmp_path: Path) -> None:
    # the seed answers in milliseconds, its mutants take 4 s on the stand-in: calibrated,
    # they get a limit near MIN_MUTANT_TIMEOUT and time out; uncalibrated, the 8 s limit lets them finish
    slow = f"z3;{FIXTURES / 'slow_on_model.py'} --delay 4"
    # (factor 5: the stand-in's own start-up under load must not lift the limit past 4 s)
    calibrated = config_for([SEEDS / "plain.smt2"], slow, per_seed=1, timeout=8.0, timeout_factor=5)
    stats = run_campaign(calibrated, tmp_path / "calibrated", Budget())
    assert stats.mutants == 1 and stats.timeouts == 1
    fixed = config_for([SEEDS / "plain.smt2"], slow, per_seed=1, timeout=8.0, timeout_factor=0)
    stats = run_campaign(fixed, tmp_path / "fixed", Budget())
    assert stats.mutants == 1 and stats.timeouts == 0


def test_a_seed_checks_time_leaves_out_a_process_start() -> None:
    # a persistent process started for the check (the shim's start takes a second under
    # load) is no part of the seed's time: its mutants' limits start after a start too
    z3, cvc5 = parse_specs("z3;cvc5")
    started = SolverResult(cvc5, Outcome.SAT, elapsed=1.2, starting=1.15)
    warm = SolverResult(z3, Outcome.SAT, elapsed=0.03)
    assert SeedCheck.from_detail(_checked([started, warm])).slowest == 0.05


def test_seed_checks_are_stored_structured_and_old_sentences_still_read() -> None:
    check = SeedCheck(0.12345, trimmed=True)
    assert SeedCheck.from_detail(check.to_detail()) == SeedCheck(0.123, trimmed=True)
    upgraded = SeedCheck(0.5, upgraded=True)
    assert SeedCheck.from_detail(upgraded.to_detail()) == upgraded
    assert "upgraded" not in check.to_detail()  # what stores before the upgrade held
    declared = SeedCheck(0.5, upgraded=True, declared=True)
    assert SeedCheck.from_detail(declared.to_detail()) == declared
    assert "declared" not in upgraded.to_detail()
    # what stores written before SeedCheck hold
    assert SeedCheck.from_detail("slowest solver 0.250 s") == SeedCheck(0.25)
    assert SeedCheck.from_detail("slowest solver 1.500 s; trimmed") == SeedCheck(1.5, True)
    assert SeedCheck.from_detail("") == SeedCheck(None)


_ONE_TERM_GENERATOR = '''"""Test generator: one shape of term, {what}."""

import random

THEORY = "{theory}"
SOLVERS = ("z3", "cvc5")


def generate(rng: random.Random) -> tuple[str, str]:
    return "(declare-const v0 {sort})", f"({op} v0 {{rng.randint(0, 9)}})"
'''


def _rejected_theory_campaign(
    tmp_path: Path, name: str, adapt: bool
) -> tuple[dict[str, int], list[str]]:
    generators = tmp_path / f"generators-{name}"
    for theory, sort, op, what in (
        ("Strings", "String", "str.<", "ill-sorted (a string against a number)"),
        ("Ints", "Int", "<", "an easy comparison"),
    ):
        (generators / theory).mkdir(parents=True)
        text = _ONE_TERM_GENERATOR.format(what=what, theory=theory, sort=sort, op=op)
        (generators / theory / "generator.py").write_text(text)
    config = replace(
        config_for([SEEDS / "plain.smt2"], "z3", per_seed=60),
        generators=str(generators), adapt_theories=adapt,
    )  # fmt: skip
    messages: list[str] = []
    stats = run_campaign(config, tmp_path / name, Budget(), on_message=messages.append)
    assert stats.mutants == 60
    return dict(stats.theories), messages


def test_a_theory_the_solvers_reject_is_left_out(tmp_path: Path) -> None:
    # z3 rejects every Strings term of this generator: drawn evenly, about half the mutants
    # carry one and test only z3's parser; after the probe, none does, and the run says why
    even, _ = _rejected_theory_campaign(tmp_path, "even", adapt=False)
    adapted, messages = _rejected_theory_campaign(tmp_path, "adapted", adapt=True)
    assert even["Strings"] >= 20, even
    assert "Strings" not in adapted and adapted["Ints"] == 60, adapted
    (said,) = [m for m in messages if m.startswith("theory probe:")]
    assert said.startswith("theory probe: Strings left out (z3, term seed ") and "Ints" not in said
