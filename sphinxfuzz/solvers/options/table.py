"""A release's option table: the options a campaign may set on it, each with the values the
release accepted in the probe, and how to hand them over. Built once per release and command
line, cached like the capability cache (`<cache>/options/`), and built again when the rules
file changes. It also holds the standing of every option the release declares
(`standing.py`), drawn or not, read again (one listing, no probe) when what standings are
read by changes (`standing_digest`)."""

from __future__ import annotations

import fcntl
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from sphinxfuzz.fileio import write_atomic
from sphinxfuzz.solvers.families import Family, program_argv
from sphinxfuzz.solvers.installs import cache_root
from sphinxfuzz.solvers.options.choose import choose, load_rules
from sphinxfuzz.solvers.options.declared import Declared, Kind, ListingError, declared_options
from sphinxfuzz.solvers.options.probe import find_delivery, probe
from sphinxfuzz.solvers.options.standing import Standing, standing_digest, standings_of
from sphinxfuzz.solvers.spec import SolverSpec
from sphinxfuzz.solvers.versions import cache_name, solver_version

SCHEMA = "sphinxfuzz/option-table/2"


@dataclass(frozen=True)
class TableOption:
    name: str
    kind: Kind
    default: str | None
    values: tuple[str, ...]  # the non-default values the release accepted


@dataclass(frozen=True)
class OptionTable:
    family: Family
    version: str
    argv: tuple[str, ...]
    delivery: str  # "argv" or "set-option" (probe.py)
    declared: int  # how many options the release declares
    options: tuple[TableOption, ...]
    # by the rules: option (or option=value) -> why
    left_out: dict[str, str] = field(default_factory=dict)
    rejected: dict[str, str] = field(default_factory=dict)  # by the probe: name=value -> why
    probe_runs: int = 0
    seconds: float = 0.0
    rules: str = ""  # digests of the choice rules and the standing rules it was made by
    # every declared option's standing on this release (`standing.standings_of`)
    standings: dict[str, Standing] = field(default_factory=dict)

    @property
    def candidates(self) -> int:
        """Options the rules chose (before the probe); a `name=value` left out is a value."""
        return self.declared - sum("=" not in name for name in self.left_out)

    @property
    def rejected_options(self) -> int:
        """Chosen options of which the probe accepted no value."""
        return self.candidates - len(self.options)

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        return {"schema": SCHEMA, **data, "options": [asdict(o) for o in self.options]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OptionTable:
        """Raises KeyError, TypeError or ValueError on a malformed table."""
        if data.get("schema") != SCHEMA:
            raise ValueError(f"not an option table of schema {SCHEMA}")
        options = tuple(
            TableOption(str(o["name"]), Kind(o["kind"]), _optional(o["default"]),
                        tuple(str(v) for v in o["values"]))
            for o in data["options"]
        )  # fmt: skip
        return cls(
            Family.read(str(data["family"])), str(data["version"]),
            tuple(str(a) for a in data["argv"]), str(data["delivery"]), int(data["declared"]),
            options, {str(k): str(v) for k, v in data["left_out"].items()},
            {str(k): str(v) for k, v in data["rejected"].items()},
            int(data["probe_runs"]), float(data["seconds"]), str(data["rules"]),
            {str(k): Standing(v) for k, v in data["standings"].items()},
        )  # fmt: skip


def _optional(value: object) -> str | None:
    return None if value is None else str(value)


def cache_dir() -> Path:
    return cache_root().parent / "options"


def release_spec(spec: SolverSpec) -> SolverSpec:
    """`spec` without the user's options: a table belongs to the release (its program)."""
    program = program_argv(spec.argv)
    return SolverSpec(" ".join(program), spec.name, spec.family, program)


def table_path(spec: SolverSpec, folder: Path | None = None) -> Path:
    """One file per release: family, version and program (its files by content: a binary, or
    a venv's Python and the shim)."""
    # the release alone: the spec's options are left out
    return (folder or cache_dir()) / cache_name(spec, words=())


def load_table(spec: SolverSpec, folder: Path | None = None) -> OptionTable | None:
    """The cached table of `spec`, or None (none yet, unreadable, or made by other choice
    rules); one made by other standing rules gets its standings read again."""
    try:
        data = json.loads(table_path(spec, folder).read_text(encoding="utf-8"))
        table = OptionTable.from_json(data)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if table.rules == rules_digest():
        return table
    return _restood(spec, table, folder)


def rules_digest() -> str:
    """What a table is made by: the choice rules, then the standing rules."""
    return f"{load_rules().digest}-{standing_digest()}"


def _restood(spec: SolverSpec, table: OptionTable, folder: Path | None) -> OptionTable | None:
    """`table` with the standings of today's rules (a word z3 marks experts by, a note), stored;
    None when other choice rules made it: its options are chosen and probed again."""
    if table.rules.partition("-")[0] != load_rules().digest:
        return None
    release = release_spec(spec)
    try:
        standings = standings_of(release.family, declared_options(release))
    except (ListingError, OSError):
        return None  # building it again says why
    table = replace(table, rules=rules_digest(), standings=standings)
    save_table(spec, table, folder)
    return table


def release_standings(spec: SolverSpec, folder: Path | None = None) -> dict[str, Standing]:
    """The standing of every option `spec`'s release declares: from its cached table, else
    read from the release (one listing, no probe: `bugs list` must not probe a release)."""
    table = load_table(spec, folder)
    if table is not None:
        return table.standings
    release = release_spec(spec)
    return standings_of(release.family, declared_options(release))


def build_table(
    spec: SolverSpec,
    *,
    declared: list[Declared] | None = None,
    say: Callable[[str], None] | None = None,
) -> OptionTable:
    """Read the release's options (or take `declared`), choose by the rules, probe (the
    release alone: the spec's own options are left out)."""
    spec = release_spec(spec)
    started = time.monotonic()
    rules = load_rules()
    listed = declared_options(spec) if declared is None else declared
    candidates, left_out = choose(spec.family, listed, rules)
    ways = rules.delivery.get(spec.family, ("argv",))
    delivery = find_delivery(spec, ways, candidates) if candidates else ways[0]
    accepted, rejected, runs = probe(spec, candidates, delivery, say=say)
    options = tuple(
        TableOption(c.name, c.kind, c.default, accepted[c.name])
        for c in candidates
        if c.name in accepted
    )
    return OptionTable(
        spec.family, solver_version(spec), spec.argv, delivery, len(listed), options, left_out,
        rejected, runs, round(time.monotonic() - started, 1), rules_digest(),
        standings_of(spec.family, listed),
    )  # fmt: skip


def option_table(
    spec: SolverSpec,
    *,
    folder: Path | None = None,
    rebuild: bool = False,
    say: Callable[[str], None] | None = None,
) -> OptionTable:
    """`spec`'s table from the cache, built and stored first when missing (or `rebuild`).
    One process builds it while the others wait (test workers, a cluster's node sharing a
    cache), then read what it stored."""
    table = None if rebuild else load_table(spec, folder)
    if table is not None:
        return table
    path = table_path(spec, folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "a", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # dropped by the kernel however the holder ends
        table = None if rebuild else load_table(spec, folder)
        if table is None:
            table = build_table(spec, say=say)
            save_table(spec, table, folder)
    return table


def option_tables(
    specs: Sequence[SolverSpec], say: Callable[[str], None] | None = None
) -> dict[str, OptionTable]:
    """Spec name -> option table of each spec that has one (`option_table`). A family
    without a table source, or a program whose family is a guess from its file name and
    whose options cannot be listed (a wrapper that prints no help), has none: it runs as
    given, which `say` hears once per spec."""
    tables: dict[str, OptionTable] = {}
    for spec in specs:
        program = program_argv(spec.argv)
        if spec.family.record.table_source(shimmed=len(program) > 1) is None:
            why = ""
        else:
            try:
                tables[spec.name] = option_table(spec, say=say)
                continue
            except ListingError as exc:
                if not spec.guessed:
                    raise
                why = f" ({exc})"
        if say is not None:
            say(f"no option table for {spec.text}{why}: it runs as given")
    return tables


def table_summary(spec: SolverSpec, say: Callable[[str], None] | None = None) -> str:
    """One line on what a campaign draws from for `spec` (`option_tables`); `say` hears of
    a table built."""
    heard: list[str] = []

    def hear(line: str) -> None:
        heard.append(line)
        if say is not None:
            say(line)

    table = option_tables([spec], hear).get(spec.name)
    if table is None:
        return heard[-1]  # why it has none: `option_tables` says so
    experts = sum(s is Standing.EXPERT for s in table.standings.values())
    return (
        f"{len(table.options)} options to draw of {table.declared} declared "
        f"({experts} for experts), set by {table.delivery}"
    )


def save_table(spec: SolverSpec, table: OptionTable, folder: Path | None = None) -> None:
    path = table_path(spec, folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(table.to_json(), indent=1))
