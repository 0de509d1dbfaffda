"""Entry script of the sandbox child process that runs untrusted generator code.

Run as `python -S -s -B sandbox_child.py` (never imported by the parent): it imports only the
standard library so it starts fast and does not need the sphinxfuzz package. The parent sends
one JSON header line on stdin, then (pool mode) one JSON request per line; every answer is
one JSON line on the original stdout. Before any generator code runs, the child

- moves its protocol pipes to private descriptors and points fds 0/1 at /dev/null, so a
  generator's `print` cannot corrupt the protocol;
- imports the allowed modules, then sets RLIMIT_AS / RLIMIT_CPU / RLIMIT_FSIZE / RLIMIT_CORE
  and, when running as root, drops to uid/gid `nobody` (a second line behind the static check);
- confines itself in the kernel (`confine.py`: seccomp, Landlock): from then on an attempt
  to open a file, use a socket, run a program or start a process kills it with SIGSYS,
  which the parent reports as a refused generator. If that cannot be set up the child
  answers `{"kind": "unconfined"}` and runs nothing, unless the header allows it;
- executes generator code with a builtins table that lacks file, eval and introspection
  functions and whose `__import__` admits only the allow-listed modules.
"""

from __future__ import annotations

import builtins
import importlib.util
import json
import linecache
import os
import random
import resource
import signal
import sys
import time
import traceback
import types
from collections.abc import Callable
from typing import Any

NOBODY = 65534


class Channel:
    """Line-based JSON over the private protocol descriptors; every message is numbered
    (`n`), so the parent notices a line the generator wrote to the descriptor itself."""

    def __init__(self, in_fd: int, out_fd: int) -> None:
        self.reader = os.fdopen(in_fd, "rb")
        self.out_fd = out_fd
        self.number = 0
        self.failure_chars = 20_000  # until the header says (the end of a traceback is kept)

    def receive(self) -> Any:
        line = self.reader.readline()
        return json.loads(line) if line else None

    def send(self, message: dict[str, Any]) -> None:
        for key, text in [*message.items(), *message.get("failed", {}).items()]:
            if isinstance(text, str) and len(text) > self.failure_chars:
                shortened = "..." + text[-self.failure_chars :]
                if key in message:
                    message[key] = shortened
                else:
                    message["failed"][key] = shortened
        message["n"] = self.number
        self.number += 1
        data = (json.dumps(message) + "\n").encode("utf-8")
        while data:
            written = os.write(self.out_fd, data)
            data = data[written:]


def isolate_stdio() -> Channel:
    """Keep the pipes for the protocol only; the generator sees /dev/null on fds 0 and 1."""
    in_fd, out_fd = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    return Channel(in_fd, out_fd)


def die_with_parent(parent: int) -> None:
    """Be killed when the thread that started this child ends (PR_SET_PDEATHSIG): a
    generator that hangs does not outlive a fuzzer killed with SIGKILL."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the pipes still end the child when it next reads
    if os.getppid() != parent:
        os._exit(0)  # the parent died before the signal was armed


def preload(modules: list[str]) -> None:
    """Import every module a generator may use while the files are still readable."""
    for name in modules:
        try:
            __import__(name)
        except ImportError:
            pass
    # Codecs load lazily on first use; a dropped uid could no longer read them.
    for codec in ("utf_16", "utf_32", "latin_1", "ascii", "unicode_escape", "raw_unicode_escape"):
        "".encode(codec)


def load_confine() -> types.ModuleType:
    """`confine.py` beside this file, loaded by path (the package itself is not importable)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "confine.py")
    spec = importlib.util.spec_from_file_location("_sphinxfuzz_confine", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def quiet_linecache() -> None:
    """Tracebacks quote only the generator's registered source: reading a library file for
    its lines would be a file access, which the confined child is killed for."""
    linecache.updatecache = lambda filename, module_globals=None: []  # type: ignore[assignment]
    linecache.checkcache = lambda filename=None: None  # type: ignore[assignment]


def apply_limits(memory_mb: int, cpu_seconds: int | None) -> None:
    limit_bytes = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    if cpu_seconds is not None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if os.getuid() == 0:
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
        except OSError:
            pass  # containers without CAP_SETUID: the other layers still hold


def safe_builtins(
    forbidden: list[str], allowed_modules: set[str], allowed: list[str]
) -> dict[str, Any]:
    """The builtins of the static check's allow-list (and what class statements need)."""
    real_import = builtins.__import__

    def guarded_import(
        name: str,
        globals: Any = None,
        locals: Any = None,
        fromlist: Any = (),
        level: int = 0,
    ) -> types.ModuleType:
        if level != 0 or name not in allowed_modules:
            raise ImportError(f"import of {name!r} is not allowed in a generator")
        return real_import(name, globals, locals, fromlist, level)

    admitted = {*allowed, "__build_class__", "__name__"} - set(forbidden)
    table = {k: v for k, v in vars(builtins).items() if k in admitted}
    table["__import__"] = guarded_import
    return table


class Generator:
    """One compiled generator; `fresh` re-executes the module so calls share no state."""

    def __init__(self, theory: str, filename: str, source: str, table: dict[str, Any]) -> None:
        self.theory = theory
        self.filename = filename
        self.table = table
        # Registered so tracebacks quote the generator's own lines.
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        self.code = compile(source, filename, "exec", dont_inherit=True)
        self.function: Callable[[random.Random], Any] = self.load()

    def load(self) -> Callable[[random.Random], Any]:
        module = types.ModuleType("generator")
        module.__dict__["__builtins__"] = self.table
        sys.modules["generator"] = module  # dataclasses/enum look their module up here
        exec(self.code, module.__dict__)
        function = module.__dict__.get("generate")
        if not callable(function):
            raise TypeError("module defines no callable 'generate'")
        return function


def describe_failure(exc: BaseException, filename: str) -> str:
    """The traceback from the first generator frame down, so line numbers point at its code."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    lines = traceback.format_exception(type(exc), exc, tb)
    return "".join(lines).rstrip()


def release(exc: BaseException) -> None:
    """Drop the locals held by a traceback (e.g. the list that exhausted memory)."""
    if exc.__traceback__ is not None:
        traceback.clear_frames(exc.__traceback__)


def check_pair(result: object, max_text: int) -> str | None:
    """Why `result` is not a (declarations, term) pair of strings of at most `max_text`
    characters each, or None."""
    if not isinstance(result, tuple) or len(result) != 2:
        kind = type(result).__name__
        size = f" of length {len(result)}" if isinstance(result, tuple | list) else ""
        return f"generate returned {kind}{size}, expected a tuple (declarations, term)"
    for label, value in zip(("declarations", "term"), result, strict=True):
        if not isinstance(value, str):
            return f"{label} is {type(value).__name__}, expected str"
        if len(value) > max_text:
            return f"{label} has {len(value)} characters (limit {max_text})"
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            return f"{label} is not valid text: {exc}"
    if not result[1].strip():
        return "term is empty"
    return None


def classify(exc: BaseException) -> str:
    return "memory" if isinstance(exc, MemoryError) else "exception"


def run_sample(channel: Channel, header: dict[str, Any], table: dict[str, Any]) -> None:
    filename = header["filename"]
    try:
        generator = Generator("", filename, header["source"], table)
    except BaseException as exc:  # noqa: BLE001 - any failure of untrusted code is a report
        release(exc)
        channel.send({"kind": classify(exc), "failure": describe_failure(exc, filename)})
        return
    rng = random.Random(header["seed"])
    spent = 0.0
    budget = header["sample_chars"]  # characters all samples of the run may take
    for index in range(header["n"]):
        start = time.perf_counter()
        try:
            result = generator.function(rng)
        except BaseException as exc:  # noqa: BLE001
            release(exc)
            failure = f"sample {index}: " + describe_failure(exc, filename)
            channel.send({"kind": classify(exc), "failure": failure, "spent": spent})
            return
        spent += time.perf_counter() - start
        problem = check_pair(result, header["term_chars"])
        if problem is None:
            budget -= len(result[0]) + len(result[1])
            if budget < 0:
                limit = header["sample_chars"]
                problem = f"the samples so far have more than {limit} characters (limit per run)"
        if problem is not None:
            channel.send(
                {"kind": "bad-output", "failure": f"sample {index}: {problem}", "spent": spent}
            )
            return
        channel.send({"sample": list(result), "spent": spent})
    channel.send({"kind": "ok", "spent": spent})


def run_pool(channel: Channel, header: dict[str, Any], table: dict[str, Any]) -> None:
    generators: dict[str, Generator] = {}
    failed: dict[str, str] = {}
    for theory, filename, source in header["generators"]:
        channel.send({"loading": theory})  # a kill while loading names its module
        try:
            generators[theory] = Generator(theory, filename, source, table)
        except BaseException as exc:  # noqa: BLE001
            release(exc)
            failed[theory] = describe_failure(exc, filename)
    fresh = bool(header["fresh"])
    channel.send({"ready": sorted(generators), "failed": failed})
    while (request := channel.receive()) is not None:
        generator = generators[request["t"]]
        try:
            function = generator.load() if fresh else generator.function
            result = function(random.Random(request["s"]))
        except BaseException as exc:  # noqa: BLE001
            release(exc)
            channel.send(
                {"kind": classify(exc), "failure": describe_failure(exc, generator.filename)}
            )
            continue
        problem = check_pair(result, header["term_chars"])
        if problem is not None:
            channel.send({"kind": "bad-output", "failure": problem})
        else:
            channel.send({"ok": list(result)})


def main() -> None:
    if sys.path and sys.path[0] == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]  # the package directory must not be importable by generators
    confine = load_confine()
    channel = isolate_stdio()
    header = channel.receive()
    if header is None:
        return
    channel.failure_chars = header["failure_chars"]
    die_with_parent(header["parent"])
    preload(header["allowed_modules"])
    apply_limits(header["memory_mb"], header.get("cpu_seconds"))
    table = safe_builtins(
        header["forbidden_names"], set(header["allowed_modules"]), header["allowed_builtins"]
    )
    quiet_linecache()
    try:
        applied = confine.confine()
    except confine.ConfinementError as exc:
        if header.get("confine", True):
            channel.send({"kind": "unconfined", "failure": str(exc)})
            return
        applied = f"none ({exc})"
    if header["mode"] == "probe":
        channel.send({"kind": "ok", "confinement": applied})
        return
    if header["mode"] == "sample":
        run_sample(channel, header, table)
    else:
        run_pool(channel, header, table)


if __name__ == "__main__":
    main()
