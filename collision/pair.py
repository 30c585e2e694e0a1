"""The one-pair face: ``intersect``, ``find_mtd``, ``sweep`` (Tutorials 1-3), checked and
answered in one compiled call.

``a`` and ``b`` are world-space shapes: ``(k, 2)`` vertex arrays (1 vertex a point, 2 a
segment, 3 or more a convex polygon, either orientation) or Polygons. The answers come from
the compiled steps of collision.sat, the same ones the batch face (collision.batch) runs over
many pairs; see collision.sat for the test itself and its conventions.

>>> from collision import find_mtd, intersect
>>> box = [[0, 0], [2, 0], [2, 2], [0, 2]]
>>> intersect(box, [[1, 1], [3, 1], [3, 3]]), intersect(box, [[3, 3]])
(True, False)
"""

from __future__ import annotations

import math
import struct
from typing import NamedTuple, NoReturn

import numpy as np
from numba import njit

from collision import checks
from collision.checks import shape_status
from collision.kernels import compiled_only
from collision.sat import intersect_kernel, sweep_kernel
from collision.shapes import Polygon, check_vertices
from collision.tolerances import MAX_SWEEP_SPEED

# --------------------------------------------------------------------------------------
# Checked kernels: the one-pair face's checks and answer in one compiled call
# --------------------------------------------------------------------------------------

# A call of the public face spent about 9 us in numpy's checks and conversions around a
# kernel of well under 1 us. These kernels take the caller's arrays as they are, check them
# with the rule check_vertices uses (shape_status), and return a refusal code instead of an
# answer when something is wrong; the Python face then runs the ordinary checks, which raise
# the error that names the argument and the vertex.

#: Refusal codes of the checked kernels: which argument broke its rule.
A_REFUSED = -1
B_REFUSED = -2
MOTION_REFUSED = -3  # velocity not finite or beyond MAX_SWEEP_SPEED, or t_max not finite and > 0


@compiled_only()
def _counter_clockwise(points: np.ndarray, status: int) -> np.ndarray:
    """A checked shape as a new ``(k, 2)`` array, counter-clockwise: reordered as
    check_vertices does (``[v0, vk-1, ..., v1]``) when ``status`` is -1 (clockwise)."""
    k = points.shape[0]
    out = np.empty((k, 2))
    out[0, 0] = points[0, 0]
    out[0, 1] = points[0, 1]
    for i in range(1, k):
        j = i if status > 0 else k - i
        out[i, 0] = points[j, 0]
        out[i, 1] = points[j, 1]
    return out


@compiled_only()
def _checked_pair(a: np.ndarray, b: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """``(0, A, B)``, the shapes as new CCW arrays, or ``(A_REFUSED or B_REFUSED, ...)``."""
    status_a = shape_status(a)
    status_b = shape_status(b)
    if status_a == 0 or status_b == 0:
        empty = np.empty((0, 2))
        return (A_REFUSED if status_a == 0 else B_REFUSED), empty, empty
    return 0, _counter_clockwise(a, status_a), _counter_clockwise(b, status_b)


@njit(cache=True)
def intersect_checked(a: np.ndarray, b: np.ndarray) -> int:
    """:func:`intersect_kernel` of unchecked ``a (ka, 2)``, ``b (kb, 2)`` float64: 1 (overlap
    or touch), 0 (apart), or a refusal code."""
    fault, ccw_a, ccw_b = _checked_pair(a, b)
    if fault != 0:
        return fault
    return 1 if intersect_kernel(ccw_a, ccw_b) else 0


@njit(cache=True)
def sweep_checked(
    a: np.ndarray, b: np.ndarray, vx: float, vy: float, t_max: float
) -> tuple[int, float, float, float, float]:
    """:func:`sweep_kernel` of unchecked ``a (ka, 2)``, ``b (kb, 2)``, velocity and ``t_max``:
    ``(1 or 0, nx, ny, t, depth)`` for a hit or a miss, or ``(refusal code, 0, 0, 0, 0)``."""
    if not (math.hypot(vx, vy) <= MAX_SWEEP_SPEED and 0.0 < t_max < math.inf):  # NaN fails too
        return MOTION_REFUSED, 0.0, 0.0, 0.0, 0.0
    fault, ccw_a, ccw_b = _checked_pair(a, b)
    if fault != 0:
        return fault, 0.0, 0.0, 0.0, 0.0
    hit, nx, ny, t, depth = sweep_kernel(ccw_a, ccw_b, vx, vy, t_max)
    return (1 if hit else 0), nx, ny, t, depth


# --------------------------------------------------------------------------------------
# Public face
# --------------------------------------------------------------------------------------


class Hit(NamedTuple):
    """Result of :func:`sweep`.

    ``normal (2,) float64`` (read-only): unit, from B toward A. ``t``: first contact time in
    ``[0, t_max]`` (0 when already overlapping). ``depth``: overlap depth at time 0 in
    units (0 for a future hit): moving A by ``depth * normal`` separates the pair.
    A named tuple (``normal, t, depth = hit``), compared by value.
    """

    normal: np.ndarray
    t: float
    depth: float

    @property
    def overlapping(self) -> bool:
        """True when the shapes already overlap or touch at time 0."""
        return self.depth > 0.0 or self.t == 0.0

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hit):
            return NotImplemented
        return (
            bool(np.array_equal(self.normal, other.normal))
            and self.t == other.t
            and self.depth == other.depth
        )

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash((float(self.normal[0]), float(self.normal[1]), self.t, self.depth))


_FLOAT64 = np.dtype(np.float64)
_REAL = (float, int, np.float64)
_two_floats = struct.Struct("=dd").pack  # native float64s, as np.frombuffer reads them
_new_hit = tuple.__new__  # Hit's fields, without the keyword handling of Hit(...)


def shape_argument(value: object, name: str) -> np.ndarray:
    """``value`` as an array a checked kernel takes: a C-contiguous ``(k, 2) float64`` ndarray
    as it is (the kernel checks it), a Polygon's vertices (checked when it was made), anything
    else through :func:`check_vertices` (which raises for bad input)."""
    if type(value) is np.ndarray:
        if value.dtype is _FLOAT64 and value.ndim == 2 and value.shape[1] == 2 and value.flags.c_contiguous:
            return value
    elif isinstance(value, Polygon):
        return value._kernel_vertices  # checked when the Polygon was made
    return check_vertices(value, name)


def velocity_argument(value: object) -> tuple[float, float]:
    """``value`` as ``(vx, vy)``: a pair of Python numbers or a ``(2,) float64`` ndarray read
    directly (the kernel checks they are finite), anything else through checks.vector (which
    raises ValueError for bad input; a huge integer raises OverflowError)."""
    if type(value) is tuple or type(value) is list:
        if len(value) == 2 and type(value[0]) in _REAL and type(value[1]) in _REAL:
            return float(value[0]), float(value[1])
    elif type(value) is np.ndarray and value.dtype is _FLOAT64 and value.shape == (2,):
        vx, vy = value.tolist()
        return vx, vy
    v = checks.vector(value, "velocity", MAX_SWEEP_SPEED, "MAX_SWEEP_SPEED")
    return float(v[0]), float(v[1])


def refuse_arguments(a: object, b: object, *motion: object) -> NoReturn:
    """Raise the error for the arguments a checked kernel refused: the same checks and
    messages as the rest of the engine, in argument order (``motion``: velocity, t_max)."""
    check_vertices(a, "a")
    check_vertices(b, "b")
    if motion:
        checks.vector(motion[0], "velocity", MAX_SWEEP_SPEED, "MAX_SWEEP_SPEED")
        checks.number(motion[1], "t_max", above=0.0)
    raise AssertionError("a checked kernel refused arguments that the checks accept")


def intersect(a: object, b: object) -> bool:
    """True if convex shapes ``a`` and ``b`` overlap or touch (Tutorial 1).

    ``a``, ``b``: world-space vertices ``(k, 2)`` or :class:`~collision.Polygon`.

    >>> intersect([[0, 0], [2, 0], [2, 2], [0, 2]], [[1, 1], [3, 1], [3, 3], [1, 3]])
    True
    """
    try:
        answer = intersect_checked(shape_argument(a, "a"), shape_argument(b, "b"))
    except ValueError:
        answer = A_REFUSED  # the checks below raise in argument order
    if answer < 0:
        refuse_arguments(a, b)
    return answer == 1


def find_mtd(a: object, b: object) -> np.ndarray | None:
    """Minimum translation for A out of B (Tutorial 2): ``(2,) float64`` or None.

    ``a + find_mtd(a, b)`` no longer overlaps ``b``. None when the shapes do not touch;
    a zero vector when they touch without overlapping (nothing to push).

    >>> find_mtd([[0, 0], [2, 0], [2, 2], [0, 2]], [[1.5, 0], [3, 0], [3, 2], [1.5, 2]])
    array([-0.5,  0. ])
    """
    try:
        answer, nx, ny, _, depth = sweep_checked(
            shape_argument(a, "a"), shape_argument(b, "b"), 0.0, 0.0, 1.0
        )
    except ValueError:
        answer = A_REFUSED  # the checks below raise in argument order
    if answer < 0:
        refuse_arguments(a, b)
    if answer == 0:
        return None
    # Adding 0.0 turns a -0.0 into 0.0.
    return np.array((depth * nx + 0.0, depth * ny + 0.0))


def sweep(a: object, b: object, velocity: object, t_max: float = 1.0) -> Hit | None:
    """Swept test (Tutorials 2-3): does A, moving by ``velocity`` relative to B, touch B
    within ``[0, t_max]``?

    ``a``, ``b``: world-space vertices ``(k, 2)`` at time 0 (or Polygons); ``velocity (2,)``
    units per unit time, at most ``MAX_SWEEP_SPEED`` long; ``t_max`` finite > 0. Returns a
    :class:`Hit` or None.

    >>> hit = sweep([[0, 0], [1, 0], [1, 1], [0, 1]], [[3, 0], [4, 0], [4, 1], [3, 1]], [4, 0])
    >>> hit.t, hit.normal.tolist(), hit.depth
    (0.5, [-1.0, 0.0], 0.0)
    """
    try:
        av = shape_argument(a, "a")
        bv = shape_argument(b, "b")
        vx, vy = velocity_argument(velocity)
        tm = float(t_max) if type(t_max) in _REAL else checks.number(t_max, "t_max", above=0.0)
        answer, nx, ny, t, depth = sweep_checked(av, bv, vx, vy, tm)
    except (ValueError, OverflowError):
        answer = A_REFUSED  # the checks below raise in argument order
    if answer < 0:
        refuse_arguments(a, b, velocity, t_max)
    if answer == 0:
        return None
    # A read-only array straight from the bytes, adding 0.0 to turn a -0.0 into 0.0.
    normal = np.frombuffer(_two_floats(nx + 0.0, ny + 0.0))
    return _new_hit(Hit, (normal, t, depth))
