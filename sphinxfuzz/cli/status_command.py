"""`sphinxfuzz status`: what a campaign is doing now (its `status.json`), or what it did."""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from sphinxfuzz import api
from sphinxfuzz.campaign import ExitReason
from sphinxfuzz.cli.parameters import CampaignOption, JsonOption, print_json

HELP = (
    "Show a campaign's live status, or what a stopped one did.\n\n"
    "Mutants, rates, accepted and decided shares, bugs by kind, seeds done and left, per "
    "strategy. A running campaign rewrites status.json in its folder within a second of a "
    "change of its figures (every --log-every seconds when they stay); a campaign that no longer runs (finished, stopped, killed) is described from "
    "its store.\n\n"
    "\b\n"
    "Examples:\n"
    "  sphinxfuzz status                       (newest campaign in campaigns/)\n"
    "  sphinxfuzz status -c campaigns/night --json\n"
    "  sphinxfuzz status -c campaigns/night --watch --every 5"
)


def _when(stamp: float | None) -> str:
    return "-" if stamp is None else datetime.fromtimestamp(stamp).strftime("%Y-%m-%d %H:%M:%S")


def status_lines(doc: dict[str, Any]) -> list[str]:
    """The status document as a few plain lines."""
    if doc["running"]:
        head = (f"campaign {doc['campaign']}: running, pid {doc['pid']} on {doc['host']}, "
                f"started {_when(doc['started'])}, {doc['elapsed']:.0f} s")  # fmt: skip
    else:
        last = f"; last status {_when(doc['updated'])}, pid {doc['pid']}" if doc["pid"] else ""
        head = (f"campaign {doc['campaign']}: not running{last}; figures from its store "
                "and last status")  # fmt: skip
        if doc.get("exit_reason"):  # written by runs since it was recorded
            head += f"; fuzzing ended: {ExitReason(doc['exit_reason']).sentence}"
    seeds = doc["seeds"]
    bugs = ", ".join(f"{kind} {n}" for kind, n in doc["bugs"].items())
    lines = [
        head,
        f"mutants {doc['mutants']} ({doc['mutants_per_second']:.2f}/s), solver calls "
        f"{doc['solver_calls']} ({doc['calls_per_second']:.2f}/s), accepted "
        f"{doc['accepted_share']:.1%}, decided {doc['decided_share']:.1%}",
        f"bugs: {bugs}; seed findings {doc['seed_findings']}",
        f"seeds: {seeds['done']} done of {seeds['total']}, {seeds['left']} left in this pass "
        f"(used in full {seeds['used']}, in part {seeds.get('partial', 0)}, set aside "
        f"{seeds['set_aside']}, malformed {seeds['malformed']})",
    ]
    for name, s in doc["strategies"].items():
        lines.append(
            f"strategy {name}: {s['positions']} seeds, {s['cases']} cases "
            f"({s['accepted_share']:.0%} accepted, {s['expected_share']:.0%} expected), "
            f"{s['bugs']} bugs"
        )
    return lines


def status(
    campaign: CampaignOption = None,
    as_json: JsonOption = False,
    watch: Annotated[bool, typer.Option("--watch", help="Show it again every --every seconds until the campaign stops (Ctrl-C leaves).")] = False,
    every: Annotated[float, typer.Option("--every", min=0.5, help="Seconds between two looks with --watch.")] = 2.0,
) -> None:  # fmt: skip
    console = Console(soft_wrap=True)
    root: Path = api.campaign_folder(campaign)
    while True:
        doc = api.status(root)
        if as_json:
            print_json(doc)
        else:
            if watch and console.is_terminal:
                console.clear()
            for line in status_lines(doc):
                console.print(line, highlight=False, markup=False)
        if not watch or not doc["running"]:
            return
        try:
            time.sleep(every)
        except KeyboardInterrupt:
            return


def register(app: typer.Typer) -> None:
    app.command("status", help=HELP)(status)
