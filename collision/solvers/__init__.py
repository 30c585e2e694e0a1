"""The world's responses to collisions, and the one table of them by name.

Each solver follows the protocol in collision.solvers.protocol (``step(bodies, settings,
context) -> Contacts`` and ``reset()``) and has a settings class (collision.solvers.settings).
Adding a solver is a module and a row of :data:`SOLVERS`; nothing else changes.

- ``"tutorial"``: Tutorial 7 as the tutorial wrote it (one pass, in pair order), its bugs fixed;
- ``"arcade"``: Tutorial 4's velocity reflection, seed 002's earliest-first ordering;
- ``"iterative"``: ours, persistent contacts and a soft step; stacks stand, fast bodies stop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from collision.solvers.arcade import ArcadeSettings, ArcadeSolver
from collision.solvers.iterative import IterativeSettings, IterativeSolver
from collision.solvers.protocol import Solver, StepContext
from collision.solvers.settings import Settings
from collision.solvers.tutorial import TutorialSettings, TutorialSolver


@dataclass(frozen=True)
class SolverEntry:
    """A row of the table: how to make the solver, its settings class, one line about it."""

    make: Callable[[], Solver]
    settings: type[Settings]
    summary: str


SOLVERS: dict[str, SolverEntry] = {
    "tutorial": SolverEntry(
        TutorialSolver, TutorialSettings, "Tutorial 7's impulses, one pass in pair order"
    ),
    "arcade": SolverEntry(ArcadeSolver, ArcadeSettings, "Tutorial 4's reflection, seed 002's ordering"),
    "iterative": SolverEntry(IterativeSolver, IterativeSettings, "persistent contacts and a soft step"),
}

#: The solvers' names, in the order the program cycles through them.
SOLVER_NAMES = tuple(SOLVERS)

__all__ = ["SOLVERS", "SOLVER_NAMES", "Settings", "Solver", "SolverEntry", "StepContext"]
