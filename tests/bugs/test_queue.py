"""The filing queue: per family in the maintainers' order, only findings alive today,
reduced, valid, not known and one per root cause, at most N per family a week (queue.json
remembers), the rest listed with why. Real solvers on docs/bugs-found.md formulas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sphinxfuzz.bugs.known import bugs_found, recognise
from sphinxfuzz.bugs.newest import newest_specs, reference_candidates
from sphinxfuzz.bugs.queue import (
    CRASH_REGULAR,
    INVALID_MODEL,
    WEEK,
    filing_queue,
    gate,
)
from sphinxfuzz.bugs.record import Reduction, SolverSummary, load_record, write_reduction
from sphinxfuzz.bugs.reduce import formula_size
from sphinxfuzz.bugs.refresh import refresh_bug
from sphinxfuzz.bugs.replay import check_spec
from sphinxfuzz.cli import app
from sphinxfuzz.oracle.same_bug import accepts, check
from sphinxfuzz.solvers import Family, parse_specs
from sphinxfuzz.solvers.options.standing import Standing
from tests.bugs.test_known import MATCH_AFTER_RESET, store_seed_finding


def kept_whole(root: Path, folder: Path, standing: Standing) -> None:
    """A reduction that kept the trigger whole (ddSMT found nothing smaller), checked as
    `reduce` checks its result: still the bug, and read by the other family's newest release."""
    record = load_record(folder)
    spec = check_spec(root, record)
    text = record.formula()
    found, results = check(spec, text)
    assert found is not None
    family = Family.read(record.summary_of(record.verdict.solver).family)  # type: ignore[union-attr]
    reader = reference_candidates(family, newest_specs(""))[0]
    accepted, detail = accepts(parse_specs(reader)[0], text, timeout=10)
    size = formula_size(text)
    write_reduction(folder, text, Reduction(
        folder.name, "kept whole", 0.0, True, None, size, size, record.formula_name,
        spec.to_json(), [SolverSummary.of(r) for r in results], found,
        {"solver": reader, "version": "", "accepted": accepted, "detail": detail}, [], standing,
    ))  # fmt: skip


def entry_formula(number: int) -> str:
    data = json.loads((Path(__file__).parents[2] / "docs" / "bugs-found.json").read_text())
    return "\n".join(data[number - 1]["formula"]) + "\n"


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory, z3_4_12_2: None) -> Path:
    """Three real findings, stored in this order: a z3 4.12.2 crash under model_validate=true
    that no entry knows, z3 5.4.1's invalid model (entry 11) and its known segfault (entry
    6); each refreshed on the newest release, recognised, and kept whole as reduced."""
    base = tmp_path_factory.mktemp("queue")
    root = base / "c"
    cases = [
        ("old-crash.smt2", MATCH_AFTER_RESET, "z3@4.12.2 model_validate=true", Standing.REGULAR),
        ("bad-model.smt2", entry_formula(11), "z3 model_validate=true", Standing.REGULAR),
        ("known-crash.smt2", MATCH_AFTER_RESET, "z3", Standing.DEFAULT),
    ]
    for name, text, solvers, standing in cases:
        seed = base / name
        seed.write_text(text)
        folder = store_seed_finding(root, seed, solvers)
        refresh_bug(root, folder, newest_specs(""))  # as a campaign does once it stores one
        recognise(folder)
        kept_whole(root, folder, standing)
    return root


def test_the_queue_keeps_the_maintainers_order_and_the_weekly_cap(campaign: Path) -> None:
    now = 1_800_000_000.0
    first = filing_queue(campaign, per_week=1, now=lambda: now)
    # found second, filed first: a bad model ranks above a crash
    assert [(e.family, e.category) for e in first.queued] == [("z3", INVALID_MODEL)]
    (waiting,) = first.waiting
    assert waiting.category == CRASH_REGULAR and "next slot" in waiting.reason
    (held,) = first.held
    assert held.reason.startswith("likely known: bugs-found 6") and bugs_found()[5].family == "z3"
    assert all(e.issue is not None and e.issue.title for e in first.queued)
    again = filing_queue(campaign, per_week=1, now=lambda: now + 60)  # the same week
    assert [(e.id, e.queued_at) for e in again.queued] == [(e.id, now) for e in first.queued]
    later = filing_queue(campaign, per_week=1, now=lambda: now + WEEK + 60)
    assert [e.category for e in later.queued] == [CRASH_REGULAR] and not later.waiting
    # filed in earlier weeks: no longer this week's
    assert filing_queue(campaign, per_week=1, now=lambda: now + 3 * WEEK).queued == []


def test_an_expert_finding_is_held_unless_asked_for(campaign: Path) -> None:
    record = load_record(next((campaign / "seed-findings").glob("bad-model-*")))
    assert gate(record, Standing.REGULAR, expert=False) == ""
    assert "expert option" in gate(record, Standing.EXPERT, expert=False)
    assert gate(record, Standing.EXPERT, expert=True) == ""
    assert "standing" in gate(record, None, expert=True)


def test_bugs_queue_prints_and_writes_json(campaign: Path, tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "c"
    shutil.copytree(campaign, root)
    (root / "queue.json").unlink(missing_ok=True)
    shown = CliRunner().invoke(app, ["bugs", "queue", "-c", str(root)])
    assert shown.exit_code == 0, shown.output
    assert "invalid model" in shown.output and "likely known: bugs-found 6" in shown.output
    as_json = CliRunner().invoke(app, ["bugs", "queue", "-c", str(root), "--json"])
    data = json.loads(as_json.output)
    assert data["schema"] == "sphinxfuzz/queue/1" and [e["category"] for e in data["queued"]] == [
        INVALID_MODEL, CRASH_REGULAR,
    ]  # fmt: skip
    assert json.loads((root / "queue.json").read_text())["schema"] == "sphinxfuzz/queue-log/1"


def test_the_report_opens_with_the_queue_then_the_bugs_then_the_plots(campaign: Path) -> None:
    from sphinxfuzz.bugs.report import render_report

    def files() -> list[str]:  # SQLite's own -shm and -wal aside
        return sorted(p.name for p in campaign.rglob("*") if "sqlite" not in p.name)

    before = files()
    page = render_report(campaign)
    assert files() == before  # the report writes nothing: no queue.json, no known.json
    order = [page.index(f'<section id="{name}">') for name in ("queue", "bugs", "throughput")]
    assert order == sorted(order)
    queue = page[order[0] : order[1]]
    assert "invalid model" in queue and "likely known: bugs-found 6" in queue
    assert "overflow-wrap: anywhere" in page  # long signatures wrap inside their column
