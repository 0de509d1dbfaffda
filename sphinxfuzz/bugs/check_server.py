"""ddSMT's test of a candidate, answered by the process that runs ddSMT (`CheckServer`): the
transport only; what the answer is, `oracle.same_bug.passes` decides.

ddSMT runs a command on every candidate: 482 of them for the five-line fma crash of
`tests/bugs/test_reduce_options.py`. When that command was `python -m
sphinxfuzz.oracle.same_bug`, starting Python, importing the oracle and asking the
solvers' versions took most of each check (0.6 of 0.9 s for a candidate that still crashed).
So the command is a shell script that hands the candidate's path to this process through a
named pipe and waits for the exit code on a pipe of its own; a thread here judges the
candidate with the test it was given (`oracle.same_bug.passes`), whose modules are
imported and whose solver versions are known already. The solvers still run in fresh
processes, as before.

The script needs only `sh` and `mkfifo`. Requests are lines shorter than the pipe's atomic
write size, so checks ddSMT runs at once (`-j`) do not mix. A check whose script ddSMT
killed finds no reader for its answer and drops it.
"""

from __future__ import annotations

import errno
import os
import shlex
import tempfile
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

# The script ddSMT runs with a candidate's path: WORK is the server's folder. It opens its
# answer pipe read-write before asking (a FIFO opened so never blocks), so the answer always
# finds a reader while the script lives; the trap removes the pipe however the script ends.
_SCRIPT = """#!/bin/sh
# ddSMT's test of one candidate, judged by the sphinxfuzz process that runs ddSMT
# (sphinxfuzz/bugs/check_server.py): exit 0 when the candidate still shows the bug
work=WORK
case $1 in /*) candidate=$1 ;; *) candidate=$PWD/$1 ;; esac
answer="$work/answers/$$"
rm -f "$answer"  # left by a killed script whose process number this one has now
mkfifo "$answer" || exit 1
trap 'rm -f "$answer"' EXIT
trap 'exit 1' HUP INT TERM
exec 3<>"$answer"
printf '%s %s\\n' "$$" "$candidate" > "$work/requests"
read -r code <&3
exit "${code:-1}"
"""

# a request line the script never writes: asks the reading thread to end
_STOP = "stop"


class CheckServerError(Exception):
    """A check raised: a fault of sphinxfuzz, not an answer about the candidate."""


class CheckServer:
    """Serve `test(candidate text)` (True: still the bug) to the script `script` names, from
    threads of this process, while the `with` block lasts."""

    def __init__(self, test: Callable[[str], bool], parent: Path) -> None:
        self.test = test
        # a folder of our own (0700): its pipes take requests from our own scripts only
        self.work = Path(tempfile.mkdtemp(prefix="check-", dir=parent))
        (self.work / "answers").mkdir()
        self.requests = self.work / "requests"
        self.script = self.work / "interesting.sh"
        self.errors: list[str] = []  # tracebacks of checks that raised
        self._reader: threading.Thread | None = None
        self._fd = -1

    def __enter__(self) -> CheckServer:
        os.mkfifo(self.requests, 0o600)
        # read-write: the pipe never reports an end while the server lives
        self._fd = os.open(self.requests, os.O_RDWR)
        self.script.write_text(
            _SCRIPT.replace("WORK", shlex.quote(str(self.work))), encoding="utf-8"
        )
        self.script.chmod(0o700)
        self._reader = threading.Thread(
            target=self._serve, name="sphinxfuzz-check-server", daemon=True
        )
        self._reader.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        os.write(self._fd, f"{_STOP}\n".encode())
        if self._reader is not None:
            self._reader.join()
        os.close(self._fd)

    def _serve(self) -> None:
        with os.fdopen(os.dup(self._fd), "rb", buffering=0) as pipe:
            pending = b""
            while True:
                chunk = pipe.read(4096)
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    request = line.decode("utf-8", "surrogateescape")
                    if request == _STOP:
                        return
                    pid, _, candidate = request.partition(" ")
                    threading.Thread(
                        target=self._answer, args=(pid, candidate), daemon=True
                    ).start()

    def _answer(self, pid: str, candidate: str) -> None:
        try:
            text = Path(candidate).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            code = 1
        else:
            try:
                code = 0 if self.test(text) else 1
            except Exception:
                self.errors.append(traceback.format_exc())
                code = 1
        try:
            answer = os.open(self.work / "answers" / pid, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno not in (errno.ENXIO, errno.ENOENT):  # else: the script was killed
                self.errors.append(traceback.format_exc())  # raised here, nobody would see it
            return
        try:
            os.write(answer, f"{code}\n".encode())
        finally:
            os.close(answer)

    def raise_errors(self) -> None:
        """Raise the first check that raised, if one did."""
        if self.errors:
            raise CheckServerError(
                f"{len(self.errors)} candidate check(s) failed inside sphinxfuzz; the first:\n"
                f"{self.errors[0]}"
            )
