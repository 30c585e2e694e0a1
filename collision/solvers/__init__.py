"""The world's responses to collisions, and the one table of them by name.

Each solver follows the protocol in collision.solvers.protocol (``step(bodies, settings,
context) -> Contacts`` and ``reset()``) and has a settings class (collision.solvers.settings).
Adding a solver is a module and a row of :data:`SOLVERS`; nothing else changes.

- ``"tutorial"``: Tutorial 7 as the tutorial wrote it (one pass, in pair order), its bugs fixed;
- ``"arcade"``: Tutorial 4's velocity reflection, seed 002's earliest-first ordering;
- ``"iterative"``: ours, persistent contacts and a soft step; stacks stand, fast bodies stop.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from collision.bodies import Bodies
from collision.checks import show
from collision.solvers.arcade import ArcadeSettings, ArcadeSolver
from collision.solvers.iterative import IterativeSettings, IterativeSolver, precompile_part
from collision.solvers.protocol import Solver, StepContext
from collision.solvers.settings import Settings
from collision.solvers.tutorial import TutorialSettings, TutorialSolver


@dataclass(frozen=True)
class SolverEntry:
    """A row of the table: how to make the solver, its settings class, one line about it, and
    the parts of its step that compile on their own (``precompile(part, bodies, settings,
    context)`` compiles one; see :func:`precompile_step`)."""

    make: Callable[[], Solver]
    settings: type[Settings]
    summary: str
    parts: tuple[str, ...] = ()
    precompile: Callable[[str, Bodies, Any, StepContext], None] | None = None


SOLVERS: dict[str, SolverEntry] = {
    "tutorial": SolverEntry(
        TutorialSolver, TutorialSettings, "Tutorial 7's impulses, one pass in pair order"
    ),
    "arcade": SolverEntry(ArcadeSolver, ArcadeSettings, "Tutorial 4's reflection, seed 002's ordering"),
    "iterative": SolverEntry(
        IterativeSolver,
        IterativeSettings,
        "persistent contacts and a soft step",
        ("contacts", "response"),
        precompile_part,
    ),
}

#: The solvers' names, in the order the program cycles through them.
SOLVER_NAMES = tuple(SOLVERS)


def precompile_step(
    name: str, rows: Bodies, settings: Settings, context: StepContext, part: str | None
) -> None:
    """Compile, or load from numba's cache, what a step of solver ``name`` calls for the
    argument types of ``rows`` (the body store's), ``settings`` and ``context``: the whole
    step (``part`` None, on a new solver) or one of its ``parts``. Runs on copies of ``rows``:
    the caller's state does not change. A part the solver does not have raises ValueError."""
    entry = SOLVERS[name]
    if part is not None and part not in entry.parts:
        have = f"the parts {', '.join(entry.parts)}" if entry.parts else "no parts (None: the whole step)"
        raise ValueError(f"part = {show(part)}: the {name} solver's step has {have}")
    copies = Bodies(*(np.array(field) for field in rows))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # what the world's own step would warn
        if part is None or entry.precompile is None:
            entry.make().step(copies, settings, context)
        else:
            entry.precompile(part, copies, settings.values, context)


__all__ = ["SOLVERS", "SOLVER_NAMES", "Settings", "Solver", "SolverEntry", "StepContext", "precompile_step"]
