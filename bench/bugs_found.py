"""The bugs sphinxfuzz's own runs found, replayed so that docs/bugs-found.md cannot drift.

    python bench/bugs_found.py            replay every entry and print the table
    python bench/bugs_found.py --write    rewrite the page's table from the data (no solver)
    python bench/bugs_found.py --data FILE --page FILE   another data file or page

The entries live in docs/bugs-found.json, one home: a replay needs the exact formula, release,
options and signature, which a script reads from JSON without parsing prose. The page's part
between its two `bugs-found` markers is written from that file (`--write`), and
tests/bugs/test_bugs_found.py fails when the page and the data disagree.

Each entry is replayed twice, judged as `sphinxfuzz bisect` judges a release
(`bugs.bisect.try_version`):
- on its named release (`z3@4.8.7`, installed into the solver cache as `sphinxfuzz solvers
  install z3==4.8.7` does when missing): it must show the same bug, for a crash the same
  signature (a stack signature needs gdb);
- on the newest installed release of its family (the `z3` or `cvc5` wheel): alive (the bug,
  or another crash), fixed (a clean answer), or undecided; it must agree with the page. A
  failed assertion of a build with assertions (`4.8.11+assert`, made by `sphinxfuzz solvers
  build z3==4.8.11 --assertions`) goes to the newest such build newer than its own instead,
  as `bugs refresh` does: a release checks no assertions. When the entry's own build is not
  in the cache, the command that makes it is named (a failure) and the newest is still asked.
A wrong answer (`soundness`) runs beside its entry's `referees`, judged as a campaign judges
it. The newest release of the other family must also read the formula without an error (valid
SMT-LIB, not a parser's error path). Exit status 1 when any entry fails one of these.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sphinxfuzz.bugs.bisect import try_solver, try_version  # noqa: E402
from sphinxfuzz.bugs.newest import newest_specs, reference_candidates  # noqa: E402
from sphinxfuzz.bugs.record import ALIVE, BUG, CLEAN, FIXED, OTHER_CRASH, UNDECIDED  # noqa: E402
from sphinxfuzz.bugs.refresh import replay_target  # noqa: E402
from sphinxfuzz.oracle import VerdictKind  # noqa: E402
from sphinxfuzz.oracle.same_bug import CheckSpec, accepts  # noqa: E402
from sphinxfuzz.solvers import Family, parse_specs  # noqa: E402
from sphinxfuzz.solvers.families import split_build  # noqa: E402
from sphinxfuzz.solvers.installs import InstallError, install, install_releases  # noqa: E402
from sphinxfuzz.solvers.versions import solver_version  # noqa: E402

DATA = REPO / "docs" / "bugs-found.json"
PAGE = REPO / "docs" / "bugs-found.md"
BEGIN = "<!-- bugs-found: begin (written by python bench/bugs_found.py --write) -->"
END = "<!-- bugs-found: end -->"
TIMEOUT = 20.0
NOT_BUILT = "not built"  # the entry's build with assertions is not in the solver cache


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    kind: str  # crash, invalid-model (a failed own check) or soundness (beside `referees`)
    family: str
    release: str
    options: tuple[str, ...]
    build: str
    strategy: str
    campaign: str  # the run that found it
    signature: str
    newest: str  # the newest release when the page was written ...
    status: str  # ... and what it did there: alive or fixed
    note: str
    formula: str
    # a soundness entry's other solvers (spec texts, `z3`, `cvc5@1.3.2`): their answers and
    # their checks of the sat model decide it, as the campaign's judge does; none beside a
    # crash or an invalid model, which the release shows alone
    referees: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Entry:
        fields = {key: data[key] for key in cls.__dataclass_fields__ if key != "referees"}
        fields["options"] = tuple(data["options"])
        fields["referees"] = tuple(data.get("referees", ()))
        fields["formula"] = "\n".join(data["formula"]) + "\n"  # one line per JSON string
        entry = cls(**fields)
        kind = VerdictKind(entry.kind)
        if kind not in (VerdictKind.CRASH, VerdictKind.INVALID_MODEL, VerdictKind.SOUNDNESS):
            raise ValueError(
                f"{entry.id}: crashes, invalid models and wrong answers are listed, not {kind}"
            )
        if (kind == VerdictKind.SOUNDNESS) != bool(entry.referees):
            raise ValueError(f"{entry.id}: a wrong answer, and only one, names its referees")
        if entry.status not in (ALIVE, FIXED):
            raise ValueError(f"{entry.id}: status {entry.status!r}, not alive or fixed")
        return entry

    @property
    def solver(self) -> str:
        """The spec text of the named release with its options: `z3@4.8.7 smt.arith.solver=2`."""
        return " ".join([f"{self.family}@{self.release}", *self.options])


def load(path: Path = DATA) -> list[Entry]:
    return [Entry.from_json(item) for item in json.loads(path.read_text(encoding="utf-8"))]


def _options(entry: Entry) -> str:
    return " ".join(f"`{o}`" for o in entry.options) or "none"


def _newest_label(entry: Entry) -> str:
    """A failed assertion is judged on the newest build with assertions, not a release."""
    return "newest build" if split_build(entry.newest)[1] else "newest release"


def render(entries: list[Entry]) -> str:
    """The page's generated part: a summary table, then each entry with its formula."""
    lines = [
        BEGIN,
        "",
        "| # | bug | kind | solver | release | options, build | found by | newest release or build |",
        "|---|-----|------|--------|---------|----------------|----------|-------------------------|",
    ]
    for number, e in enumerate(entries, 1):
        lines.append(
            f"| {number} | [{e.title}](#{e.id}) | {e.kind} | {e.family} | {e.release} | "
            f"{_options(e)}; {e.build} | {e.strategy} | {e.status} in {e.newest} |"
        )
    for number, e in enumerate(entries, 1):
        lines += [
            "",
            f'<a id="{e.id}"></a>',
            f"### {number}. {e.family} {e.release}: {e.title}",
            "",
            f"- kind: {e.kind}; signature: `{e.signature}`",
            f"- solver: {e.family} {e.release}, options: {_options(e)}, build: {e.build}",
            *([f"- judged beside: {', '.join(e.referees)}"] if e.referees else []),
            f"- found by: {e.strategy}, in `{e.campaign}`",
            f"- {_newest_label(e)}: {e.status} in {e.family} {e.newest}",
            "",
            "```smt2",
            e.formula.rstrip("\n"),
            "```",
            "",
            e.note,
        ]
    return "\n".join([*lines, "", END])


def generated_part(page: str) -> str:
    """The part of the page between the markers, markers included ('' when absent)."""
    start, end = page.find(BEGIN), page.find(END)
    return page[start : end + len(END)] if 0 <= start < end else ""


def write_page(entries: list[Entry], page: Path = PAGE) -> None:
    text = page.read_text(encoding="utf-8")
    old = generated_part(text)
    if not old:
        raise SystemExit(f"{page}: no {BEGIN!r} ... {END!r} markers to write between")
    page.write_text(text.replace(old, render(entries)), encoding="utf-8")


@dataclass(frozen=True)
class Replayed:
    entry: Entry
    on_release: str  # the status try_version gives: bug, other crash, clean, ...
    detail: str
    newest: str  # the newest release's version
    today: str  # alive, fixed or undecided
    reader: str  # the other family's newest release, which must read the formula
    read: str  # '' when it read it, else what it said

    @property
    def failures(self) -> list[str]:
        found = []
        if self.on_release == NOT_BUILT:
            found.append(self.detail)
        elif self.on_release != BUG:
            found.append(
                f"{self.entry.release} no longer shows it: {self.on_release} {self.detail}"
            )
        if self.today != self.entry.status:
            found.append(f"the page says {self.entry.status}, {self.newest} is {self.today}")
        if self.read:
            found.append(f"{self.reader} does not read it: {self.read}")
        return found


def _check(entry: Entry, blamed: str) -> CheckSpec:
    """The entry's check with `blamed` (`z3@5.4.1+assert`; the entry's options added) as
    the blamed solver: each check names its own, since a spec that names a build not in
    the cache does not resolve."""
    solvers = (" ".join([blamed, *entry.options]), *entry.referees)
    names = tuple(s.name for s in parse_specs(";".join(solvers)))
    return CheckSpec(VerdictKind(entry.kind), names[0], entry.signature, solvers, names, TIMEOUT)


def _on_release(entry: Entry, say: Callable[[str], object]) -> tuple[str, str]:
    """(status, detail) of the entry on its own release, installed if missing; a build with
    assertions that is not in the cache is made, not downloaded: NOT_BUILT, with the command."""
    family = Family.read(entry.family)
    try:
        install(family, entry.release, say=say)
    except InstallError as exc:
        release, mark = split_build(entry.release)
        if not mark:
            raise
        return NOT_BUILT, f"{exc} (sphinxfuzz solvers build {family}=={release} --assertions)"
    spec = _check(entry, f"{family}@{entry.release}")
    then = try_version(spec, family, entry.release, entry.formula)
    return then.status, then.detail


def replay(entry: Entry, say: Callable[[str], object] = print) -> Replayed:
    """Run the entry on its release (installed if missing) and on its family's newest one;
    the newest is asked even when the entry's own build is missing, so the page's word about
    it is checked."""
    family = Family.read(entry.family)
    install_releases(";".join(entry.referees), say=say)  # as the entry's own release
    on_release, detail = _on_release(entry, say)
    newest = newest_specs()
    # as `bugs refresh` picks it: a failed assertion of a build goes to a newer such build
    kind = VerdictKind(entry.kind)
    target, known = replay_target(family, entry.solver, entry.signature, kind, newest)
    version = known or solver_version(parse_specs(target)[0]).split()[-1]
    today = UNDECIDED  # no newer build with assertions to tell
    if known is not None:
        now = try_solver(_check(entry, target), family, target, entry.formula, version)
        # as `bugs refresh` says it: a crash elsewhere is still a crash on this formula
        today = (ALIVE if now.status in (BUG, OTHER_CRASH)
                 else FIXED if now.status == CLEAN else UNDECIDED)  # fmt: skip
    reader = reference_candidates(entry.family, newest)[0]
    read_it, why = accepts(parse_specs(reader)[0], entry.formula, timeout=TIMEOUT)
    reader_version = solver_version(parse_specs(reader)[0]).split()[-1]
    return Replayed(entry, on_release, detail, version, today, f"{reader} {reader_version}",
                    "" if read_it else why or "rejected")  # fmt: skip


def table(results: list[Replayed]) -> str:
    rows = [("entry", "release", "reproduces", "newest", "today", "page says", "read by")]
    for r in results:
        rows.append((r.entry.id, f"{r.entry.family} {r.entry.release}",
                     "yes" if r.on_release == BUG else f"no ({r.on_release})",
                     f"{r.entry.family} {r.newest}", r.today, r.entry.status,
                     r.reader if not r.read else f"{r.reader}: no"))  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--page", type=Path, default=PAGE)
    parser.add_argument("--write", action="store_true", help="write the page from the data")
    args = parser.parse_args(argv)
    entries = load(args.data)
    if args.write:
        write_page(entries, args.page)
        print(f"wrote {len(entries)} entries into {args.page}")
        return 0
    if generated_part(args.page.read_text(encoding="utf-8")) != render(entries):
        print(f"{args.page} is not what {args.data} renders: run with --write", file=sys.stderr)
        return 1
    results, failed = [], []
    for entry in entries:
        try:
            results.append(replay(entry, say=lambda _: None))
        except InstallError as exc:  # a release (its own or a referee's) not downloaded
            failed.append((entry.id, str(exc)))
    print(table(results))
    failed += [(r.entry.id, f) for r in results for f in r.failures]
    for entry_id, failure in failed:
        print(f"{entry_id}: {failure}", file=sys.stderr)
    print(
        f"{len(entries) - len({i for i, _ in failed})} of {len(entries)} entries as the page says"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
