"""Which candidate option values a release accepts, and how it takes options.

Each value is set alone and run on an empty problem and on a tiny satisfiable formula; it is
kept only when both answer sat (an error, a crash, a time-out, unknown or unsat leaves it
out, with the solver's words). On the command line both go to one process first, the
formula after a `(reset)` (which keeps command-line options): a release's table then costs
one process start per value, ~6 s for z3's 750 values. A value that run refuses is tried
again with a process per script, since a second `check-sat` makes some releases incremental,
which some options refuse (cvc5 1.0.3's `--deep-restart`), and a mutant has one.

How an option reaches the solver (`delivery`): on the command line (z3 `name=value`, cvc5
`--name=value`, as the family's record spells them) or as `(set-option :name value)` at the
top of the script. A release honours a way when `get-option` then answers the value set;
the rules say which way to try first per family.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor

from sphinxfuzz.solvers.families import Family, program_argv
from sphinxfuzz.solvers.fresh_process import run_solver
from sphinxfuzz.solvers.options.choose import Candidate
from sphinxfuzz.solvers.persistent import PersistentSolver, supports_persistence
from sphinxfuzz.solvers.result import Answer, Outcome, SolverResult
from sphinxfuzz.solvers.spec import SolverSpec, with_options

Setting = tuple[str, str]  # (option name, value as the solver spells it)
PROBE_TIMEOUT = 10.0  # seconds per probe run: the scripts are tiny
# with models on, as every mutant has them: some options refuse model generation
EMPTY_PROBE = "(set-option :produce-models true)\n(check-sat)\n"
# the tiny formula: the first of these the release answers sat without options (bitwuzla
# reads no integers)
TINY_FORMULAS = (
    "(set-option :produce-models true)\n(declare-const x Int)\n(declare-const b Bool)\n"
    "(assert (and b (< 0 x 3) (= (ite b x 0) 1)))\n(check-sat)\n",
    "(set-option :produce-models true)\n(declare-const x (_ BitVec 2))\n(declare-const b Bool)\n"
    "(assert (and b (bvult #b00 x) (bvult x #b11) (= (ite b x #b00) #b01)))\n(check-sat)\n",
)
_MODELS = "(set-option :produce-models true)\n"


WORKERS = 2  # fresh processes at once: probes share the machine with everything else
_HONOUR_TRIES = 5  # candidates asked before a way counts as not honoured


def option_words(family: Family, settings: Iterable[Setting]) -> tuple[str, ...]:
    """The command-line words that set `settings` on a release of `family`, in the syntax
    its record names."""
    if family.record.option_syntax == "key=value":
        return tuple(f"{name}={value}" for name, value in settings)
    return tuple(_dashed_word(name, value) for name, value in settings)


def _dashed_word(name: str, value: str) -> str:
    """Dashed options take Booleans as --name and --no-name (a cvc5 1.0.3 binary refuses
    --name=false); the shims read both."""
    if value == "true":
        return f"--{name}"
    if value == "false":
        return f"--no-{name}"
    return f"--{name}={value}"


def set_option_lines(settings: Iterable[Setting]) -> str:
    return "".join(f"(set-option :{name} {value})\n" for name, value in settings)


def delivered(
    spec: SolverSpec, script: str, settings: Sequence[Setting], delivery: str
) -> tuple[SolverSpec, str]:
    """`spec` and `script` with `settings` handed over the way `delivery` says."""
    if not settings:
        return spec, script
    if delivery == "argv":
        return with_options(spec, option_words(spec.family, settings)), script
    return spec, set_option_lines(settings) + script


def _why(label: str, result: SolverResult, sats: int = 1) -> str | None:
    """None when `result` is the `sats` sat answers a probe wants, else what went wrong. A
    `set-option` the release does not know is answered `unsupported` and ignored."""
    if any(line.strip() == "unsupported" for line in result.stdout.splitlines()):
        return f"{label}: the release answers unsupported (it ignores the option)"
    if result.outcome == Outcome.SAT and result.answers == [Answer.SAT] * sats:
        return None
    said = result.failure_line or (result.stdout.strip() or result.stderr.strip())[:200]
    return f"{label}: {result.outcome}" + (f": {said}" if said else "")


def _honoured(spec: SolverSpec, delivery: str, candidates: Sequence[Candidate]) -> bool | None:
    """Whether `get-option` answers a value set this way (None: no candidate could tell)."""
    for candidate in candidates[:_HONOUR_TRIES]:
        value = candidate.values[0]
        run_spec, script = delivered(
            spec, f"(get-option :{candidate.name})\n", [(candidate.name, value)], delivery
        )
        result = run_solver(run_spec, script, timeout=PROBE_TIMEOUT)
        said = [line.strip() for line in result.stdout.splitlines() if line.strip()]
        if said and not said[-1].startswith("("):
            return said[-1] == value
    return None


def find_delivery(spec: SolverSpec, ways: Sequence[str], candidates: Sequence[Candidate]) -> str:
    """The first of `ways` the release honours (the last one when none could tell)."""
    for way in ways:
        if _honoured(spec, way, candidates):
            return way
    return ways[-1]


def probe_scripts(spec: SolverSpec) -> dict[str, str]:
    """The empty problem and the first tiny formula the release answers sat plainly, with
    `(set-logic ALL)` after the models option for a family that answers nothing without a
    logic (`FamilyRecord.needs_logic`)."""
    head = _MODELS + ("(set-logic ALL)\n" if spec.family.record.needs_logic else "")
    empty, *tiny = (s.replace(_MODELS, head) for s in (EMPTY_PROBE, *TINY_FORMULAS))
    plain = (f for f in tiny if _why("", run_solver(spec, f, timeout=PROBE_TIMEOUT)) is None)
    return {"empty problem": empty, "tiny sat formula": next(plain, tiny[0])}


class _Runs:
    """Runs probe scripts: one persistent process for set-option probes of a solver that can
    keep one, else fresh processes, two at a time. A shim starts Python per run (a second
    each on a busy machine) and takes command-line options with each script: its probes
    always go to one process, by set-option (the cvc5 shim hands a command-line option to
    the same `setOption`), or on the command line when the family's record says its
    set-option reads values otherwise (`FamilyRecord.probe_on_command_line`)."""

    def __init__(self, spec: SolverSpec, delivery: str) -> None:
        self.spec, self.delivery = spec, delivery
        self.scripts = probe_scripts(spec)
        # both probes in one run when the options come on the command line (`why_not`)
        self.argv_probe = "".join(f"{script}(reset)\n" for script in self.scripts.values())
        shim = len(program_argv(spec.argv)) > 1
        self.persistent = (delivery == "set-option" or shim) and supports_persistence(spec)
        # how the persistent process gets each value
        on_argv = delivery == "argv" and spec.family.record.probe_on_command_line
        self.way = "argv" if on_argv else "set-option"
        self.count = 0
        self._lock = threading.Lock()  # fresh runs are counted from two threads

    def why_not(self, setting: Setting) -> str | None:
        run_spec, _ = delivered(self.spec, "", [setting], self.delivery)
        if self.delivery == "argv":
            with self._lock:
                self.count += 1
            result = run_solver(run_spec, self.argv_probe, timeout=PROBE_TIMEOUT)
            if _why("both", result, sats=len(self.scripts)) is None:
                return None
        for label, script in self.scripts.items():
            _, text = delivered(self.spec, script, [setting], self.delivery)
            with self._lock:
                self.count += 1
            result = run_solver(run_spec, text, timeout=PROBE_TIMEOUT)
            why = _why(label, result)
            if why is not None:
                return why
        return None

    def all(self, settings: list[Setting]) -> list[str | None]:
        if not self.persistent:
            with ThreadPoolExecutor(WORKERS) as pool:
                return list(pool.map(self.why_not, settings))
        found: list[str | None] = []
        with PersistentSolver(self.spec) as solver:
            for setting in settings:
                why = None
                for label, script in self.scripts.items():
                    self.count += 1
                    run_spec, text = delivered(self.spec, script, [setting], self.way)
                    solver.serve(run_spec)
                    result = solver.run(text, timeout=PROBE_TIMEOUT)
                    why = _why(label, result)
                    if why is not None:
                        break
                found.append(why)
        return found


def probe(
    spec: SolverSpec,
    candidates: Sequence[Candidate],
    delivery: str,
    *,
    say: Callable[[str], None] | None = None,
) -> tuple[dict[str, tuple[str, ...]], dict[str, str], int]:
    """(option -> accepted values, `name=value` -> why rejected, solver runs)."""
    settings = [(c.name, v) for c in candidates for v in c.values]
    if say is not None:
        say(f"probing {len(settings)} option values of {spec.name} ({delivery}) ...")
    runs = _Runs(spec, delivery)
    verdicts = runs.all(settings)
    accepted: dict[str, tuple[str, ...]] = {}
    rejected: dict[str, str] = {}
    for (name, value), why in zip(settings, verdicts, strict=True):
        if why is None:
            accepted[name] = (*accepted.get(name, ()), value)
        else:
            rejected[f"{name}={value}"] = why
    return accepted, rejected, runs.count
