"""Solver processes bounded in time, output and descendants.

A solver runs in its own session, so killing its process group ends what it started, except
descendants that left the group (`setsid sleep 780 &`). Those are caught by making this
process a child subreaper (`PR_SET_CHILD_SUBREAPER`): when their parent dies they become our
children instead of init's, and `sweep` kills every child that a solver left behind: those
that appeared during a run (`before` snapshot) outside this process's own session, and
those that carry the environment marker every solver process gets. A solver's descendants
can never be in our session (the solver starts its own), so a child in our session is one
that another thread of this program started (a bench's `subprocess.run`, a generator
sandbox) and is left alone. Where the solver is started by a Python `preexec` (no `setpriv`,
see `start`), it is a subreaper too, so while it lives its orphans stay inside its tree.

Every solver also gets `PR_SET_PDEATHSIG` (SIGKILL), so it dies with this process, SIGKILL
included: `setpriv` arms it before it execs the solver. The kernel sends that signal when the
*thread* that started the solver ends, so every solver is started by one spawner thread that
lives as long as the process: a worker thread that ends does not take the solvers it started
(a persistent solver) with it.

`run_bounded` never waits for an end-of-file a descendant can hold back: reading stops at
the time limit, at the output limit, or shortly after the solver itself exited.
`abort_all` kills every solver process running now (a stop request must not wait for them).
"""

from __future__ import annotations

import ctypes
import os
import queue
import re
import resource
import selectors
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Collection
from concurrent.futures import Future
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import IO

from sphinxfuzz.solvers.sanitizer_reports import address_sanitized, sanitizer_env

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
OUTPUT_LIMIT = 64 * 1024 * 1024  # bytes per stream; a solver past it is killed
EXIT_GRACE = 0.2  # seconds to read what is left in the pipes after the solver exited
MARKER = "SPHINXFUZZ_SOLVER_OF"  # environment variable of every solver process: our pid
# The nice value solvers run at, above the campaign's own: while a case's solvers hold the
# cores, the campaign draws the next case, and a draw still running when they answer is
# time with no solver running (on two cores, 3% of a regressions campaign's). Solvers that
# yield to it answer only later by the draw's few milliseconds.
SOLVER_NICENESS = 5
_SWEEP_ROUNDS = 64

# Solver processes running now, by pid. No lock: `abort_all` runs in signal handlers, which
# may interrupt the main thread anywhere; single dict operations are atomic.
_live: dict[int, subprocess.Popen[bytes]] = {}
# Held while a solver is started and registered in `_live`, and while `sweep` picks its
# victims: a solver another thread is starting is never taken for a left-over.
_starting = threading.Lock()
_subreaper_of: int | None = None
_cancel: Callable[[], bool] | None = None


def cancel_when(predicate: Callable[[], bool] | None) -> None:
    """From now on every run in this process ends (as a time-out) as soon as `predicate()`
    is true: a campaign's stop request or deadline cuts whatever solver runs then, wherever
    it was called from. None removes it."""
    global _cancel
    _cancel = predicate


def cancelled() -> bool:
    return _cancel is not None and _cancel()


def _libc_prctl() -> Callable[..., int] | None:
    try:
        return ctypes.CDLL(None, use_errno=True).prctl  # type: ignore[no-any-return]
    except (OSError, AttributeError):
        return None


# Looked up once here: a forked child (preexec) must not load libraries.
_PRCTL = _libc_prctl()


def _prctl(option: int, value: int) -> bool:
    return _PRCTL is not None and _PRCTL(option, value, 0, 0, 0) == 0


def ensure_subreaper() -> bool:
    """Make this process adopt the orphans of its descendants (once per process)."""
    global _subreaper_of
    if _subreaper_of != os.getpid():
        if not _prctl(PR_SET_CHILD_SUBREAPER, 1):
            return False
        _subreaper_of = os.getpid()
    return True


def preexec(memory_mb: int) -> Callable[[], None]:
    """Run in the solver process before exec: memory limit, no core files, subreaper, and
    death with this process (if it already died, the solver does not start)."""
    parent = os.getpid()

    def apply() -> None:
        for which, bounds in _limits(memory_mb):
            resource.setrlimit(which, bounds)
        os.nice(SOLVER_NICENESS)
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(127)  # the parent died before the signal was armed
        _prctl(PR_SET_CHILD_SUBREAPER, 1)

    return apply


_Request = tuple[Callable[[], subprocess.Popen[bytes]], "Future[subprocess.Popen[bytes]]"]
_requests: queue.SimpleQueue[_Request] = queue.SimpleQueue()
_spawner_of: int | None = None
_spawner_lock = threading.Lock()


def _serve() -> None:
    while True:
        make, result = _requests.get()
        try:
            result.set_result(make())
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            result.set_exception(exc)


def _spawned(make: Callable[[], subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """`make()` run on the spawner thread (started once per process; a daemon, so it ends
    with the process and only then does the kernel kill the solvers it forked)."""
    global _spawner_of
    if threading.current_thread().name == "sphinxfuzz-solver-spawner":
        return make()
    with _spawner_lock:
        if _spawner_of != os.getpid():
            name = "sphinxfuzz-solver-spawner"
            threading.Thread(target=_serve, name=name, daemon=True).start()
            _spawner_of = os.getpid()
    result: Future[subprocess.Popen[bytes]] = Future()
    _requests.put((make, result))
    return result.result()


def solver_env() -> dict[str, str]:
    return {**os.environ, MARKER: str(os.getpid())}


def children() -> set[int]:
    """The pids of this process's children."""
    found: set[int] = set()
    try:
        for task in Path("/proc/self/task").iterdir():
            found.update(int(pid) for pid in (task / "children").read_text().split())
        return found
    except OSError:
        pass
    me = str(os.getpid())  # kernels without /proc/.../children: scan every process
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if stat[stat.rfind(")") + 2 :].split()[1] == me:
                found.add(int(entry.name))
    return found


def running(pattern: str) -> list[int]:
    """Pids of live (not zombie) processes whose command line matches the regex `pattern`:
    how tests and benches look for processes a solver should not have left behind."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if re.search(pattern, command) and state_of(int(entry.name)) not in ("Z", "gone"):
                found.append(int(entry.name))
    return found


def state_of(pid: int) -> str:
    """The kernel's one-letter state of `pid` (R, S, Z for a zombie, ...); "gone" when it
    no longer exists."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "gone"


def _ours(pid: int) -> bool:
    """`pid` is in this process's session: started by this program, not left by a solver."""
    try:
        return os.getsid(pid) == os.getsid(0)
    except OSError:
        return False


def _marked(pid: int) -> bool:
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return False
    return f"{MARKER}={os.getpid()}".encode() in environ.split(b"\0")


@lru_cache(maxsize=1)
def _setpriv() -> str | None:
    """util-linux's `setpriv` when it arms a death signal (`--pdeathsig`, since 2.33), else
    None: `start` then runs Python in the forked child (`preexec`)."""
    found = shutil.which("setpriv")
    if found is None:
        return None
    try:
        done = subprocess.run([found, "--pdeathsig", "KILL", "--", "true"], capture_output=True,
                              timeout=10, check=False)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return found if done.returncode == 0 else None


def _limits(memory_mb: int) -> tuple[tuple[int, tuple[int, int]], ...]:
    """A solver's resource limits: its memory (none for 0: see `start`), and no core files."""
    limit = memory_mb * 1024 * 1024
    memory = ((resource.RLIMIT_AS, (limit, limit)),) if memory_mb > 0 else ()
    return (*memory, (resource.RLIMIT_CORE, (0, 0)))


def _limit(pid: int, memory_mb: int) -> None:
    """`_limits` and SOLVER_NICENESS set on a started process from here."""
    try:
        for which, bounds in _limits(memory_mb):
            resource.prlimit(pid, which, bounds)
        niceness = os.getpriority(os.PRIO_PROCESS, 0) + SOLVER_NICENESS
        os.setpriority(os.PRIO_PROCESS, pid, min(19, niceness))
    except (ProcessLookupError, PermissionError):
        pass  # gone already: nothing left to limit


def start(argv: list[str], memory_mb: int, stdin: int) -> subprocess.Popen[bytes]:
    """Start a solver process (own session, limits, marker) and register it as live.

    Python forks the whole campaign process for a `preexec_fn`, and the child runs Python
    code, touching pages to copy: ~4 ms a start for a 50 MB campaign, growing with it, on
    every fresh call and every process start. Without one it uses vfork (~0.2 ms): `setpriv`
    arms the death signal and execs the solver, and the limits are set from here as soon as
    `setpriv` runs (so a solver may run unlimited for the moment until then, far too short to
    allocate its memory limit). Not kept that way: the solver's
    own subreaper flag, and the check that this process was alive when the signal was
    armed (the scratch folder's janitor kills a dead campaign's solvers all the same)."""
    ensure_subreaper()
    setpriv = _setpriv()
    env = solver_env()
    if address_sanitized(argv[0]):  # its memory limit is ASan's own: no address-space limit
        env.update(sanitizer_env(env, memory_mb))
        memory_mb = 0

    def make() -> subprocess.Popen[bytes]:
        if setpriv is None:
            return subprocess.Popen(
                argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True, preexec_fn=preexec(memory_mb), env=env,
            )  # fmt: skip
        process = subprocess.Popen(
            [setpriv, "--pdeathsig", "KILL", "--", *argv], stdin=stdin,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
            env=env,
        )  # fmt: skip
        _limit(process.pid, memory_mb)
        return process

    with _starting:
        process = _spawned(make)
        _live[process.pid] = process
    return process


def kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def end(process: subprocess.Popen[bytes], before: set[int] | None = None) -> int:
    """Kill `process`, its group and every descendant it left; reap them. `before`: the
    children this process had before `process` started (anything newer is left over).
    Returns how many left-over processes were killed."""
    kill_group(process)
    process.wait()
    _live.pop(process.pid, None)
    return sweep(before)


def sweep(before: set[int] | None = None) -> int:
    """Kill and reap children that solvers left behind (see the module doc)."""
    killed = 0
    for _ in range(_SWEEP_ROUNDS):
        with _starting:
            keep = set(dict(_live))
            extra = {
                pid
                for pid in children() - keep
                if (before is not None and pid not in before and not _ours(pid)) or _marked(pid)
            }
        if not extra:
            break
        for pid in extra:
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        for pid in extra:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
            killed += 1
    return killed


def reap_adopted(keep: Collection[int] = ()) -> int:
    """Reap the exited children nobody here waits for: orphans of another session's tree
    that this subreaper adopted (a ddSMT check's processes, once its worker is gone). Each
    is a zombie until reaped, and a long reduction makes thousands: pids run out. A child
    of our own session, a solver in `_live` or a pid in `keep` has a Popen that waits for
    it, and is left alone. Never waits."""
    reaped = 0
    with _starting:
        owned = set(dict(_live)) | set(keep)
    for pid in children() - owned:
        if state_of(pid) == "Z" and not _ours(pid):
            try:
                os.waitpid(pid, os.WNOHANG)
                reaped += 1
            except ChildProcessError:
                pass
    return reaped


def abort_all() -> None:
    """Kill every solver process running now (their callers see them die and return)."""
    for process in list(dict(_live).values()):
        kill_group(process)


@dataclass
class Finished:
    stdout: bytes
    stderr: bytes
    exit_code: int
    elapsed: float
    timed_out: bool
    over_limit: bool  # a stream passed the output limit; the solver was killed


def run_bounded(
    argv: list[str] | tuple[str, ...],
    *,
    timeout: float,
    memory_mb: int,
    stdin: bytes | None = None,
    output_limit: int = OUTPUT_LIMIT,
) -> Finished:
    """Run a command under every limit; returns within `timeout` plus a fraction of a
    second, whatever the command and its descendants do."""
    started = time.perf_counter()
    if cancelled():
        return Finished(b"", b"", 0, 0.0, True, False)
    before = children()
    process = start(
        list(argv), memory_mb, subprocess.PIPE if stdin is not None else subprocess.DEVNULL
    )
    try:
        out, err, timed_out, over = _collect(process, stdin, started + timeout, output_limit)
    finally:
        end(process, before)
    elapsed = time.perf_counter() - started
    return Finished(bytes(out), bytes(err), process.returncode, elapsed, timed_out, over)


def _collect(
    process: subprocess.Popen[bytes], data: bytes | None, deadline: float, limit: int
) -> tuple[bytearray, bytearray, bool, bool]:
    assert process.stdout is not None and process.stderr is not None
    buffers = {process.stdout: bytearray(), process.stderr: bytearray()}
    by_fd = {stream.fileno(): buffer for stream, buffer in buffers.items()}
    selector = selectors.DefaultSelector()
    for stream in buffers:
        os.set_blocking(stream.fileno(), False)
        selector.register(stream, selectors.EVENT_READ)
    pending = memoryview(data or b"")
    if process.stdin is not None:
        os.set_blocking(process.stdin.fileno(), False)
        selector.register(process.stdin, selectors.EVENT_WRITE)
    exited_at: float | None = None
    timed_out = over = False
    try:
        while selector.get_map():
            now = time.perf_counter()
            if now >= deadline or cancelled():
                timed_out = True
                break
            if exited_at is None and process.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at > EXIT_GRACE:
                break  # a descendant holds the pipes open: what the solver said is in
            wait = min(deadline - now, 0.05 if exited_at is not None else 0.25)
            for key, _ in selector.select(wait):
                if process.stdin is not None and key.fileobj is process.stdin:
                    pending = _write_some(selector, process.stdin, pending)
                else:
                    over = _read_some(selector, key, by_fd[key.fd], limit) or over
            if over:
                break
    finally:
        selector.close()
    if not (timed_out or over) and process.poll() is None:
        try:  # it closed its output and works on: the time limit still holds
            process.wait(max(0.0, deadline - time.perf_counter()))
        except subprocess.TimeoutExpired:
            timed_out = True
    return buffers[process.stdout], buffers[process.stderr], timed_out, over


def _write_some(
    selector: selectors.BaseSelector, stdin: IO[bytes], pending: memoryview
) -> memoryview:
    """Write what the pipe takes now; at the end (or when the reader is gone) close it."""
    try:
        written = os.write(stdin.fileno(), pending[:65536])
    except BlockingIOError:
        return pending
    except (BrokenPipeError, ConnectionResetError):
        written = len(pending)
    pending = pending[written:]
    if not pending:
        selector.unregister(stdin)
        stdin.close()
    return pending


def _read_some(
    selector: selectors.BaseSelector, key: selectors.SelectorKey, buffer: bytearray, limit: int
) -> bool:
    """Read what the stream has now into `buffer`; True when it went over `limit` (cut)."""
    try:
        chunk = os.read(key.fd, 1 << 16)
    except BlockingIOError:
        return False
    if not chunk:
        selector.unregister(key.fileobj)
        return False
    buffer.extend(chunk)
    if len(buffer) > limit:
        del buffer[limit:]
        return True
    return False
