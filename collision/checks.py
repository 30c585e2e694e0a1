"""User input turned into checked numbers and arrays, once, naming the argument.

Every public function of the engine checks its arguments here (shapes have their own, richer
check in collision.shapes). A refusal is a ``ValueError`` whose message starts with the
argument's name and value and says what was wrong: ``dt = -1.0: must be > 0``. Past these
checks, kernels trust their input: the limits in collision.tolerances keep every product the
step forms far from overflow, so nothing inside returns NaN.

Shapes are refused with :class:`GeometryError` (a ValueError) naming the argument, the vertex
and the reason (:func:`convex_vertices`, which ``collision.shapes.check_vertices`` uses).
Collinear vertices (a vertex lying on the straight line through its two neighbours) are
*rejected*, not silently dropped: dropping them would change the vertex count and the indices
the caller uses, and the error tells the caller exactly which vertex to remove.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any, NoReturn

import numpy as np
from numba import njit

from collision import geometry
from collision.tolerances import (
    AREA_RELATIVE_EPSILON,
    CONVEXITY_RELATIVE_EPSILON,
    FEATURE_RELATIVE_SIZE,
    MAX_COORDINATE,
    MAX_VERTICES,
    MIN_FEATURE_SIZE,
)


class GeometryError(ValueError):
    """Invalid geometry: the message names the argument, the vertex and the reason."""


# ---------------------------------------------------------------------------------------------
# Numbers
# ---------------------------------------------------------------------------------------------

#: Longest description of a user's value in a message (characters): a 10 MB string or a
#: 4000-digit integer is named by its type and size, not copied into the message.
SHOWN_LENGTH = 60


def show(value: Any) -> str:
    """A short description of ``value`` for a message: its repr cut to ``SHOWN_LENGTH``
    characters, an integer too long to print by its digit count, an array by shape and dtype.
    Never raises (a value whose repr fails is named by its type)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        digits = int((value.bit_length() - 1) * math.log10(2.0)) + 1
        if abs(value) >= 10**digits:
            digits += 1
        return f"<{'negative ' if value < 0 else ''}int of {digits} digits>"
    if isinstance(value, np.ndarray) and value.size > 4:
        return f"array of shape {value.shape}, dtype {value.dtype}"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 (a user object's repr may raise anything)
        return f"a {type(value).__name__}"
    if len(text) > SHOWN_LENGTH:
        text = f"{text[: SHOWN_LENGTH - 5]}...{text[-2:]}"
    return text


def _not_real(value: Any) -> str | None:
    """Why ``value`` is not a real number (None when it is one)."""
    if isinstance(value, bool | np.bool_):
        return "must be a real number, not a bool"
    if isinstance(value, int | float | np.integer | np.floating | numbers.Real):
        return None
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return _not_real(value[()])
    if isinstance(value, complex | np.complexfloating):
        return "must be a real number, not a complex one"
    return f"must be a real number, not a {type(value).__name__}"


def real(value: Any, name: str) -> float:
    """``value`` as a finite float: a Python or numpy int or float of any width (not a bool,
    a complex number or a string), a ``fractions.Fraction``, or a 0-d array of one. An integer
    or a wide float beyond float64's range is refused as too large (it is not turned into
    inf), NaN and infinities as not finite."""
    why = _not_real(value)
    if why is not None:
        raise ValueError(f"{name} = {show(value)}: {why}")
    try:
        with np.errstate(over="ignore"):
            x = float(value)
    except OverflowError:
        x = math.inf
    except Exception as exc:  # noqa: BLE001 (a Real subclass's __float__ may raise anything)
        raise ValueError(f"{name} = {show(value)}: cannot be read as a number ({exc})") from None
    if not math.isfinite(x):
        if _finite_source(value):
            raise ValueError(f"{name} = {show(value)}: is too large (beyond the float64 range)")
        raise ValueError(f"{name} = {show(value)}: must be finite")
    return x


def _finite_source(value: Any) -> bool:
    """Whether ``value`` (a real number that converted to inf or NaN) was finite itself."""
    if isinstance(value, np.ndarray):
        value = value[()]
    if isinstance(value, int | np.integer):
        return True
    if isinstance(value, np.floating):
        return bool(np.isfinite(value))
    if isinstance(value, float):
        return math.isfinite(value)
    return not isinstance(value, numbers.Real) or value == value  # Fraction: always finite


def number(
    value: Any,
    name: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    above: float | None = None,
) -> float:
    """``value`` as a finite float (see :func:`real`), at least ``minimum``, at most ``maximum``
    and greater than ``above`` (each when given)."""
    x = real(value, name)
    if minimum is not None and maximum is not None and not minimum <= x <= maximum:
        raise ValueError(f"{name} = {show(value)}: must be in [{minimum:g}, {maximum:g}]")
    if minimum is not None and x < minimum:
        raise ValueError(f"{name} = {show(value)}: must be >= {minimum:g}")
    if maximum is not None and x > maximum:
        raise ValueError(f"{name} = {show(value)}: must be <= {maximum:g}")
    if above is not None and not x > above:
        raise ValueError(f"{name} = {show(value)}: must be > {above:g}")
    return x


def material(value: Any, name: str, maximum: float | None = None) -> float:
    """A material coefficient (friction, restitution, ...): a finite number >= 0, at most
    ``maximum`` when given."""
    return number(value, name, minimum=0.0, maximum=maximum)


def integer(value: Any, name: str, minimum: int, maximum: int) -> int:
    """``value`` as an int in ``[minimum, maximum]``: a Python or numpy integer, or a 0-d
    array of one (a bool is not an integer here, nor is a float with an integral value)."""
    value = _scalar(value)
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} = {show(value)}: must be an integer")
    n = int(value)
    if not minimum <= n <= maximum:
        raise ValueError(f"{name} = {show(value)}: must be in [{minimum}, {maximum}]")
    return n


def boolean(value: Any, name: str) -> bool:
    """``value`` as a bool: only ``True`` or ``False`` (numpy's too, or a 0-d bool array) are
    accepted; an array of several is refused, not reduced."""
    value = _scalar(value)
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} = {show(value)}: must be True or False")
    return bool(value)


def _scalar(value: Any) -> Any:
    """The item of a 0-d array (numpy's way of holding one number), else ``value`` itself."""
    return value[()] if isinstance(value, np.ndarray) and value.shape == () else value


class _Refusal(Exception):
    """Why an array-like is not an array of real numbers (turned into the caller's error)."""


def _real_array(value: Any) -> np.ndarray:
    """``value`` as a new C-contiguous float64 array of any shape, or :class:`_Refusal` saying
    why it is not one: lists, tuples and arrays of ints and floats of any width and byte order
    (read-only and strided arrays too) are read; bools, complex numbers, strings, ragged
    nesting, and numbers beyond float64's range are refused. Non-finite values are kept (the
    caller names the entry)."""
    if isinstance(value, str | bytes | dict | set | frozenset):
        raise _Refusal(f"a {type(value).__name__} is not an array of numbers")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy's ragged/complex warnings become refusals
            a = np.asarray(value)
    except Exception as exc:  # noqa: BLE001 (ragged nesting, a failing __array__, deep recursion)
        raise _Refusal(f"cannot be read as an array of numbers ({_first_line(exc)})") from None
    kind = a.dtype.kind
    if kind == "f" or kind in "iu":
        with np.errstate(over="ignore", invalid="ignore"):
            out = np.array(a, dtype=np.float64, order="C")
        if kind == "f" and a.dtype.itemsize > 8:
            wide = np.isfinite(a) & ~np.isfinite(out)
            if wide.any():
                raise _Refusal(f"entry {_index_of(wide)} is too large (beyond the float64 range)")
        return out
    if kind == "O":
        if a.ndim == 0:
            raise _Refusal(f"a {type(value).__name__} is not an array of numbers")
        out = np.empty(a.shape, dtype=np.float64)
        for i, item in enumerate(a.flat):
            if isinstance(item, np.ndarray) and item.ndim == 0:
                item = item[()]
            why = _not_real(item)
            if why is not None:
                raise _Refusal(f"entry {_unravel(i, a.shape)} = {show(item)}: {why}")
            try:
                out.flat[i] = float(item)
            except OverflowError:
                raise _Refusal(
                    f"entry {_unravel(i, a.shape)} is too large (beyond the float64 range)"
                ) from None
            except Exception as exc:  # noqa: BLE001
                raise _Refusal(f"entry {_unravel(i, a.shape)} cannot be read as a number ({exc})") from None
        return out
    what = {"b": "bools", "c": "complex numbers", "U": "strings", "S": "bytes"}.get(kind, f"{a.dtype}")
    raise _Refusal(f"holds {what}, not real numbers")


def _first_line(exc: BaseException) -> str:
    text = str(exc).split("\n", 1)[0]
    return text if len(text) <= 2 * SHOWN_LENGTH else text[: 2 * SHOWN_LENGTH] + "..."


def _unravel(i: int, shape: tuple[int, ...]) -> str:
    return str(tuple(int(j) for j in np.unravel_index(i, shape))) if len(shape) > 1 else f"[{i}]"


def _index_of(mask: np.ndarray) -> str:
    return _unravel(int(np.argmax(mask.ravel())), mask.shape)


def vector(
    value: Any, name: str, limit: float = MAX_COORDINATE, limit_name: str = "MAX_COORDINATE"
) -> np.ndarray:
    """``value`` as a finite ``(2,) float64`` vector no longer than ``limit`` (the constant
    ``limit_name`` of collision.tolerances; ``math.inf`` for no limit): beyond those limits,
    products inside the step would overflow to inf or NaN."""
    try:
        v = _real_array(value)
    except _Refusal as why:
        raise ValueError(f"{name} = {show(value)}: must be a 2-vector of real numbers: {why}") from None
    if v.shape != (2,):
        raise ValueError(f"{name} = {show(value)}: must be a 2-vector, got shape {v.shape}")
    if not np.isfinite(v).all():
        raise ValueError(f"{name} = {show(value)}: must be finite")
    if math.hypot(v[0], v[1]) > limit:
        raise ValueError(f"{name} = {show(value)}: is longer than {limit_name} = {limit:g}")
    return v


def point(value: Any, name: str) -> np.ndarray:
    """``value`` as a finite ``(2,) float64`` point whose coordinates are at most
    ``MAX_COORDINATE`` in size, as a shape's vertices must be."""
    p = vector(value, name, math.inf)
    if np.abs(p).max() > MAX_COORDINATE:
        raise ValueError(f"{name} = ({p[0]:g}, {p[1]:g}): is beyond MAX_COORDINATE = {MAX_COORDINATE:g}")
    return p


def index(value: Any, name: str, count: int) -> int:
    """``value`` as an index in ``[0, count)`` of a body (or row) of a world of ``count`` (read
    as :func:`integer` reads it)."""
    value = _scalar(value)
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} = {show(value)}: must be a body index (int)")
    k = int(value)
    if not 0 <= k < count:
        raise ValueError(f"{name} = {show(k)}: no such body (body_count = {count})")
    return k


def body_indices(value: Any, name: str, count: int) -> np.ndarray:
    """``value`` as ``(m,) int64`` indices of bodies of a world of ``count``: one index, a
    sequence or array of them, or an ``(count,) bool`` mask."""
    usage = f"must be body indices (m,) or a ({count},) bool mask"
    value = _scalar(value)
    if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
        return np.array([index(value, name, count)], dtype=np.int64)
    if isinstance(value, str | bytes | dict | set | frozenset):
        raise ValueError(f"{name} = {show(value)}: {usage}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            given = np.asarray(value)
    except Exception as exc:  # noqa: BLE001 (ragged nesting, a failing __array__)
        raise ValueError(f"{name} = {show(value)}: {usage} ({_first_line(exc)})") from None
    if given.dtype == np.bool_:
        if given.shape != (count,):
            raise ValueError(f"{name}: a mask must have shape ({count},), got {given.shape}")
        return np.flatnonzero(given)
    if given.ndim != 1:
        raise ValueError(f"{name} = {show(value)}: {usage}")
    if given.dtype == object:
        return np.array([index(item, f"{name}[{i}]", count) for i, item in enumerate(given)], dtype=np.int64)
    if not (given.size == 0 or np.issubdtype(given.dtype, np.integer)):
        raise ValueError(f"{name} = {show(value)}: {usage}")
    outside = (given < 0) | (given >= count)
    if outside.any():
        raise ValueError(f"{name}: {int(given[np.argmax(outside)])} is no body (body_count = {count})")
    return given.astype(np.int64)


def vectors(value: Any, name: str, count: int, limit: float = math.inf, limit_name: str = "") -> np.ndarray:
    """``value`` as ``(count, 2) float64`` finite vectors, each no longer than ``limit`` (the
    constant ``limit_name`` of collision.tolerances) when given."""
    try:
        v = _real_array(value)
    except _Refusal as why:
        raise ValueError(f"{name}: must be ({count}, 2) real numbers: {why}") from None
    if v.shape != (count, 2):
        raise ValueError(f"{name}: must be ({count}, 2) real numbers, got shape {v.shape}")
    if not np.isfinite(v).all():
        bad = int(np.argmin(np.isfinite(v).all(axis=1)))
        raise ValueError(f"{name}[{bad}] = {v[bad].tolist()}: must be finite")
    if limit < math.inf:
        long = np.hypot(v[:, 0], v[:, 1]) > limit
        if long.any():
            bad = int(np.argmax(long))
            raise ValueError(f"{name}[{bad}] = {v[bad].tolist()}: is longer than {limit_name} = {limit:g}")
    return v


# ---------------------------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------------------------


def format_point(p: np.ndarray) -> str:
    """``(x, y)`` with 6 significant digits: how messages show a point."""
    return f"({p[0]:.6g}, {p[1]:.6g})"


def vertex_label(name: str, points: np.ndarray, i: int) -> str:
    """``name[i] = (x, y)``: how a refusal names a vertex."""
    return f"{name}[{i}] = {format_point(points[i])}"


def cross(ax: float, ay: float, bx: float, by: float) -> float:
    """The 2D cross product (z of the 3D one) of (ax, ay) and (bx, by)."""
    return ax * by - ay * bx


def read_points(value: Any, name: str, what: str = "vertices") -> np.ndarray:
    """``value`` as a new C-contiguous ``(k, 2) float64`` array with ``k >= 1``, its numbers
    read as :func:`vector` reads them (no check of their values)."""
    try:
        points = _real_array(value)
    except _Refusal as why:
        raise GeometryError(f"{name}: cannot be read as an array of (x, y) {what}: {why}") from None
    if points.ndim != 2 or points.shape[1] != 2:
        if points.size == 0:
            raise GeometryError(f"{name}: has no {what} (at least 1 is needed)")
        hint = " (a single point is written [[x, y]])" if points.shape == (2,) else ""
        raise GeometryError(f"{name}: must have shape (k, 2), got {points.shape}{hint}")
    if points.shape[0] == 0:
        raise GeometryError(f"{name}: has no {what} (at least 1 is needed)")
    return points


def _check_coordinates(points: np.ndarray, name: str) -> None:
    """Every coordinate of ``points (k, 2)`` finite and at most MAX_COORDINATE in size."""
    if not np.isfinite(points).all():
        i = int(np.argmin(np.isfinite(points).all(axis=1)))
        raise GeometryError(f"{name}[{i}] = {format_point(points[i])}: is not finite")
    too_far = np.abs(points).max(axis=1) > MAX_COORDINATE
    if too_far.any():
        i = int(np.argmax(too_far))
        raise GeometryError(
            f"{name}[{i}] = {format_point(points[i])}: is farther than MAX_COORDINATE = {MAX_COORDINATE:g}"
            " from the origin"
        )


def point_array(value: Any, name: str, what: str = "vertices") -> np.ndarray:
    """``value`` as a finite ``(k, 2) float64`` array with ``k >= 1`` (no other checks)."""
    points = read_points(value, name, what)
    _check_coordinates(points, name)
    return points  # a new C-contiguous copy (np.array copies)


def _twice_signed_area(points: np.ndarray) -> float:
    """Twice the signed area of the closed outline (positive when CCW), relative to vertex 0."""
    rel = points - points[0]
    return float(np.sum(rel[:-1, 0] * rel[1:, 1] - rel[:-1, 1] * rel[1:, 0]))


def _extent(points: np.ndarray) -> float:
    return float(np.max(np.ptp(points, axis=0)))


def _all_collinear(points: np.ndarray, extent: float) -> bool:
    """Whether every point lies (within the area tolerance) on one line through ``points[0]``."""
    rel = points - points[0]
    far = rel[int(np.argmax(np.hypot(rel[:, 0], rel[:, 1])))]
    length = math.hypot(far[0], far[1])
    if length == 0.0:
        return True
    offsets = np.abs(rel[:, 0] * far[1] - rel[:, 1] * far[0]) / length
    return bool(np.max(offsets) <= AREA_RELATIVE_EPSILON * extent)


def _check_distinct_neighbours(points: np.ndarray, name: str) -> None:
    n = len(points)
    for i in range(n):
        j = (i + 1) % n
        if points[i, 0] == points[j, 0] and points[i, 1] == points[j, 1]:
            lo, hi = min(i, j), max(i, j)
            closing = " (do not repeat the first vertex at the end)" if (lo, hi) == (0, n - 1) else ""
            raise GeometryError(
                f"{vertex_label(name, points, hi)}: is the same point as {name}[{lo}]{closing}"
            )


def outline(points: np.ndarray, name: str) -> float:
    """The checks convex polygons and decomposition outlines share (distinct neighbours, no
    crossing, non-zero area; GeometryError naming the vertex); returns twice the signed area."""
    _check_distinct_neighbours(points, name)
    extent = _extent(points)
    doubled = _twice_signed_area(points)
    i, j = geometry.first_crossing(points)
    if i >= 0 and not _all_collinear(points, extent):
        n = len(points)
        edge_i = f"{i}-{(i + 1) % n} ({format_point(points[i])} to {format_point(points[(i + 1) % n])})"
        edge_j = f"{j}-{(j + 1) % n} ({format_point(points[j])} to {format_point(points[(j + 1) % n])})"
        raise GeometryError(f"{name}: edge {edge_i} crosses edge {edge_j} (the outline intersects itself)")
    if abs(doubled) <= AREA_RELATIVE_EPSILON * extent * extent:
        raise GeometryError(
            f"{name}[0..{len(points) - 1}]: the outline has zero area (its vertices lie on one line"
            " or it folds back over itself)"
        )
    return doubled


@njit(cache=True)
def _convex_orientation(points: np.ndarray) -> float:
    """+1 (CCW) or -1 (CW) for a valid convex outline of 3+ vertices, 0 if any check fails.

    The fast path of :func:`check_vertices`: every turn strictly one way, winding once, non-zero
    area. A closed outline that turns the same way at every vertex and winds once is convex.
    """
    k = points.shape[0]
    positive = 0
    negative = 0
    winding = 0.0
    doubled = 0.0
    lo_x = hi_x = points[0, 0]
    lo_y = hi_y = points[0, 1]
    for i in range(k):
        h = i - 1 if i > 0 else k - 1
        j = i + 1 if i + 1 < k else 0
        ax = points[i, 0] - points[h, 0]
        ay = points[i, 1] - points[h, 1]
        bx = points[j, 0] - points[i, 0]
        by = points[j, 1] - points[i, 1]
        cross = ax * by - ay * bx
        tol = CONVEXITY_RELATIVE_EPSILON * math.hypot(ax, ay) * math.hypot(bx, by)
        if cross > tol:
            positive += 1
        elif cross < -tol:
            negative += 1
        else:
            return 0.0
        winding += math.atan2(cross, ax * bx + ay * by)
        # Shoelace relative to vertex 0 keeps precision far from the origin.
        doubled += (points[i, 0] - points[0, 0]) * (points[j, 1] - points[0, 1]) - (
            points[i, 1] - points[0, 1]
        ) * (points[j, 0] - points[0, 0])
        lo_x = min(lo_x, points[i, 0])
        hi_x = max(hi_x, points[i, 0])
        lo_y = min(lo_y, points[i, 1])
        hi_y = max(hi_y, points[i, 1])
    if positive > 0 and negative > 0:
        return 0.0
    if abs(winding) > 3.0 * math.pi:
        return 0.0  # winds more than once: a star polygon
    extent = max(hi_x - lo_x, hi_y - lo_y)
    if abs(doubled) <= AREA_RELATIVE_EPSILON * extent * extent:
        return 0.0
    return 1.0 if positive > 0 else -1.0


def _check_turns(points: np.ndarray, name: str, orientation: float) -> None:
    """Every vertex of a simple outline must turn the same way as the outline winds."""
    n = len(points)
    for i in range(n):
        p0, p1, p2 = points[i - 1], points[i], points[(i + 1) % n]
        ax, ay = p1[0] - p0[0], p1[1] - p0[1]
        bx, by = p2[0] - p1[0], p2[1] - p1[1]
        turn = orientation * cross(ax, ay, bx, by)
        tol = CONVEXITY_RELATIVE_EPSILON * math.hypot(ax, ay) * math.hypot(bx, by)
        if turn < -tol:
            raise GeometryError(
                f"{vertex_label(name, points, i)}: makes a reflex turn (outline is not convex)"
            )
        if turn <= tol:
            if ax * bx + ay * by < 0.0:
                reason = "doubles back along its incoming edge (outline is not convex)"
            else:
                reason = "lies on the line through its neighbours (collinear vertex; remove it)"
            raise GeometryError(f"{vertex_label(name, points, i)}: {reason}")


def convex_vertices(value: Any, name: str) -> np.ndarray:
    """Validate a shape and return it as a new C-contiguous ``(k, 2) float64`` CCW array.

    ``value`` is anything ``numpy.array`` reads as ``(k, 2)`` numbers, judged by
    :func:`shape_status`: ``1 <= k <= MAX_VERTICES``; two vertices must be distinct; three or
    more must form a convex outline with non-zero area and no collinear vertex. Clockwise input
    is reordered to counter-clockwise keeping vertex 0 first (``[v0, v1, ..., vk-1]`` becomes
    ``[v0, vk-1, ..., v1]``).

    Raises :class:`GeometryError` naming ``name``, the vertex index and the reason.
    """
    points = read_points(value, name)
    status = shape_status(points)
    if status == 0:
        refuse_vertices(points, name)
    if status < 0:
        points = np.ascontiguousarray(np.concatenate([points[:1], points[:0:-1]]))
    return points


@njit(cache=True)
def shape_status(points: np.ndarray) -> int:
    """The rule every shape passes, compiled: ``1`` for a valid counter-clockwise shape, ``-1``
    for a valid clockwise one (to be reordered), ``0`` for anything else.

    ``points (k, m) float64``, any ``k`` and ``m``. Valid: ``m == 2``, ``1 <= k <=
    MAX_VERTICES`` vertices, each coordinate finite and at most MAX_COORDINATE in size; a
    segment's two ends distinct; three or more vertices a convex outline
    (:func:`_convex_orientation`). :func:`convex_vertices` and the checked kernels of the
    one-pair and batch faces all decide by this function; :func:`refuse_vertices` says why it
    refused.
    """
    k = points.shape[0]
    if points.shape[1] != 2 or k < 1 or k > MAX_VERTICES:
        return 0
    for i in range(k):
        # Written so that NaN fails too.
        if not (abs(points[i, 0]) <= MAX_COORDINATE and abs(points[i, 1]) <= MAX_COORDINATE):
            return 0
    if k == 1:
        return 1
    if k == 2:
        return 0 if points[0, 0] == points[1, 0] and points[0, 1] == points[1, 1] else 1
    orientation = _convex_orientation(points)
    if orientation > 0.0:
        return 1
    return -1 if orientation < 0.0 else 0


def refuse_vertices(points: np.ndarray, name: str) -> NoReturn:
    """Raise the :class:`GeometryError` saying why :func:`shape_status` refused ``points
    (k, 2)``: the first broken rule, naming ``name`` and the vertex."""
    _check_coordinates(points, name)
    k = len(points)
    if k > MAX_VERTICES:
        raise GeometryError(
            f"{name}: has {k} vertices, more than MAX_VERTICES = {MAX_VERTICES} "
            "(use decompose() to split a large outline)"
        )
    if k == 2:
        if points[0, 0] == points[1, 0] and points[0, 1] == points[1, 1]:
            raise GeometryError(
                f"{vertex_label(name, points, 1)}: is the same point as {name}[0] "
                "(a segment needs two distinct endpoints)"
            )
    else:
        orientation = _convex_orientation(points)
        if orientation == 0.0:
            # Find the most helpful reason (duplicates, crossing, zero area, bad turn).
            orientation = 1.0 if outline(points, name) > 0.0 else -1.0
            _check_turns(points, name, orientation)
            raise GeometryError(f"{name}: is not a convex outline")
        if orientation < 0.0:
            points = np.ascontiguousarray(np.concatenate([points[:1], points[:0:-1]]))
    features(points, name)
    raise AssertionError(f"{name}: shape_status refused a shape that the checks accept")
