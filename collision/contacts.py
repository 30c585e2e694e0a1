"""Contact points: Tutorial 6's pairs of points on A and on B, and a step's contact points.

Given a hit's normal ``n`` (unit, from B toward A) and its time ``t``, the features in
contact are A's vertices lowest along ``n`` and B's vertices highest along ``n`` (each
within a small tolerance relative to the shape's size, so a face parallel to the contact
plane gives its two corners). Of those, the two extreme ones along the tangent
``(-n.y, n.x)`` are kept. Then, all in world space (the original mixed frames here):

- one point on each side: that pair;
- a point against an edge: the point and the closest point of the edge;
- an edge against an edge: the overlap of the two edges along the tangent (the two middle
  points of the four), each end paired with the closest point of the other edge.

A hit always gets at least one pair: when two edges do not overlap along the tangent
(a grazing corner contact, or rounding), the closest pair of points of the two edges is
used. (The original returned no pairs there and the collision got no response at all.)

:class:`Contacts` is the other half: the read-only view of one world step's contact points
that ``World.contacts`` holds, whichever solver made them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from collision import checks
from collision.geometry import closest_point_on_segment
from collision.kernels import compiled_only
from collision.pair import Hit
from collision.shapes import check_vertices
from collision.tolerances import MAX_SWEEP_SPEED, MAX_TRAVEL, SUPPORT_RELATIVE_EPSILON, UNIT_NORMAL_TOLERANCE

#: Contact states (``Contacts.state``): touching for the first step, touching since an earlier
#: step, not touching yet (a speculative point, within reach of the step).
CONTACT_NEW = 0
CONTACT_PERSISTING = 1
CONTACT_SPECULATIVE = 2

# --------------------------------------------------------------------------------------
# Compiled steps
# --------------------------------------------------------------------------------------


@njit(cache=True)
def find_support_points(
    vertices: np.ndarray, dx: float, dy: float, ox: float, oy: float, reach: float = 0.0
) -> tuple[int, float, float, float, float]:
    """Tutorial 6's FindSupportPoints: the support feature of ``vertices (k, 2)`` in the
    direction of least ``(dx, dy)``, the vertices within a size-relative tolerance of the lowest.

    With ``reach`` (units) > 0, a lowest vertex alone is made an edge with the lower of its two
    neighbours when that one is within ``reach`` of it: a face resting almost flat on another
    (a box tilted by rounding) then keeps both corners, however small the tilt. Only a
    neighbour: vertices further round would make a chord that skips the lowest one.

    Returns ``(count, x0, y0, x1, y1)``: 1 or 2 points, translated by ``(ox, oy)``; with 2,
    point 0 is the one lower along the tangent ``(-dy, dx)``.
    """
    k = vertices.shape[0]
    lo = math.inf
    x_lo = math.inf
    x_hi = -math.inf
    y_lo = math.inf
    y_hi = -math.inf
    for i in range(k):
        x = vertices[i, 0]
        y = vertices[i, 1]
        lo = min(lo, x * dx + y * dy)
        x_lo = min(x_lo, x)
        x_hi = max(x_hi, x)
        y_lo = min(y_lo, y)
        y_hi = max(y_hi, y)
    tolerance = SUPPORT_RELATIVE_EPSILON * max(x_hi - x_lo, y_hi - y_lo)
    first = -1
    last = -1
    s_first = math.inf
    s_last = -math.inf
    for i in range(k):
        x = vertices[i, 0]
        y = vertices[i, 1]
        if x * dx + y * dy <= lo + tolerance:
            s = -x * dy + y * dx
            if s < s_first:
                s_first = s
                first = i
            if s > s_last:
                s_last = s
                last = i
    if first == last and reach > 0.0 and k > 1:
        previous = (first - 1) % k
        following = (first + 1) % k
        d_previous = vertices[previous, 0] * dx + vertices[previous, 1] * dy
        d_following = vertices[following, 0] * dx + vertices[following, 1] * dy
        near = previous if d_previous <= d_following else following
        if min(d_previous, d_following) <= lo + reach:
            if -vertices[near, 0] * dy + vertices[near, 1] * dx < s_first:
                first = near
            else:
                last = near
    x0 = vertices[first, 0] + ox
    y0 = vertices[first, 1] + oy
    if first == last:
        return 1, x0, y0, x0, y0
    return 2, x0, y0, vertices[last, 0] + ox, vertices[last, 1] + oy


@compiled_only()
def _closest_point(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> tuple[float, float]:
    """The point of segment ``a``-``b`` closest to ``p`` (Tutorial 6's FindClosestPoint)."""
    x, y, _ = closest_point_on_segment(px, py, ax, ay, bx, by)
    return x, y


@compiled_only()
def _closest_pair(
    a0x: float,
    a0y: float,
    a1x: float,
    a1y: float,
    b0x: float,
    b0y: float,
    b1x: float,
    b1y: float,
) -> tuple[float, float, float, float]:
    """Closest pair ``(point on edge A, point on edge B)`` of two non-crossing edges: one of
    them is an endpoint paired with its closest point on the other edge."""
    best = math.inf
    pax = a0x
    pay = a0y
    pbx = b0x
    pby = b0y
    for e in range(4):
        if e == 0:
            ax, ay = a0x, a0y
            bx, by = _closest_point(a0x, a0y, b0x, b0y, b1x, b1y)
        elif e == 1:
            ax, ay = a1x, a1y
            bx, by = _closest_point(a1x, a1y, b0x, b0y, b1x, b1y)
        elif e == 2:
            bx, by = b0x, b0y
            ax, ay = _closest_point(b0x, b0y, a0x, a0y, a1x, a1y)
        else:
            bx, by = b1x, b1y
            ax, ay = _closest_point(b1x, b1y, a0x, a0y, a1x, a1y)
        d = (ax - bx) * (ax - bx) + (ay - by) * (ay - by)
        if d < best:
            best = d
            pax, pay, pbx, pby = ax, ay, bx, by
    return pax, pay, pbx, pby


@njit(cache=True)
def find_contacts(
    a: np.ndarray,
    b: np.ndarray,
    nx: float,
    ny: float,
    t: float,
    vax: float,
    vay: float,
    vbx: float,
    vby: float,
    out_a: np.ndarray,
    out_b: np.ndarray,
    reach: float = 0.0,
) -> int:
    """Contact pairs of a hit at its time of impact: Tutorial 6's FindContacts (the support
    points of A along ``-n`` and of B along ``n``) and ConvertSupportPointsToContacts.

    ``a (ka, 2)``, ``b (kb, 2)``: world-space vertices at time 0; ``(nx, ny)``: the hit's
    unit normal (from B toward A); ``t``: its time; A's points move by ``(vax, vay) * t``
    and B's by ``(vbx, vby) * t``. Writes ``out_a (2, 2)`` (points on A) and ``out_b (2, 2)``
    (their partners on B); returns the number of pairs, 1 or 2. ``reach`` (units): see
    :func:`find_support_points`; the pairs it adds may be apart along ``n``.
    """
    ca, a0x, a0y, a1x, a1y = find_support_points(a, nx, ny, vax * t, vay * t, reach)
    cb, b0x, b0y, b1x, b1y = find_support_points(b, -nx, -ny, vbx * t, vby * t, reach)
    if ca == 1 and cb == 1:
        out_a[0, 0], out_a[0, 1] = a0x, a0y
        out_b[0, 0], out_b[0, 1] = b0x, b0y
        return 1
    if ca == 1:  # A's corner against B's edge
        out_a[0, 0], out_a[0, 1] = a0x, a0y
        out_b[0, 0], out_b[0, 1] = _closest_point(a0x, a0y, b0x, b0y, b1x, b1y)
        return 1
    if cb == 1:  # B's corner against A's edge
        out_b[0, 0], out_b[0, 1] = b0x, b0y
        out_a[0, 0], out_a[0, 1] = _closest_point(b0x, b0y, a0x, a0y, a1x, a1y)
        return 1

    # Edge against edge: clip the two edges to their common span along one tangent. B's
    # support was sorted along the opposite tangent, so its ends swap.
    tx = -ny
    ty = nx
    b0x, b0y, b1x, b1y = b1x, b1y, b0x, b0y
    a_lo = a0x * tx + a0y * ty
    a_hi = a1x * tx + a1y * ty
    b_lo = b0x * tx + b0y * ty
    b_hi = b1x * tx + b1y * ty
    if max(a_lo, b_lo) > min(a_hi, b_hi):
        pax, pay, pbx, pby = _closest_pair(a0x, a0y, a1x, a1y, b0x, b0y, b1x, b1y)
        out_a[0, 0], out_a[0, 1] = pax, pay
        out_b[0, 0], out_b[0, 1] = pbx, pby
        return 1
    if a_lo >= b_lo:
        out_a[0, 0], out_a[0, 1] = a0x, a0y
        out_b[0, 0], out_b[0, 1] = _closest_point(a0x, a0y, b0x, b0y, b1x, b1y)
    else:
        out_b[0, 0], out_b[0, 1] = b0x, b0y
        out_a[0, 0], out_a[0, 1] = _closest_point(b0x, b0y, a0x, a0y, a1x, a1y)
    if max(a_lo, b_lo) == min(a_hi, b_hi):
        return 1
    if a_hi <= b_hi:
        out_a[1, 0], out_a[1, 1] = a1x, a1y
        out_b[1, 0], out_b[1, 1] = _closest_point(a1x, a1y, b0x, b0y, b1x, b1y)
    else:
        out_b[1, 0], out_b[1, 1] = b1x, b1y
        out_a[1, 0], out_a[1, 1] = _closest_point(b1x, b1y, a0x, a0y, a1x, a1y)
    return 2


@njit(cache=True)
def contact_pairs(
    world_vertices: np.ndarray,
    vertex_count: np.ndarray,
    velocity: np.ndarray,
    pairs: np.ndarray,
    normal: np.ndarray,
    toi: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``find_contacts`` over many pairs (the rows of :func:`collision.sat.sweep_pairs`).

    ``world_vertices (n, MAX_VERTICES, 2)``, ``vertex_count (n,) int64``, ``velocity (n, 2)``,
    ``pairs (m, 2) int64``, ``normal (m, 2)``, ``toi (m,)`` seconds. Returns ``count (m,)
    int64`` (0 for rows whose normal is ``(0, 0)``, i.e. misses), ``point_a (m, 2, 2)`` and
    ``point_b (m, 2, 2)`` (rows past ``count`` are zero).
    """
    m = pairs.shape[0]
    count = np.zeros(m, dtype=np.int64)
    point_a = np.zeros((m, 2, 2))
    point_b = np.zeros((m, 2, 2))
    for p in range(m):
        nx = normal[p, 0]
        ny = normal[p, 1]
        if nx == 0.0 and ny == 0.0:
            continue
        i = pairs[p, 0]
        j = pairs[p, 1]
        count[p] = find_contacts(
            world_vertices[i, : vertex_count[i]],
            world_vertices[j, : vertex_count[j]],
            nx,
            ny,
            toi[p],
            velocity[i, 0],
            velocity[i, 1],
            velocity[j, 0],
            velocity[j, 1],
            point_a[p],
            point_b[p],
        )
    return count, point_a, point_b


# --------------------------------------------------------------------------------------
# Public face
# --------------------------------------------------------------------------------------


def contact_points(
    a: object, b: object, hit: Hit, velocity: object = None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Contact pairs ``(point on A, point on B)``, each ``(2,) float64``, for a hit of
    :func:`collision.sweep` (Tutorial 6): 1 pair (point-edge, point-point) or 2 (edge-edge).

    ``a``, ``b``: the shapes given to ``sweep`` (world space, time 0); ``velocity (2,)``: the
    relative velocity given to ``sweep`` (at most ``MAX_SWEEP_SPEED``). A's points are moved by
    ``velocity * hit.t`` (to the time of impact), at most ``MAX_TRAVEL``; B stays. ``velocity``
    may be omitted only when ``hit.t == 0``.

    >>> from collision import sweep
    >>> a = [[0, 1], [2, 1], [2, 3], [0, 3]]
    >>> b = [[-1, -1], [3, -1], [3, 1.5], [-1, 1.5]]
    >>> [(pa.tolist(), pb.tolist()) for pa, pb in contact_points(a, b, sweep(a, b, [0, 0]))]
    [([2.0, 1.0], [2.0, 1.5]), ([0.0, 1.0], [0.0, 1.5])]
    """
    av = check_vertices(a, "a")
    bv = check_vertices(b, "b")
    if not isinstance(hit, Hit):
        raise ValueError(f"hit must be a Hit returned by sweep(), got {type(hit).__name__}")
    n = checks.vector(hit.normal, "hit.normal", math.inf)
    if abs(math.hypot(n[0], n[1]) - 1.0) > UNIT_NORMAL_TOLERANCE:
        raise ValueError(f"hit.normal must be a unit vector, got {n.tolist()}")
    t = checks.number(hit.t, "hit.t", minimum=0.0)
    if velocity is None:
        if t != 0.0:
            raise ValueError("velocity is required when hit.t > 0 (A is moved to the time of impact)")
        v = np.zeros(2)
    else:
        v = checks.vector(velocity, "velocity", MAX_SWEEP_SPEED, "MAX_SWEEP_SPEED")
    travel = t * math.hypot(v[0], v[1])
    if travel > MAX_TRAVEL:
        raise ValueError(
            f"hit.t = {t:g} with velocity = ({v[0]:g}, {v[1]:g}): moves A {travel:.3g} units, farther "
            f"than MAX_TRAVEL = {MAX_TRAVEL:g} (no hit of sweep() on these shapes does)"
        )
    out_a = np.zeros((2, 2))
    out_b = np.zeros((2, 2))
    count = find_contacts(
        av, bv, float(n[0]), float(n[1]), t, float(v[0]), float(v[1]), 0.0, 0.0, out_a, out_b
    )
    return [(out_a[i].copy(), out_b[i].copy()) for i in range(count)]


# --------------------------------------------------------------------------------------
# A step's contact points
# --------------------------------------------------------------------------------------

_FIELDS = {
    "body_a": np.int64,
    "body_b": np.int64,
    "point_a": np.float64,
    "point_b": np.float64,
    "normal": np.float64,
    "separation": np.float64,
    "toi": np.float64,
    "normal_impulse": np.float64,
    "tangent_impulse": np.float64,
    "state": np.int8,
}
_VECTORS = ("point_a", "point_b", "normal")


def _readonly(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


@dataclass(frozen=True, eq=False)
class Contacts:
    """A read-only view of one step's contact points, one row per point (``m`` rows).

    ``body_a (m,) int64``, ``body_b (m,) int64``, ``point_a (m, 2)`` on A, ``point_b (m, 2)`` on B,
    ``normal (m, 2)`` unit from B toward A, ``separation (m,)`` (negative: penetration depth;
    positive: gap of a speculative contact), ``toi (m,)`` seconds into the step (0 if touching at
    the start), ``normal_impulse (m,)`` and ``tangent_impulse (m,)`` (N s), ``state (m,) int8``
    (``CONTACT_NEW``, ``CONTACT_PERSISTING`` or ``CONTACT_SPECULATIVE``).
    """

    body_a: np.ndarray
    body_b: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    normal: np.ndarray
    separation: np.ndarray
    toi: np.ndarray
    normal_impulse: np.ndarray
    tangent_impulse: np.ndarray
    state: np.ndarray

    def __post_init__(self) -> None:
        m = np.asarray(self.body_a).shape[0]
        for name, dtype in _FIELDS.items():
            shape = (m, 2) if name in _VECTORS else (m,)
            a = np.array(getattr(self, name), dtype=dtype)
            if a.shape != shape:
                raise ValueError(f"Contacts.{name}: shape {a.shape}, expected {shape}")
            a.flags.writeable = False
            object.__setattr__(self, name, a)

    def __len__(self) -> int:
        packed = self.__dict__.get("_packed")
        if packed is not None:
            return int(packed[3].shape[0])
        return int(self.body_a.shape[0])

    @classmethod
    def from_rows(
        cls,
        count: int,
        bodies: np.ndarray,
        points: np.ndarray,
        normals: np.ndarray,
        scalars: np.ndarray,
    ) -> Contacts:
        """Contacts of state ``CONTACT_NEW`` from the first ``count`` rows of a one-pass solver's
        output: ``bodies (r, 2) int64``, ``points (r, 4)`` (point_a x, y, point_b x, y),
        ``normals (r, 2)``, ``scalars (4, r)`` (separation, toi, normal and tangent impulse)."""
        c = count
        return cls(
            body_a=bodies[:c, 0],
            body_b=bodies[:c, 1],
            point_a=points[:c, 0:2],
            point_b=points[:c, 2:4],
            normal=normals[:c],
            separation=scalars[0, :c],
            toi=scalars[1, :c],
            normal_impulse=scalars[2, :c],
            tangent_impulse=scalars[3, :c],
            state=np.full(c, CONTACT_NEW, dtype=np.int8),
        )

    @classmethod
    def packed(
        cls, index: np.ndarray, vectors: np.ndarray, scalars: np.ndarray, state: np.ndarray
    ) -> Contacts:
        """Contacts over packed arrays (``index (3+, m)`` body_a, body_b, ...; ``vectors (3, m,
        2)`` point_a, point_b, normal; ``scalars (4, m)`` separation, toi, normal and tangent
        impulse; ``state (m,)``), whose read-only rows are made on first use: most steps nobody
        reads them, and making them is a share of a small world's step."""
        view = cls.__new__(cls)
        view.__dict__["_packed"] = (index, vectors, scalars, state)
        return view

    def __getattr__(self, name: str) -> Any:
        # Only called for missing attributes: the rows of a packed view, made once.
        packed = self.__dict__.get("_packed")
        if packed is None or name not in _FIELDS:
            raise AttributeError(name)
        index, vectors, scalars, state = packed
        rows = (index[0], index[1], vectors[0], vectors[1], vectors[2], *scalars[:4], state)
        for key, row in zip(_FIELDS, rows, strict=True):
            self.__dict__[key] = _readonly(row)
        del self.__dict__["_packed"]
        return self.__dict__[name]

    @classmethod
    def empty(cls) -> Contacts:
        """No contacts."""
        z = np.zeros(0)
        z2 = np.zeros((0, 2))
        zi = np.zeros(0, dtype=np.int64)
        return cls(zi, zi, z2, z2, z2, z, z, z, z, np.zeros(0, dtype=np.int8))
