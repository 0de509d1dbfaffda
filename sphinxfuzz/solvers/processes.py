"""Which process answers a script: a solver's long-lived one or a fresh one.

A `SolverProcesses` keeps one long-lived process (`persistent.PersistentSolver`) per target
that can serve many scripts, and answers the others, and every run asked to be fresh, in a
fresh process (`runner.run_solver`). A target keeps the processes of its last two command
lines (a position's options are z3's own and survive `(reset)`; the cvc5 shim takes them
with each script and keeps one process for all); a process is retired after its
`max_scripts`, after a script that left state in it, or for another command line. A verdict
read from a long-lived process may owe something to what an earlier script left behind:
`SolverProcesses.long_lived` says whether the caller must confirm it in fresh processes.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from sphinxfuzz.solvers.fresh_process import run_solver
from sphinxfuzz.solvers.persistent import PersistentSolver, supports_persistence
from sphinxfuzz.solvers.result import SolverResult
from sphinxfuzz.solvers.spec import SolverSpec


class SolverProcesses:
    """The processes of one worker's targets. `run` is safe from several threads: calls on
    one target's process wait for each other (a lane's and a judge's)."""

    def __init__(
        self, specs: Sequence[SolverSpec], *, memory_mb: int, scripts_per_process: int
    ) -> None:
        self.memory_mb = memory_mb
        # scripts a long-lived process answers before it is replaced (0: every script fresh)
        self.scripts_per_process = scripts_per_process
        # the process each target's command line of the moment is served by, by target name
        self.serving: dict[str, PersistentSolver] = {
            spec.name: self._long_lived(spec)
            for spec in specs
            if scripts_per_process and supports_persistence(spec)
        }
        # ... and the process of the command line each served before (`_process`)
        self._previous: dict[str, PersistentSolver] = {}
        self._locks: dict[str, threading.Lock] = {}

    @property
    def long_lived(self) -> bool:
        """Whether some script may be answered by a long-lived process: then a verdict counts
        only once fresh processes (`run(..., fresh=True)`) reproduce it."""
        return bool(self.serving)

    def run(
        self, spec: SolverSpec, text: str, *, timeout: float, fresh: bool = False
    ) -> SolverResult:
        """`text` (in `spec`'s dialect) on `spec`: in its target's long-lived process unless
        `fresh` or the command line cannot run persistently."""
        if not fresh:
            with self._locks.setdefault(spec.name, threading.Lock()):
                solver = self._process(spec)
                if solver is not None:
                    return solver.run(text, timeout=timeout)
        return run_solver(spec, text, timeout=timeout, memory_mb=self.memory_mb)

    def _long_lived(self, spec: SolverSpec) -> PersistentSolver:
        return PersistentSolver(
            spec, memory_mb=self.memory_mb, max_scripts=self.scripts_per_process
        )

    def _process(self, spec: SolverSpec) -> PersistentSolver | None:
        """The long-lived process of `spec`'s target, now serving `spec` (a compared copy,
        `z3#2`, is a target of its own), or None when `spec` runs fresh."""
        solver = self.serving.get(spec.name)
        if solver is None:
            if not self.scripts_per_process or not supports_persistence(spec):
                return None
            solver = self._long_lived(spec)
            self.serving[spec.name] = solver
        elif solver.spec.argv != spec.argv:
            if not supports_persistence(spec):
                return None
            if not solver.shim:  # the shim serves any options itself
                # A process's own options (z3's) cost a start per command line, and a
                # position changes the line twice: its seed is checked as the spec says,
                # its cases run with the position's options. The process of the line served
                # before waits, so a position starts one process, not two.
                waiting = self._previous.get(spec.name) or self._long_lived(spec)
                self._previous[spec.name], self.serving[spec.name] = solver, waiting
                solver = waiting
        solver.serve(spec)
        return solver

    def close(self) -> None:
        """End every process (`PersistentSolver.close`)."""
        for solver in [*self.serving.values(), *self._previous.values()]:
            solver.close()
