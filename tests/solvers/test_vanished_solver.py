"""A solver whose program disappears mid-run is no crash bug (issue 52 defect 4): the run
raises `SolverVanished` naming the solver, and a campaign stops with that one line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from campaign_helpers import config_for

from sphinxfuzz.bugs import Store
from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.errors import SphinxfuzzError
from sphinxfuzz.solvers import parse_specs, reaper
from sphinxfuzz.solvers.fresh_process import run_solver
from sphinxfuzz.solvers.persistent import PersistentSolver
from sphinxfuzz.solvers.smoke import smoke_test
from sphinxfuzz.solvers.vanished import SolverVanished, exec_failure

VANISHING = Path(__file__).resolve().parents[1] / "fixtures/fake_solvers/vanishing.sh"
SCRIPT = "(declare-const x Int)\n(assert (> x 1))\n(check-sat)\n"


@pytest.fixture(params=["setpriv", "preexec"])
def launcher(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Solvers started through `setpriv`, or by Python alone (a machine without it)."""
    if request.param == "preexec":
        monkeypatch.setattr(reaper, "_setpriv", lambda: None)
    return str(request.param)


def test_a_deleted_program_raises_and_names_the_solver(tmp_path: Path, launcher: str) -> None:
    program = tmp_path / "gone-solver"
    program.write_text('#!/bin/sh\nexec z3 "$@"\n')
    program.chmod(0o755)
    (spec,) = parse_specs(str(program))
    assert run_solver(spec, SCRIPT, timeout=30).answers == ["sat"]
    program.unlink()
    with pytest.raises(SolverVanished, match=f"solver {spec.name} cannot be started any more"):
        run_solver(spec, SCRIPT, timeout=30)
    # the campaign's check before it starts says it in its own words
    said = smoke_test(spec) or ""
    assert said.startswith("cannot be started: ") and "No such file or directory" in said
    assert str(program) in said
    # what the launcher prints, only with its exit statuses
    said = f"setpriv: failed to execute {program}: Permission denied\n"
    assert exec_failure(126, said) == f"failed to execute {program}: Permission denied"
    assert exec_failure(1, said) is None and exec_failure(127, "Segmentation fault\n") is None


def test_a_persistent_solver_whose_program_vanished_raises(tmp_path: Path, launcher: str) -> None:
    z3 = shutil.which("z3")
    assert z3 is not None
    copy = tmp_path / "z3"
    shutil.copy(parse_specs("z3")[0].argv[0], copy)
    (spec,) = parse_specs(str(copy))
    with PersistentSolver(spec) as solver:
        assert solver.run(SCRIPT, timeout=30).answers == ["sat"]
        copy.unlink()
        assert solver.process is not None
        solver.process.kill()  # the next script starts a process from the program, now gone
        solver.process.wait()
        with pytest.raises(SolverVanished, match=f"solver {spec.name} "):
            solver.run(SCRIPT, timeout=30)


def test_a_campaign_stops_when_a_solver_vanishes(tmp_path: Path) -> None:
    program = tmp_path / "vanishing.sh"
    shutil.copy(VANISHING, program)
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    for k in range(4):
        (seeds / f"s{k}.smt2").write_text(SCRIPT.replace("1", str(k)))
    config = config_for([seeds], f"z3;{program}", per_seed=3)
    with pytest.raises(SphinxfuzzError) as stopped:  # the CLI prints it as one line
        run_campaign(config, tmp_path / "c", Budget())
    message = str(stopped.value)
    assert "\n" not in message and message.startswith("solver vanishing.sh cannot be started")
    assert not program.exists()
    with Store(tmp_path / "c") as store:
        assert store.bugs() == [] and store.seed_findings() == []
