"""Scratch folders of a fuzzer process, and removing the ones dead processes left.

Every scratch folder is named `sphinxfuzz-<purpose>-<pid>-<start>-<random>`, where `start`
is the owner's start time in clock ticks since boot (`/proc/<pid>/stat`, field 22): a pid
the kernel gave to another process since does not make a dead owner look alive. A folder is
removed

- by its owner when it is done with it (`remove`) and at a normal exit (atexit);
- by the owner's janitor, a small process started with the first folder that waits for the
  owner's end (the end of a pipe only the owner holds; SIGKILL included), then kills what
  is left of the owner's solvers (processes carrying its `reaper.MARKER`: descendants that
  left the solver's group, which the solver's own death signal does not reach) and removes
  the owner's folders under the root of its first folder;
- at the start of any later fuzzer process (`remove_dead`), for owners whose janitor was
  killed too. A folder whose owner lives is never touched.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from sphinxfuzz.solvers.reaper import MARKER

PREFIX = "sphinxfuzz-"
# The environment mark of a tool this process runs beside its solvers (ddSMT): the janitor
# kills it and its descendants after this process's death, as it does solvers, but a solver
# sweep (`reaper.sweep`, which kills marked solvers left over) leaves it alone.
TOOL_MARKER = "SPHINXFUZZ_TOOL_OF"
_NAME = re.compile(r"^sphinxfuzz-[a-z]+-(\d+)-(\d+)-")
_JANITOR = """
import glob, os, shutil, signal, sys
for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(number, signal.SIG_IGN)
fd, root, owner = int(sys.argv[1]), sys.argv[2], sys.argv[3]
markers = {marker.encode() for marker in sys.argv[4:]}
while os.read(fd, 4096):
    pass
for _ in range(3):  # solvers, tools and whatever they started, in or out of their groups
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/" + pid + "/environ", "rb") as handle:
                if markers & set(handle.read().split(b"\\0")):
                    os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass
for path in glob.glob(os.path.join(glob.escape(root), "sphinxfuzz-*-" + owner + "-*")):
    shutil.rmtree(path, True)
"""

_janitor_of: int | None = None
_janitor_pipe: int | None = None
_cleaned: set[str] = set()


def start_time(pid: int) -> int | None:
    """The start time of process `pid` in clock ticks since boot, None if it does not run."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return int(fields[19]) if len(fields) > 19 else None


def owner_tag(pid: int | None = None) -> str:
    pid = os.getpid() if pid is None else pid
    return f"{pid}-{start_time(pid) or 0}"


def make(purpose: str, root: Path | None = None) -> Path:
    """A new scratch folder of this process for `purpose` (lower-case letters), removed at a
    normal exit, by the janitor if the process is killed, or by `remove` before."""
    base = Path(root or tempfile.gettempdir())
    if str(base) not in _cleaned:
        _cleaned.add(str(base))
        remove_dead(base)
    path = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{purpose}-{owner_tag()}-", dir=base))
    atexit.register(shutil.rmtree, path, True)
    _ensure_janitor(base)
    return path


def tool_env() -> dict[str, str]:
    """The environment of a tool process: this one's, with `TOOL_MARKER`."""
    return {**os.environ, TOOL_MARKER: str(os.getpid())}


def remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def remove_dead(root: Path) -> list[Path]:
    """Remove the scratch folders under `root` whose owner process is gone; returns them."""
    removed: list[Path] = []
    try:
        entries = list(root.iterdir())
    except OSError:
        return removed
    for entry in entries:
        match = _NAME.match(entry.name)
        if match is None or not entry.is_dir() or entry.is_symlink():
            continue
        pid, started = int(match.group(1)), int(match.group(2))
        if start_time(pid) == started:
            continue  # the owner runs
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry)
    return removed


def _ensure_janitor(root: Path) -> None:
    """Start this process's janitor once (again in a forked child)."""
    global _janitor_of, _janitor_pipe
    if _janitor_of == os.getpid():
        return
    read_end, write_end = os.pipe()  # neither end is inherited by other children
    try:
        subprocess.Popen(
            [
                *(sys.executable, "-S", "-c", _JANITOR),
                *(str(read_end), str(root), owner_tag(), f"{MARKER}={os.getpid()}"),
                f"{TOOL_MARKER}={os.getpid()}",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(read_end,),
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        )
    except OSError:
        os.close(write_end)  # no janitor: the next start removes what a kill leaves
        return
    finally:
        os.close(read_end)
    _janitor_of, _janitor_pipe = os.getpid(), write_end
