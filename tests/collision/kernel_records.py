"""Records for calling the engine's compiled stages directly in tests (no tests live here).

The stages take the body store's rows (:class:`~collision.bodies.Bodies`), a step context,
the solver's settings and state as records; these helpers build small ones from arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from collision.bodies import Bodies, BodyStore
from collision.solvers.iterative import IterativeSettings, IterativeState, new_state
from collision.solvers.iterative.narrowphase import Points
from collision.solvers.protocol import StepContext


def bodies_of(n: int, **fields: Any) -> Bodies:
    """``n`` plain bodies (each its own root), every field zero but ``fields`` (by name)."""
    store = BodyStore()
    store.append(n)
    rows = store.rows
    rows.root[:] = np.arange(n)
    for name, value in fields.items():
        getattr(rows, name)[...] = value
    return rows


def context_of(dt: float, gravity: tuple[float, float] = (0.0, 0.0), **flags: bool) -> StepContext:
    """A step context: ``continuous`` (default True), ``has_compounds``, ``has_kinematic``."""
    return StepContext(
        float(dt),
        float(gravity[0]),
        float(gravity[1]),
        bool(flags.get("continuous", True)),
        bool(flags.get("has_compounds", False)),
        bool(flags.get("has_kinematic", False)),
        np.zeros(1, dtype=np.int64),
    )


def iterative_settings(**values: Any) -> Any:
    """The iterative solver's settings record, defaults but ``values``."""
    return IterativeSettings(**values).values


def previous_points(
    n: int, prev_a: Any, prev_b: Any, prev_key: Any, prev_state: Any, prev_store: Any
) -> IterativeState:
    """An iterative solver state for ``n`` rows holding last step's points as given."""
    return new_state(n)._replace(
        prev_a=np.asarray(prev_a, dtype=np.int64),
        prev_b=np.asarray(prev_b, dtype=np.int64),
        prev_key=np.asarray(prev_key, dtype=np.int64),
        prev_state=np.asarray(prev_state, dtype=np.int8),
        prev_store=np.asarray(prev_store, dtype=np.float64),
    )


def points_of(pair_index: Any, key: Any, point_a: Any, point_b: Any, normal: Any, separation: Any) -> Points:
    """This step's contact points."""
    return Points(
        np.asarray(pair_index, dtype=np.int64),
        np.asarray(key, dtype=np.int64),
        np.asarray(point_a, dtype=np.float64),
        np.asarray(point_b, dtype=np.float64),
        np.asarray(normal, dtype=np.float64),
        np.asarray(separation, dtype=np.float64),
    )
