"""`sphinxfuzz report`: one self-contained HTML page, read back with the stdlib HTML parser."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from typer.testing import CliRunner

from sphinxfuzz.bugs import Store
from sphinxfuzz.bugs.store import BugRow
from sphinxfuzz.bugs.triage import campaign_groups
from sphinxfuzz.cli import app

SECTIONS = {"summary", "throughput", "bugs-over-time", "theories", "bugs", "seed-findings"}


@dataclass
class Page(HTMLParser):
    """Sections, plots (with their points and bars), text areas and every external reference."""

    sections: list[str] = field(default_factory=list)
    plots: list[dict[str, int | str]] = field(default_factory=list)
    textareas: list[str] = field(default_factory=list)
    pres: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    _capture: list[str] | None = None

    def __post_init__(self) -> None:
        super().__init__()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "section" and values.get("id"):
            self.sections.append(str(values["id"]))
        if tag == "svg":
            self.plots.append({"title": str(values.get("aria-label")), "points": 0, "bars": 0})
        if tag == "circle" and values.get("class") == "point":
            self.plots[-1]["points"] += 1  # type: ignore[operator]
        if tag == "rect" and values.get("class") == "bar":
            self.plots[-1]["bars"] += 1  # type: ignore[operator]
        if tag in ("script", "link", "img", "iframe", "object"):
            self.external.append(tag)
        for name in ("src", "href"):
            if values.get(name) and not str(values[name]).startswith("#"):
                self.external.append(str(values[name]))
        if tag in ("textarea", "pre"):
            self._capture = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("textarea", "pre") and self._capture is not None:
            (self.textareas if tag == "textarea" else self.pres).append("".join(self._capture))
            self._capture = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._capture is not None:
            self._capture.append(data)


def read_page(path: Path) -> tuple[Page, str]:
    raw = path.read_text(encoding="utf-8")
    page = Page()
    page.feed(raw)
    page.close()
    return page, raw


def check_structure(page: Page, raw: str, root: Path) -> None:
    assert SECTIONS <= set(page.sections), page.sections
    assert not page.external, page.external  # nothing fetched: no scripts, links, images
    titles = {str(p["title"]): p for p in page.plots}
    assert {"Throughput", "Mutants tested", "Bugs over time", "Mutants per theory"} <= set(titles)
    for name in ("Throughput", "Mutants tested", "Bugs over time"):
        assert int(titles[name]["points"]) >= 1, titles[name]
    with Store(root) as store:
        bugs = store.bugs()
        stats = store.total_stats()
        findings = store.seed_findings()
    assert titles["Mutants per theory"]["bars"] == len(stats.theories)
    text = " ".join(page.text)
    for bug in bugs:
        assert bug.id in text
    for finding in findings:
        assert finding[0] in text
    groups = campaign_groups(root)
    blamed_findings = [f for f in findings if f[3] is not None]
    # one issue text per distinct bug, and per seed finding that blames a solver
    assert len(page.textareas) == len(groups) + len(blamed_findings)
    # each group's formula arrives intact after unescaping, and never as raw markup
    for group in groups:
        formula = (group.representative.folder / "mutant.smt2").read_text()
        assert formula in page.pres
        if "(<" in formula:
            assert "(&lt;" in raw
    assert "(<" not in raw
    assert raw.count("<svg") == len(page.plots)


def _copy_with_crash(campaign: Path, tmp_path: Path) -> tuple[Path, BugRow]:
    """A copy of the crash campaign (tests change it) and its first crash bug."""
    root = tmp_path / "c"
    shutil.copytree(campaign, root)
    with Store(root) as store:
        return root, next(b for b in store.bugs() if b.kind == "crash")


def test_report_of_a_crash_campaign_with_a_bisection(
    crash_campaign: tuple[Path, list[str]], tmp_path: Path
) -> None:
    root, crash = _copy_with_crash(crash_campaign[0], tmp_path)
    # what `sphinxfuzz bisect` leaves beside a bug (written by that command, read here)
    (crash.folder / "bisect.json").write_text(json.dumps({
        "solver": "z3", "first_bad": "4.12.2", "last_bad": "4.13.0", "first_good_after": "4.13.4",
        "versions": [{"version": v, "status": s, "detail": ""} for v, s in
                     (("4.12.1", "clean"), ("4.12.2", "bug"), ("4.13.0", "bug"), ("4.13.4", "clean"))],
    }))  # fmt: skip
    result = CliRunner().invoke(app, ["report", "-c", str(root)])
    assert result.exit_code == 0, result.output
    page, raw = read_page(root / "report.html")
    check_structure(page, raw, root)
    text = " ".join(page.text)
    lifespan = ("The bug shows in z3 4.12.2 to 4.13.0; 4.13.4 is the first release after that "
                "without it. Releases tried (4): 4.12.1 clean, 4.12.2 bug, 4.13.0 bug, 4.13.4 clean.")  # fmt: skip
    assert lifespan in text
    # one issue text per group (alive ones first): the bisected bug's group says its lifespan
    (issue,) = [t for t in page.textareas if lifespan in t]
    assert "Expected:" in issue and "Actual:" in issue
    # the title names the assertion's file, line and condition (crash_on_marker.py's sites)
    assert re.search(r"crash: ASSERTION VIOLATION \w+\.cpp:\d+ [\w!(]", issue), issue
    assert "crash_on_marker.py bug.smt2" in issue  # the exact command line, on the file shown
    assert "(declare-const crash_marker Int)" in issue  # the formula itself
    assert "finding.smt2" in text  # the seed finding's seed


def test_report_of_a_soundness_campaign_counts_acceptance_per_theory(
    lie_campaign: Path, tmp_path: Path
) -> None:
    out = tmp_path / "lie.html"
    result = CliRunner().invoke(app, ["report", str(lie_campaign), "--out", str(out)])
    assert result.exit_code == 0, result.output
    page, raw = read_page(out)
    check_structure(page, raw, lie_campaign)
    with Store(lie_campaign) as store:
        stats = store.total_stats()
    assert stats.theories_accepted and set(stats.theories_accepted) <= set(stats.theories)
    assert all(stats.theories_accepted[t] <= n for t, n in stats.theories.items())
    text = " ".join(page.text)
    assert "not recorded" not in text
    for theory, count in stats.theories.items():
        share = f"{stats.theories_accepted[theory] / count:.1%}"
        assert f"{theory} {count} {stats.theories_accepted[theory]} {share}" in " ".join(
            text.split()
        )
    issue = page.textareas[0]
    assert "unsat on a satisfiable formula" in issue and "Model given by z3" in issue
    assert "liar_unsat.py bug.smt2" in issue and "Expected: sat" in issue
    assert "(< " in issue  # the seed's `<` survives escaping in the issue text


def test_report_needs_a_campaign(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["report", str(tmp_path)])
    assert result.exit_code == 2 and "not a campaign folder" in result.output


def test_issue_texts_name_what_a_maintainer_can_run() -> None:
    from sphinxfuzz.bugs.issue_text import bisect_summary, describe, plain_command, solver_words
    from sphinxfuzz.bugs.record import Bisection

    assert plain_command("z3@4.8.8 model_validate=true", "z3") == "z3 model_validate=true"
    assert plain_command("/opt/z3-4.8.10/bin/z3 -smt2", "z3") == "z3 -smt2"
    assert plain_command("cvc5 --check-models", "cvc5") == "cvc5 --check-models"
    assert (solver_words("z3@4.8.8", "z3"), solver_words("cvc5", "cvc5")) == ("z3", "cvc5")
    assert describe("disagreement", None) == "disagreement between the solvers"
    once_json = {
        "solver": "z3",
        "first_bad": "4.8.5",
        "last_bad": "4.8.5",
        "first_good_after": "4.8.6",
        "versions": [
            {"version": "4.8.5", "status": "bug"},
            {"version": "4.8.6", "status": "clean"},
        ],
    }
    once = Bisection.from_json(once_json)
    assert bisect_summary(once).startswith(
        "Of the z3 releases tried, only 4.8.5 shows the bug; 4.8.6 is the first release after"
    )
    still = Bisection.from_json({**once_json, "versions": once_json["versions"][:1]})
    assert "the newest release tried (4.8.5) still has it" in bisect_summary(still)


def test_the_issue_text_of_an_old_release_names_the_plain_command(
    crash_campaign: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """A bug stored from z3@4.8.8: the title and the command say z3, the version in words."""
    root, crash = _copy_with_crash(crash_campaign[0], tmp_path)
    meta = json.loads((crash.folder / "verdict.json").read_text())
    for solver in meta["solvers"]:  # as if the campaign had run an installed release
        if solver["name"] == crash.solver:
            solver.update(name="z3@4.8.8", spec="z3@4.8.8 model_validate=true", family="z3",
                          version="4.8.8")  # fmt: skip
    meta["verdict"]["solver"] = "z3@4.8.8"
    (crash.folder / "verdict.json").write_text(json.dumps(meta))
    from sphinxfuzz.bugs.issue_text import issue_text, load_facts

    text = issue_text(load_facts(crash.folder))
    assert text.startswith("Title: z3 4.8.8: crash") and "z3 model_validate=true bug.smt2" in text
    assert "@" not in text.split("```smt2")[0] + text.split("```sh")[1]
