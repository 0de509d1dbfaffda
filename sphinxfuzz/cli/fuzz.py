"""`sphinxfuzz fuzz`: run or resume a fuzz campaign."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sphinxfuzz.api import OptionUse, StrategyStats, prepare, run_campaign
from sphinxfuzz.campaign import CampaignError, ExitReason, Stats
from sphinxfuzz.campaign.case_limits import LOWEST_FLOOR
from sphinxfuzz.campaign.config import (
    DEFAULT_SOLVERS,
    FAST_MUTANT_SECONDS,
    MIN_MUTANT_TIMEOUT,
    default_of,
    parse_duration,
)
from sphinxfuzz.cli.errors import UNCONFINED_HELP
from sphinxfuzz.cli.parameters import duration
from sphinxfuzz.cli.progress import Progress, progress_mode
from sphinxfuzz.errors import SphinxfuzzError
from sphinxfuzz.oracle import VerdictKind
from sphinxfuzz.solvers.persistent import SCRIPTS_PER_PROCESS
from sphinxfuzz.strategies import DEFAULT as DEFAULT_STRATEGY
from sphinxfuzz.strategies import get as get_strategy
from sphinxfuzz.strategies import names as strategy_names
from sphinxfuzz.visible import visible

STRATEGY_LIST = "; ".join(f"{n}: {get_strategy(n).summary}" for n in strategy_names())

HELP = (
    "Fuzz solvers: mutate seeds with generated terms, store crashes and wrong answers.\n\n"
    "Each seed formula's atoms are replaced by terms from the generators (their variables "
    "renamed to seed variables of the same sort); every target solver runs each mutant; "
    "crashes, soundness bugs (sat vs unsat, settled by checking the model) and invalid "
    "models are stored in a campaign folder, each reproducible from the campaign seed.\n\n"
    "\b\n"
    "Examples (each writes the campaign folder it names, or campaigns/<time>):\n"
    "  sphinxfuzz fuzz --mutants 30 -c campaigns/night\n"
    "    z3 vs cvc5, the shipped seeds and generators, 30 mutants (--time 2h for a night)\n"
    "  sphinxfuzz fuzz -c campaigns/night --resume --mutants 20\n"
    "    continue a stopped or killed campaign with its stored configuration\n"
    '  sphinxfuzz fuzz --solvers "z3;cvc5 --check-models" --mutants 20 --seed 7 --jobs 2\n'
    "    other solver options (z3 without model validation), fixed seed, two worker processes\n"
    '  sphinxfuzz fuzz --strategies "fusion,storm,sae,janus,strings" --solvers yices --mutants 20\n'
    "    the seed papers' strategies: answers known by construction, so one target is enough\n"
    "  sphinxfuzz fuzz --mutants 20 --quiet --fail-on-bug -c campaigns/ci\n"
    "    for CI: no progress lines, exit status 1 when a bug was stored\n"
    "Other seeds: --seeds DIR|FILE (repeatable); two versions of one solver: --solvers "
    '"z3;z3@4.8.8" after `sphinxfuzz solvers install z3==4.8.8`.\n\n'
    "Without --time or --mutants the campaign makes one pass over the seeds. After the "
    "fuzzing it reduces each bug it stored with ddSMT (at most --reduce-time each; --no-reduce: "
    "not). Ctrl-C stops "
    "gracefully: the current mutant is finished and recorded, statistics are flushed. "
    "Then: sphinxfuzz bugs list | show ID | replay ID. With --fail-on-bug the exit status is 1 "
    "when the run stored a new bug or seed finding, 0 otherwise (2: a usage error)."
)


OPTION_ROWS = 10  # the options the summary names; the report lists every one


# --log-every's shortest period: a status line (and status.json) every 0.0001 s printed
# thousands of lines a second and took the campaign's time.
LOG_FLOOR = 0.1


def _log_floor(value: float) -> float:
    if 0 < value < LOG_FLOOR:
        raise typer.BadParameter(f"{value:g}: at least {LOG_FLOOR:g} seconds, or 0 for none")
    return value


def _say(console: Console) -> Callable[[str], None]:
    return lambda line: console.print(line, highlight=False, markup=False)


def summary_table(
    stats: Stats, elapsed: float, title: str = "campaign summary",
    options: Sequence[OptionUse] = (),
) -> Table:  # fmt: skip
    """This run's counters; `options`: the campaign's stored bugs per solver option."""
    table = Table(title=title, show_header=False)
    table.add_column("what", style="bold")
    table.add_column("value", justify="right")
    rows = _counter_rows(stats, elapsed)
    rows += reduction_rows(stats)
    rare = (VerdictKind.INCOMPLETENESS, VerdictKind.SLOW)  # shown only when found
    for kind in (VerdictKind.CRASH, VerdictKind.SOUNDNESS, VerdictKind.INVALID_MODEL, *rare):
        if kind not in rare or stats.bugs.get(kind):
            rows.append((f"bugs: {kind}", str(stats.bugs.get(kind, 0))))
    # expected-answer verdicts a trusted solver contradicted on the formula: not stored
    for cause, count in sorted(stats.doubts.items()):
        rows.append((f"construction doubt: {cause[:70]}", str(count)))
    if set(stats.strategies) - {DEFAULT_STRATEGY}:  # a mix: what each strategy did
        for name, done in sorted(stats.strategies.items()):
            rows.append((f"strategy {name}", strategy_line(done)))
    for theory, count in sorted(stats.theories.items()):
        undecided = stats.theories_undecided.get(theory, 0)
        rows.append((f"mutants with {theory} (undecided)", f"{count} ({undecided})"))
    for use in options[:OPTION_ROWS]:  # every run's bugs: the folder's, not this run's
        rows.append((f"stored bugs with {use.option[:60]}", use.sentence()))
    if len(options) > OPTION_ROWS:
        rows.append(
            ("other options in stored bugs", f"{len(options) - OPTION_ROWS} (see the report)")
        )
    # operators a target release lacks: terms using them were drawn again
    for feature, count in stats.left_out.most_common(10):
        rows.append((f"left out: {feature}", f"{count} terms"))
    for refused, count in stats.options_refused.most_common(5):
        rows.append((f"options refused, run plainly: {refused[:50]}", f"{count} positions"))
    for cause, count in stats.rejections.most_common(5):
        rows.append((f"rejected: {cause[:70]}", str(count)))
    # why seeds served only some targets, or none
    for cause, count in stats.partial_causes.most_common(5):
        rows.append((f"seeds used in part, {cause[:60]}", str(count)))
    for cause, count in stats.set_aside_causes.most_common(5):
        rows.append((f"seeds set aside, {cause[:60]}", str(count)))
    for what, value in rows:
        table.add_row(what, value)
    return table


def _counter_rows(stats: Stats, elapsed: float) -> list[tuple[str, str]]:
    """The summary's first rows: time, throughput, answers and seeds."""
    per = (lambda n: f"{n / elapsed:.2f}/s") if elapsed > 0 else (lambda n: "-")
    return [
        ("wall time", f"{elapsed:.1f} s" + (" of fuzzing" if stats.reduce_seconds else "")),
        ("fuzzing ended", ExitReason(stats.exit_reason).sentence if stats.exit_reason else "-"),
        ("mutants", f"{stats.mutants} ({per(stats.mutants)})"),
        ("solver calls", f"{stats.solver_calls} ({per(stats.solver_calls)})"),
        ("accepted by every solver", f"{stats.acceptance:.1%}"),
        ("mutants undecided (unknown or time-out)", f"{stats.undecided} ({stats.undecided_share:.1%})"),
        ("unknown answers", str(stats.unknowns)),
        ("timeouts", str(stats.timeouts)),
        ("mutants limited by the learnt floor (mean)", f"{stats.floor_cases} ({stats.mean_floor:.2f} s)" if stats.floor_cases else "0"),
        ("rejected (error) answers", str(stats.errors)),
        ("unconfirmed disagreements", str(stats.unconfirmed)),
        ("time outside solvers", f"{stats.outside_share:.1%}"),
        ("seeds used in full / in part / set aside / malformed", f"{stats.seeds_used} / {stats.seeds_partial} / {stats.seeds_set_aside} / {stats.seeds_malformed}"),
        ("seeds left early (slow, undecided or known crashes)", str(stats.seeds_left_early)),
        ("seed findings", str(stats.seed_findings)),
        ("generator failures", str(stats.generator_failures)),
        ("repeated crash signatures", str(stats.duplicates)),
        ("verdicts re-run fresh / not reproduced", f"{stats.fresh_confirmations} / {stats.fresh_unconfirmed}"),
    ]  # fmt: skip


def reduction_rows(stats: Stats) -> list[tuple[str, str]]:
    """The reduction after the fuzzing (`campaign.reduction`), when this run made one."""
    if not (stats.reduced or stats.not_reduced or stats.reduce_seconds):
        return []
    done = f"{stats.reduced} / {stats.not_reduced} in {stats.reduce_seconds:.0f} s"
    return [("reduced after the fuzzing / not (why: bugs list)", done)]


def strategy_line(done: StrategyStats) -> str:
    """One strategy's share in a line: positions, cases, acceptance, expected, verdicts."""
    share = (lambda n: f"{n / done.cases:.0%}") if done.cases else (lambda n: "-")
    return (
        f"{done.positions} seeds, {done.cases} cases ({share(done.accepted)} accepted, "
        f"{share(done.expected)} expected), {done.verdicts} bugs"
    )


def fuzz(
    seeds: Annotated[list[str] | None, typer.Option("--seeds", help="Seed .smt2 files or folders (repeatable). Default: the repository's skeletons/.")] = None,
    solvers: Annotated[str | None, typer.Option("--solvers", help=f"Solver command lines separated by ';'. Default: {DEFAULT_SOLVERS!r}.")] = None,
    generators: Annotated[str | None, typer.Option("--generators", help="Folder of generator modules. Default: the shipped generated_generators/.")] = None,
    time_limit: Annotated[str | None, typer.Option("--time", help="Stop after this long: 90s, 10m, 2h. It bounds the fuzzing: the reduction of the stored bugs comes after it (--reduce-time each).")] = None,
    mutants: Annotated[int | None, typer.Option("--mutants", min=1, help="Stop after this many mutants (over all jobs).")] = None,
    jobs: Annotated[int, typer.Option("--jobs", min=1, help="Worker processes; worker k takes seed positions k, k+N, ...")] = 1,
    timeout: Annotated[float | None, typer.Option("--timeout", min=0.1, help=f"Seconds per solver call. Default: {default_of('timeout'):g}.")] = None,
    campaign_seed: Annotated[int | None, typer.Option("--seed", help="Campaign seed: fixes seed order and every mutant. Default: from the clock.")] = None,
    out: Annotated[Path | None, typer.Option("--campaign", "-c", "--out", help="Campaign folder to create (or continue with --resume), named as in every other command; --out is the older name. Default: campaigns/<timestamp>.")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the campaign in --campaign with its stored configuration.")] = False,
    mutants_per_seed: Annotated[int | None, typer.Option("--mutants-per-seed", min=1, help=f"Mutants made from each seed. Default: {default_of('mutants_per_seed')}.")] = None,
    rename_prob: Annotated[float | None, typer.Option("--rename-prob", min=0.0, max=1.0, help=f"Chance that a fresh generated variable is renamed to a seed variable of its sort. Default: {default_of('rename_prob'):g}.")] = None,
    seed_timeout: Annotated[float | None, typer.Option("--seed-timeout", min=0.1, help=f"Seconds each solver gets for a seed's check before mutation; slower seeds are set aside (their mutants would mostly time out). Default: {default_of('seed_timeout'):g}.")] = None,
    fast_seed_factor: Annotated[int | None, typer.Option("--fast-seed-factor", min=1, help=f"A seed whose mutants all answer within {FAST_MUTANT_SECONDS:g} s gets up to this many times --mutants-per-seed mutants (cheap tests first); 1 turns it off. Default: {default_of('fast_seed_factor')}.")] = None,
    timeout_factor: Annotated[float | None, typer.Option("--timeout-factor", min=0.0, help=f"Calibrated limits: a mutant gets this many times its seed's slowest check time, at most --timeout (a mutant far slower than its seed would time out anyway), and at least a floor learnt from the campaign's answers (see --undecided-budget); 0 gives every call --timeout. Default: {default_of('timeout_factor'):g}.")] = None,
    undecided_budget: Annotated[float | None, typer.Option("--undecided-budget", min=0.0, max=1.0, help=f"The floor of the calibrated limits is the shortest limit that leaves at most this share of the mutants it bounds undecided (time-outs, and unknowns counted against it), between {LOWEST_FLOOR:g} and {MIN_MUTANT_TIMEOUT:g} s, learnt from the recent mutants' answer times: fast mutants stop waiting long for their few slow ones. 0 keeps it at {MIN_MUTANT_TIMEOUT:g} s. Default: {default_of('undecided_budget'):g}.")] = None,
    even_theories: Annotated[bool, typer.Option("--even-theories", help="Draw every theory equally often. Default: at the start, 20 sampled terms per theory go to every solver, and a theory is drawn in proportion to the share all of them accept (an older release that lacks operators, or a theory one solver lacks, then wastes few mutants).")] = False,
    fresh_processes: Annotated[bool, typer.Option("--fresh-processes", help="Start a new solver process for every script. Default: z3 and cvc5 keep one process per worker (much faster for cvc5); any verdict is confirmed in fresh processes before it is stored.")] = False,
    process_scripts: Annotated[int, typer.Option("--process-scripts", min=1, help=f"Scripts a long-lived solver process answers before a new one replaces it. Fewer bound the memory a solver accumulates and what a process killed at a time-out takes with it: a z3 built with gcov writes its counters only when it exits normally (bench/coverage.py runs 20). --fresh-processes starts one for every script instead. Default: {SCRIPTS_PER_PROCESS}.")] = SCRIPTS_PER_PROCESS,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress and no messages while running; the summary still comes at the end.")] = False,
    log_every: Annotated[float, typer.Option("--log-every", min=0.0, callback=_log_floor, help=f"When stdout is not a terminal (a log file, CI), print a timestamped statistics line every this many seconds (at least {LOG_FLOOR:g}); 0: none. On a terminal a live line is shown instead.")] = 10.0,
    fail_on_bug: Annotated[bool, typer.Option("--fail-on-bug", help="Exit with status 1 when this run stored a new bug or seed finding (for CI).")] = False,
    max_seed_bytes: Annotated[int | None, typer.Option("--max-seed-bytes", min=1, help=f"Seeds larger than this are skipped with a message (parsing and mutating a huge seed costs minutes and gigabytes). Default: {default_of('max_seed_bytes'):,}.")] = None,
    unconfined: Annotated[bool, typer.Option("--unconfined", help=UNCONFINED_HELP)] = False,
    strategies: Annotated[str | None, typer.Option("--strategies", help=f"Strategies and their weights, e.g. 'sphinx,fusion=2,storm': each seed position draws one. {STRATEGY_LIST}. Default: {default_of('strategies')}.")] = None,
    scheduler: Annotated[str | None, typer.Option("--scheduler", help="fixed: draw strategies by the --strategies weights; bandit: favour the strategies whose cases found crashes, verdicts and new operator pairs per solver call. Default: fixed.")] = None,
    options: Annotated[str | None, typer.Option("--options", help="Solver options per seed position, on the targets' command lines (stored bugs, replay, reduce and bisect keep them): 'random' (the default) draws up to 3 options per target from its release's option table (`sphinxfuzz solvers options`; built on first use, seconds per release), 'random:K' up to K; 'none' runs the targets as --solvers names them; 'compare' (or 'compare:K') runs each target plain and, as a second target (z3#2), with the options 'random' draws: one solver judged against itself; 'z3: smt.arith.solver=2; cvc5: --nl-ext-tplanes' fixes them per family. Options reach code no formula does: an hour of z3 4.12.2 covered 38.5% of its lines with them, 32.1% without. Default: random.")] = None,
    trusted: Annotated[str | None, typer.Option("--trusted", help=f"The solvers (one, or several as 'z3;cvc5') that label seeds sat/unsat (fusion, sae, janus, canary, octopus) from clean runs they agree on, give storm, canary and octopus their models (and octopus its unsat cores), and re-run every expected-answer verdict's formula (a trusted solver answering as the target did makes it a construction doubt, not a bug); not targets, so an old release under test never vouches for itself. Default: '{default_of('trusted')}'.")] = None,
    newest: Annotated[str | None, typer.Option("--newest", help="The newest release of each solver family every stored bug is replayed on, to record it alive or fixed today, e.g. 'z3@5.4.1;cvc5'. Default: the newest installed wheel of each family.")] = None,
    known: Annotated[str | None, typer.Option("--known", metavar="DIR", help="A folder of upstream bug reproducers named <tracker>_<issue>_<n>.smt2 (z3_3453_0.smt2): a stored crash in the place of one of them, on the same release and command line, is marked 'likely known: z3#3453'. The reproducers of the blamed family run when a bug is stored, a batch at a time, once per release (cached). Without it, stored bugs are still checked against docs/bugs-found.json and seed file names.")] = None,
    history: Annotated[str | None, typer.Option("--history", metavar="DIR", help="A folder of historical bug triggers named <tracker>_<issue>_<n>.smt2 (z3_3453_0.smt2): the histfuzz strategy fills seeds' holes with their sub-terms, each mutant recording the trackers and files it drew from. Without it, histfuzz applies to no seed.")] = None,
    reduce: Annotated[bool | None, typer.Option("--reduce/--no-reduce", help="After the fuzzing (--time, --mutants or one pass: the fuzzing's budget alone), reduce every stored bug and seed finding not reduced yet with ddSMT, as `sphinxfuzz reduce` does, each for at most --reduce-time; Ctrl-C stops it and a resume goes on. A reduced formula is kept only when a reference solver reads it cleanly and it shows the same bug; otherwise the bug says why not (`bugs list`). Not beside the fuzzing: on two cores ddSMT would take the fuzzer's CPU. A resume may change it. Default: --reduce.")] = None,
    reduce_time: Annotated[str | None, typer.Option("--reduce-time", help=f"The longest reduction of one bug (90s, 5m); ddSMT's best so far is kept. Default: {default_of('reduce_time'):g} s.")] = None,
    ray: Annotated[str | None, typer.Option("--ray", metavar="ADDRESS", help="Run the --jobs workers as actors of the Ray cluster at ADDRESS (host:port of `ray start --head`, or ray://host:10001); `--ray local` starts Ray on this machine with a CPU per job. Needs `pip install 'sphinxfuzz[ray]'`.")] = None,
) -> None:  # fmt: skip
    console = Console(soft_wrap=True)
    seconds = duration(time_limit)
    try:
        per_bug = None if reduce_time is None else parse_duration(reduce_time)
    except ValueError as exc:
        raise CampaignError(f"reduce_time: {exc}", setting="reduce_time") from None
    if resume and out is None:
        raise CampaignError("resuming needs the campaign folder to continue", setting="campaign")
    root = out or Path("campaigns") / time.strftime("%Y%m%d-%H%M%S")
    given: dict[str, object | None] = {
        "seeds": tuple(seeds) if seeds else None,
        "solvers": solvers,
        "generators": generators,
        "campaign_seed": campaign_seed,
        "mutants_per_seed": mutants_per_seed,
        "rename_prob": rename_prob,
        "timeout": timeout,
        "seed_timeout": seed_timeout,
        "fast_seed_factor": fast_seed_factor,
        "timeout_factor": timeout_factor,
        "undecided_budget": undecided_budget,
        "adapt_theories": False if even_theories else None,
        "max_seed_bytes": max_seed_bytes,
        "strategies": strategies,
        "scheduler": scheduler,
        "options": options,
        "trusted": trusted,
        "newest": newest,
        "reduce": reduce,
        "reduce_time": per_bug,
        "known": known,
        "history": history,
    }
    campaign = prepare(given, root, resume=resume, unconfined=unconfined,
                       say=None if quiet else _say(console))  # fmt: skip
    config = campaign.config
    console.print(
        f"campaign [bold]{escape(visible(str(root)))}[/] seed {config.campaign_seed}, solvers "
        f"{escape(visible(repr(config.solvers)))}, "
        f"{'resuming' if resume else 'starting'} with {jobs} job(s)"
        + (f" on Ray ({ray})" if ray else ""),
        highlight=False,
    )
    with Progress(console, progress_mode(console, quiet), log_every) as shown:
        try:
            summary = run_campaign(
                campaign, root, time=seconds, mutants=mutants, jobs=jobs, resume=resume,
                on_progress=shown.update, on_message=shown.message, persistent=not fresh_processes,
                process_scripts=process_scripts,
                unconfined=unconfined, ray=ray, status_every=log_every,
            )  # fmt: skip
        except SphinxfuzzError:
            shown.stop()  # the error is printed below the last progress line
            raise
    console.print(summary_table(summary.stats, summary.fuzzing_seconds, options=summary.options))
    console.print(visible(closing_line(summary.new_bugs, root)), highlight=False, markup=False)
    if fail_on_bug and summary.new_bugs:
        raise typer.Exit(1)


def closing_line(new_bugs: int, root: Path) -> str:
    """What to do next, true whether or not this run stored anything."""
    if new_bugs:
        return f"{new_bugs} new bug(s) stored in {root}; list them with `sphinxfuzz bugs list -c {root}`"
    return (f"no new bug stored; the campaign is in {root} (`sphinxfuzz status -c {root}`, "
            f"`sphinxfuzz report -c {root}`)")  # fmt: skip


def register(app: typer.Typer) -> None:
    app.command("fuzz", help=HELP)(fuzz)
