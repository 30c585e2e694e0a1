"""One scene, several engines: adapters that build a :class:`~demo.bench.scenes.SceneSpec` in ours
(each solver), Box2D v3 (``pyb2d3``) and pymunk, behind one small interface, :class:`Sim`.

Every adapter keeps the spec's body order (body ``i`` of the spec is row ``i`` of every array a
Sim returns; a compound is one body), places bodies by their centre of mass, mixes materials
as Box2D does (friction sqrt(a b), restitution max(a, b)) and honours ``scene.sleeping``.
What each engine is given beyond the spec (Box2D's 4 substeps and one worker, pymunk's slop
and iterations) is stated in its module, once.

>>> from demo.bench import scenes
>>> sim = build("ours", scenes.bullet())
>>> sim.step(60)
>>> bool(sim.state().position[1, 0] < 10.0)
True
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from demo.bench.scenes import SceneSpec

#: Engines by name, and the Python package each needs.
ENGINES = {"ours": "collision", "box2d": "pyb2d3", "pymunk": "pymunk"}
#: Our solvers (``World.solver``), in the order the report prints them.
OUR_SOLVERS = ("tutorial", "arcade", "iterative")


@dataclass(frozen=True)
class State:
    """Body state, one row per body of the spec: ``position (n, 2)`` centre of mass (m),
    ``angle (n,)`` (rad, CCW; ours wraps it to (-pi, pi], the others do not), ``velocity (n, 2)``
    (m/s), ``angular_velocity (n,)`` (rad/s)."""

    position: np.ndarray
    angle: np.ndarray
    velocity: np.ndarray
    angular_velocity: np.ndarray


class Sim(Protocol):
    """A built world stepping by the scene's ``dt``."""

    label: str
    scene: SceneSpec
    time: float

    def step(self, count: int = 1) -> None:
        """Advance ``count`` steps of ``scene.dt``."""

    def state(self) -> State:
        """The bodies' state now (copies)."""

    def awake(self) -> np.ndarray:
        """``(n,) bool``: bodies simulated this step (static bodies count as awake)."""

    def set_velocity(self, i: int, velocity: tuple[float, float], angular_velocity: float) -> None:
        """Set body ``i``'s velocity (m/s) and angular velocity (rad/s), waking it."""

    def mass_properties(self) -> tuple[np.ndarray, np.ndarray]:
        """``(mass (n,) kg, inertia about the centre of mass (n,) kg m^2)`` as the engine
        computed them from the parts (0 for static and kinematic bodies)."""


def missing(engine: str) -> str | None:
    """Why ``engine`` cannot run here (its package is not installed), or None."""
    package = ENGINES.get(engine)
    if package is None:
        return f"unknown engine {engine!r}: one of {', '.join(ENGINES)}"
    if importlib.util.find_spec(package) is None:
        return f"{engine} needs the {package} package: pip install -e '.[bench]'"
    return None


def build(engine: str, scene: SceneSpec, solver: str = "iterative") -> Sim:
    """Build ``scene`` in ``engine`` (``"ours"``, ``"box2d"`` or ``"pymunk"``); ``solver`` is
    ours' response (ignored by the others). Raises RuntimeError if the engine is missing."""
    problem = missing(engine)
    if problem is not None:
        raise RuntimeError(problem)
    module = importlib.import_module(f"demo.bench.engines.{engine}")
    if engine == "ours":
        return module.OursSim(scene, solver)
    return module.build(scene)


def label(engine: str, solver: str = "iterative") -> str:
    """How the report names an engine: ``ours/iterative``, ``box2d``, ``pymunk``."""
    return f"ours/{solver}" if engine == "ours" else engine
