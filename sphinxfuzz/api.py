"""The Python API: run a campaign and work with what it stored, as the CLI does.

`import sphinxfuzz` exports these names (docs/api.md); the `sphinxfuzz` command calls the
same functions, so a script and the command line cannot drift apart.
"""

from __future__ import annotations

import math
import os
import time as clock
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sphinxfuzz.bugs.bisect import BisectError, Bisection, bisect_bug
from sphinxfuzz.bugs.commit_bisect import CommitBisection
from sphinxfuzz.bugs.commit_bisect import bisect_commits as bisect_commit_range
from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.issue_text import IssueText, load_facts
from sphinxfuzz.bugs.issue_text import bisect_summary as lifespan  # in words
from sphinxfuzz.bugs.issue_text import describe as describe_verdict  # in words
from sphinxfuzz.bugs.issue_text import issue as issue_of
from sphinxfuzz.bugs.list_tables import BugList, TextTable, bug_list, bug_list_json
from sphinxfuzz.bugs.listing import bug_json
from sphinxfuzz.bugs.option_drop import bug_standing
from sphinxfuzz.bugs.option_use import OptionUse, option_use
from sphinxfuzz.bugs.queue import PER_WEEK, FilingQueue, filing_queue
from sphinxfuzz.bugs.record import (
    ALIVE,
    REDUCED,
    BugFileError,
    BugRecord,
    SeedFindingRecord,
    Today,
    load_record,
)
from sphinxfuzz.bugs.reduce import (
    ReduceError,
    ReductionResult,
    ddsmt_version,
    reduce_bug,
    unreduced_bugs,
)
from sphinxfuzz.bugs.refresh import RefreshError, newest_specs, refresh_bug
from sphinxfuzz.bugs.reindex import Reindexed
from sphinxfuzz.bugs.reindex import reindex as reindex_folder
from sphinxfuzz.bugs.replay import Replay, find_bug, resolve_campaign
from sphinxfuzz.bugs.replay import replay as replay_folder
from sphinxfuzz.bugs.report import write_report
from sphinxfuzz.bugs.stats import Stats, StrategyStats
from sphinxfuzz.bugs.store import BugRow, Store, StoreError
from sphinxfuzz.bugs.triage import related_findings
from sphinxfuzz.bugs.trust import UntrustedCommand, runnable
from sphinxfuzz.campaign.config import Budget, Campaign, CampaignConfig, parse_duration
from sphinxfuzz.campaign.coordinator import Message, Progress, resumed_config, validate
from sphinxfuzz.campaign.coordinator import run_campaign as run_campaign_stats
from sphinxfuzz.campaign.lock import CampaignLock
from sphinxfuzz.campaign.status_file import read_status
from sphinxfuzz.campaign.targets import CampaignError
from sphinxfuzz.errors import InputError
from sphinxfuzz.solvers import Family
from sphinxfuzz.solvers.build_plans import read_sanitizers
from sphinxfuzz.solvers.builds import Request, plan_build
from sphinxfuzz.solvers.builds import build as build_from_sources
from sphinxfuzz.solvers.installs import Installed
from sphinxfuzz.solvers.options.standing import Standing
from sphinxfuzz.solvers.persistent import SCRIPTS_PER_PROCESS
from sphinxfuzz.solvers.spec import parse_specs
from sphinxfuzz.solvers.survey import Survey, survey

Folder = str | os.PathLike[str]


@dataclass(frozen=True)
class CampaignSummary:
    """What one `run_campaign` call did, and what its campaign folder holds afterwards."""

    campaign: Path  # the campaign folder
    stats: Stats  # this run's counters (mutants, solver calls, bugs by kind, ...)
    elapsed: float  # wall seconds of this run
    bugs: tuple[BugRow, ...]  # every bug the folder holds, earlier runs' included
    # the folder's stored bugs per solver option beyond the specs (a campaign that sets
    # options; `bugs.option_use`), most used first
    options: tuple[OptionUse, ...] = ()

    @property
    def fuzzing_seconds(self) -> float:
        """The wall seconds of fuzzing: `elapsed` without the reduction that followed it."""
        return max(0.0, self.elapsed - self.stats.reduce_seconds)

    @property
    def new_bugs(self) -> int:
        """Bugs and seed findings this run stored (the CLI's `--fail-on-bug` test)."""
        return sum(self.stats.bugs.values()) + self.stats.seed_findings


def run_campaign(
    config: CampaignConfig | Campaign,
    campaign: Folder,
    *,
    time: float | str | None = None,
    mutants: int | None = None,
    jobs: int = 1,
    resume: bool = False,
    persistent: bool = True,
    process_scripts: int = SCRIPTS_PER_PROCESS,
    unconfined: bool = False,
    ray: str | None = None,
    status_every: float = 10.0,
    on_progress: Progress | None = None,
    on_message: Message | None = None,
) -> CampaignSummary:
    """Run (or, with `resume`, continue) the campaign `config` describes in the folder
    `campaign`, for `time` (seconds, or "90s", "10m", "2h") or `mutants` mutants; with
    neither, one pass over the seeds. `jobs` worker processes (or Ray actors at `ray`).
    `status_every`: seconds between rewrites of the folder's `status.json` while its counters
    stay (within a second of their change otherwise). `persistent`: keep
    long-lived solver processes, each replaced after `process_scripts` scripts.

    After the fuzzing (`time` bounds the fuzzing alone), every finding of the folder not
    reduced yet is reduced with ddSMT, at most `config.reduce_time` seconds each, unless
    `config.reduce` is false (`campaign.reduction`); `CampaignSummary.fuzzing_seconds` is
    the run's time without them.

    A `Campaign` (`config.resolve()`, checked by `campaign.coordinator.validate`, as the CLI
    does) runs without being checked again. Raises `sphinxfuzz.errors.SphinxfuzzError` subclasses for unusable settings (a solver
    that fails a trivial script, a missing seed folder, a folder that holds a campaign)."""
    _check_arguments(config, campaign, mutants=mutants, jobs=jobs, time=time,
                     process_scripts=process_scripts, status_every=status_every)  # fmt: skip
    try:
        seconds = parse_duration(time) if isinstance(time, str) else time
    except ValueError as exc:
        raise CampaignError(f"time: {exc}", setting="time") from None
    root = Path(campaign)
    started = clock.monotonic()
    stats = run_campaign_stats(
        config, root, Budget(seconds, mutants), jobs=jobs, resume=resume,
        on_progress=on_progress or (lambda stats, elapsed: None),
        on_message=on_message or (lambda text: None),
        persistent=max(1, process_scripts) if persistent else 0,
        unconfined=unconfined, ray=ray, status_every=status_every,
    )  # fmt: skip
    elapsed = clock.monotonic() - started
    settings = config.config if isinstance(config, Campaign) else config
    used = option_use(root, settings.solvers) if settings.sets_options else []
    return CampaignSummary(root, stats, elapsed, tuple(load_bugs(root)), tuple(used))


def prepare(
    settings: dict[str, object | None],
    campaign: Folder,
    *,
    resume: bool = False,
    unconfined: bool = False,
    say: Callable[[str], None] | None = None,
) -> Campaign:
    """The campaign `run_campaign` will run, resolved and checked before anything starts
    (a smoke test per solver, `say` hearing what was found): from `settings` (a setting's
    None is its default), or with `resume` the folder's stored config, which a setting given
    here must match."""
    if resume:
        config = resumed_config(Path(campaign), settings)
    else:
        config = CampaignConfig.from_settings(settings)
    return validate(config, unconfined=unconfined, say=say)


def _check_arguments(config: object, campaign: object, **numbers: object) -> None:
    """`run_campaign`'s arguments, refused before any folder exists (a script passes any
    object: a dict for the config, "2" for the mutants)."""
    if not isinstance(config, CampaignConfig | Campaign):
        raise CampaignError(
            f"config: a {type(config).__name__}, not a CampaignConfig (make one with "
            "CampaignConfig.from_settings({...}))",
            setting="config",
        )
    if not isinstance(campaign, str | os.PathLike):
        raise CampaignError(f"campaign {campaign!r}: name a folder", setting="campaign")
    for name, value in numbers.items():
        whole = name in ("mutants", "jobs", "process_scripts")
        if value is None and name in ("mutants", "time"):
            continue
        if name == "time" and isinstance(value, str):
            continue
        kind = int if whole else int | float
        if isinstance(value, bool) or not isinstance(value, kind) or not 0 <= value < math.inf:
            wanted = "a whole number" if whole else "a number of seconds"
            raise CampaignError(f"{name} {value!r}: should be {wanted}", setting=name)
        if whole and value < 1:
            raise CampaignError(f"{name} {value!r}: should be 1 or more", setting=name)


def load_bugs(campaign: Folder | None = None) -> list[BugRow]:
    """Every bug the campaign folder stored, oldest first (None: the newest folder in
    `campaigns/`). Each row has `id`, `kind`, `solver`, `signature`, `count` (hits) and
    `folder`; `sphinxfuzz.bugs.load_record(row.folder)` reads the whole bug."""
    with Store(campaign_folder(campaign)) as store:
        return store.bugs()


def _text(campaign: Folder | None) -> str | None:
    return None if campaign is None else str(campaign)


def campaign_folder(campaign: Folder | None) -> Path:
    """The campaign folder `campaign` names (None: the newest in `campaigns/`), checked to
    hold a campaign."""
    return resolve_campaign(_text(campaign))


def bug_folder(bug: str, campaign: Folder | None = None) -> Path:
    """A stored finding's folder, from a path to it or from its id in `campaign`."""
    return find_bug(bug, _text(campaign))


def finding_folders(campaign: Folder | None) -> list[Path]:
    """The folders of every bug, then every seed finding, of the campaign, oldest first."""
    root = campaign_folder(campaign)
    with Store(root, read_only=True) as store:
        folders = [row.folder for row in store.bugs()]
        findings = store.seed_findings()
    return folders + [CampaignFolder(root).finding(str(f[0])) for f in findings]


def list_bugs(campaign: Folder | None, *, alive: bool = False) -> BugList:
    """What `bugs list` shows: the triage groups, every bug and every seed finding as tables
    of text, alive ones (still shown by the newest release) first; `alive`: those only."""
    return bug_list(campaign_folder(campaign), only_alive=alive)


def list_bugs_json(campaign: Folder | None, *, alive: bool = False) -> dict[str, Any]:
    """The same findings as a versioned JSON document (docs/json-output.md)."""
    return bug_list_json(campaign_folder(campaign), only_alive=alive)


@dataclass(frozen=True)
class ShownBug:
    """One stored finding, read whole, and the standing of the options it needs."""

    record: BugRecord
    standing: Standing | None  # None: the release does not tell

    @property
    def alive_as(self) -> str:
        """What the newest release showed of it (its signature) when alive there, else ""."""
        today = self.record.today
        return today.detail if today is not None and today.status == ALIVE else ""

    @property
    def seed_finding(self) -> bool:
        """The unmutated seed showed it: no position or mutant."""
        return isinstance(self.record, SeedFindingRecord)

    def to_json(self) -> dict[str, Any]:
        return bug_json(self.record)


def show(campaign: Folder | None, bug: str) -> ShownBug:
    """A stored finding (its id in `campaign`, or a folder's path): verdict, formula,
    reduction and every solver's command line, version and output."""
    record = load_record(find_bug(bug, _text(campaign)))
    return ShownBug(record, bug_standing(record))


def reindex(campaign: Folder) -> Reindexed:
    """Rebuild the campaign's index from its bug folders, the source of truth, under the
    campaign's lock; what the old index still reads is carried over and the old file kept."""
    if not str(campaign).strip():
        raise InputError("name the campaign folder to reindex", setting="campaign")
    root = Path(campaign)
    with CampaignLock(root, create=False):
        return reindex_folder(root)


def refresh(
    campaign: Folder | None, *, newest: str | None = None, trust_folder: bool = False
) -> Iterator[tuple[Path, Today | str]]:
    """Replay every stored bug and seed finding on the newest release of its blamed family
    (`newest`: "z3@5.4.1;cvc5", default the campaign's `newest` setting, else the newest
    installed wheels) and record it alive or fixed; yields each folder with its `Today`, or
    why it was skipped. Stored command lines are vouched for as `replay` does."""
    root = campaign_folder(campaign)
    with Store(root, read_only=True) as store:
        config = store.config() or {}
    folders = finding_folders(root)
    chosen = newest_specs(newest if newest is not None else str(config.get("newest", "")))
    for folder in folders:
        try:
            record = load_record(folder)
            runnable([s.spec for s in record.solvers], str(folder), trust_folder=trust_folder)
            yield folder, refresh_bug(root, folder, chosen)
        except (RefreshError, BugFileError, UntrustedCommand) as exc:
            yield folder, str(exc)


def report(campaign: Folder | None, out: Folder | None = None) -> Path:
    """Write the campaign's self-contained HTML report to `out` (default: report.html in
    the campaign folder); returns where it went."""
    root = campaign_folder(campaign)
    target = Path(out) if out is not None else CampaignFolder(root).report
    try:
        write_report(root, target)
    except OSError as exc:
        raise InputError(
            f"{target}: cannot be written ({exc.strerror or exc})", setting="out"
        ) from None
    return target


def status(campaign: Folder | None) -> dict[str, Any]:
    """The campaign's status document (docs/json-output.md): live while it runs, else
    rebuilt from its store."""
    return read_status(campaign_folder(campaign))


def _vouched(folder: Path, trust_folder: bool, say: Callable[[str], object] | None) -> None:
    """A bug folder's command lines are data: refused unless each names a solver found as a
    campaign finds one, or `trust_folder`; either way shown (`say`) before anything runs."""
    record = load_record(folder)
    lines = runnable([s.spec for s in record.solvers], str(folder), trust_folder=trust_folder)
    for line in lines:
        if say is not None:
            say(f"runs: {line}")


def replay(
    campaign: Folder | None,
    bug: str,
    *,
    timeout: float | None = None,
    trust_folder: bool = False,
    say: Callable[[str], object] | None = None,
) -> Replay:
    """Run a stored bug (its id in `campaign`, or a bug folder's path) again on the stored
    solver command lines and judge it as the campaign did; `.reproduced` tells whether the
    bug is still there, `.results` holds every solver's result. A stored command line that
    is not a solver found as a campaign finds one runs only with `trust_folder`; `say` gets
    each command line before it runs."""
    if not isinstance(bug, str):
        raise InputError(f"bug: {bug!r} is not a bug id or a bug folder's path", setting="bug")
    folder = find_bug(bug, _text(campaign))
    _vouched(folder, trust_folder, say)
    return replay_folder(folder, timeout=timeout)


def reduce(
    campaign: Folder | None,
    bug: str,
    *,
    jobs: int = 1,
    time_limit: float | None = None,
    echo: Callable[[str], None] | None = None,
    trust_folder: bool = False,
    say: Callable[[str], object] | None = None,
) -> ReductionResult:
    """Shrink a stored bug's trigger with ddSMT (`pip install 'sphinxfuzz[reduce]'`),
    keeping only candidates that are still the same bug; writes `reduced.smt2` and
    `reduce.json` in its folder. `time_limit` seconds stop ddSMT with its best result.
    Stored command lines are vouched for and shown (`say`) as `replay` does (`trust_folder`).
    A bug folder's path names its campaign too."""
    ddsmt_version()  # missing ddSMT: said before anything else
    folder = find_bug(bug, _text(campaign))
    _vouched(folder, trust_folder, say)
    return reduce_bug(folder.parent.parent, bug, jobs=jobs, time_limit=time_limit, echo=echo)


def reducible(campaign: Folder | None) -> tuple[Path, list[str]]:
    """The campaign folder and the ids of its bugs not reduced yet, oldest first (ddSMT's
    absence is said first: nothing can be reduced without it)."""
    ddsmt_version()
    root = campaign_folder(campaign)
    return root, unreduced_bugs(root)


def reduce_each(
    campaign: Folder,
    bugs: list[str],
    *,
    jobs: int = 1,
    time_limit: float | None = None,
    echo: Callable[[str], None] | None = None,
    trust_folder: bool = False,
    say: Callable[[str], object] = print,
) -> Iterator[tuple[str, ReductionResult | str]]:
    """`reduce` each of `bugs` in turn (each said first), yielding its result, or why it
    was skipped: a bug that cannot be reduced leaves the others to go on."""
    for bug in bugs:
        say(f"reducing {bug} ...")
        try:
            yield bug, reduce(campaign, bug, jobs=jobs, time_limit=time_limit, echo=echo,
                              trust_folder=trust_folder, say=say)  # fmt: skip
        except (ReduceError, StoreError, BugFileError, UntrustedCommand) as exc:
            yield bug, str(exc)


def bisect(
    campaign: Folder | None,
    bug: str,
    solver: str = Family.Z3,
    *,
    versions: list[str] | None = None,
    say: Callable[[str], object] = print,
    trust_folder: bool = False,
) -> Bisection:
    """Run a stored bug on released versions of `solver` (z3 or cvc5; installed on demand
    into the solver cache) and write `bisect.json` with the first and last release that
    show it. `versions`: try exactly these instead of the default sample and bisection.
    Stored command lines are vouched for as `replay` does (`trust_folder`); `say` hears
    the bisection's steps, from "bisecting <bug> on <solver> releases" on."""
    folder = find_bug(bug, _text(campaign))
    say(f"bisecting {folder.name} on {solver} releases ...")
    _vouched(folder, trust_folder, say)
    return bisect_bug(folder.parent.parent, folder, Family(solver), versions=versions, say=say)


def bisect_commits(
    campaign: Folder | None, bug: str, solver: str, *, source: Folder, commits: str,
    say: Callable[[str], object] = print, trust_folder: bool = False,
) -> CommitBisection:  # fmt: skip
    """Find the first commit of `commits` (A..B) of the checkout `source` that shows a
    stored bug, building each probed commit with the marks of the build the bug was found
    on; writes bisect-commits.json in the bug's folder."""
    folder = find_bug(bug, None if campaign is None else str(campaign))
    say(f"bisecting {folder.name} over the commits {commits} of {source} ...")
    _vouched(folder, trust_folder, say)
    return bisect_commit_range(folder, Family(solver), Path(source), commits, say=say)


def bisect_each(
    campaign: Folder | None,
    solver: str = Family.Z3,
    *,
    versions: list[str] | None = None,
    say: Callable[[str], object] = print,
    trust_folder: bool = False,
) -> Iterator[tuple[Path, Bisection | str]]:
    """`bisect` every bug and seed finding of the campaign (seeds that already showed a bug
    on these releases have a lifespan too), yielding each folder with its bisection, or why
    it was skipped (another solver blamed, or none)."""
    for folder in finding_folders(campaign):
        try:
            yield folder, bisect(campaign, str(folder), solver, versions=versions, say=say,
                                 trust_folder=trust_folder)  # fmt: skip
        except (BisectError, BugFileError, UntrustedCommand) as exc:
            yield folder, str(exc)


def issue(campaign: Folder | None, bug: str) -> IssueText:
    """The issue text of a stored finding (its id in `campaign`, or a folder's path): title,
    Markdown body, the release it names and the other findings of its root cause
    (`bugs.triage`), ready to file."""
    folder = find_bug(bug, _text(campaign))
    return issue_of(load_facts(folder), related_findings(folder.parent.parent, folder))


def queue(
    campaign: Folder | None,
    *,
    per_week: int = PER_WEEK,
    expert: bool = False,
    known: Folder | None = None,
) -> FilingQueue:
    """The campaign's filing queue: per solver family, in the maintainers' order (wrong
    unsat, wrong sat, invalid model, crash under default then regular options), the findings
    alive in the newest release, reduced, valid, not known and one per root cause, at most
    `per_week` a family a week (recorded in the folder's queue.json); `.waiting` and `.held`
    say why the others are not. `expert`: findings that need an expert option too, marked.
    `known`: a folder of upstream reproducers to recognise findings by (None: the
    campaign's own `known` setting, if it has one)."""
    root = campaign_folder(campaign)
    if known is None:
        with Store(root, read_only=True) as store:
            known = str((store.config() or {}).get("known") or "") or None
    corpus = None if known is None else Path(known)
    return filing_queue(root, per_week=per_week, expert=expert, known=corpus)


def build_solver(
    family: Family, version: str | None = None, *, source: Folder | None = None,
    assertions: bool = True, sanitizers: str | None = None, dry_run: bool = False,
    download: bool = False, say: Callable[[str], object] = print,
) -> Installed | list[str]:  # fmt: skip
    """Build a solver with its assertions and/or sanitizers (`address,undefined`) from its
    release's sdist or a source tree into the solver cache (solvers/builds.py); with
    `dry_run`, the plan's lines instead: source, compiler, flags, build folder, cache.
    `download`: a cvc5 tree's missing dependencies are downloaded by its configure script
    (else each is named before building)."""
    request = Request(family, version, Path(source) if source is not None else None,
                      assertions, read_sanitizers(sanitizers), download)  # fmt: skip
    if dry_run:
        return plan_build(request, say).lines()
    return build_from_sources(family, version, source=request.source, say=say,
                              assertions=assertions, sanitizers=request.sanitizers,
                              download=download)  # fmt: skip


def check_solver(solver: str, *, say: Callable[[str], None] | None = None) -> Survey:
    """What sphinxfuzz learns of one solver command line, of a known family or not: version,
    family (by name and by its `--version` line), answers on a sat and an unsat script, model,
    error convention, option table (built when missing, which `say` hears of), theories."""
    specs = parse_specs(solver)
    if len(specs) != 1:
        raise InputError(f"solver {solver!r}: name one solver, not {len(specs)}", setting="solver")
    return survey(specs[0], say)


__all__ = [
    "PER_WEEK",
    "REDUCED",
    "Bisection",
    "BugList",
    "CampaignConfig",
    "CampaignFolder",
    "CampaignSummary",
    "OptionUse",
    "ReductionResult",
    "ShownBug",
    "Stats",
    "StrategyStats",
    "TextTable",
    "bisect",
    "bisect_commits",
    "bisect_each",
    "bug_folder",
    "build_solver",
    "check_solver",
    "campaign_folder",
    "describe_verdict",
    "finding_folders",
    "issue",
    "lifespan",
    "prepare",
    "list_bugs",
    "list_bugs_json",
    "load_bugs",
    "queue",
    "reduce",
    "reduce_each",
    "reducible",
    "refresh",
    "reindex",
    "replay",
    "report",
    "run_campaign",
    "show",
    "status",
]
