"""The batch face: many pairs in one call, over the same compiled steps as the one-pair face.

:class:`Shapes` checks many shapes once and packs them for the kernels; :func:`intersect_many`,
:func:`find_mtd_many` and :func:`sweep_many` test pair ``i`` = ``(a[i], b[i])`` for every ``i``
and return arrays. Their answers are those of :func:`~collision.intersect`,
:func:`~collision.find_mtd` and :func:`~collision.sweep` on the same pair, bit for bit: the
loops here call the very steps those functions call (``collision.sat``), compiled once.

``a`` and ``b`` are each a :class:`Shapes`, a sequence of vertex arrays (or Polygons), an
``(n, k, 2)`` array, or one shape (a ``(k, 2)`` array or a Polygon). Both hold ``n`` shapes,
or one of them holds one shape and is tested against every shape of the other.

>>> import numpy as np
>>> from collision import Shapes, find_mtd_many, intersect_many
>>> boxes = Shapes([[[0, 0], [2, 0], [2, 2], [0, 2]], [[5, 0], [6, 0], [6, 1], [5, 1]]])
>>> len(boxes), boxes[1].tolist()
(2, [[5.0, 0.0], [6.0, 0.0], [6.0, 1.0], [5.0, 1.0]])
>>> triangle = [[1.5, 0.5], [3, 0.5], [3, 1.5]]
>>> intersect_many(boxes, triangle)
array([ True, False])
>>> result = find_mtd_many(boxes, triangle)
>>> result.hit, result.depth, result.normal.tolist()
(array([ True, False]), array([0.5, 0. ]), [[-1.0, 0.0], [0.0, 0.0]])
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from collision import checks
from collision.broadphase import transform_vertices
from collision.checks import GeometryError, shape_status
from collision.sat import _intersect, _sweep_inline
from collision.shapes import Polygon, check_vertices
from collision.tolerances import MAX_COORDINATE, MAX_VERTICES

__all__ = ["MTDBatch", "Shapes", "SweepBatch", "find_mtd_many", "intersect_many", "sweep_many"]


# ---------------------------------------------------------------------------------------------
# Compiled loops
# ---------------------------------------------------------------------------------------------

# Every loop below takes two packed stacks, ``vertices (m, MAX_VERTICES, 2)`` with
# ``vertex_count (m,) int64``, and ``n`` pairs: pair ``p`` is row ``p`` of each stack, or row 0
# of a stack of one row (one shape against many).


@njit(cache=True)
def orient_stack(vertices: np.ndarray, vertex_count: np.ndarray) -> int:
    """Check every row of a stack with :func:`~collision.shapes.shape_status` and reorder the
    clockwise ones in place, as check_vertices does. Returns the first refused row, or -1."""
    for s in range(vertex_count.shape[0]):
        k = vertex_count[s]
        status = shape_status(vertices[s, :k])
        if status == 0:
            return s
        if status < 0:
            for i in range(1, (k + 1) // 2):  # [v0, v1, ..., vk-1] -> [v0, vk-1, ..., v1]
                for c in range(2):
                    x = vertices[s, i, c]
                    vertices[s, i, c] = vertices[s, k - i, c]
                    vertices[s, k - i, c] = x
    return -1


@njit(cache=True)
def intersect_many_kernel(
    vertices_a: np.ndarray, count_a: np.ndarray, vertices_b: np.ndarray, count_b: np.ndarray, n: int
) -> np.ndarray:
    """``hit (n,) bool``: :func:`collision.sat.intersect_kernel` of every pair."""
    step_a = 1 if count_a.shape[0] > 1 else 0
    step_b = 1 if count_b.shape[0] > 1 else 0
    hit = np.empty(n, dtype=np.bool_)
    for p in range(n):
        i = p * step_a
        j = p * step_b
        hit[p] = _intersect(vertices_a, i, count_a[i], vertices_b, j, count_b[j])
    return hit


@njit(cache=True)
def sweep_many_kernel(
    vertices_a: np.ndarray,
    count_a: np.ndarray,
    vertices_b: np.ndarray,
    count_b: np.ndarray,
    velocity: np.ndarray,
    t_max: float,
    n: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``hit (n,) bool``, ``t (n,)``, ``normal (n, 2)``, ``depth (n,)`` of every pair, A moving at
    ``velocity (n, 2)`` (or ``(1, 2)`` for all) relative to B over ``[0, t_max]``: the answers of
    :func:`collision.sat.sweep_kernel`. Misses get ``t = t_max``, normal ``(0, 0)``, depth 0."""
    step_a = 1 if count_a.shape[0] > 1 else 0
    step_b = 1 if count_b.shape[0] > 1 else 0
    step_v = 1 if velocity.shape[0] > 1 else 0
    hit = np.empty(n, dtype=np.bool_)
    t = np.empty(n)
    normal = np.empty((n, 2))
    depth = np.empty(n)
    for p in range(n):
        i = p * step_a
        j = p * step_b
        v = p * step_v
        ok, nx, ny, tp, d = _sweep_inline(
            vertices_a, i, count_a[i], vertices_b, j, count_b[j], velocity[v, 0], velocity[v, 1], t_max
        )
        hit[p] = ok
        t[p] = tp if ok else t_max
        # As the one-pair face: adding 0.0 turns a -0.0 into 0.0.
        normal[p, 0] = nx + 0.0
        normal[p, 1] = ny + 0.0
        depth[p] = d
    return hit, t, normal, depth


# ---------------------------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------------------------


def _readonly(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a``."""
    view = a.view()
    view.setflags(write=False)
    return view


class Shapes:
    """Many shapes (points, segments, convex polygons), checked once and packed for the kernels.

    ``Shapes(shapes)``: ``shapes`` is a sequence of vertex arrays ``(k_i, 2)`` (or Polygons, or
    an ``(n, k, 2)`` array), each checked as :func:`~collision.shapes.check_vertices` checks
    one shape: a bad one raises :class:`~collision.GeometryError` naming it, ``shapes[i]``, and
    its vertex. Clockwise shapes are reordered counter-clockwise, as everywhere.

    ``len(shapes)`` is the number of shapes; ``shapes[i]`` the vertices ``(k_i, 2) float64`` of
    shape ``i`` (read-only); ``shapes[i:j]``, ``shapes[[i, j]]`` or ``shapes[mask]`` another
    Shapes. ``vertices (n, MAX_VERTICES, 2)`` and ``vertex_count (n,) int64`` are the packed
    arrays the kernels read (read-only; slots past a shape's count hold zeros).

    >>> shapes = Shapes([[[0, 0]], [[0, 0], [1, 0]], [[0, 0], [0, 1], [1, 0]]])
    >>> len(shapes), shapes.vertex_count.tolist(), shapes[2].tolist()
    (3, [1, 2, 3], [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> moved = shapes.transformed([[10, 0], [10, 0], [10, 0]], [0.0, 0.0, np.pi / 2])
    >>> np.round(moved[2], 12).tolist()
    [[10.0, 0.0], [10.0, 1.0], [9.0, 0.0]]
    """

    __slots__ = ("_vertices", "_vertex_count")

    _vertices: np.ndarray
    _vertex_count: np.ndarray

    def __init__(self, shapes: Any) -> None:
        self._vertices, self._vertex_count = _pack(shapes, "shapes")

    @classmethod
    def _of_checked(cls, vertices: np.ndarray, vertex_count: np.ndarray) -> Shapes:
        """A Shapes of packed arrays already checked and oriented (kept as they are)."""
        shapes = cls.__new__(cls)
        shapes._vertices = vertices
        shapes._vertex_count = vertex_count
        return shapes

    @classmethod
    def packed(cls, vertices: Any, vertex_count: Any) -> Shapes:
        """Shapes from packed arrays, such as ``World.world_vertices()`` and
        ``World.vertex_count``: ``vertices (n, m, 2)`` (``m <= MAX_VERTICES``; shape ``i`` is
        ``vertices[i, :vertex_count[i]]``), ``vertex_count (n,)`` integers in
        ``[1, m]``. The arrays are copied and checked."""
        try:
            count = np.array(vertex_count)
        except (TypeError, ValueError):
            raise ValueError(f"vertex_count = {checks.show(vertex_count)}: must be (n,) integers") from None
        if count.ndim != 1 or not (count.size == 0 or np.issubdtype(count.dtype, np.integer)):
            raise ValueError(f"vertex_count: must be (n,) integers, got {count.dtype} {count.shape}")
        stack = checks.real_array(vertices)
        if stack is None:
            raise GeometryError("vertices: must be an (n, m, 2) array of real numbers")
        n = len(count)
        if stack.ndim != 3 or stack.shape[0] != n or stack.shape[2] != 2:
            raise GeometryError(f"vertices: must have shape ({n}, m, 2) for {n} counts, got {stack.shape}")
        width = stack.shape[1]
        bad = (count < 1) | (count > min(width, MAX_VERTICES))
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"vertex_count[{i}] = {count[i]}: must be in [1, {min(width, MAX_VERTICES)}]")
        packed = np.zeros((n, MAX_VERTICES, 2))
        for k in np.unique(count):
            rows = count == k
            packed[rows, :k] = stack[rows, :k]
        return cls._of_checked(
            *_checked_stack(packed, count.astype(np.int64), lambda i: stack[i, : count[i]], "vertices")
        )

    @property
    def vertices(self) -> np.ndarray:
        """``(n, MAX_VERTICES, 2) float64`` packed CCW vertices (read-only; zeros past a count)."""
        return _readonly(self._vertices)

    @property
    def vertex_count(self) -> np.ndarray:
        """``(n,) int64`` vertices of each shape: 1 a point, 2 a segment, 3+ a polygon (read-only)."""
        return _readonly(self._vertex_count)

    def __len__(self) -> int:
        return len(self._vertex_count)

    def __getitem__(self, index: Any) -> Any:
        """Shape ``index`` as its vertices ``(k, 2)`` (read-only), or, for a slice, a list of
        indices or a bool mask, those shapes as Shapes."""
        n = len(self)
        if isinstance(index, int | np.integer) and not isinstance(index, bool | np.bool_):
            if not -n <= index < n:
                raise IndexError(f"shape index {index} is out of range for {n} shapes")
            i = int(index) % n
            return _readonly(self._vertices[i, : self._vertex_count[i]])
        rows = np.arange(n)[index]
        if rows.ndim != 1:
            raise IndexError(
                f"Shapes take an index, a slice, a list of indices or a bool mask, not {checks.show(index)}"
            )
        return Shapes._of_checked(self._vertices[rows], self._vertex_count[rows])

    def __iter__(self) -> Iterator[np.ndarray]:
        for i in range(len(self)):
            yield _readonly(self._vertices[i, : self._vertex_count[i]])

    def __repr__(self) -> str:
        kinds = np.minimum(self._vertex_count, 3)
        parts = [
            f"{int((kinds == k).sum())} {name}"
            for k, name in ((1, "points"), (2, "segments"), (3, "polygons"))
            if (kinds == k).any()
        ]
        return f"Shapes({len(self)} shapes: {', '.join(parts) or 'none'})"

    def transformed(self, position: Any, angle: Any = 0.0) -> Shapes:
        """The shapes turned by ``angle`` (radians, CCW) about their local origin, then moved by
        ``position``: world-space shapes, as the world places a body's local vertices.

        ``position (n, 2)`` or ``(2,)`` for all; ``angle (n,)`` or a number for all. A shape
        that the rule refuses once placed (a coordinate beyond MAX_COORDINATE, or a shape too
        small for its position to stay convex in floating point) raises GeometryError naming it.
        """
        n = len(self)
        where = _broadcast_rows(position, "position", n, (2,))
        turn = _broadcast_rows(angle, "angle", n, ())
        beyond = (np.abs(where) > MAX_COORDINATE).any(axis=1)
        if beyond.any():
            i = int(np.argmax(beyond))
            raise ValueError(
                f"position[{i}] = {where[i].tolist()}: is beyond MAX_COORDINATE = {MAX_COORDINATE:g}"
            )
        out = np.zeros_like(self._vertices)
        transform_vertices(self._vertices, self._vertex_count, where, turn, out)
        count = self._vertex_count.copy()
        bad = orient_stack(out, count)
        if bad >= 0:
            try:
                check_vertices(out[bad, : count[bad]], "vertices")
            except GeometryError as exc:
                x, y = where[bad]
                raise GeometryError(
                    f"shapes[{bad}] at position ({x:g}, {y:g}), angle {turn[bad]:g}: is no longer "
                    f"a valid shape there ({exc})"
                ) from None
            raise AssertionError("orient_stack refused a shape that check_vertices accepts")
        return Shapes._of_checked(out, count)


def _broadcast_rows(value: Any, name: str, n: int, row: tuple[int, ...], once: bool = False) -> np.ndarray:
    """``value`` as finite float64 rows ``(n, *row)``: given per row, or once for every row
    (then ``(1, *row)`` if ``once``, else repeated to ``n`` rows)."""
    wanted = (n, *row)
    if isinstance(value, str | bytes):
        raise ValueError(f"{name} = {checks.show(value)}: must be real numbers of shape {wanted} or {row}")
    if row == () and not isinstance(value, list | tuple) and np.ndim(value) == 0:
        value = checks.real(value, name)  # one number for every row: read as every number is
    array = checks.real_array(value)
    if array is None:
        raise ValueError(f"{name} = {checks.show(value)}: must be real numbers of shape {wanted} or {row}")
    if array.shape == row:
        array = array[None] if once else np.broadcast_to(array, wanted)
    elif array.shape != wanted:
        raise ValueError(f"{name}: must have shape {wanted} (or {row} for every shape), got {array.shape}")
    finite = np.isfinite(array).all(axis=tuple(range(1, array.ndim)))
    if not finite.all():
        i = int(np.argmin(finite))
        raise ValueError(f"{name}[{i}] = {array[i].tolist()}: must be finite")
    return np.ascontiguousarray(array)


def _checked_stack(
    vertices: np.ndarray, vertex_count: np.ndarray, source: Any, name: str
) -> tuple[np.ndarray, np.ndarray]:
    """Check and orient a packed stack in place; a refused row ``i`` raises the GeometryError
    of ``check_vertices(source(i), f"{name}[{i}]")``."""
    bad = orient_stack(vertices, vertex_count)
    if bad >= 0:
        check_vertices(source(bad), f"{name}[{bad}]")
        raise AssertionError("orient_stack refused a shape that check_vertices accepts")
    return vertices, vertex_count


def _plain_points(item: Any) -> np.ndarray | None:
    """``item`` as ``(k, 2)`` numbers when it plainly is one (a list or array of ints or floats
    up to float64's width), else None: the common case without checks.read_points' element
    by element reading, which costs several microseconds a shape."""
    try:
        points = np.asarray(item)
    except Exception:  # noqa: BLE001 (ragged nesting and the like: read_points says what)
        return None
    kind, size = points.dtype.kind, points.dtype.itemsize
    if points.ndim != 2 or points.shape[1] != 2 or not (kind in "iu" or (kind == "f" and size <= 8)):
        return None
    return points.astype(np.float64, copy=False)


def _pack(shapes: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Many shapes as checked packed arrays ``(n, MAX_VERTICES, 2)`` and ``(n,) int64``."""
    if isinstance(shapes, Shapes):
        return shapes.vertices.copy(), shapes.vertex_count.copy()
    if isinstance(shapes, np.ndarray) and shapes.dtype.kind in "fiu" and shapes.ndim > 0:
        if shapes.ndim == 3 and shapes.shape[2] == 2 and 1 <= shapes.shape[1] <= MAX_VERTICES:
            n, k = shapes.shape[:2]
            vertices = np.zeros((n, MAX_VERTICES, 2))
            vertices[:, :k] = shapes
            count = np.full(n, k, dtype=np.int64)
            return _checked_stack(vertices, count, lambda i: shapes[i], name)
        items: Any = list(shapes)
    elif (
        isinstance(shapes, str | bytes) or not hasattr(shapes, "__iter__") or getattr(shapes, "ndim", 1) == 0
    ):
        raise GeometryError(
            f"{name}: must be a sequence of shapes ((k, 2) vertex arrays), got {checks.show(shapes)}"
        )
    else:
        items = list(shapes)
    n = len(items)
    vertices = np.zeros((n, MAX_VERTICES, 2))
    count = np.empty(n, dtype=np.int64)
    for i, item in enumerate(items):
        if isinstance(item, Polygon):
            points = item.vertices
        else:
            plain = _plain_points(item)
            # Anything else is read, or refused naming it, the careful way.
            points = plain if plain is not None else checks.read_points(item, f"{name}[{i}]")
            if len(points) > MAX_VERTICES:
                check_vertices(item, f"{name}[{i}]")  # raises, naming the shape
                raise AssertionError("check_vertices accepted a shape of the wrong size")
        count[i] = len(points)
        vertices[i, : count[i]] = points
    return _checked_stack(vertices, count, lambda i: items[i], name)


def _as_shapes(value: Any, name: str) -> Shapes:
    """An argument of the ``*_many`` functions as Shapes: itself, one shape (a ``(k, 2)`` array
    or a Polygon) as Shapes of one, or many shapes checked as ``Shapes`` checks them."""
    if isinstance(value, Shapes):
        return value
    if isinstance(value, Polygon):
        return Shapes._of_checked(*_pack([value], name))
    if not isinstance(value, np.ndarray):
        array = checks.real_array(value)  # None: ragged (shapes of different sizes), or not numbers
        if array is not None and array.ndim in (2, 3):
            value = array
    if isinstance(value, np.ndarray) and value.ndim == 2:
        vertices = np.zeros((1, MAX_VERTICES, 2))
        one = check_vertices(value, name)
        vertices[0, : len(one)] = one
        return Shapes._of_checked(vertices, np.array([len(one)], dtype=np.int64))
    return Shapes._of_checked(*_pack(value, name))


def _pair_up(a: Any, b: Any) -> tuple[Shapes, Shapes, int]:
    """``a`` and ``b`` as Shapes and the number of pairs they make."""
    sa = _as_shapes(a, "a")
    sb = _as_shapes(b, "b")
    na, nb = len(sa), len(sb)
    if na != nb and na != 1 and nb != 1:
        raise ValueError(
            f"a has {na} shapes and b has {nb}: they must have as many, or one of them one shape"
        )
    return sa, sb, (nb if na == 1 else na)


# ---------------------------------------------------------------------------------------------
# Public face
# ---------------------------------------------------------------------------------------------


_AT_REST = np.zeros((1, 2))


class MTDBatch(NamedTuple):
    """Result of :func:`find_mtd_many` for ``n`` pairs.

    ``hit (n,) bool``: the pair overlaps or touches. ``depth (n,) float64``: overlap in units
    (0 for a miss or a touch). ``normal (n, 2) float64``: unit, from B toward A (``(0, 0)`` for
    a miss): moving ``a[i]`` by ``depth[i] * normal[i]`` separates the pair.
    """

    hit: np.ndarray
    depth: np.ndarray
    normal: np.ndarray

    @property
    def mtd(self) -> np.ndarray:
        """``(n, 2) float64`` minimum translations ``depth * normal`` (zeros for misses): row
        ``i`` equals ``find_mtd(a[i], b[i])`` where that is not None."""
        return self.depth[:, None] * self.normal + 0.0


class SweepBatch(NamedTuple):
    """Result of :func:`sweep_many` for ``n`` pairs.

    ``hit (n,) bool``; ``t (n,) float64`` first contact time in ``[0, t_max]`` (0 when already
    overlapping, ``t_max`` for a miss); ``normal (n, 2) float64`` unit, from B toward A
    (``(0, 0)`` for a miss); ``depth (n,) float64`` overlap at time 0 (0 for a future hit or a
    miss). For a hit, ``t[i]``, ``normal[i]``, ``depth[i]`` are the fields of
    ``sweep(a[i], b[i], velocity[i], t_max)``.
    """

    hit: np.ndarray
    t: np.ndarray
    normal: np.ndarray
    depth: np.ndarray


def intersect_many(a: Any, b: Any) -> np.ndarray:
    """``(n,) bool``: whether ``a[i]`` and ``b[i]`` overlap or touch, for every pair (Tutorial
    1; :func:`~collision.intersect` of each pair).

    >>> intersect_many([[[0, 0]], [[5, 5]]], [[0, 0], [1, 0], [0, 1]])
    array([ True, False])
    """
    sa, sb, n = _pair_up(a, b)
    return intersect_many_kernel(sa._vertices, sa._vertex_count, sb._vertices, sb._vertex_count, n)


def find_mtd_many(a: Any, b: Any) -> MTDBatch:
    """Minimum translation of each ``a[i]`` out of ``b[i]`` (Tutorial 2;
    :func:`~collision.find_mtd` of each pair): an :class:`MTDBatch` of ``hit``, ``depth``,
    ``normal``.

    >>> r = find_mtd_many([[0, 0], [2, 0], [2, 2], [0, 2]], [[[1.5, 0], [3, 0], [3, 2], [1.5, 2]], [[9, 9]]])
    >>> r.hit.tolist(), r.depth.tolist(), r.normal.tolist()
    ([True, False], [0.5, 0.0], [[-1.0, 0.0], [0.0, 0.0]])
    """
    sa, sb, n = _pair_up(a, b)
    # The sweep at rest, as find_mtd runs it.
    hit, _, normal, depth = sweep_many_kernel(
        sa._vertices, sa._vertex_count, sb._vertices, sb._vertex_count, _AT_REST, 1.0, n
    )
    return MTDBatch(hit, depth, normal)


def sweep_many(a: Any, b: Any, velocity: Any, t_max: float = 1.0) -> SweepBatch:
    """Swept test of each pair (Tutorials 2-3; :func:`~collision.sweep` of each pair): does
    ``a[i]``, moving by ``velocity[i]`` relative to ``b[i]``, touch it within ``[0, t_max]``?

    ``velocity (n, 2)`` or ``(2,)`` for every pair, units per unit time; ``t_max`` finite > 0.
    Returns a :class:`SweepBatch` of ``hit``, ``t``, ``normal``, ``depth``.

    >>> box = [[0, 0], [1, 0], [1, 1], [0, 1]]
    >>> r = sweep_many(box, [[[3, 0], [4, 0], [4, 1], [3, 1]], [[3, 5], [4, 5], [4, 6]]], [4, 0])
    >>> r.hit.tolist(), r.t.tolist(), r.normal.tolist(), r.depth.tolist()
    ([True, False], [0.5, 1.0], [[-1.0, 0.0], [0.0, 0.0]], [0.0, 0.0])
    """
    sa, sb, n = _pair_up(a, b)
    v = _broadcast_rows(velocity, "velocity", n, (2,), once=True)
    tm = checks.number(t_max, "t_max", above=0.0)
    return SweepBatch(
        *sweep_many_kernel(sa._vertices, sa._vertex_count, sb._vertices, sb._vertex_count, v, tm, n)
    )
