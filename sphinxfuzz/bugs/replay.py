"""Finding stored bugs again, and re-running them on the stored solver command lines: as the
campaign judged them (`replay`), or through the same-bug check (`check_spec`)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.bugs.index_file import bug_folder_count
from sphinxfuzz.bugs.record import BugRecord, is_bug_folder, load_record
from sphinxfuzz.bugs.store import Store, StoreError
from sphinxfuzz.errors import InputError, Step, StepKind
from sphinxfuzz.oracle import Judgement, Verdict, VerdictKind, judge_again
from sphinxfuzz.oracle.backtrace import gdb_backtrace, identified
from sphinxfuzz.oracle.dialect import for_family
from sphinxfuzz.oracle.run import run_in_dialect
from sphinxfuzz.oracle.same_bug import CheckSpec, reproduces
from sphinxfuzz.solvers import SolverResult, SolverSpec, parse_specs

DEFAULT_CAMPAIGNS = Path("campaigns")


def latest_campaign(parent: Path = DEFAULT_CAMPAIGNS) -> Path:
    """The newest campaign folder under `parent` (names are timestamps, so they sort)."""
    candidates = (
        sorted(p for p in parent.glob("*") if CampaignFolder(p).index.is_file())
        if parent.is_dir()
        else []
    )
    if not candidates:
        raise StoreError(
            f"no campaign in {parent}/ (a folder with {CampaignFolder.INDEX}): name a campaign "
            "folder, or start a campaign",
            setting="campaign",
            step=Step(StepKind.START_CAMPAIGN),
        )
    return candidates[-1]


def resolve_campaign(campaign: str | None) -> Path:
    if campaign is None:
        return latest_campaign()
    if not campaign.strip():
        raise StoreError("an empty campaign folder name; name the folder", setting="campaign")
    path = Path(campaign)
    index = CampaignFolder(path).index
    if not index.is_file():
        if not index.exists() and bug_folder_count(path) == 0:
            raise StoreError(
                f"{path}: not a campaign folder (no {index.name}): name a campaign folder, or "
                "start a campaign",
                setting="campaign",
                step=Step(StepKind.START_CAMPAIGN),
            )
        Store(path, read_only=True).close()  # says why: a lost index beside bug folders, ...
    return path


def find_bug(bug: str, campaign: str | None) -> Path:
    """A bug folder from a path to it, or from an id in the campaign (default: the latest)."""
    path = Path(bug)
    if is_bug_folder(path):
        return path
    root = resolve_campaign(campaign)
    for kind in (CampaignFolder.BUGS, CampaignFolder.FINDINGS):
        folder = CampaignFolder(root).kind(kind) / bug
        if is_bug_folder(folder):
            return folder
    with Store(root, read_only=True) as store:
        known = [row.id for row in store.bugs()] + [f[0] for f in store.seed_findings()]
    if not known:
        raise StoreError(f"{root}: no bug {bug!r}; it has no bugs yet")
    close = difflib.get_close_matches(bug, known, n=5, cutoff=0.5)
    hint = f"did you mean {', '.join(close)}?" if close else f"known: {', '.join(known[:10])}"
    raise StoreError(f"{root}: no bug {bug!r}; {hint}")


@dataclass
class Replay:
    original: Verdict
    judgement: Judgement
    results: list[SolverResult]

    @property
    def reproduced(self) -> bool:
        """The stored bug shows again (`oracle.same_bug.reproduces`)."""
        return reproduces(self.original, self.judgement)


class CheckSpecError(InputError):
    """A stored bug no same-bug check can be made for; nothing was run."""


def check_spec(root: Path, record: BugRecord) -> CheckSpec:
    """The same-bug check (`oracle.same_bug`) of a stored bug of the campaign in `root`:
    its verdict and command lines, under the campaign's timeout and memory limit. Reduce,
    refresh and bisect ask it."""
    with Store(root) as store:
        config = store.config() or {}
    try:
        return CheckSpec.for_verdict(
            record.verdict,
            [s.spec for s in record.solvers],
            timeout=float(config.get("timeout", 10.0)),  # type: ignore[arg-type]
            memory_mb=int(config.get("memory_mb", 4096)),  # type: ignore[call-overload]
        )
    except ValueError as exc:
        raise CheckSpecError(f"{record.folder.name}: {exc}") from None


def _stored_timeout(folder: Path) -> float:
    for root in (folder.parent.parent,):
        if CampaignFolder(root).index.is_file():
            with Store(root, read_only=True) as store:
                config = store.config() or {}
            return float(config.get("timeout", 10.0))  # type: ignore[arg-type]
    return 10.0


def replay(folder: Path, *, timeout: float | None = None) -> Replay:
    """Run the stored formula on the stored command lines and judge it again."""
    record = load_record(folder)
    text = record.formula()
    limit = timeout if timeout is not None else _stored_timeout(folder)
    specs = [spec for summary in record.solvers for spec in parse_specs(summary.spec)]

    def run(spec: SolverSpec, script: str) -> SolverResult:
        return run_in_dialect(spec, script, timeout=limit)

    results = [run(spec, text) for spec in specs]
    judgement = judge_again(record.verdict, text, results, run)
    if record.verdict.kind == VerdictKind.CRASH:  # a stack signature is taken again
        judgement.verdicts = identified(
            judgement.verdicts, results, lambda spec: for_family(text, spec.family),
            lambda spec, script: gdb_backtrace(spec, script, timeout=limit),
        )  # fmt: skip
    return Replay(record.verdict, judgement, results)
