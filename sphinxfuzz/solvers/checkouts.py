"""A solver's git checkout seen commit by commit, for builds of each (`bisect --commits`).

The user's checkout is never touched: each commit is checked out into one work tree of the
solver cache per checkout (`<cache>/checkouts/<family>-<hash of the checkout's path>`, a
`git worktree`), always the same folder. So the builds of successive commits compile the
same paths, and ccache serves every file a commit did not change.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from sphinxfuzz.solvers.families import Family
from sphinxfuzz.solvers.installs import InstallError, cache_root


class CheckoutError(InstallError):
    """A checkout or a commit range git cannot read; the message says which."""


def _git(checkout: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(checkout), *args], capture_output=True,
                              text=True, timeout=300, check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CheckoutError(f"{checkout}: git {args[0]}: {exc}") from None
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["failed"])[-1]
        raise CheckoutError(f"{checkout}: git {' '.join(args)}: {why}")
    return done.stdout


def commits_between(checkout: Path, span: str) -> list[str]:
    """The commits of `A..B` from A to B, both included, oldest first (B's first-parent
    line: a merged branch counts as its merge commit), as full hashes."""
    start, dots, end = span.partition("..")
    if not dots or not start or not end:
        raise CheckoutError(f"{span!r}: write a commit range as A..B (A older than B)",
                            setting="commits")  # fmt: skip
    first = _git(checkout, "rev-parse", "--verify", f"{start}^{{commit}}").strip()
    line = _git(checkout, "rev-list", "--reverse", "--first-parent", f"{first}..{end}").split()
    if not line:
        raise CheckoutError(f"{checkout}: no commit after {start} up to {end}", setting="commits")
    return [first, *line]


def worktree_for(checkout: Path, family: Family) -> Path:
    """The cache's work tree of `checkout` (made on first use)."""
    checkout = checkout.resolve()
    digest = hashlib.sha256(str(checkout).encode()).hexdigest()[:12]
    tree = cache_root().parent / "checkouts" / f"{family}-{digest}"
    if not (tree / ".git").exists():
        tree.parent.mkdir(parents=True, exist_ok=True)
        _git(checkout, "worktree", "prune")  # a folder removed by hand leaves its record
        _git(checkout, "worktree", "add", "--detach", str(tree), "HEAD")
    return tree


def check_out(checkout: Path, family: Family, commit: str) -> Path:
    """The cache's work tree of `checkout` at `commit`."""
    tree = worktree_for(checkout, family)
    _git(tree, "checkout", "--quiet", "--detach", "--force", commit)
    return tree
