"""Which solver options a campaign's stored bugs ran with: the one count the campaign summary,
the status document and the report show for a campaign with the `options` setting.

A campaign's options go on its targets' command lines (`solvers.spec.with_options`: the spec's
text with the words appended), so a stored bug's solver spec is a campaign spec followed by
the words of its position. Each word is counted once per bug, under the target's display
name ("z3 smt.arith.solver=2", "cvc5 --no-nl-ext"), with the bug's kind. The bug folders
are read from disk, not the index: they are the source of truth, and the status writer's
thread has no index connection of its own.
"""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.record import BugFileError, BugRecord, is_bug_folder, load_record

NO_OPTIONS = "none"  # the `options` setting of a campaign whose targets get none (as "")


def sets_options(setting: str) -> bool:
    """Whether a campaign's `options` setting gives its targets options."""
    return setting.strip() not in ("", NO_OPTIONS)


@dataclass
class OptionUse:
    option: str  # the target's name and the word: "z3 smt.arith.solver=2"
    bugs: int = 0  # stored bugs whose command line had it
    kinds: Counter[str] = field(default_factory=Counter)  # the same bugs by verdict kind

    def sentence(self) -> str:
        """ "3 bugs (crash 2, soundness 1)" """
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(self.kinds.items()))
        return f"{self.bugs} bug{'s' if self.bugs != 1 else ''} ({kinds})"

    def to_json(self) -> dict[str, object]:
        return {"bugs": self.bugs, "kinds": dict(sorted(self.kinds.items()))}


def added_options(record: BugRecord, specs: Sequence[str]) -> list[str]:
    """The option words each target of `record` ran with beyond its campaign spec, each as
    "NAME WORD". `specs` are the campaign's solver spec texts; a stored spec is matched to the
    longest of them it starts with (a spec "z3 model_validate=true" beside "z3")."""
    found: list[str] = []
    for summary in record.solvers:
        base = max(
            (s for s in specs if summary.spec == s or summary.spec.startswith(s + " ")),
            key=len,
            default=None,
        )
        if base is None:
            continue  # a target the campaign no longer names (edited config): nothing added
        try:
            words = shlex.split(summary.spec[len(base) :])
        except ValueError:
            continue  # not a text `with_options` wrote
        found += [f"{summary.name} {word}" for word in words]
    return found


def count_options(records: Iterable[BugRecord], specs: Sequence[str]) -> list[OptionUse]:
    """Per option word, the stored bugs that ran with it; the most frequent first."""
    use: dict[str, OptionUse] = {}
    for record in records:
        for option in dict.fromkeys(added_options(record, specs)):  # once per bug
            entry = use.setdefault(option, OptionUse(option))
            entry.bugs += 1
            entry.kinds[str(record.verdict.kind)] += 1
    return sorted(use.values(), key=lambda u: (-u.bugs, u.option))


def solver_texts(solvers: str) -> list[str]:
    """The spec texts of a `solvers` setting ("z3;cvc5 --check-models"), as specs keep them."""
    return [part.strip() for part in solvers.split(";") if part.strip()]


def option_use(root: Path, solvers: str) -> list[OptionUse]:
    """`count_options` over the bug folders of the campaign in `root` whose targets are the
    `solvers` setting. A folder being written or damaged is left out (listed by `bugs list`)."""
    bugs = CampaignFolder(root).bugs
    records: list[BugRecord] = []
    for folder in sorted(bugs.iterdir()) if bugs.is_dir() else []:
        if is_bug_folder(folder):
            try:
                records.append(load_record(folder))
            except BugFileError:
                continue
    return count_options(records, solver_texts(solvers))
