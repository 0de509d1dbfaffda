"""Known bugs: is a stored finding one that is reported already?

A finding is marked "likely known" (known.json in its folder, `bugs.record.Known`) when:
- it is a seed finding whose seed file names an issue of the blamed family's tracker:
  `z3_3453_0.smt2` (as the upstream reproducers are named) or `issue9078-1.smt2` (as cvc5's
  regressions name theirs; the tracker is the one a folder of its path names, else the
  blamed family's);
- it crashes in the place (`bugs.shapes.crash_place`) of an entry of our own
  docs/bugs-found.json on the same family: "bugs-found 6";
- it crashes in the place of an upstream reproducer of the same family on the same release
  and command line: a corpus folder (the campaign's `known` setting) of files named
  `<tracker>_<issue>_<n>.smt2`.

Each reproducer runs once per release and command line, with a short limit
(`REPRODUCER_TIMEOUT`), and its signature is cached per release in the solver cache
(`<cache>/known/`, filed by `solvers.versions.cache_name`, with how they were made: a
changed run or signing, `KNOWN_PROBE`, makes them again). The runs happen only when a
finding is recognised (a campaign stores one, or a command judges the folder), only for the
reproducers of the blamed family, at most `BATCH` new ones a time, those sharing most
operators with the finding first: a campaign pays for them only when it stores a bug, and the
cache fills across findings and campaigns. Only crash signatures match: a wrong answer's
signature names no place, and the same words on another formula say nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path

from sphinxfuzz.bugs.record import (
    BugFileError,
    BugRecord,
    Known,
    SeedFindingRecord,
    load_record,
    load_reduction,
    write_known,
)
from sphinxfuzz.bugs.shapes import crash_place, operator_heads, same_place
from sphinxfuzz.datafiles import doc_file
from sphinxfuzz.errors import InputError
from sphinxfuzz.fileio import write_atomic
from sphinxfuzz.oracle import VerdictKind
from sphinxfuzz.oracle.backtrace import crash_identity, gdb_backtrace
from sphinxfuzz.oracle.dialect import for_family
from sphinxfuzz.smtlib import SmtParseError
from sphinxfuzz.solvers import Family, Outcome, SolverSpec, SolverSpecError, parse_specs, run_solver
from sphinxfuzz.solvers.installs import cache_root
from sphinxfuzz.solvers.versions import cache_name, probe_digest

# tracker name in a reproducer's file name -> (the family whose bugs it holds, issue URL), as
# the family records list them (`FamilyRecord.trackers`)
TRACKERS: dict[str, tuple[Family, str]] = {
    name: (family, url) for family in Family for name, url in family.record.trackers
}
# the tracker of a family's own issues (an `issueNNNN` seed of that family's regressions)
FAMILY_TRACKER = {
    f: f.record.trackers[0][0] for f in Family if f.record.trackers and f.record.builtin
}
# the page of the bugs our own runs found, as the project ships it
BUGS_FOUND_PAGE = "docs/bugs-found.md"

# a reproducer's limit: reported bugs show fast, and most reproducers answer in milliseconds
REPRODUCER_TIMEOUT = 2.0
REPRODUCER_MEMORY_MB = 2048
# new reproducers run per recognition (the cache keeps every one ever run)
BATCH = 100
# The version of how a reproducer is run and signed (`signature_of`): raise it when that
# changes, and every release's cached signatures are made again (`made_by`).
KNOWN_PROBE = 1

_REPRODUCER = re.compile(rf"^(?P<tracker>{'|'.join(map(re.escape, TRACKERS))})_(?P<issue>\d+)_\d+$")
_ISSUE_SEED = re.compile(r"^issue(?P<issue>\d+)(?:[-_.].*)?$", re.IGNORECASE)


@dataclass(frozen=True)
class Reproducer:
    path: Path
    tracker: str
    issue: int

    @property
    def family(self) -> Family:
        return TRACKERS[self.tracker][0]

    @property
    def label(self) -> str:
        return f"{self.tracker}#{self.issue}"

    @property
    def link(self) -> str:
        return f"{TRACKERS[self.tracker][1]}{self.issue}"


def tracker_issue(path: Path) -> tuple[str, int] | None:
    """(tracker, issue) a reproducer's file name gives: `cvc5-projects_114_0.smt2`."""
    found = _REPRODUCER.match(path.stem)
    return (found["tracker"], int(found["issue"])) if found else None


def _issue(tracker: str, issue: int, why: str) -> Known:
    return Known(f"{tracker}#{issue}", f"{TRACKERS[tracker][1]}{issue}", why)


def from_seed_name(seed_file: str, family: Family) -> Known | None:
    """The issue a seed file's name gives, when its tracker holds the blamed family's bugs (z3
    crashing on a cvc5 reproducer is news to z3)."""
    path = Path(seed_file)
    named = tracker_issue(path)
    if named is None:
        found = _ISSUE_SEED.match(path.stem)
        if found is None:
            return None
        # a folder that names a tracker (regressions/cvc5/.../issue9078-1.smt2), else the family's
        tracker = next(
            (part for part in reversed(path.parts[:-1]) if part in TRACKERS),
            FAMILY_TRACKER.get(family),
        )
        if tracker is None:
            return None
        named = (tracker, int(found["issue"]))
    if TRACKERS[named[0]][0] != family:
        return None
    return _issue(*named, f"the seed file {path.name} names the issue")


@dataclass(frozen=True)
class FoundEntry:
    number: int  # its place on docs/bugs-found.md, from 1
    id: str
    family: str
    kind: str
    signature: str


@cache
def bugs_found() -> tuple[FoundEntry, ...]:
    """The entries of docs/bugs-found.json (shipped in the wheel: `datafiles.doc_file`)."""
    path = doc_file("bugs-found.json")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return tuple(
            FoundEntry(number, str(e["id"]), str(e["family"]), str(e["kind"]), str(e["signature"]))
            for number, e in enumerate(data, 1)
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{path}: not a list of bugs-found entries ({exc})") from None


def _crash_match(family: str, signature: str, other_family: str, other: str) -> bool:
    """Two crashes of one family in one place (`bugs.shapes.same_place`: the release a
    reproducer or an entry was found on may crash one frame off), or with one signature when
    it names no place; a signature without a message (a bare signal, an exit status)
    matches nothing."""
    if family != other_family:
        return False
    if crash_place(signature) is not None:
        return same_place(signature, other)
    if re.search(r": (?:killed by signal \d+|exit -?\d+)$", signature):
        return False
    return signature == other


def from_bugs_found(family: str, kind: str, signature: str) -> Known | None:
    if kind != VerdictKind.CRASH:
        return None
    for entry in bugs_found():
        if entry.kind == VerdictKind.CRASH and _crash_match(
            family, signature, entry.family, entry.signature
        ):
            why = f"the same crash place as docs/bugs-found.md entry {entry.number} ({entry.id})"
            return Known(f"bugs-found {entry.number}", f"{BUGS_FOUND_PAGE} ({entry.id})", why)
    return None


def reproducers(corpus: Path, family: Family) -> list[Reproducer]:
    """The corpus's reproducers of `family`, by name."""
    if not corpus.is_dir():
        raise InputError(f"{corpus}: not a folder of reproducers", setting="known")
    found = []
    for path in sorted(corpus.glob("*.smt2")):
        named = tracker_issue(path)
        if named is not None and TRACKERS[named[0]][0] == family:
            found.append(Reproducer(path, *named))
    return found


def _cache_path(spec: SolverSpec) -> Path:
    return cache_root().parent / "known" / cache_name(spec)


def made_by(spec: SolverSpec) -> str:
    """How `spec`'s reproducer signatures are made: `KNOWN_PROBE`, the run's limits and the
    record's fields a run reads (`solvers.versions.probe_digest`)."""
    return probe_digest(spec, [KNOWN_PROBE, REPRODUCER_TIMEOUT, REPRODUCER_MEMORY_MB])


def _read_cache(path: Path, made: str) -> dict[str, dict[str, str]]:
    """file name -> its text's digest and signature; {} when made otherwise than `made`
    says (an older run or signing): those runs are redone, never used."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # none yet, or damaged: the runs are redone
    if not isinstance(data, dict) or data.get("made_by") != made:
        return {}
    files = data.get("files")
    return (
        {k: v for k, v in files.items() if isinstance(v, dict)} if isinstance(files, dict) else {}
    )


def signature_of(spec: SolverSpec, text: str) -> str:
    """What a reproducer does on `spec`: its crash signature (signed by its stack where gdb
    can, as a campaign signs it), else "" (it answered, timed out or was rejected)."""
    try:
        script = for_family(text, spec.family)
    except SmtParseError:
        return ""
    result = run_solver(spec, script, timeout=REPRODUCER_TIMEOUT, memory_mb=REPRODUCER_MEMORY_MB)
    if result.outcome != Outcome.CRASH:
        return ""
    debugger = partial(gdb_backtrace, timeout=REPRODUCER_TIMEOUT, memory_mb=REPRODUCER_MEMORY_MB)
    return crash_identity(result, script, debugger).signature


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()[:12]


def corpus_signatures(
    corpus: Path, spec: SolverSpec, *, prefer: AbstractSet[str] = frozenset(), batch: int = BATCH
) -> dict[str, str]:
    """file name -> signature of every reproducer of the spec's family whose run the cache
    holds for this release and command line, after running at most `batch` new ones (those
    sharing most operator heads with `prefer` first)."""
    path, made = _cache_path(spec), made_by(spec)
    cached = _read_cache(path, made)
    texts = {}
    for reproducer in reproducers(corpus, spec.family):
        try:
            texts[reproducer.path.name] = reproducer.path.read_text(
                encoding="utf-8", errors="replace"
            )
        except OSError:
            continue
    todo = [n for n, t in texts.items() if cached.get(n, {}).get("sha") != _digest(t)]
    if prefer:
        todo.sort(key=lambda n: -len(prefer & operator_heads(texts[n])))
    for done, name in enumerate(todo[:batch], 1):
        cached[name] = {"sha": _digest(texts[name]), "signature": signature_of(spec, texts[name])}
        if done % 20 == 0 or done == min(batch, len(todo)):  # a stop keeps most of the work
            data = {"spec": spec.text, "made_by": made, "files": cached}
            write_atomic(path, json.dumps(data, indent=1) + "\n")
    return {
        n: entry.get("signature", "")
        for n, entry in cached.items()
        if n in texts and entry.get("sha") == _digest(texts[n])
    }


def _blamed_spec(record: BugRecord) -> SolverSpec | None:
    """The blamed solver's command line: the reduced one (only the options it needs) when
    reduced."""
    reduction = load_reduction(record.folder)
    summaries = reduction.results if reduction and reduction.results else record.solvers
    summary = next((s for s in summaries if s.name == record.verdict.solver), None)
    if summary is None:
        return None
    try:
        return next(s for s in parse_specs(summary.spec) if s.name)
    except (SolverSpecError, StopIteration):
        return None


def from_corpus(record: BugRecord, corpus: Path, *, batch: int = BATCH) -> Known | None:
    spec = _blamed_spec(record)
    if spec is None:
        return None
    signature = record.verdict.signature
    formula = record.reduced() or record.formula()
    found = corpus_signatures(corpus, spec, prefer=operator_heads(formula), batch=batch)
    for name in sorted(found):
        if found[name] and _crash_match(spec.family, signature, spec.family, found[name]):
            tracker, issue = tracker_issue(Path(name)) or ("", 0)
            why = f"the same crash place as reproducer {name} on {spec.text}"
            return _issue(tracker, issue, why)
    return None


def recognise(folder: Path, corpus: Path | None = None, *, batch: int = BATCH) -> Known | None:
    """Whether the finding in `folder` is likely known (see the module docstring); a match
    is written to its known.json. `corpus`: a folder of upstream reproducers, or None."""
    try:
        record = load_record(folder)
    except BugFileError:
        return None
    verdict = record.verdict
    blamed = record.summary_of(verdict.solver)
    family = Family.read(blamed.family) if blamed is not None else Family.OTHER
    known = None
    if isinstance(record, SeedFindingRecord):
        known = from_seed_name(record.seed_file, family)
    # an upstream issue before our own page: the maintainers know it by its issue
    if known is None and corpus is not None and verdict.kind == VerdictKind.CRASH:
        known = from_corpus(record, corpus, batch=batch)
    if known is None and blamed is not None:
        known = from_bugs_found(blamed.family, verdict.kind, verdict.signature)
    if known is not None:
        write_known(folder, known)
    return known
