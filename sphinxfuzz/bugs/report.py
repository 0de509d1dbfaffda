"""The campaign report: one self-contained HTML page (inline CSS and SVG, no scripts, no
fonts or files fetched), readable offline and attachable to an issue or an e-mail.

Sections: the filing queue (what to file first, `bugs.queue`), distinct bugs (the triage
groups) with each group's formula, bisection and a ready-to-paste issue text, the seed
findings; then the campaign: summary, throughput over time, bugs over time, validity by
theory, strategies, the stored bugs per solver option (a campaign with options). Tables wrap
their cells (`overflow-wrap: anywhere`) so that no column runs off a 1,400-pixel screen.
Every text from the store is escaped: formulas are full of < > &.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from pathlib import Path

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.issue_text import BugFacts, bisect_summary, issue_text, load_facts
from sphinxfuzz.bugs.listing import alive_first
from sphinxfuzz.bugs.option_use import count_options, sets_options, solver_texts
from sphinxfuzz.bugs.queue import Entry, filing_queue
from sphinxfuzz.bugs.record import Bisection, is_bug_folder
from sphinxfuzz.bugs.stats import Stats
from sphinxfuzz.bugs.store import Store, StoreError
from sphinxfuzz.bugs.svg import bar_chart, line_plot
from sphinxfuzz.bugs.triage import BugGroup, group_bugs
from sphinxfuzz.fileio import write_atomic
from sphinxfuzz.oracle import VerdictKind
from sphinxfuzz.solvers import SolverSpecError, parse_specs, solver_version

_CSS = """
body { font-family: sans-serif; margin: 24px auto; max-width: 1150px; padding: 0 12px; color: #222; }
h1 { margin-bottom: 4px; } h2 { border-bottom: 2px solid #ccc; padding-bottom: 4px; margin-top: 32px; }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; max-width: 100%; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top;
  overflow-wrap: anywhere; }
td code { white-space: pre-wrap; overflow-wrap: anywhere; }
th { background: #f0f0f0; } td.num { text-align: right; }
pre, textarea { font-family: monospace; font-size: 12px; background: #f7f7f7; border: 1px solid #ddd;
  padding: 8px; overflow-x: auto; white-space: pre; }
textarea { width: 100%; box-sizing: border-box; }
.plots { display: flex; flex-wrap: wrap; gap: 16px; }
.kind-crash { color: #b00; } .kind-soundness { color: #a0f; } .kind-invalid-model { color: #c60; }
.muted { color: #777; } section.group { border-left: 4px solid #ccc; padding-left: 12px; margin: 20px 0; }
"""


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(timestamp))


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


def _table(header: list[str], rows: list[list[str]], numeric: set[int] = frozenset()) -> str:  # type: ignore[assignment]
    """Cells are HTML already (callers escape text); `numeric` columns align right."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(
            f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
            for i, c in enumerate(row)
        ) + "</tr>"
        for row in rows
    )  # fmt: skip
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


@dataclass
class Timeline:
    """Points in minutes since the campaign's first run started."""

    throughput: list[tuple[float, float]]  # mutants per minute over each interval
    calls: list[tuple[float, float]]  # solver calls per minute
    mutants: list[tuple[float, float]]  # cumulative mutants
    duration: float  # seconds of fuzzing over all runs


def timeline(store: Store) -> Timeline:
    runs = {run: (started, jobs) for run, started, jobs in store.runs()}
    first = min((s for s, _ in runs.values()), default=0.0)
    line = Timeline([], [], [], 0.0)
    earlier_runs = 0  # mutants of the runs before the current one
    last: dict[int, tuple[float, Stats]] = {}  # run -> (x, counters) of its latest row
    for run, _minute, stats in store.stats_rows():  # ordered by run, then minute
        started, jobs = runs.get(run, (first, 1))
        if run not in last:
            earlier_runs = sum(s.mutants for _, s in last.values())
            last[run] = ((started - first) / 60.0, Stats())
        # workers sum their own time: divided by the jobs it is this run's elapsed time
        x = (started - first + stats.wall_time / max(1, jobs)) / 60.0
        last_x, previous = last[run]
        span = x - last_x
        if span > 1e-6:
            line.throughput.append((x, (stats.mutants - previous.mutants) / span))
            line.calls.append((x, (stats.solver_calls - previous.solver_calls) / span))
            line.mutants.append((x, float(earlier_runs + stats.mutants)))
        last[run] = (x, stats)
    line.duration = sum(
        stats.wall_time / max(1, runs.get(run, (0.0, 1))[1]) for run, (_, stats) in last.items()
    )
    return line


def _solver_rows(config: dict[str, object], facts: list[BugFacts]) -> list[list[str]]:
    """Each target solver with its version: as stored with a bug, else asked now."""
    stored: dict[str, str] = {}
    for fact in facts:
        for summary in fact.record.solvers:
            stored.setdefault(summary.spec, summary.version)
    rows = []
    for text in str(config.get("solvers", "")).split(";"):
        text = text.strip()
        if not text:
            continue
        version = stored.get(text)
        if version is None:
            try:
                version = f"{solver_version(parse_specs(text)[0])} (now)"
            except (SolverSpecError, OSError) as exc:
                version = f"unknown ({exc})"
        rows.append([f"<code>{escape(text)}</code>", escape(version)])
    return rows


def _summary(store: Store, root: Path, line: Timeline, groups: list[BugGroup],
             facts: list[BugFacts]) -> str:  # fmt: skip
    config = store.config() or {}
    stats = store.total_stats()
    runs = store.runs()
    rate = stats.mutants / line.duration if line.duration > 0 else 0.0
    call_rate = stats.solver_calls / line.duration if line.duration > 0 else 0.0
    bugs = ", ".join(f"{k}: {v}" for k, v in sorted(stats.bugs.items())) or "none"
    stored_seeds = config.get("seeds")
    seeds = [str(s) for s in stored_seeds] if isinstance(stored_seeds, list) else []
    rows = [
        ["campaign folder", f"<code>{escape(str(root.resolve()))}</code>"],
        ["campaign seed", escape(str(config.get("campaign_seed", "?")))],
        ["seeds", escape(", ".join(seeds[:5]) + (f" and {len(seeds) - 5} more" if len(seeds) > 5 else ""))],
        ["generators", f"<code>{escape(str(config.get('generators', '?')))}</code>"],
        ["mutants per seed / timeout / memory",
         escape(f"{config.get('mutants_per_seed')} / {config.get('timeout')} s / {config.get('memory_mb')} MB")],
        ["runs", escape(f"{len(runs)} (first started {_when(runs[0][1])})" if runs else "0")],
        ["fuzzing time", escape(_duration(line.duration))],
        ["mutants", escape(f"{stats.mutants} ({stats.acceptance:.1%} accepted by every solver)")],
        ["throughput", escape(f"{rate:.2f} mutants/s, {call_rate:.2f} solver calls/s, "
                              f"{stats.outside_share:.0%} of the time outside solvers")],
        ["answers", escape(f"{stats.unknowns} unknown, {stats.timeouts} timeouts, {stats.errors} "
                           f"rejected, {stats.unconfirmed} unconfirmed disagreements")],
        ["seeds used", escape(f"{stats.seeds_used} used in full, {stats.seeds_partial} in part "
                              f"(by some targets), {stats.seeds_set_aside} set aside, "
                              f"{stats.seeds_malformed} malformed, {stats.seed_findings} findings")],
        ["bugs", escape(f"{bugs}; {stats.duplicates} duplicate crash hits; "
                        f"{len(groups)} distinct bugs")],
        # verdicts a trusted solver contradicted on their own formula (never stored)
        ["construction doubts", escape("; ".join(f"{c}: {n}" for c, n in sorted(
            stats.doubts.items())) or "none")],
    ]  # fmt: skip
    solvers = _table(["solver", "version"], _solver_rows(config, facts))
    facts_table = "<table><tbody>" + "".join(
        f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows
    ) + "</tbody></table>"  # fmt: skip
    return ('<section id="summary"><h2>Summary</h2>'
            + facts_table + "<h3>Solvers</h3>" + solvers + "</section>")  # fmt: skip


def _plots(store: Store, line: Timeline, groups: list[BugGroup]) -> str:
    first = min((s for _, s, _ in store.runs()), default=0.0)
    found = sorted((b.found_at - first) / 60.0 for g in groups for b in g.bugs)
    distinct = sorted((g.first_seen - first) / 60.0 for g in groups)
    bugs = [(0.0, 0.0)] + [(x, float(i + 1)) for i, x in enumerate(found)]
    groups_line = [(0.0, 0.0)] + [(x, float(i + 1)) for i, x in enumerate(distinct)]
    end = line.mutants[-1][0] if line.mutants else 0.0
    if end > (found[-1] if found else 0.0):  # carry the counts to the end of the campaign
        bugs.append((end, float(len(found))))
        groups_line.append((end, float(len(distinct))))
    # a campaign of a few minutes reads better in seconds
    scale, unit = (60.0, "seconds") if max(end, *found, *distinct, 0.0) < 3 else (1.0, "minutes")

    def rescale(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
        return [(x * scale, y) for x, y in points]

    x_label = f"{unit} since start"
    throughput = line_plot(
        [("mutants / min", rescale(line.throughput)), ("solver calls / min", rescale(line.calls))],
        title="Throughput", x_label=x_label, y_label="per minute",
    )  # fmt: skip
    cumulative = line_plot(
        [("mutants", rescale(line.mutants))],
        title="Mutants tested", x_label=x_label, y_label="mutants",
    )  # fmt: skip
    found_plot = line_plot(
        [("bugs stored", rescale(bugs)), ("distinct bugs", rescale(groups_line))],
        title="Bugs over time", x_label=x_label, y_label="bugs", step=True,
    )  # fmt: skip
    return (
        '<section id="throughput"><h2>Throughput over time</h2><div class="plots">'
        f"{throughput}{cumulative}</div></section>"
        '<section id="bugs-over-time"><h2>Bugs over time</h2><div class="plots">'
        f"{found_plot}</div></section>"
    )


def _theories(stats: Stats) -> str:
    recorded = bool(stats.theories_accepted) or not stats.theories
    rows, bars = [], []
    for theory, count in sorted(stats.theories.items(), key=lambda kv: (-kv[1], kv[0])):
        accepted = stats.theories_accepted.get(theory, 0)
        share = f"{accepted / count:.1%}" if recorded and count else "not recorded"
        rows.append([escape(theory), str(count), str(accepted) if recorded else "-", share])
        bars.append((theory, float(count), float(accepted) if recorded else None))
    note = (
        ""
        if recorded
        else (
            '<p class="muted">This campaign was run before acceptance per theory was counted.</p>'
        )
    )
    chart = bar_chart(bars, title="Mutants per theory", total_label="mutants",
                      part_label="accepted by every solver")  # fmt: skip
    table = _table(["theory", "mutants", "accepted", "acceptance"], rows, numeric={1, 2, 3})
    return ('<section id="theories"><h2>Validity by theory</h2><p>A mutant counts for each '
            "theory its inserted terms come from; accepted means no solver rejected it.</p>"
            f'{note}<div class="plots">{chart}<div>{table}</div></div></section>')  # fmt: skip


def _size(facts: BugFacts) -> str:
    reduction = facts.reduction
    if not reduction:
        return f"{len(facts.original.encode('utf-8'))} B (not reduced)"
    before, after = reduction.before, reduction.after
    return (f"{before.bytes} B &rarr; {after.bytes} B, "
            f"{before.nodes} &rarr; {after.nodes} nodes")  # fmt: skip


def _anchor(entry: Entry) -> str:
    """Where a queued finding's issue text is on the page: its group's section, or a seed
    finding's own."""
    if entry.folder.parent.name == CampaignFolder.FINDINGS:
        return f"finding-{entry.id}"
    return entry.group


def _queue(root: Path) -> str:
    """The filing queue as it stands now (`bugs.queue`; nothing recorded): what to file
    first, then what waits and why the rest is held back."""
    found = filing_queue(root, record=False)
    rows = [
        [escape(e.family), escape(e.category) + (" <b>(expert option)</b>" if e.expert else ""),
         f'<a href="#{escape(_anchor(e))}">{escape(e.id)}</a>',
         escape(e.issue.title if e.issue else "")]
        for e in found.queued
    ]  # fmt: skip
    apart = [[escape(e.family), escape(e.id), escape(e.reason)]
             for e in found.waiting + found.held]  # fmt: skip
    queued = (_table(["family", "category", "finding", "issue title"], rows) if rows
              else "<p>Nothing to file this week.</p>")  # fmt: skip
    held = (f"<h3>Waiting or held back</h3>{_table(['family', 'finding', 'why'], apart)}"
            if apart else "")  # fmt: skip
    return ('<section id="queue"><h2>Filing queue</h2><p>Per solver family, in the order '
            f"the maintainers ask for, at most {found.per_week} a week; each issue text is in "
            f"its bug's section below.</p>{queued}{held}</section>")  # fmt: skip


def _group_rows(groups: list[BugGroup], facts: dict[str, BugFacts], first: float) -> str:
    rows = []
    for group in groups:
        rep = facts[group.representative.id]
        rows.append([
            f'<a href="#{group.id}">{group.id}</a>',
            f'<span class="kind-{escape(group.kind)}">{escape(group.kind)}</span>',
            escape(group.solver or "-"),
            escape(rep.version_of(group.solver)),
            str(group.hits),
            str(len(group.bugs)),
            escape(f"{(group.first_seen - first) / 60:.1f} min"),
            escape(", ".join(group.theories) or "-"),
            f"<code>{escape(group.key)}</code>",
            escape(bisect_summary(rep.bisect) or "-"),
            escape(rep.record.today.sentence() if rep.record.today else "not checked"),
            _size(rep),
        ])  # fmt: skip
    header = ["group", "kind", "solver", "version", "hits", "bugs", "first seen",
              "theories", "signature / shape", "bisect", "newest release", "formula"]  # fmt: skip
    return _table(header, rows, numeric={4, 5})


def _bisect_table(bisect: Bisection | None) -> str:
    if bisect is None or not bisect.versions:
        return ""
    rows = [[escape(t.version), escape(t.status), escape(t.detail)] for t in bisect.tried]
    return "<h4>Bisection</h4>" + _table(["version", "status", "detail"], rows)


def _evidence(facts: BugFacts, related: list[str]) -> str:
    """The formula to look at, the bisection when there is one, and the issue text."""
    which = "reduced formula" if facts.reduction else "formula (not reduced yet)"
    issue = issue_text(facts, related)
    rows = min(issue.count("\n") + 1, 40)
    reference = (f"<p>Reference: {escape(facts.reduction.reference_sentence())}</p>"
                 if facts.reduction else "")  # fmt: skip
    return (
        f"<h4>{which} of <code>{escape(facts.id)}</code></h4><pre>{escape(facts.formula)}</pre>"
        f"{reference}"
        f"{_bisect_table(facts.bisect)}"
        f'<h4>Issue text</h4><textarea readonly rows="{rows}">{escape(issue)}</textarea>'
    )


def _group_section(group: BugGroup, facts: dict[str, BugFacts]) -> str:
    rep = facts[group.representative.id]
    related = [f"{b.id}: {b.signature}" for b in group.bugs if b.id != rep.id]
    members = "".join(
        f'<li><code>{escape(b.id)}</code> <span class="muted">{escape(_when(b.found_at))}, '
        + (f"{b.count} hits of its signature, " if b.kind == VerdictKind.CRASH else "")
        + f"seed {escape(Path(b.seed_file).name)}, "
        + f"{'reduced' if facts[b.id].reduction else 'not reduced'}</span></li>"
        for b in group.bugs
    )
    return (
        f'<section class="group" id="{group.id}">'
        f'<h3>{group.id}: <span class="kind-{escape(group.kind)}">{escape(group.kind)}</span> '
        f"in {escape(group.solver or '-')}</h3>"
        f"<p><code>{escape(rep.signature)}</code></p>"
        f"<p>Bugs in this group:</p><ul>{members}</ul>{_evidence(rep, related)}</section>"
    )


def _seed_findings(store: Store) -> str:
    findings = store.seed_findings()
    if not findings:
        return ('<section id="seed-findings"><h2>Seed findings</h2>'
                "<p>No seed misbehaved before mutation.</p></section>")  # fmt: skip
    rows, details = [], []
    for ident, seed, kind, solver, signature in findings:
        folder = CampaignFolder(store.root).finding(ident)
        facts = load_facts(folder) if is_bug_folder(folder) else None
        rows.append([f"<code>{escape(ident)}</code>", escape(kind), escape(solver or "-"),
                     escape(Path(seed).name), f"<code>{escape(signature)}</code>",
                     _size(facts) if facts else "-"])  # fmt: skip
        if facts is not None and solver is not None:  # a disagreement blames no one yet
            details.append(
                f'<section class="group" id="finding-{escape(ident)}"><h3>{escape(ident)}: '
                f'<span class="kind-{escape(kind)}">{escape(kind)}</span> in {escape(solver)}'
                f"</h3>{_evidence(facts, [])}</section>"
            )
    return ('<section id="seed-findings"><h2>Seed findings</h2><p>The unmutated seed already '
            "misbehaves: kept apart from the bugs the mutations found.</p>"
            + _table(["id", "kind", "solver", "seed", "signature", "formula"], rows)
            + "".join(details) + "</section>")  # fmt: skip


def _shares(total: int) -> Callable[[int], str]:
    return lambda n: f"{n / total:.1%}" if total else "-"


def _strategies(stats: Stats) -> str:
    """Each strategy's share of the positions, its acceptance and what it found."""
    if not stats.strategies:
        return ""  # a campaign from before strategies were counted
    positions = sum(done.positions for done in stats.strategies.values()) or 1
    rows = []
    for name, done in sorted(stats.strategies.items(), key=lambda kv: (-kv[1].positions, kv[0])):
        share = _shares(done.cases)
        rows.append([escape(name), f"{done.positions} ({done.positions / positions:.0%})",
                     str(done.cases), share(done.accepted), share(done.expected),
                     str(done.verdicts), f"{done.solver_seconds:.0f}"])  # fmt: skip
    table = _table(["strategy", "seeds (share)", "cases", "accepted", "expected answer",
                    "bugs", "solver s"], rows, numeric={1, 2, 3, 4, 5, 6})  # fmt: skip
    return ('<section id="strategies"><h2>Strategies</h2><p>Each seed position draws one '
            "strategy; a case with an expected answer is judged against it, the others by "
            f"comparing solvers.</p>{table}</section>")  # fmt: skip


def _options(config: dict[str, object], facts: list[BugFacts]) -> str:
    """A campaign with solver options: each option word and the stored bugs that ran with it."""
    if not sets_options(str(config.get("options") or "")):
        return ""
    used = count_options((f.record for f in facts), solver_texts(str(config.get("solvers", ""))))
    rows = [[f"<code>{escape(u.option)}</code>", str(u.bugs),
             escape(", ".join(f"{k} {n}" for k, n in sorted(u.kinds.items())))]
            for u in used]  # fmt: skip
    table = (_table(["solver and option", "bugs", "by kind"], rows, numeric={1})
             if rows else "<p>No stored bug ran with an option.</p>")  # fmt: skip
    return (
        '<section id="options"><h2>Solver options</h2><p>The campaign set options per '
        f"seed position (<code>{escape(str(config['options']))}</code>); each option on a "
        f"target's command line and the stored bugs that ran with it.</p>{table}</section>"
    )


def render_report(root: Path) -> str:
    """The report of the campaign in `root` as one HTML document."""
    with Store(root, read_only=True) as store:
        bugs = store.bugs()
        missing = [bug.id for bug in bugs if not bug.folder.is_dir()]
        if missing:  # every bug's files are written before its row: someone removed them
            raise StoreError(
                f"{root}: the store lists bug(s) {', '.join(missing)} but their folders under "
                f"{CampaignFolder(root).bugs} are missing; restore them from a backup"
            )
        # alive in the newest release first, then not known, then fixed; slow ones last
        groups = [group for group, _ in alive_first(group_bugs(bugs), bugs)[0]]
        facts = {bug.id: load_facts(bug.folder) for bug in bugs}
        line = timeline(store)
        first = min((s for _, s, _ in store.runs()), default=0.0)
        # what a maintainer files first, then the distinct bugs; the campaign's plots after
        parts = [
            _queue(root),
            '<section id="bugs"><h2>Distinct bugs</h2>',
            (_group_rows(groups, facts, first) if groups else "<p>No bug stored.</p>"),
            "".join(_group_section(g, facts) for g in groups),
            "</section>",
            _seed_findings(store),
            _summary(store, root, line, groups, list(facts.values())),
            _plots(store, line, groups),
            _theories(store.total_stats()),
            _strategies(store.total_stats()),
            _options(store.config() or {}, list(facts.values())),
        ]
    title = f"sphinxfuzz campaign {root.resolve().name}"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>"
        f'<h1>{escape(title)}</h1><p class="muted">Report written {_when(time.time())}</p>'
        + "".join(parts)
        + "</body></html>\n"
    )


def write_report(root: Path, out: Path) -> Path:
    write_atomic(out, render_report(root))
    return out
