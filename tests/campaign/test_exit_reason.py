"""Why a campaign's fuzzing ended (`campaign.exit_reason.ExitReason`): in this run's
`Stats`, in `status.json` while the folder is read after the run, and for several workers
the most telling of theirs."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from campaign_helpers import SEEDS, config_for

from sphinxfuzz.bugs.stats import Stats
from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.campaign.exit_reason import ExitReason
from sphinxfuzz.campaign.status_file import StatusWriter, read_status

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "sphinxfuzz" / "schemas" / "status.schema.json").read_text())


def _written(root: Path) -> dict[str, object]:
    document: dict[str, object] = json.loads((root / "status.json").read_text())
    jsonschema.validate(document, SCHEMA)
    return document


def test_a_mutant_budget_ends_as_mutants_in_the_stats_the_status_and_the_stored_row(
    tmp_path: Path,
) -> None:
    root = tmp_path / "c"
    config = config_for([SEEDS / "plain.smt2"], "z3", per_seed=50)
    stats = run_campaign(config, root, Budget(mutants=3))
    assert stats.mutants == 3 and stats.exit_reason == ExitReason.MUTANTS == "mutants"
    assert _written(root)["exit_reason"] == "mutants"
    assert read_status(root)["exit_reason"] == "mutants"  # not running: read as it ended


def test_no_budget_ends_after_one_pass_as_seeds_exhausted(tmp_path: Path) -> None:
    root = tmp_path / "c"
    stats = run_campaign(config_for([SEEDS / "plain.smt2"], "z3", per_seed=2), root, Budget())
    assert stats.mutants == 2 and stats.exit_reason == "seeds"
    assert _written(root)["exit_reason"] == "seeds"


def test_a_time_budget_ends_as_time(tmp_path: Path) -> None:
    # one seed of many mutants, gone round again until the clock runs out
    config = config_for([SEEDS / "plain.smt2"], "z3", per_seed=1000)
    stats = run_campaign(config, tmp_path / "c", Budget(seconds=2.0))
    assert stats.mutants > 0 and stats.exit_reason == "time"


def test_the_campaigns_reason_is_the_most_telling_of_its_workers() -> None:
    assert ExitReason.of_workers(["seeds", "mutants"]) is ExitReason.MUTANTS
    assert ExitReason.of_workers(["mutants", "time", "seeds"]) is ExitReason.TIME
    assert ExitReason.of_workers(["time", "stopped"]) is ExitReason.STOPPED
    # a worker that never said why ended on an error
    assert ExitReason.of_workers(["seeds", ""]) is ExitReason.FAILED
    assert ExitReason.of_workers([]) is ExitReason.FAILED
    # the reason travels with the counters (a spawned worker's, a Ray actor's) and is no sum
    worker = Stats(mutants=2, exit_reason="seeds")
    assert Stats.from_json(worker.to_json()).exit_reason == "seeds"
    total = Stats()
    total.add(worker)
    assert total.mutants == 2 and total.exit_reason == ""


def test_a_run_that_ends_on_an_error_says_failed(tmp_path: Path) -> None:
    writer = StatusWriter(tmp_path, Stats, every=0, seed_count=1, jobs=1, budget=(None, 5))
    with pytest.raises(OSError), writer:
        raise OSError("disk full")
    assert _written(tmp_path)["exit_reason"] == "failed"
    ended = StatusWriter(tmp_path, Stats, every=0, seed_count=1, jobs=1, budget=(None, 5))
    with ended:
        assert "exit_reason" not in _written(tmp_path)  # running: not ended yet
        ended.ended(ExitReason.SEEDS)
    assert _written(tmp_path)["exit_reason"] == "seeds"
