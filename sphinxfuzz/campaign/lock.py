"""One process per campaign folder: a second `fuzz` (or `--resume`) on a live campaign is
refused, since both would run the same positions and count them twice.

An advisory `flock` on `<campaign>/campaign.lock` held for the whole run; the kernel drops
it when the process ends however it ends (kill -9 included), so a stale file never blocks.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

from sphinxfuzz.bugs.folder import CampaignFolder
from sphinxfuzz.campaign.targets import CampaignError


class CampaignLock:
    def __init__(self, root: Path, *, create: bool) -> None:
        self.root = root
        self.create = create
        self.fd: int | None = None

    def __enter__(self) -> CampaignLock:
        root = self.root
        if root.exists() and not root.is_dir():
            raise CampaignError(
                f"{root}: exists and is not a folder; choose another campaign folder",
                setting="campaign",
            )
        if not root.is_dir():
            if not self.create:
                raise CampaignError(f"{root}: no such campaign folder")
        try:
            if not root.is_dir():
                root.mkdir(parents=True)
            fd = os.open(CampaignFolder(root).lock, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:  # /proc, a read-only mount, a full disk, a file on the way
            raise CampaignError(
                f"{root}: cannot be written ({exc.strerror or exc})", setting="campaign"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise CampaignError(
                f"{root}: another sphinxfuzz process (pid {holder}) is running this campaign; "
                "wait for it to end or stop it (Ctrl-C, kill) before resuming"
            ) from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError as exc:
            os.close(fd)
            raise CampaignError(f"{root}: cannot be written ({exc.strerror or exc})") from None
        self.fd = fd
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the descriptor releases the lock
            self.fd = None


def is_locked(root: Path) -> bool:
    """Whether a live process holds the lock of the campaign in `root` (a killed one does
    not: the kernel dropped its lock). Asks with a shared lock, taken and given back at once."""
    try:
        fd = os.open(CampaignFolder(root).lock, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing releases a shared lock we got
    return False
