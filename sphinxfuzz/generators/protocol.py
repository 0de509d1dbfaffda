"""The parent's side of the sandbox child's pipe: no byte from the child is trusted.

Generator code runs in the child, and code that gets hold of the protocol descriptor can
write anything to it. So the parent reads the pipe as a stream with a size cap per message
and in total, checks the nesting depth before it decodes a line, and holds every message to
one schema (`SHAPES`) and to the child's numbering (every message carries `n`: 0, 1, 2, ...;
a line the child did not write breaks the count). Whatever fails raises `ProtocolViolation`
with the cause, which the callers turn into a refused generator, never an exception.
"""

from __future__ import annotations

import json
import math
import os
import re
import select
import time
from dataclasses import dataclass, field
from typing import Any

TERM_CHARS = 1_000_000  # default cap per declarations or term text, in characters
SAMPLE_CHARS = 16_000_000  # default cap of all texts one sampling run returns, in characters
FAILURE_CHARS = 20_000  # characters of a failure text the child sends (it keeps the end)
MAX_DEPTH = 4  # the deepest message is {"failed": {theory: text}}: 2 levels
CHUNK = 1 << 16

# The kinds a child may end a request or a run with.
END_KINDS = frozenset({"ok", "exception", "memory", "bad-output", "unconfined"})


@dataclass(frozen=True)
class Limits:
    """Size limits of generator output (settings with defaults).

    `term_chars`: characters per declarations or term text; `sample_chars`: characters of all
    the texts one sampling run returns. The byte caps of the pipe follow from them: a
    character takes at most 12 bytes in JSON (an escaped surrogate pair)."""

    term_chars: int = TERM_CHARS
    sample_chars: int = SAMPLE_CHARS

    def __post_init__(self) -> None:
        if self.term_chars < 1 or self.sample_chars < 1:
            raise ValueError(f"size limits must be positive, got {self}")

    @property
    def message_bytes(self) -> int:
        """Bytes one message may take: two texts, a failure text and the framing."""
        return 12 * (2 * self.term_chars + FAILURE_CHARS) + 4096

    @property
    def total_bytes(self) -> int:
        """Bytes a sampling run may write in all."""
        return 12 * self.sample_chars + 2 * self.message_bytes


DEFAULT_LIMITS = Limits()


class ProtocolViolation(Exception):
    """The child wrote something the protocol does not allow; `cause` says what."""

    def __init__(self, cause: str) -> None:
        self.cause = cause
        super().__init__(cause)


@dataclass(frozen=True)
class Message:
    """One validated message. `shape` is a key of `SHAPES`; the other fields are its data."""

    shape: str
    number: int
    pair: tuple[str, str] | None = None  # "ok" answer or "sample"
    kind: str = ""  # "end": how the request or run ended
    failure: str = ""
    spent: float | None = None
    theory: str = ""  # "loading"
    ready: tuple[str, ...] = ()
    failed: dict[str, str] = field(default_factory=dict)
    confinement: str = ""


def _text(value: object) -> bool:
    return isinstance(value, str)


def _pair(value: object) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)


def _seconds(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value >= 0
    )


def _names(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _failures(value: object) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _end_kind(value: object) -> bool:
    return isinstance(value, str) and value in END_KINDS


# The one schema: shape -> the fields it has (besides `n`) and the test of each field.
SHAPES: dict[str, dict[str, Any]] = {
    "loading": {"loading": _text},
    "ready": {"ready": _names, "failed": _failures},
    "answer": {"ok": _pair},
    "sample": {"sample": _pair, "spent": _seconds},
    "end": {"kind": _end_kind, "failure": _text},
    "end-timed": {"kind": _end_kind, "failure": _text, "spent": _seconds},
    "done": {"kind": _end_kind, "spent": _seconds},
    "probe": {"kind": _end_kind, "confinement": _text},
}
_BY_KEYS = {frozenset(fields) | {"n"}: shape for shape, fields in SHAPES.items()}

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def nesting(line: bytes) -> int:
    """The deepest bracket nesting of a JSON line, strings left out (checked before decoding:
    the decoder recurses once per level)."""
    deepest = depth = 0
    for byte in _STRING.sub(b"", line).translate(None, _NOT_BRACKETS):
        depth += 1 if byte in b"[{" else -1
        deepest = max(deepest, depth)
    return deepest


def parse(line: bytes, number: int, expected: frozenset[str], limits: Limits) -> Message:
    """The message in `line` if it is the child's message `number` of one of the `expected`
    shapes, within `limits`; else `ProtocolViolation`."""
    where = f"message {number}"
    if len(line) > limits.message_bytes:
        raise ProtocolViolation(f"{where} has {len(line)} bytes (limit {limits.message_bytes})")
    if nesting(line) > MAX_DEPTH:
        raise ProtocolViolation(f"{where} is nested deeper than {MAX_DEPTH} levels")
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise ProtocolViolation(f"{where} is not JSON ({str(exc)[:80]})") from None
    if not isinstance(data, dict):
        raise ProtocolViolation(f"{where} is a JSON {type(data).__name__}, not an object")
    shape = _BY_KEYS.get(frozenset(data))
    if shape is None or shape not in expected:
        keys = ", ".join(sorted(map(str, data)))[:120]
        raise ProtocolViolation(f"{where} has the fields ({keys}); expected {_shown(expected)}")
    if type(data["n"]) is not int or data["n"] != number:
        # a line written by the generator itself, or one missing: the count no longer agrees
        raise ProtocolViolation(f"{where} is numbered {str(data['n'])[:20]}: out of order")
    for name, test in SHAPES[shape].items():
        if not test(data[name]):
            raise ProtocolViolation(f"{where}: field '{name}' has the wrong type or value")
    pair = data.get("ok", data.get("sample"))
    for text in pair or ():
        if len(text) > limits.term_chars:
            raise ProtocolViolation(
                f"{where} has a text of {len(text)} characters (limit {limits.term_chars})"
            )
    for text in _texts(data):
        if len(text) > FAILURE_CHARS + 3:
            raise ProtocolViolation(f"{where} has a text of {len(text)} characters")
    return Message(
        shape=shape,
        number=number,
        pair=(pair[0], pair[1]) if pair is not None else None,
        kind=data.get("kind", ""),
        failure=data.get("failure", ""),
        spent=float(data["spent"]) if "spent" in data else None,
        theory=data.get("loading", ""),
        ready=tuple(data.get("ready", ())),
        failed=dict(data.get("failed", {})),
        confinement=data.get("confinement", ""),
    )


def _texts(data: dict[str, Any]) -> list[str]:
    """The texts of a message other than a pair: failures, theory names."""
    texts = [v for v in data.values() if isinstance(v, str)]
    texts.extend(data.get("ready", ()))
    for theory, failure in data.get("failed", {}).items():
        texts.extend((theory, failure))
    return texts


def _shown(expected: frozenset[str]) -> str:
    return " or ".join(sorted(expected))


class Reader:
    """Lines from the child's pipe, read in chunks so no line and no run can grow the parent
    past `limits`; `receive` validates each against the schema and the numbering."""

    def __init__(self, fd: int, limits: Limits, *, total_bytes: int | None = None) -> None:
        self.fd = fd
        self.limits = limits
        self.total_bytes = total_bytes
        self.read_bytes = 0
        self.number = 0  # the number the child's next message must carry
        self._buffer = bytearray()

    def receive(self, expected: frozenset[str], deadline: float) -> Message | None:
        """The next message (None: the child closed the pipe). Raises `TimeoutError` at the
        deadline (time.monotonic()) and `ProtocolViolation` on anything the child may not
        write."""
        line = self._line(deadline)
        if line is None:
            return None
        message = parse(line, self.number, expected, self.limits)
        self.number += 1
        return message

    def _line(self, deadline: float) -> bytes | None:
        cap = self.limits.message_bytes
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                return line
            if len(self._buffer) > cap:
                raise ProtocolViolation(
                    f"message {self.number} is longer than {cap} bytes (limit per message)"
                )
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            readable, _, _ = select.select([self.fd], [], [], remaining)
            if not readable:
                raise TimeoutError
            chunk = os.read(self.fd, CHUNK)
            if not chunk:
                return None  # a line cut short by a kill is no message; the exit says why
            self.read_bytes += len(chunk)
            if self.total_bytes is not None and self.read_bytes > self.total_bytes:
                raise ProtocolViolation(
                    f"the child wrote more than {self.total_bytes} bytes (limit per run)"
                )
            self._buffer += chunk
