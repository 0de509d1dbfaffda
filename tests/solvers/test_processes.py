"""Which process answers a script (`solvers.processes`): a campaign's targets with a
position's options run in long-lived processes too, and answer as fresh processes of the same
command lines do."""

from __future__ import annotations

from sphinxfuzz.solvers import Outcome, SolverSpec, parse_specs
from sphinxfuzz.solvers.persistent import SCRIPTS_PER_PROCESS
from sphinxfuzz.solvers.processes import SolverProcesses
from sphinxfuzz.solvers.spec import with_options

SCRIPTS = [
    "(declare-const x Real)\n(assert (= x (/ 1 3)))\n(check-sat)\n(get-value (x))\n",
    "(set-logic QF_NRA)\n(declare-const x Real)\n(assert (= (* x x) 2.0))\n(check-sat)\n",
    "(declare-const y Int)\n(assert (and (> y 2) (< y 3)))\n(check-sat)\n",
]
# observable: z3 prints decimals, cvc5 gives up on x * x = 2 (unknown instead of sat)
OPTIONS = {"z3": ["pp.decimal=true"], "cvc5": ["--nl-cov=false", "--nl-ext=none"]}


def _pool(specs: list[SolverSpec], *, persistent: int) -> SolverProcesses:
    return SolverProcesses(specs, memory_mb=4096, scripts_per_process=persistent)


def _outputs(
    processes: SolverProcesses, specs: list[SolverSpec], *, fresh: bool = False
) -> list[str]:
    results = [processes.run(spec, s, timeout=20, fresh=fresh) for spec in specs for s in SCRIPTS]
    return [f"{r.outcome} {r.stdout}" for r in results]


def test_a_positions_options_run_in_one_process_per_target() -> None:
    plain = parse_specs("z3;cvc5")
    optioned = [with_options(s, OPTIONS[s.name]) for s in plain]
    processes = _pool(plain, persistent=SCRIPTS_PER_PROCESS)
    try:
        kept = _outputs(processes, optioned)
        assert {name: s.starts for name, s in processes.serving.items()} == {"z3": 1, "cvc5": 1}
        assert kept == _outputs(processes, optioned, fresh=True)
        assert any("0.3333333333?" in k for k in kept) and any("unknown" in k for k in kept)
        position = processes.serving["z3"]
        seen = [position.process]
        # seed checks run the specs as given: z3's options are its process's own, so the plain
        # line gets a process, and the position's waits for the position's next case; the
        # shim takes options with each script and keeps its one process
        _outputs(processes, plain)
        checks = processes.serving["z3"]
        seen.append(checks.process)
        assert checks is not position and checks.starts == 1
        _outputs(processes, optioned)
        assert processes.serving["z3"] is position and position.starts == 1
        assert processes.serving["cvc5"].starts == 1
        # the next position: the plain line's process again, and one process of its options
        # (the last position's process serves it, after a start)
        _outputs(processes, plain)
        assert processes.serving["z3"] is checks and checks.starts == 1
        processes.run(with_options(plain[0], ["pp.decimal=false"]), SCRIPTS[0], timeout=20)
        assert processes.serving["z3"] is position and position.starts == 2
        seen.append(position.process)
        # a compared copy (`campaign.position_options` compare) is a target with a process of its own
        copy = parse_specs(";".join(s.text for s in (*plain, optioned[0])))[2]
        assert copy.name == "z3#2"
        processes.run(copy, SCRIPTS[0], timeout=20)
        assert processes.serving["z3#2"].starts == 1 and checks.starts == 1
    finally:
        processes.close()
    assert all(p is not None and p.returncode == 0 for p in seen)  # asked to exit, then reaped
    assert all(s.retiring == [] and s.process is None for s in processes.serving.values())


def test_fresh_processes_on_request_stay_fresh_with_options() -> None:
    plain = parse_specs("z3;cvc5")
    processes = _pool(plain, persistent=0)
    optioned = [with_options(s, OPTIONS[s.name]) for s in plain]
    _outputs(processes, optioned)
    assert processes.serving == {} and not processes.long_lived


def test_a_process_is_replaced_after_its_scripts_and_exits_normally() -> None:
    # two scripts a process: its successor starts after the second, for the third, and the
    # one replaced is asked to exit (a z3 built with gcov writes its counters then), not killed
    plain = parse_specs("z3;cvc5")
    processes = _pool(plain, persistent=2)
    try:
        kept, first = [], []
        for spec in plain:
            kept += [processes.run(spec, s, timeout=20) for s in SCRIPTS[:1]]
            first.append(processes.serving[spec.name].process)
            kept += [processes.run(spec, s, timeout=20) for s in SCRIPTS[1:2]]
        for solver in processes.serving.values():
            solver.settle()  # its successor's start, after the answer
            assert solver.process not in first
        assert {name: s.starts for name, s in processes.serving.items()} == {"z3": 2, "cvc5": 2}
        kept += [processes.run(spec, SCRIPTS[2], timeout=20) for spec in plain]
        assert {name: s.starts for name, s in processes.serving.items()} == {"z3": 2, "cvc5": 2}
        fresh = [
            processes.run(spec, s, timeout=20, fresh=True) for spec in plain for s in SCRIPTS[:2]
        ]
        fresh += [processes.run(spec, SCRIPTS[2], timeout=20, fresh=True) for spec in plain]
        assert [f"{r.outcome} {r.stdout}" for r in kept] == [
            f"{r.outcome} {r.stdout}" for r in fresh
        ]
    finally:
        processes.close()
    assert all(p is not None and p.returncode == 0 for p in first)


def test_a_target_that_serves_one_script_a_process_needs_no_confirmation() -> None:
    # yices-smt2 reads one script a process: every run is fresh, so nothing needs confirming
    yices = parse_specs("yices")
    processes = _pool(yices, persistent=SCRIPTS_PER_PROCESS)
    assert processes.serving == {} and not processes.long_lived
    script = "(set-logic QF_LIA)\n(declare-const y Int)\n(assert (> y 2))\n(check-sat)\n"
    assert processes.run(yices[0], script, timeout=20).outcome == Outcome.SAT
    assert processes.serving == {}
