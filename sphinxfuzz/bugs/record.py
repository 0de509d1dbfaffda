"""The bug folder: its file names, what each file holds, and the one loader that reads them.

    bugs/<id>/            a mutant that showed a verdict
        verdict.json      BugRecord: the verdict, the mutant's origin, every solver's summary
        mutant.smt2       the trigger
        <solver>.stdout/.stderr, check.smt2 and check-<solver>.* (the model check, if any)
        reduced.smt2      `sphinxfuzz reduce`: the smallest candidate still showing the bug
        reduce.json       ... and its Reduction record, written last
        not-reduced.json  NotReduced: why the campaign's reduction kept no reduced formula
        bisect.json       `sphinxfuzz bisect`: the Bisection over the blamed solver's releases
        known.json        `bugs.known`: the reported bug it likely is (Known)
    seed-findings/<id>/   the same with seed.smt2 for an unmutated seed (SeedFindingRecord)

Every module reads these files through this one (`load_record`, `load_reduction`,
`load_bisection`); a file that is there but unreadable or malformed raises BugFileError
naming it and what is wrong. Every write is atomic.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from sphinxfuzz.errors import InputError
from sphinxfuzz.fileio import write_atomic
from sphinxfuzz.oracle import Verdict
from sphinxfuzz.solvers import Family, SolverResult
from sphinxfuzz.solvers.families import UNKNOWN_VERSION, parse_version
from sphinxfuzz.solvers.options.standing import Standing

VERDICT = "verdict.json"
MUTANT = "mutant.smt2"
SEED = "seed.smt2"
CHECK = "check.smt2"
REDUCED = "reduced.smt2"
REDUCE_META = "reduce.json"
NOT_REDUCED = "not-reduced.json"
BISECT = "bisect.json"


class BugFileError(InputError):
    """A file of a bug folder that is missing, unreadable or malformed."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BugFileError(path, "missing") from None
    except (OSError, ValueError) as exc:  # ValueError: also a number past Python's int digits
        raise BugFileError(path, f"unreadable: {exc}") from None
    if not isinstance(data, dict):
        raise BugFileError(path, f"expected a JSON object, found {type(data).__name__}")
    return data


class _Fields:
    """Typed access to one JSON object of a file; a wrong field names the file and the key."""

    def __init__(self, path: Path, data: Mapping[str, Any], where: str = "") -> None:
        self.path, self.data, self.where = path, data, where

    def fail(self, key: str, problem: str) -> BugFileError:
        return BugFileError(self.path, f"{self.where}{key!r} {problem}")

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
        if key not in self.data or self.data[key] is None:
            if default is ...:
                raise self.fail(key, "is missing")
            return default
        value = self.data[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise self.fail(key, f"should be {_kind_name(kind)}, not {value!r}"[:200])
        return value

    def seconds(self, key: str) -> float:
        """A time stamp (0.0 when absent): a finite number a date can be made of."""
        value = self.get(key, (int, float), 0.0)
        if not 0 <= value < 1e11:  # (a number of 400 digits overflows a float or a date)
            raise self.fail(key, f"is not a time in seconds: {str(value)[:40]}")
        return float(value)

    def strings(self, key: str) -> list[str]:
        values = self.get(key, list, [])
        if not all(isinstance(v, str) for v in values):
            raise self.fail(key, "should be a list of strings")
        return list(values)

    def objects(self, key: str) -> list[dict[str, Any]]:
        values = self.get(key, list, [])
        if not all(isinstance(v, dict) for v in values):
            raise self.fail(key, "should be a list of objects")
        return list(values)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)


# -- solver summaries -----------------------------------------------------------------------


@dataclass(frozen=True)
class SolverSummary:
    """One solver's run as stored: its command line, version and what it did."""

    name: str
    spec: str
    family: str = Family.OTHER
    argv: tuple[str, ...] = ()
    version: str = ""
    outcome: str = ""
    answers: tuple[str, ...] = ()
    exit_code: int | None = None
    elapsed: float = 0.0
    failure_line: str | None = None
    model_check_failed: bool = False

    @classmethod
    def of(cls, result: SolverResult) -> SolverSummary:
        return cls(
            result.spec.name, result.spec.text, result.spec.family, tuple(result.spec.argv),
            result.version, str(result.outcome), tuple(result.answers), result.exit_code,
            round(result.elapsed, 4), result.failure_line, result.model_check_failed,
        )  # fmt: skip

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        data["argv"], data["answers"] = list(self.argv), list(self.answers)
        return data

    @classmethod
    def from_json(cls, fields: _Fields) -> SolverSummary:
        return cls(
            name=fields.get("name", str),
            spec=fields.get("spec", str),
            family=fields.get("family", str, Family.OTHER),
            argv=tuple(fields.strings("argv")),
            version=str(fields.get("version", (str, int, float), "")),
            outcome=fields.get("outcome", str, ""),
            answers=tuple(fields.strings("answers")),
            exit_code=fields.get("exit_code", int, None),
            elapsed=float(fields.get("elapsed", (int, float), 0.0)),
            failure_line=fields.get("failure_line", str, None),
            model_check_failed=fields.get("model_check_failed", bool, False),
        )

    @property
    def answer_text(self) -> str:
        """Its answers in order, or its outcome when it gave none."""
        return " ".join(self.answers) or self.outcome


def _summaries(fields: _Fields, key: str) -> list[SolverSummary]:
    return [
        SolverSummary.from_json(_Fields(fields.path, item, f"{key}[{i}]."))
        for i, item in enumerate(fields.objects(key))
    ]


def _verdict(fields: _Fields, key: str = "verdict") -> Verdict:
    data = fields.get(key, dict)
    try:
        return Verdict.from_json(data)
    except ValueError as exc:
        raise fields.fail(key, f"is not a verdict: {exc}") from None


# -- the verdict record -----------------------------------------------------------------------

ALIVE, FIXED, UNDECIDED = "alive", "fixed", "undecided"


@dataclass(frozen=True)
class Today:
    """The bug replayed on the newest release of its blamed family (`bugs.refresh`):
    alive (it still shows), fixed (that release answers cleanly) or undecided (rejected the
    formula, timed out, could not run), with the release and when it was checked."""

    status: str  # ALIVE, FIXED or UNDECIDED
    solver: str  # the spec it ran, "z3@5.4.1"
    version: str  # what that solver reported, "5.4.1"
    detail: str = ""  # the signature it showed, or what it answered
    checked_at: float = 0.0
    # alive as a crash, but the newest release crashes with a signature told apart from the
    # stored one (a status of its own would make older records unreadable)
    another_crash: bool = False

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_json(cls, fields: _Fields) -> Today:
        data = _Fields(fields.path, fields.get("today", dict), "today.")
        status = data.get("status", str)
        if status not in (ALIVE, FIXED, UNDECIDED):
            raise data.fail("status", f"is {status!r}, not one of {ALIVE}, {FIXED}, {UNDECIDED}")
        return cls(status, data.get("solver", str), data.get("version", str),
                   data.get("detail", str, ""), data.seconds("checked_at"),
                   data.get("another_crash", bool, False))  # fmt: skip

    def sentence(self) -> str:
        """ "alive in z3@5.4.1", "fixed in z3 (5.4.1)" and the like, for reports."""
        where = self.solver if self.version in self.solver else f"{self.solver} ({self.version})"
        alive = "alive (another crash)" if self.another_crash else "alive"
        return {ALIVE: f"{alive} in {where}", FIXED: f"fixed in {where}"}.get(
            self.status, f"undecided in {where}: {self.detail}"
        )


@dataclass(frozen=True)
class Origin:
    """Where a tested formula came from in its campaign: what a stored bug records of it
    (and, with the campaign seed, what makes the formula again)."""

    campaign_seed: int
    seed_file: str
    position: int
    mutant: int  # the case's number in its position's sequence
    strategy: str  # the strategy that made it (`fuzz --strategies`)
    theories: tuple[str, ...] = ()  # of the generated terms in it


@dataclass(frozen=True)
class BugRecord:
    """verdict.json of a mutant's bug folder, and where the folder is."""

    folder: Path
    id: str
    verdict: Verdict
    seed_file: str
    solvers: list[SolverSummary]
    campaign_seed: int | None = None
    position: int | None = None
    mutant: int | None = None
    theories: list[str] = field(default_factory=list)
    check: list[SolverSummary] = field(default_factory=list)
    # the strategy that made the formula (`fuzz --strategies`); "" in a folder stored before
    # strategies were recorded
    strategy: str = ""
    today: Today | None = None  # on the newest release of its family (`bugs.refresh`)

    formula_name = MUTANT  # the trigger's file in the folder

    @property
    def formula_path(self) -> Path:
        return self.folder / self.formula_name

    def formula(self) -> str:
        return read_text(self.formula_path)

    @property
    def reduced_path(self) -> Path:
        return self.folder / REDUCED

    def reduced(self) -> str | None:
        return read_text(self.reduced_path) if self.reduced_path.is_file() else None

    def output(self, solver: str, stream: str) -> str:
        """A solver's stored stdout or stderr ("" when it printed nothing)."""
        path = self.folder / f"{safe_name(solver)}.{stream}"
        return read_text(path) if path.is_file() else ""

    def summary_of(self, name: str | None) -> SolverSummary | None:
        return next((s for s in self.solvers if s.name == name), None)

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "seed_file": self.seed_file,
            "campaign_seed": self.campaign_seed,
            "position": self.position,
            "mutant": self.mutant,
            "theories": list(self.theories),
            "strategy": self.strategy,
            "verdict": self.verdict.to_json(),
            "solvers": [s.to_json() for s in self.solvers],
            "check": [s.to_json() for s in self.check],
            **({"today": self.today.to_json()} if self.today else {}),
        }


@dataclass(frozen=True)
class SeedFindingRecord(BugRecord):
    """verdict.json of a seed finding: the unmutated seed misbehaved (no mutant origin)."""

    formula_name = SEED

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "seed_file": self.seed_file,
            "verdict": self.verdict.to_json(),
            "solvers": [s.to_json() for s in self.solvers],
            **({"today": self.today.to_json()} if self.today else {}),
        }


def read_text(path: Path) -> str:
    """A file of a bug folder (BugFileError when it is missing or unreadable)."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BugFileError(path, "missing") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BugFileError(path, f"unreadable: {exc}") from None


def is_reduced(folder: Path) -> bool:
    """reduce.json is written last: a bug counts as reduced once it exists."""
    return (folder / REDUCE_META).is_file()


def is_bug_folder(path: Path) -> bool:
    return (path / VERDICT).is_file()


def load_record(folder: Path) -> BugRecord:
    """The folder's verdict.json as a BugRecord (a SeedFindingRecord for a seed finding)."""
    path = folder / VERDICT
    fields = _Fields(path, _read_json(path))
    common = {
        "folder": folder,
        "id": fields.get("id", str, folder.name),
        "verdict": _verdict(fields),
        "seed_file": fields.get("seed_file", str),
        "solvers": _summaries(fields, "solvers"),
        "today": Today.from_json(fields) if "today" in fields.data else None,
    }
    if "position" not in fields.data:  # only a mutant has an origin in the campaign
        record: BugRecord = SeedFindingRecord(**common)
    else:
        record = BugRecord(
            **common,
            campaign_seed=fields.get("campaign_seed", int),
            position=fields.get("position", int),
            mutant=fields.get("mutant", int),
            theories=fields.strings("theories"),
            check=_summaries(fields, "check"),
            strategy=fields.get("strategy", str, ""),
        )
    if not record.formula_path.is_file():
        raise BugFileError(record.formula_path, f"missing: {VERDICT} names a {record.formula_name}")
    return record


def write_today(record: BugRecord, today: Today) -> BugRecord:
    """Record the bug's status on the newest release in its verdict.json (atomically)."""
    updated = replace(record, today=today)
    write_atomic(record.folder / VERDICT, json.dumps(updated.to_json(), indent=2, default=str))
    return updated


def bug_files(
    record: BugRecord,
    formula: str,
    results: Sequence[SolverResult],
    check_script: str | None = None,
    check_results: Sequence[SolverResult] = (),
) -> dict[str, str]:
    """Every file of a new bug folder, by name (the store writes them as one folder)."""
    files = {
        record.formula_name: formula,
        VERDICT: json.dumps(record.to_json(), indent=2, default=str),
        **result_files(results),
    }
    if check_script is not None:
        files[CHECK] = check_script
        files.update(result_files(check_results, prefix="check-"))
    return files


def safe_name(name: str) -> str:
    """A solver's or seed's name as it can appear in a file name."""
    return re.sub(r"[^\w.+-]", "_", name)


def result_files(results: Sequence[SolverResult], prefix: str = "") -> dict[str, str]:
    files: dict[str, str] = {}
    for result in results:
        name = safe_name(result.spec.name)
        files[f"{prefix}{name}.stdout"] = result.stdout
        files[f"{prefix}{name}.stderr"] = result.stderr
    return files


# -- reduce.json ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Size:
    bytes: int
    nodes: int  # atoms and parenthesised lists, as ddSMT counts S-expressions

    def to_json(self) -> dict[str, int]:
        return {"bytes": self.bytes, "nodes": self.nodes}


@dataclass(frozen=True)
class Reduction:
    """reduce.json: what `sphinxfuzz reduce` did and what the solvers say on its result."""

    bug: str
    ddsmt_version: str
    seconds: float
    finished: bool  # False when the time limit stopped ddSMT early (the result still holds)
    time_limit: float | None
    before: Size
    after: Size
    source: str  # the trigger's file name
    check: dict[str, object]  # the interestingness check spec
    results: list[SolverSummary]  # the solvers on the reduced formula
    verdict: Verdict
    # the reference that read the reduced formula (`reduce`): solver, version, accepted,
    # detail; None for a reduction made before references (or with no reference at all)
    reference: dict[str, object] | None = None
    # the options `reduce` left out ("solver: word"): the bug shows without them
    dropped_options: list[str] = field(default_factory=list)
    # the lowest standing of the blamed solver's options the bug shows at (`option_drop`);
    # None for a reduction made before standings, or when the release did not tell
    standing: Standing | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "bug": self.bug,
            "ddsmt_version": self.ddsmt_version,
            "seconds": self.seconds,
            "finished": self.finished,
            "time_limit": self.time_limit,
            "before": self.before.to_json(),
            "after": self.after.to_json(),
            "source": self.source,
            "check": self.check,
            "results": [r.to_json() for r in self.results],
            "verdict": self.verdict.to_json(),
            "reference": self.reference,
            "dropped_options": self.dropped_options,
            "standing": None if self.standing is None else str(self.standing),
        }

    def reference_sentence(self) -> str:
        """ "accepted by cvc5 1.3.0 without an error line" and the like, for reports."""
        ref = self.reference
        if not ref:
            return "not checked by a reference solver"
        if not ref.get("solver"):
            return f"no reference solver: {ref.get('detail', '')}".rstrip(": ")
        who = f"{ref['solver']} {ref.get('version', '')}".strip()
        if ref.get("accepted"):
            return f"accepted by {who} without an error line"
        return f"NOT accepted by {who}: {ref.get('detail', '')}"


def _size(fields: _Fields, key: str) -> Size:
    inner = _Fields(fields.path, fields.get(key, dict), f"{key}.")
    return Size(inner.get("bytes", int), inner.get("nodes", int))


def load_reduction(folder: Path) -> Reduction | None:
    """The folder's reduce.json, or None when the bug was not reduced."""
    path = folder / REDUCE_META
    if not path.is_file():
        return None
    fields = _Fields(path, _read_json(path))
    return Reduction(
        bug=fields.get("bug", str, folder.name),
        ddsmt_version=fields.get("ddsmt_version", str, UNKNOWN_VERSION),
        seconds=float(fields.get("seconds", (int, float), 0.0)),
        finished=fields.get("finished", bool, True),
        time_limit=fields.get("time_limit", (int, float), None),
        before=_size(fields, "before"),
        after=_size(fields, "after"),
        source=fields.get("source", str, MUTANT),
        check=fields.get("check", dict, {}),
        results=_summaries(fields, "results"),
        verdict=_verdict(fields),
        reference=fields.get("reference", (dict, type(None)), None),
        dropped_options=fields.strings("dropped_options"),
        standing=_standing(fields),
    )


def _standing(fields: _Fields) -> Standing | None:
    word = fields.get("standing", str, None)
    if word is None:
        return None
    try:
        return Standing(word)
    except ValueError:
        raise fields.fail("standing", f"should be one of {', '.join(Standing)}") from None


def write_reduction(folder: Path, reduced: str, reduction: Reduction) -> None:
    """reduced.smt2, then reduce.json last: a bug counts as reduced once that exists."""
    write_atomic(folder / REDUCED, reduced)
    write_atomic(folder / REDUCE_META, json.dumps(reduction.to_json(), indent=2) + "\n")
    (folder / NOT_REDUCED).unlink(missing_ok=True)  # an earlier try's reason no longer holds


@dataclass(frozen=True)
class NotReduced:
    """not-reduced.json: why a campaign's reduction (`campaign.reduction`) kept no reduced
    formula of the bug: it no longer showed, no reference read it, ddSMT failed. A campaign
    does not try it again; `sphinxfuzz reduce` does."""

    bug: str
    why: str
    seconds: float  # what the try cost

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def load_not_reduced(folder: Path) -> NotReduced | None:
    """The folder's not-reduced.json, or None when no reduction was refused."""
    path = folder / NOT_REDUCED
    if not path.is_file():
        return None
    fields = _Fields(path, _read_json(path))
    return NotReduced(
        bug=fields.get("bug", str, folder.name),
        why=fields.get("why", str),
        seconds=float(fields.get("seconds", (int, float), 0.0)),
    )


def write_not_reduced(folder: Path, refused: NotReduced) -> None:
    write_atomic(folder / NOT_REDUCED, json.dumps(refused.to_json(), indent=2) + "\n")


# -- bisect.json ------------------------------------------------------------------------------

BUG, CLEAN, OTHER_CRASH = "bug", "clean", "other crash"


@dataclass
class Tried:
    version: str
    status: str  # bug, clean, or what kept the answer from counting (rejected, timeout, ...)
    detail: str = ""
    # another crash (OTHER_CRASH): signed by its stack, or a bare signal left coarse
    stack: bool = False
    coarse: bool = False


@dataclass
class Bisection:
    """bisect.json: which releases of the blamed solver's family show the bug."""

    bug: str
    solver: str  # the family
    kind: str
    versions: list[Tried]

    def _ordered(self) -> list[Tried]:
        return sorted(self.versions, key=lambda t: parse_version(t.version))

    @property
    def first_bad(self) -> str | None:
        return next((t.version for t in self._ordered() if t.status == BUG), None)

    @property
    def last_bad(self) -> str | None:
        bad = [t.version for t in self._ordered() if t.status == BUG]
        return bad[-1] if bad else None

    @property
    def first_good_after(self) -> str | None:
        last = self.last_bad
        if last is None:
            return None
        later = [t for t in self._ordered() if parse_version(t.version) > parse_version(last)]
        return next((t.version for t in later if t.status == CLEAN), None)

    @property
    def tried(self) -> list[Tried]:
        """The releases tried, oldest first."""
        return self._ordered()

    def to_json(self) -> dict[str, object]:
        return {
            "bug": self.bug,
            "solver": self.solver,
            "kind": self.kind,
            "versions": [asdict(t) for t in self._ordered()],
            "first_bad": self.first_bad,
            "last_bad": self.last_bad,
            "first_good_after": self.first_good_after,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], path: Path = Path(BISECT)) -> Bisection:
        """first_bad, last_bad and first_good_after follow from the versions."""
        fields = _Fields(path, data)
        versions = []
        for i, item in enumerate(fields.objects("versions")):
            entry = _Fields(path, item, f"versions[{i}].")
            versions.append(
                Tried(entry.get("version", str), entry.get("status", str),
                      entry.get("detail", str, ""), entry.get("stack", bool, False),
                      entry.get("coarse", bool, False))
            )  # fmt: skip
        return cls(
            fields.get("bug", str, path.parent.name),
            fields.get("solver", str),
            fields.get("kind", str, ""),
            versions,
        )


def load_bisection(folder: Path) -> Bisection | None:
    """The folder's bisect.json, or None when the bug was never bisected."""
    path = folder / BISECT
    if not path.is_file():
        return None
    return Bisection.from_json(_read_json(path), path)


def write_bisection(folder: Path, bisection: Bisection) -> None:
    write_atomic(folder / BISECT, json.dumps(bisection.to_json(), indent=2))


# -- known.json -------------------------------------------------------------------------------

KNOWN = "known.json"


@dataclass(frozen=True)
class Known:
    """known.json: the finding is likely a bug already reported (`bugs.known.recognise`)."""

    label: str  # "z3#3453", "cvc5-projects#114", "bugs-found 6"
    link: str  # the tracker issue, or the entry of docs/bugs-found.md
    why: str  # what matched: "the same crash place as reproducer z3_3453_0.smt2 on z3 4.8.7"

    def to_json(self) -> dict[str, str]:
        return asdict(self)


def load_known(folder: Path) -> Known | None:
    """The folder's known.json, or None when nothing known matched the finding."""
    path = folder / KNOWN
    if not path.is_file():
        return None
    fields = _Fields(path, _read_json(path))
    return Known(fields.get("label", str), fields.get("link", str), fields.get("why", str, ""))


def write_known(folder: Path, known: Known) -> None:
    write_atomic(folder / KNOWN, json.dumps(known.to_json(), indent=2) + "\n")
