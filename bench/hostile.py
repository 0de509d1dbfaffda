"""Reliability bench (issues 14 and 29): hostile generators, solvers, seeds, stores, options.

    PYTHONPATH=. python bench/hostile.py [--rows NAME ...]

Each row runs in a process of its own (so its peak memory is its own), with `TMPDIR` set to
a fresh folder, and prints: tried, handled cleanly, tracebacks (an exception the code did not
turn into a report or a one-line error), lost (bugs announced but not stored, or bugs gone),
escapes (a file a hostile module created, or a raw control character that reached the
terminal), orphans (processes left running), left-over folders (in that `TMPDIR` after the
row), and the parent's peak memory (the row's process, or the `sphinxfuzz` command it runs,
whichever is larger; sandbox and solver children are not the parent).

Rows: generators (static check + kernel, then the kernel alone), protocol (modules that
write their own lines to the child's pipe), generator output (two 999,000-character texts
at n=40, 800 MB on the pipe), solvers, seeds, mass seeds (20,000 empty files: how many
lines), kill -9 (a campaign whose solver hangs, killed; 5 s later), jobs (--jobs 10000),
blocked stop (SIGTERM while the main thread blocks), store (damaged, missing, empty index,
a folder of its name, unwritable and empty -c; a full disk and read-only media where this
process may mount a tmpfs), terminal (escape codes in stored solver output and a generator's
exception), sphinxfuzz.toml (malformed), LLM answer (malformed answers over the file
exchange), campaign (SIGTERM mid-run). The third round (issue 52): bug folders (a forged
stored spec given to replay, reduce, bisect and refresh), cache names (hostile --version
lines), numbers (5,000-digit indices in seeds), seed walks (/proc, a FIFO, a resume from
another folder, seeds as one string), campaign files (damaged verdict.json and status.json),
config values (the cache a file, deep TOML, infinite weights), Python API (bad arguments),
reduce (SIGTERM while ddSMT runs). Two more columns: files written outside the cache and the
campaign folder, and commands a bug folder named that ran without --trust-folder.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HOSTILE = ROOT / "tests" / "fixtures" / "hostile"
FIXTURES = ROOT / "tests" / "fixtures"
SEEDS = FIXTURES / "campaign" / "seeds"
GENERATORS = FIXTURES / "generators"
CRASHER = FIXTURES / "campaign" / "crash_on_marker.py"
ESCAPES = "\x1b[2J\x1b]0;owned\x07"
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
ORPHAN = r"sleep 7[89]\d|yes (sat|warning)"
MARKER = "SPHINXFUZZ_SOLVER_OF"


@dataclass
class Row:
    area: str
    tried: int = 0
    handled: int = 0
    tracebacks: int = 0
    lost: int = 0
    escapes: int = 0
    orphans: int = 0
    leftover: int = 0
    outside: int = 0  # files written outside the solver cache and the campaign folder
    untrusted: int = 0  # commands a bug folder named that ran without --trust-folder
    peak_mb: float = 0.0
    note: str = ""


# -- helpers ---------------------------------------------------------------------------------


def work() -> Path:
    """A folder for the row's own files (not the TMPDIR the code under test uses)."""
    folder = Path(os.environ["HOSTILE_WORK"]) / f"w{len(os.listdir(os.environ['HOSTILE_WORK']))}"
    folder.mkdir()
    folder.chmod(0o777)
    return folder


_watched_peak = 0.0


def sphinxfuzz(
    *argv: str,
    cwd: Path | None = None,
    timeout: float = 600,
    signal_after: float | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run the CLI (`env`: variables added); its peak resident memory (VmHWM, polled)
    counts as the parent's."""
    global _watched_peak
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    command = [sys.executable, "-c", "from sphinxfuzz.cli import main; main()", *argv]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env, cwd=cwd)  # fmt: skip
    peak = [0.0]

    def watch() -> None:
        while process.poll() is None:
            try:
                status = Path(f"/proc/{process.pid}/status").read_text()
                kb = int(re.search(r"VmHWM:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
                peak[0] = max(peak[0], kb / 1024)
            except (OSError, AttributeError):
                pass
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    if signal_after is not None:
        time.sleep(signal_after)
        process.send_signal(signal.SIGTERM)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
    watcher.join()
    _watched_peak = max(_watched_peak, peak[0])
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def one_line_error(done: subprocess.CompletedProcess[str]) -> bool:
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    return done.returncode == 2 and len(lines) == 1 and lines[0].startswith("error:")


def traced(done: subprocess.CompletedProcess[str]) -> int:
    """A traceback of sphinxfuzz itself (a generator's own traceback in a report is not)."""
    return int(bool(re.search(r'File "[^"]*/sphinxfuzz/|Traceback \(most recent call last\) ─',
                              done.stderr)))  # fmt: skip


def without_static_check() -> None:
    from sphinxfuzz.generators import pool as pool_module
    from sphinxfuzz.generators import sandbox

    sandbox.require_safe = lambda source, filename="": None  # type: ignore[assignment]
    pool_module.require_safe = lambda source, filename="": None  # type: ignore[assignment]


@dataclass(frozen=True)
class Entry:
    theory: str
    source: str
    path: str


def can_mount() -> bool:
    return os.geteuid() == 0 and shutil.which("mount") is not None


def tmpfs(size: str) -> Path | None:
    folder = work() / "medium"
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                          capture_output=True)  # fmt: skip
    return folder if done.returncode == 0 else None


def campaign_with_bugs() -> Path:
    root = work() / "night"
    done = sphinxfuzz("fuzz", "--seeds", str(SEEDS), "--solvers", f"z3;{CRASHER}",
                      "--generators", str(GENERATORS), "--mutants", "6", "--seed", "3",
                      "--no-reduce", "-c", str(root))  # fmt: skip
    assert done.returncode == 0, done.stderr
    return root


# -- rows ------------------------------------------------------------------------------------


def generators(row: Row) -> None:
    from sphinxfuzz.generators import sandbox
    from sphinxfuzz.generators.static_check import UnsafeGenerator

    folder = work()
    for static in (True, False):
        if not static:
            without_static_check()
        for path in sorted((HOSTILE / "generators").glob("*.py")):
            target = folder / f"{path.stem}-{static}"
            source = path.read_text().replace("@TARGET@", str(target))
            row.tried += 1
            try:
                report = sandbox.sample_terms(source, 3, 0, timeout=20)
                ok = report.kind == "refused" or (path.stem == "escape_format" and report.ok)
            except UnsafeGenerator:
                ok = True
            except Exception:  # noqa: BLE001 - counted
                traceback.print_exc()
                row.tracebacks += 1
                ok = False
            row.escapes += target.exists()
            row.handled += ok and not target.exists()


def protocol(row: Row) -> None:
    from sphinxfuzz.generators import sandbox
    from sphinxfuzz.generators.pool import GeneratorFailure, GeneratorPool

    without_static_check()
    for path in sorted((HOSTILE / "protocol").glob("*.py")):
        source = path.read_text()
        for how in ("sample", "pool"):
            row.tried += 1
            try:
                if how == "sample":
                    report = sandbox.sample_terms(source, 3, 0, timeout=30)
                    ok = report.kind == "refused" and ("", "(forged)") not in report.samples
                else:
                    with GeneratorPool([Entry("H", source, "H/generator.py")], timeout=20) as pool:
                        try:
                            pool.generate("H", 1)
                            ok = False
                        except GeneratorFailure as failure:
                            ok = failure.kind == "refused"
            except Exception:  # noqa: BLE001
                traceback.print_exc()
                row.tracebacks += 1
                ok = False
            row.handled += ok


BIG = """THEORY = "Big"
SOLVERS = ("z3",)


def generate(rng):
    return "x" * 999_000, "y" * 999_000
"""
FLOOD = """import enum
import random

THEORY = "Flood"
SOLVERS = ("z3",)


def generate(rng):
    osm = enum.bltns.getattr(random, "_o" + "s")
    line = b"[" + b"1," * 500_000 + b"1]\\n"
    for _ in range(800):
        osm.write(4, line)
    return "", "true"
"""


def generator_output(row: Row) -> None:
    from sphinxfuzz.generators import sandbox

    row.tried += 1
    report = sandbox.sample_terms(BIG, 40, 0, timeout=120)  # the normal path, checks on
    row.handled += report.kind == "bad-output" and "limit per run" in (report.failure or "")
    row.note = f"40 x 2 x 999,000 chars: {report.kind}, {len(report.samples)} samples kept; "
    without_static_check()
    row.tried += 1
    report = sandbox.sample_terms(FLOOD, 3, 0, timeout=120)
    row.handled += report.kind == "refused"
    row.note += f"800 MB on the pipe: {report.kind}"


def solvers(row: Row) -> None:
    from sphinxfuzz.solvers import Outcome, parse_specs, run_solver, solver_version

    for path in sorted((HOSTILE / "solvers").glob("*.sh")):
        row.tried += 1
        spec = parse_specs(str(path))[0]
        try:
            solver_version(spec)
            started = time.monotonic()
            result = run_solver(spec, "(assert true)\n(check-sat)\n", timeout=2.0, memory_mb=1024)
            quick = time.monotonic() - started < 5.0
            honest = result.outcome in (
                Outcome.SAT,
                Outcome.UNKNOWN,
                Outcome.TIMEOUT,
                Outcome.ERROR,
            )
            row.handled += quick and honest
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            row.tracebacks += 1


def seeds(row: Row) -> None:
    from sphinxfuzz.mutate.seed import SeedError, load_seed

    folder = work()
    (folder / "huge.smt2").write_text("(declare-const x Int)\n" + "(assert (> x 0))\n" * 3_000_000)
    (folder / "latin1.smt2").write_bytes(b"(declare-const x Int)\n(assert (= x \xe9))\n")
    (folder / "unbalanced.smt2").write_text("(declare-const x Int)\n(assert (> x 0)\n")
    (folder / "empty.smt2").write_text("")
    (folder / f"esc{ESCAPES[:4]}.smt2").write_text("(assert")
    for path in sorted(folder.iterdir()):
        row.tried += 1
        try:
            load_seed(path)
        except SeedError:
            row.handled += 1
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            row.tracebacks += 1


def mass_seeds(row: Row) -> None:
    folder = work() / "seeds"
    folder.mkdir()
    for index in range(20_000):
        (folder / f"empty-{index:05}.smt2").write_text("")
    shutil.copy(SEEDS / "plain.smt2", folder / "plain.smt2")
    row.tried = 1
    done = sphinxfuzz("fuzz", "--seeds", str(folder), "--solvers", "z3", "--generators",
                      str(GENERATORS), "--mutants-per-seed", "1", "-c", str(work() / "c"))  # fmt: skip
    lines = (done.stdout + done.stderr).count("skipping seed:")
    row.tracebacks += traced(done)
    row.handled += done.returncode == 0 and lines <= 10
    row.note = f"{lines} 'skipping seed' lines for 20,000 empty seeds"


def marked_orphans() -> int:
    """Processes that carry the solver marker of a fuzzer that is gone."""
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                environ = (entry / "environ").read_bytes().split(b"\0")
            except OSError:
                continue
            for item in environ:
                if item.startswith(MARKER.encode() + b"="):
                    owner = int(item.split(b"=", 1)[1] or 0)
                    count += owner > 0 and not Path(f"/proc/{owner}").exists()
    return count


def kill9(row: Row) -> None:
    from sphinxfuzz.solvers.reaper import running

    hang = HOSTILE / "solvers" / "hang_after_smoke.sh"
    for _ in range(3):
        row.tried += 1
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        command = [sys.executable, "-c", "from sphinxfuzz.cli import main; main()", "fuzz",
                   "--seeds", str(SEEDS / "plain.smt2"), "--solvers", f"z3;{hang}",
                   "--generators", str(GENERATORS), "--timeout", "60", "--time", "10m",
                   "-c", str(work() / "c")]  # fmt: skip
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   env=env)  # fmt: skip
        deadline = time.monotonic() + 90
        while not running("sleep 793") and time.monotonic() < deadline:
            time.sleep(0.2)
        process.kill()
        process.wait()
        time.sleep(5)
        left = len(running("sleep 79[123]")) + marked_orphans()
        row.orphans += left
        row.handled += left == 0 and not os.listdir(os.environ["TMPDIR"])


def jobs(row: Row) -> None:
    row.tried = 1
    started = time.monotonic()
    done = sphinxfuzz("fuzz", "--seeds", str(SEEDS / "plain.smt2"), "--solvers", "z3",
                      "--generators", str(GENERATORS), "--jobs", "10000", "-c",
                      str(work() / "c"), timeout=120)  # fmt: skip
    row.tracebacks += traced(done)
    row.handled += one_line_error(done) and time.monotonic() - started < 60
    row.note = done.stderr.strip()[:120]


BLOCKED = """
import os, threading
from sphinxfuzz.campaign.coordinator import _StopOnSignal
read_end, write_end = os.pipe()
with _StopOnSignal(threading.Event()):
    print("blocked", flush=True)
    os.read(read_end, 1)
"""


def blocked_stop(row: Row) -> None:
    row.tried = 1
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-c", BLOCKED], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env)  # fmt: skip
    assert process.stdout is not None
    process.stdout.readline()
    process.send_signal(signal.SIGTERM)
    started = time.monotonic()
    try:
        _, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
    took = time.monotonic() - started
    row.tracebacks += b"Traceback" in err
    row.handled += took < 10
    row.note = f"ended {took:.1f} s after SIGTERM"


def store(row: Row) -> None:
    from sphinxfuzz.bugs.folder import CampaignFolder

    original = campaign_with_bugs()
    damages: dict[str, Callable[[Path], None]] = {
        "truncated": lambda db: db.write_bytes(db.read_bytes()[: db.stat().st_size // 2]),
        "random": lambda db: db.write_bytes(os.urandom(db.stat().st_size)),
        "overwritten": lambda db: db.write_bytes(
            db.read_bytes()[:4096] + os.urandom(8192) + db.read_bytes()[12288:]
        ),  # fmt: skip
        "folder": lambda db: (db.unlink(), db.mkdir()),  # type: ignore[func-returns-value]
        "empty": lambda db: db.write_bytes(b""),
        "missing": lambda db: db.unlink(),
    }
    bugs_before = len(os.listdir(original / "bugs"))
    for name, harm in damages.items():
        root = work() / name
        shutil.copytree(original, root)
        harm(root / CampaignFolder.INDEX)
        for argv in (("bugs", "list", "-c", str(root)),
                     ("report", "-c", str(root), "-o", str(work() / "r.html")),
                     ("fuzz", "--resume", "-c", str(root), "--mutants", "1")):  # fmt: skip
            row.tried += 1
            done = sphinxfuzz(*argv)
            row.tracebacks += traced(done)
            row.handled += one_line_error(done) and "bugs reindex" in done.stderr
        row.tried += 1
        done = sphinxfuzz("bugs", "reindex", "-c", str(root))
        listed = sphinxfuzz("bugs", "list", "-c", str(root), "--json")
        row.tracebacks += traced(done) + traced(listed)
        row.lost += max(0, bugs_before - len(json.loads(listed.stdout or "{}").get("bugs", [])))
        row.handled += done.returncode == 0 and listed.returncode == 0
    for where in ("/proc/sphinxfuzz-c", "/dev/null/c", ""):
        row.tried += 1
        cwd = work()
        done = sphinxfuzz("fuzz", "--seeds", str(SEEDS / "plain.smt2"), "--solvers", "z3",
                          "--generators", str(GENERATORS), "--mutants", "1", "-c", where,
                          cwd=cwd)  # fmt: skip
        row.tracebacks += traced(done)
        row.handled += one_line_error(done) and not os.listdir(cwd)
    if not can_mount():
        row.note = "full disk and read-only media not tried (mounting needs root)"
        return
    medium = tmpfs("4m")
    if medium is None:
        row.note = "full disk and read-only media not tried (no tmpfs)"
        return
    try:  # a full disk, then a resume
        root = medium / "c"
        sphinxfuzz("fuzz", "--seeds", str(SEEDS), "--solvers", f"z3;{CRASHER}", "--generators",
                   str(GENERATORS), "--mutants", "2", "--seed", "5", "--no-reduce", "-c",
                   str(root))  # fmt: skip
        with (medium / "filler").open("wb", buffering=0) as handle:
            for size in (65536, 4096, 1):
                try:
                    while True:
                        handle.write(b"\0" * size)
                except OSError:
                    pass
        row.tried += 2
        full = sphinxfuzz("fuzz", "--resume", "-c", str(root), "--mutants", "6")
        row.tracebacks += traced(full)
        row.handled += one_line_error(full) and "disk is full" in full.stderr
        (medium / "filler").unlink()
        resumed = sphinxfuzz("fuzz", "--resume", "-c", str(root), "--mutants", "6")
        row.tracebacks += traced(resumed)
        row.handled += resumed.returncode == 0
        shutil.rmtree(root)
        shutil.copytree(original, medium / "night")  # read-only media
        subprocess.run(["mount", "-o", "remount,ro", str(medium)], check=True)
        bug = sorted(os.listdir(original / "bugs"))[0]
        for argv in (("bugs", "list", "-c", str(medium / "night")),
                     ("report", "-c", str(medium / "night"), "-o", str(work() / "ro.html")),
                     ("bugs", "show", bug, "-c", str(medium / "night")),
                     ("bugs", "replay", bug, "-c", str(medium / "night"))):  # fmt: skip
            row.tried += 1
            done = sphinxfuzz(*argv)
            row.tracebacks += traced(done)
            row.handled += done.returncode == 0
    finally:
        subprocess.run(["umount", "-l", str(medium)], check=False)


def terminal(row: Row) -> None:
    from sphinxfuzz.bugs.record import load_record, safe_name

    root = campaign_with_bugs()
    folder = sorted((root / "bugs").iterdir())[0]
    record = load_record(folder)
    (folder / f"{safe_name(record.solvers[-1].name)}.stderr").write_text(f"x {ESCAPES} y\n")
    row.tried += 1
    shown = sphinxfuzz("bugs", "show", folder.name, "-c", str(root))
    raw = len(CONTROL.findall(shown.stdout + shown.stderr))
    gens = work() / "generators" / "Ints"
    gens.mkdir(parents=True)
    (gens / "generator.py").write_text('THEORY = "Ints"\nSOLVERS = ("z3",)\n\n\n'
                                       f"def generate(rng):\n    raise ValueError({ESCAPES!r})\n")  # fmt: skip
    row.tried += 1
    sampled = sphinxfuzz("generators", "sample", "Ints", "--generators", str(gens.parent))
    raw_sample = len(CONTROL.findall(sampled.stdout + sampled.stderr))
    row.escapes += raw + raw_sample
    row.tracebacks += traced(shown) + traced(sampled)
    row.handled += (shown.returncode == 0 and raw == 0) + (
        sampled.returncode == 2 and raw_sample == 0
    )


def toml(row: Row) -> None:
    cwd = work()
    (cwd / "sphinxfuzz.toml").write_text("[llm\nmodel = 'x'\n\x1b[2J")
    row.tried = 1
    done = sphinxfuzz("build-generators", "Ints", "--llm", "openai", "--out", str(work() / "o"),
                      cwd=cwd, timeout=120)  # fmt: skip
    row.tracebacks += traced(done)
    row.escapes += len(CONTROL.findall(done.stderr))
    row.handled += one_line_error(done) and "sphinxfuzz.toml" in done.stderr
    row.note = done.stderr.strip()[:120]


ANSWERS = [
    "no code at all \x1b[2J",
    "```python\nimport os\nos.system('true')\n```",
    "```python\ndef generate(rng):\n    return 1\n```",
    "```\n" + "(" * 100_000 + "\n```",
    "\udc80".encode("utf-8", "surrogatepass").decode("latin-1"),
]


def llm_answer(row: Row) -> None:
    exchange = work() / "answers"
    exchange.mkdir()
    out = work() / "out"
    stop = threading.Event()

    def answer() -> None:
        given = 0
        while not stop.is_set():
            for prompt in sorted(exchange.glob("*.prompt.md")):
                target = prompt.with_name(prompt.name.replace(".prompt.md", ".answer.md"))
                rejected = target.with_suffix(".rejected.md")
                if not target.exists() and not rejected.exists():
                    target.write_text(ANSWERS[given % len(ANSWERS)], encoding="utf-8")
                    given += 1
            time.sleep(0.1)

    helper = threading.Thread(target=answer, daemon=True)
    helper.start()
    row.tried = 1
    done = sphinxfuzz("build-generators", "Ints", "--llm", f"exchange:{exchange}", "--model",
                      "bench", "--rounds", "3", "--out", str(out), timeout=300)  # fmt: skip
    stop.set()
    row.tracebacks += traced(done)
    row.escapes += len(CONTROL.findall(done.stdout + done.stderr))
    row.handled += done.returncode in (0, 1, 2) and not traced(done)
    row.note = f"exit {done.returncode}: " + (done.stderr.strip().splitlines() or [""])[-1][:100]


def campaign(row: Row) -> None:
    out = work() / "c"
    row.tried = 1
    started = time.monotonic()
    done = sphinxfuzz("fuzz", "--seeds", str(SEEDS), "--solvers", f"z3;{CRASHER}",
                      "--generators", str(GENERATORS), "--time", "10m", "--seed", "3",
                      "-c", str(out), signal_after=25)  # fmt: skip
    stopped_in = time.monotonic() - started - 25
    output = done.stdout + done.stderr
    announced = set(re.findall(r"-> bugs/(\S+)", output))
    stored = {p.name for p in (out / "bugs").iterdir()} if (out / "bugs").is_dir() else set()
    row.tracebacks += traced(done)
    row.lost += len(announced - stored)
    row.handled += done.returncode == 0 and stopped_in < 8 and not traced(done)
    row.note = f"stopped {stopped_in:.1f} s after SIGTERM, {len(stored)} bug(s) stored"


# -- the third round (issue 52) ----------------------------------------------------------------


def _forged(root: Path, spec: str) -> Path:
    """The campaign's first bug with its stand-in's stored spec replaced by `spec`."""
    folder = sorted((root / "bugs").iterdir())[0]
    verdict = json.loads((folder / "verdict.json").read_text())
    verdict["solvers"][-1]["spec"] = spec
    (folder / "verdict.json").write_text(json.dumps(verdict))
    return folder


def _handled(row: Row, done: subprocess.CompletedProcess[str], ok: bool) -> None:
    row.tried += 1
    row.tracebacks += traced(done)
    row.handled += ok and not traced(done)


def bug_folders(row: Row) -> None:
    root = campaign_with_bugs()
    pwned = work() / "PWNED"
    spec = f"sh -c 'touch {pwned} && exec z3 \"$0\"'"
    folder = _forged(root, spec)
    env = {"SPHINXFUZZ_CACHE": str(work() / "cache")}
    for command in (("bugs", "replay", folder.name), ("reduce", folder.name),
                    ("bisect", folder.name, "--versions", "4.12.2"), ("bugs", "refresh")):  # fmt: skip
        done = sphinxfuzz(*command, "-c", str(root), env=env)
        refused = "not run" in done.stdout + done.stderr and spec in done.stdout + done.stderr
        row.untrusted += pwned.exists()
        _handled(row, done, refused and not pwned.exists())
        pwned.unlink(missing_ok=True)
    shown = sphinxfuzz("bugs", "show", folder.name, "-c", str(root))
    _handled(row, shown, f"spec: {spec}" in shown.stdout)
    trusted = sphinxfuzz("bugs", "replay", folder.name, "-c", str(root), "--trust-folder")
    _handled(row, trusted, pwned.exists() and "runs: " in trusted.stdout)  # shown, then run
    row.note = "forged spec refused by replay, reduce, bisect, refresh; run only trusted"


def cache_names(row: Row) -> None:
    cache = work() / "cache"
    for name in ("z3_version_escape.sh", "z3_version_huge.sh"):
        done = sphinxfuzz("fuzz", "--seeds", str(SEEDS / "plain.smt2"), "--solvers",
                          f"z3;{HOSTILE / 'solvers' / name}", "--generators", str(GENERATORS),
                          "--mutants", "2", "--seed", "1", "--no-reduce", "-c",
                          str(work() / "c"), env={"SPHINXFUZZ_CACHE": str(cache)})  # fmt: skip
        base = Path(os.environ["HOSTILE_WORK"]).parent
        escaped = [p for p in base.rglob("ESCAPED*")]
        temporary = [p for p in cache.rglob("*.tmp")]
        row.outside += len(escaped)
        long_names = [p for p in cache.rglob("*") if len(p.name) > 100]
        _handled(row, done, done.returncode == 0 and not escaped + temporary + long_names)
    row.note = "version lines x/../../ESCAPED and 20 MB: names are digests"


def numbers(row: Row) -> None:
    folder = work() / "seeds"
    folder.mkdir()
    digits = "1" * 5000
    (folder / "bv.smt2").write_text(f"(declare-fun x () (_ BitVec {digits}))\n(assert (= x x))\n"
                                    "(check-sat)\n")  # fmt: skip
    (folder / "ff.smt2").write_text(f"(assert (= #f1m{digits} #f1m{digits}))\n(check-sat)\n")
    shutil.copy(SEEDS / "plain.smt2", folder / "plain.smt2")
    done = sphinxfuzz("fuzz", "--seeds", str(folder), "--solvers", "z3", "--generators",
                      str(GENERATORS), "--mutants", "4", "--no-reduce", "-c", str(work() / "c"))  # fmt: skip
    _handled(row, done, done.returncode == 0)
    row.note = "(_ BitVec <5000 digits>), #f1m<5000 digits>: seed errors, the campaign ran on"


def seed_walks(row: Row) -> None:
    common = ("--solvers", "z3", "--generators", str(GENERATORS), "--mutants", "2", "--no-reduce")
    done = sphinxfuzz("fuzz", "--seeds", "/proc", *common, "-c", str(work() / "c1"))
    _handled(row, done, one_line_error(done) and "no .smt2 seed files in /proc" in done.stderr)
    pipe = work() / "fifo.smt2"
    os.mkfifo(pipe)
    done = sphinxfuzz("fuzz", "--seeds", str(pipe), *common, "-c", str(work() / "c2"))
    _handled(row, done, one_line_error(done) and "not a regular file" in done.stderr)
    here, there = work(), work()  # ../seeds from each: the seeds, and an empty folder
    shutil.copytree(SEEDS, here / "seeds")
    (here / "run").mkdir()
    (there / "seeds").mkdir()
    (there / "run").mkdir()
    done = sphinxfuzz("fuzz", "--seeds", "../seeds", *common, "-c", "c3", cwd=here / "run")
    again = sphinxfuzz("fuzz", "--resume", *common[4:], "-c", str(here / "run" / "c3"),
                       cwd=there / "run")  # fmt: skip
    _handled(row, again, done.returncode == 0 and again.returncode == 0)
    api = subprocess.run([sys.executable, "-c", "import sphinxfuzz; print(sphinxfuzz."
                          f"CampaignConfig.from_settings({{'seeds': {str(SEEDS)!r}}}).seeds)"],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip
    _handled(row, api, api.stdout.strip() == repr((str(SEEDS),)))
    row.note = "/proc, a FIFO, a resume from another folder, seeds as one string in the API"


def campaign_files(row: Row) -> None:
    root = campaign_with_bugs()
    folder = sorted((root / "bugs").iterdir())[0]
    verdict = folder / "verdict.json"
    original = verdict.read_text()
    data = json.loads(original)
    verdict.write_text(
        original.replace(f'"position": {data["position"]}', '"position": ' + "7" * 5000)
    )
    for command in (("bugs", "show", folder.name), ("bugs", "list"),
                    ("report", "-o", str(work() / "r.html")), ("bugs", "reindex")):  # fmt: skip
        done = sphinxfuzz(*command, "-c", str(root))
        _handled(row, done, "verdict.json" in done.stdout + done.stderr)
    data["today"] = {"status": "alive", "solver": "z3", "version": "4", "checked_at": 10**400}
    verdict.write_text(json.dumps(data))
    done = sphinxfuzz("bugs", "show", folder.name, "-c", str(root))
    _handled(row, done, one_line_error(done) and "checked_at" in done.stderr)
    verdict.write_text(original)
    for text in ("[]", '{"seeds": {}}', '{"seeds": {"total": "x"}}', '{"pid": 1}'):
        (root / "status.json").write_text(text)
        done = sphinxfuzz("status", "-c", str(root))
        _handled(row, done, one_line_error(done) and "status.json" in done.stderr)
    row.note = "5,000-digit position, 400-digit checked_at, forged status.json"


def config_values(row: Row) -> None:
    common = ("fuzz", "--seeds", str(SEEDS / "plain.smt2"), "--solvers", "z3", "--mutants", "1")
    for cache in ("/etc/passwd", "/proc/x"):
        done = sphinxfuzz(*common, "-c", str(work() / "c"), env={"SPHINXFUZZ_CACHE": cache})
        _handled(row, done, one_line_error(done) and cache in done.stderr)
    cwd = work()
    (cwd / "sphinxfuzz.toml").write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    done = sphinxfuzz("build-generators", "Ints", "--llm", "openai", "--out", str(work() / "o"),
                      cwd=cwd, timeout=120)  # fmt: skip
    _handled(row, done, one_line_error(done) and "sphinxfuzz.toml" in done.stderr)
    out = work() / "c"
    done = sphinxfuzz(*common, "--strategies", "sphinx=1e400,fusion=1", "-c", str(out))
    _handled(row, done, one_line_error(done) and not out.exists())
    row.note = "SPHINXFUZZ_CACHE a file and /proc/x, 100,000 nested arrays, a weight of 1e400"


API_CASES = {
    "run_campaign(dict)": "sphinxfuzz.run_campaign({'solvers': 'z3'}, FOLDER)",
    "mutants='2'": "sphinxfuzz.run_campaign(CONFIG, FOLDER, mutants='2')",
    "replay(folder, 123)": "sphinxfuzz.replay(FOLDER, 123)",
    "timeout 'abc'": "sphinxfuzz.CampaignConfig.from_settings({'timeout': 'abc'})",
    "timeout -5": "sphinxfuzz.CampaignConfig.from_settings({'timeout': -5})",
    "mutants_per_seed 0": "sphinxfuzz.CampaignConfig.from_settings({'mutants_per_seed': 0})",
    "solvers as a list": "sphinxfuzz.CampaignConfig.from_settings({'solvers': ['z3']})",
}


def python_api(row: Row) -> None:
    folder = work() / "c"
    for call in API_CASES.values():
        script = ("import sphinxfuzz\nfrom sphinxfuzz.errors import SphinxfuzzError\n"
                  f"CONFIG = sphinxfuzz.CampaignConfig.from_settings({{'seeds': {str(SEEDS)!r}}})\n"
                  f"FOLDER = {str(folder)!r}\n"
                  f"try:\n    {call}\nexcept SphinxfuzzError as exc:\n    print('refused:', exc)\n")  # fmt: skip
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)  # fmt: skip
        _handled(row, done, done.stdout.startswith("refused:") and not folder.exists())
        if "Traceback" in done.stderr:
            row.tracebacks += 1
    row.note = ", ".join(API_CASES)


def reduce_stop(row: Row) -> None:
    from sphinxfuzz.solvers.scratch import TOOL_MARKER

    root = campaign_with_bugs()
    bug = sorted((root / "bugs").iterdir())[0].name
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "sphinxfuzz", "reduce", bug, "-c", str(root),
                                "--trust-folder"], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)  # fmt: skip

    def tools() -> list[int]:
        mark = f"{TOOL_MARKER}={process.pid}".encode()
        found = []
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and mark in (entry / "environ").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:
                continue
        return found

    deadline = time.monotonic() + 120
    while not tools() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    started = bool(tools())
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=60)
    time.sleep(3)  # the janitor's turn
    left = tools()
    row.orphans += len(left)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    row.tried = 1
    row.tracebacks += int("sphinxfuzz/" in (process.stderr.read() if process.stderr else ""))
    row.handled += started and not left
    row.note = "SIGTERM while ddSMT runs" + ("" if started else " (ddSMT never started)")


ROWS: dict[str, Callable[[Row], None]] = {
    "generators": generators,
    "protocol": protocol,
    "generator output": generator_output,
    "solvers": solvers,
    "seeds": seeds,
    "mass seeds": mass_seeds,
    "kill -9": kill9,
    "jobs": jobs,
    "blocked stop": blocked_stop,
    "store": store,
    "terminal": terminal,
    "sphinxfuzz.toml": toml,
    "LLM answer": llm_answer,
    "campaign (SIGTERM)": campaign,
    "bug folders": bug_folders,
    "cache names": cache_names,
    "numbers": numbers,
    "seed walks": seed_walks,
    "campaign files": campaign_files,
    "config values": config_values,
    "Python API": python_api,
    "reduce (SIGTERM)": reduce_stop,
}


def run_row(name: str) -> Row:
    """One row, in this process (the child `main` starts for it)."""
    from sphinxfuzz.solvers.reaper import running

    row = Row(name)
    try:
        ROWS[name](row)
    except Exception:  # noqa: BLE001 - the bench's own failure counts as a traceback
        traceback.print_exc()
        row.tracebacks += 1
    row.orphans += len(running(ORPHAN)) + marked_orphans()
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    row.peak_mb = max(own, _watched_peak)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="+", choices=sorted(ROWS), default=list(ROWS))
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: run one row here
    args = parser.parse_args()
    if args.one:
        print("ROW " + json.dumps(asdict(run_row(args.one))), flush=True)
        return
    rows = []
    for name in args.rows:
        base = Path(tempfile.mkdtemp(prefix="hostile-"))
        (base / "tmp").mkdir()
        (base / "work").mkdir()
        env = {**os.environ, "TMPDIR": str(base / "tmp"), "HOSTILE_WORK": str(base / "work"),
               "PYTHONPATH": str(ROOT)}  # fmt: skip
        started = time.monotonic()
        done = subprocess.run([sys.executable, __file__, "--one", name], env=env,
                              capture_output=True, text=True)  # fmt: skip
        line = next((ln for ln in done.stdout.splitlines() if ln.startswith("ROW ")), None)
        row = Row(**json.loads(line[4:])) if line else Row(name, tracebacks=1, note="row died")
        if done.stderr.strip():
            print(f"[{name}] stderr:\n{done.stderr.strip()[-3000:]}", file=sys.stderr)
        deadline = time.monotonic() + 3  # janitors end right after their owners
        while os.listdir(base / "tmp") and time.monotonic() < deadline:
            time.sleep(0.1)
        row.leftover = len(os.listdir(base / "tmp"))
        if row.leftover:
            row.note += f" left: {sorted(os.listdir(base / 'tmp'))[:3]}"
        shutil.rmtree(base, ignore_errors=True)
        print(f"{name}: {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
        rows.append(row)
    header = ("area", "tried", "handled", "tracebacks", "lost", "escapes", "orphans",
              "left-over folders", "outside files", "untrusted runs", "parent peak MB", "note")  # fmt: skip
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        cells = (row.area, row.tried, row.handled, row.tracebacks, row.lost, row.escapes,
                 row.orphans, row.leftover, row.outside, row.untrusted, f"{row.peak_mb:.0f}",
                 row.note.replace("|", "/"))  # fmt: skip
        print("| " + " | ".join(str(c) for c in cells) + " |")


if __name__ == "__main__":
    main()
