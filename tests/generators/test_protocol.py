"""The parent trusts no byte from the sandbox child (issue 29).

The modules of `tests/fixtures/hostile/protocol/` write their own lines to the child's
protocol pipe. With the static check taken out (it refuses them), each one must end as a
refused generator with the cause, through `sample_terms` and through the pool, never as an
exception in the parent; a forged sample is never taken as a sample.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from sphinxfuzz.generators import pool as pool_module
from sphinxfuzz.generators import sandbox
from sphinxfuzz.generators.pool import GeneratorFailure, GeneratorPool
from sphinxfuzz.generators.protocol import (
    CHUNK,
    MAX_DEPTH,
    SHAPES,
    Limits,
    ProtocolViolation,
    Reader,
    nesting,
    parse,
)
from sphinxfuzz.generators.sandbox import sample_terms
from sphinxfuzz.generators.static_check import check_source

PROTOCOL = Path(__file__).resolve().parents[1] / "fixtures" / "hostile" / "protocol"
CAUSES = {
    "garbage": "is not JSON",
    "deep": "nested deeper than",
    "wrong_shape": "has the fields",
    "forged_sample": "has the fields",
    "forged_numbered": "out of order",
    "flood": "longer than",
}
ALL = frozenset(SHAPES)


@dataclass(frozen=True)
class Entry:
    theory: str
    source: str
    path: str


def hostile(name: str) -> str:
    return (PROTOCOL / f"{name}.py").read_text(encoding="utf-8")


@pytest.fixture
def no_static_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "require_safe", lambda source, filename="": None)
    monkeypatch.setattr(pool_module, "require_safe", lambda source, filename="": None)


@pytest.mark.parametrize("name", sorted(CAUSES))
def test_static_check_refuses_the_pipe_writers(name: str) -> None:
    assert "'enum.bltns' is not on the allow-list" in str(check_source(hostile(name)))


@pytest.mark.usefixtures("no_static_check")
@pytest.mark.parametrize("name", sorted(CAUSES))
def test_sample_refuses_a_child_that_breaks_the_protocol(name: str) -> None:
    report = sample_terms(hostile(name), 3, seed=0, timeout=30)
    assert report.kind == "refused", report.failure
    assert "broke the protocol" in (report.failure or "")
    assert CAUSES[name] in (report.failure or ""), report.failure
    assert ("", "(forged)") not in report.samples


@pytest.mark.usefixtures("no_static_check")
@pytest.mark.parametrize("name", sorted(CAUSES))
def test_pool_refuses_a_child_that_breaks_the_protocol_and_keeps_serving(
    name: str, toy_source: Callable[[str], str]
) -> None:
    good = Entry("Toy", toy_source("    return '', 'true'\n"), "Toy/generator.py")
    bad = Entry("Hostile", hostile(name), "Hostile/generator.py")
    with GeneratorPool([good, bad], timeout=20) as pool:
        with pytest.raises(GeneratorFailure) as info:
            pool.generate("Hostile", 1)
        assert info.value.kind == "refused"
        assert "broke the protocol" in info.value.detail
        assert pool.theories == ["Toy"] and "Hostile" in pool.refused
        assert pool.generate("Toy", 2) == ("", "true")
        with pytest.raises(GeneratorFailure, match="refused"):
            pool.generate("Hostile", 3)


def test_large_samples_stop_at_the_run_limit(toy_source: Callable[[str], str]) -> None:
    # two texts of 999,000 characters per sample: 40 samples would be 80 million characters
    body = "    return 'x' * 999_000, 'y' * 999_000\n"
    report = sample_terms(toy_source(body), 40, seed=0, timeout=60)
    assert report.kind == "bad-output"
    assert "limit per run" in (report.failure or "")
    assert len(report.samples) == 8  # 8 * 1,998,000 <= 16,000,000 < 9 * 1,998,000


def test_size_limits_are_settings(toy_source: Callable[[str], str]) -> None:
    body = "    return '', '(= x ' + str(rng.randint(1000, 9999)) + ')'\n"
    assert sample_terms(toy_source(body), 2, seed=0).ok
    report = sample_terms(toy_source(body), 2, seed=0, limits=Limits(term_chars=8))
    assert report.kind == "bad-output" and "limit 8" in (report.failure or "")
    report = sample_terms(toy_source(body), 4, seed=0, limits=Limits(sample_chars=25))
    assert report.kind == "bad-output" and len(report.samples) == 2
    with pytest.raises(ValueError, match="positive"):
        Limits(term_chars=0)


# --- the parser on its own --------------------------------------------------------------


def line(**fields: object) -> bytes:
    return json.dumps(fields).encode()


@pytest.mark.parametrize(
    ("raw", "number", "cause"),
    [
        (b"not json", 0, "message 0 is not JSON"),
        (b'{"a": ' * 5 + b"1" + b"}" * 5, 0, "nested deeper"),
        (b"[1, 2]", 0, "is a JSON list, not an object"),
        (b'"text"', 0, "is a JSON str"),
        (line(ok=["", "true"]), 0, "has the fields (ok)"),
        (line(ok=["", "true"], n=1), 0, "numbered 1: out of order"),
        (line(ok=["", "true"], n=True), 1, "out of order"),
        (line(ok=["", "true"], n=0.0), 0, "out of order"),
        (line(ok=["", "true"], n="0"), 0, "out of order"),
        (line(ok=5, n=0), 0, "field 'ok' has the wrong type"),
        (line(ok=["", 5], n=0), 0, "field 'ok' has the wrong type"),
        (line(ok=["a", "b", "c"], n=0), 0, "field 'ok' has the wrong type"),
        (line(sample=["", "x"], spent=-1, n=0), 0, "field 'spent'"),
        (line(sample=["", "x"], spent=True, n=0), 0, "field 'spent'"),
        (line(sample=["", "x"], spent="1", n=0), 0, "field 'spent'"),
        (b'{"sample": ["", "x"], "spent": NaN, "n": 0}', 0, "field 'spent'"),
        (line(kind="ok!", failure="", n=0), 0, "field 'kind'"),
        (line(kind="exception", failure=3, n=0), 0, "field 'failure'"),
        (line(ready=["A", 1], failed={}, n=0), 0, "field 'ready'"),
        (line(ready=["A"], failed={"B": 1}, n=0), 0, "field 'failed'"),
        (line(ready=["A"], failed=[], n=0), 0, "field 'failed'"),
        (line(loading=1, n=0), 0, "field 'loading'"),
        (line(ok=["", "t"], n=0, extra=1), 0, "has the fields (extra, n, ok)"),
        (line(ok=["x" * 40, "t"], n=0), 0, "has a text of 40 characters (limit 10)"),
        (line(kind="exception", failure="x" * 20_004, n=0), 0, "text of 20004 characters"),
        (line(ready=["x" * 20_004], failed={}, n=0), 0, "text of 20004 characters"),
        (line(ready=[], failed={"x" * 20_004: ""}, n=0), 0, "text of 20004 characters"),
    ],
)
def test_parse_refuses_with_the_cause(raw: bytes, number: int, cause: str) -> None:
    limits = Limits(term_chars=10)
    with pytest.raises(ProtocolViolation) as info:
        parse(raw, number, ALL, limits)
    assert cause in info.value.cause


def test_parse_refuses_deep_nesting_before_decoding() -> None:
    with pytest.raises(ProtocolViolation, match="nested deeper than 4 levels"):
        parse(b"[" * 200_000, 0, ALL, Limits())


def test_parse_refuses_a_shape_not_expected_here() -> None:
    with pytest.raises(ProtocolViolation, match="expected answer or end"):
        parse(line(sample=["", "x"], spent=0, n=0), 0, frozenset({"answer", "end"}), Limits())


def test_parse_refuses_a_message_over_the_byte_cap() -> None:
    limits = Limits(term_chars=10)
    raw = line(ok=["", "t" * 250_000], n=0)
    cap = 12 * (2 * 10 + 20_000) + 4096
    with pytest.raises(ProtocolViolation, match=rf"has {len(raw)} bytes \(limit {cap}\)"):
        parse(raw, 0, ALL, limits)


def test_parse_accepts_every_message_the_child_writes() -> None:
    limits = Limits()
    cases = [
        (line(loading="Ints", n=0), "loading", "theory", "Ints"),
        (line(ready=["Ints"], failed={"UF": "trace"}, n=0), "ready", "failed", {"UF": "trace"}),
        (line(ok=["(declare-const x Int)", "(> x 0)"], n=0), "answer", "pair", None),
        (line(sample=["", "true"], spent=0.5, n=0), "sample", "spent", 0.5),
        (line(kind="exception", failure="boom", n=0), "end", "failure", "boom"),
        (line(kind="bad-output", failure="x", spent=1, n=0), "end-timed", "spent", 1.0),
        (line(kind="ok", spent=2.0, n=0), "done", "kind", "ok"),
        (line(kind="ok", confinement="seccomp", n=0), "probe", "confinement", "seccomp"),
    ]
    for raw, shape, name, value in cases:
        message = parse(raw, 0, ALL, limits)
        assert message.shape == shape and message.number == 0
        if value is not None:
            assert getattr(message, name) == value
    answer = parse(line(ok=["a", "b"], n=7), 7, ALL, limits)
    assert answer.pair == ("a", "b") and answer.kind == "" and answer.spent is None


def test_nesting_ignores_brackets_inside_strings() -> None:
    assert nesting(b'{"a": "[[[[[[[[", "b": [1, {"c": "\\"[[["}]}') == 3
    assert nesting(b"[[[]]]") == 3 and nesting(b"{}") == 1 and nesting(b"1") == 0
    assert nesting(b"[" * (MAX_DEPTH + 1)) == MAX_DEPTH + 1


# --- the reader on a real pipe -----------------------------------------------------------


def pipe_with(data: bytes) -> int:
    """A pipe's read end holding `data` (written by a thread when it is over the pipe size)."""
    read_end, write_end = os.pipe()

    def write() -> None:
        with os.fdopen(write_end, "wb") as out:
            out.write(data)

    threading.Thread(target=write, daemon=True).start()
    return read_end


def soon() -> float:
    return time.monotonic() + 10


def test_reader_numbers_messages_and_ends_at_the_end_of_the_pipe() -> None:
    data = line(loading="A", n=0) + b"\n" + line(ready=["A"], failed={}, n=1) + b"\n"
    reader = Reader(pipe_with(data), Limits())
    first = reader.receive(ALL, soon())
    second = reader.receive(ALL, soon())
    assert first is not None and first.shape == "loading" and first.theory == "A"
    assert second is not None and second.shape == "ready" and second.number == 1
    assert reader.receive(ALL, soon()) is None
    assert reader.read_bytes == len(data)


def test_reader_keeps_a_line_split_over_many_chunks() -> None:
    text = "x" * (3 * CHUNK + 17)
    reader = Reader(pipe_with(line(ok=["", text], n=0) + b"\n"), Limits())
    message = reader.receive(ALL, soon())
    assert message is not None and message.pair == ("", text)


def test_reader_drops_a_line_cut_short_by_a_kill() -> None:
    data = line(ok=["", "a"], n=0) + b"\n" + b'{"ok": ["", "b'
    reader = Reader(pipe_with(data), Limits())
    assert reader.receive(ALL, soon()) is not None
    assert reader.receive(ALL, soon()) is None


def test_reader_refuses_a_line_over_the_cap_without_reading_it_all() -> None:
    limits = Limits(term_chars=10)
    cap = limits.message_bytes
    reader = Reader(pipe_with(b"x" * (cap + 10 * CHUNK)), limits)
    with pytest.raises(ProtocolViolation, match=rf"message 0 is longer than {cap} bytes"):
        reader.receive(ALL, soon())
    assert cap < reader.read_bytes <= cap + CHUNK
    exact = Reader(pipe_with(line(ok=["", "t" * 10], n=0) + b"\n"), limits)
    assert exact.receive(ALL, soon()) is not None


def test_reader_refuses_more_than_the_run_may_write() -> None:
    one = line(sample=["", "t"], spent=0, n=0) + b"\n"
    reader = Reader(pipe_with(one * 3), Limits(), total_bytes=2 * len(one))
    with pytest.raises(ProtocolViolation, match=rf"more than {2 * len(one)} bytes"):
        for _ in range(3):
            reader.receive(ALL, soon())
    assert reader.read_bytes > 2 * len(one)
    exact = Reader(pipe_with(one), Limits(), total_bytes=len(one))
    assert exact.receive(ALL, soon()) is not None


def test_reader_times_out_when_the_child_says_nothing() -> None:
    read_end, write_end = os.pipe()
    try:
        reader = Reader(read_end, Limits())
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            reader.receive(ALL, time.monotonic() + 0.3)
        assert 0.25 < time.monotonic() - started < 3
        with pytest.raises(TimeoutError):
            reader.receive(ALL, time.monotonic() - 1)
    finally:
        os.close(read_end)
        os.close(write_end)


def test_limits_give_the_byte_caps() -> None:
    limits = Limits(term_chars=100, sample_chars=1000)
    assert limits.message_bytes == 12 * (2 * 100 + 20_000) + 4096
    assert limits.total_bytes == 12 * 1000 + 2 * limits.message_bytes
    with pytest.raises(ValueError, match="positive"):
        Limits(sample_chars=0)
    assert Limits(term_chars=1, sample_chars=1).term_chars == 1


def test_parse_holds_pairs_and_failure_texts_to_their_exact_bounds() -> None:
    limits = Limits()
    for short in (["x"], []):
        with pytest.raises(ProtocolViolation, match="field 'ok'"):
            parse(line(ok=short, n=0), 0, ALL, limits)
    at_limit = parse(line(kind="exception", failure="x" * 20_003, n=0), 0, ALL, limits)
    assert len(at_limit.failure) == 20_003
    assert parse(line(kind="exception", failure="x" * 7_000, n=0), 0, ALL, limits).failure
    assert Limits().term_chars == 1_000_000 and Limits().sample_chars == 16_000_000


def test_reader_refuses_an_empty_line() -> None:
    reader = Reader(pipe_with(b"\n" + line(ok=["", "t"], n=0) + b"\n"), Limits())
    with pytest.raises(ProtocolViolation, match="message 0 is not JSON"):
        reader.receive(ALL, soon())
