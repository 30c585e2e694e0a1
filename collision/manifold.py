"""Contact manifolds of two convex shapes from the separating-axis test.

Named steps, as in Box2D's polygon manifold:

1. ``face_separation``: for every face (edge) of one shape, how far the other shape lies
   beyond it; the face of maximum separation is the reference face candidate.
2. reference face: the better of A's and B's candidates (a small tolerance favours A so the
   choice does not flicker between equal faces).
3. incident edge: the edge of the other shape whose normal is most anti-parallel to the
   reference normal (a point's single vertex is its own "edge").
4. clip: the incident edge is clipped to the side planes of the reference face; every kept
   point whose separation is below the speculative distance becomes a contact point.
5. separated shapes whose closest features are two vertices (corner to corner) get one
   point along the line between those vertices instead, with the true distance.

Shapes are world-space vertex arrays: 1 vertex = point, 2 = segment (two faces, opposite
normals, and two end caps), 3+ = convex CCW polygon. Points have no faces, so a point is
never the reference shape. Normals point from B toward A (moving A by ``-separation *
normal`` makes the pair just touch). Separation is negative when the shapes overlap.

Every point carries a feature key (reference body, reference edge, incident edge, clip end)
that is the same next step when the same features touch, so a solver can warm start it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from collision import checks
from collision.geometry import UNCOUNTED, Index, closest_point_on_segment
from collision.kernels import compiled_only
from collision.lanes import VECTOR, face_loop, faces_beyond, fits_lanes, normal_loop, normals_at_once
from collision.shapes import check_vertices
from collision.tolerances import MANIFOLD_AXIS_TOLERANCE, MANIFOLD_DEGENERATE_LENGTH

# The manifold's large steps are inlined by LLVM (``forceinline``), not by numba
# (``inline="always"``): each is compiled once, where numba copied and typed their IR again at
# every call site (about a tenth of the default scene's cold compile), and the inlined code runs
# as fast. The small ones that are given int literals stay numba's to inline: compiled on their
# own they would be compiled again for every literal.
#
# The steps that take arrays are compiled without numba's reference counting (UNCOUNTED, see
# collision/geometry.py: they allocate nothing): counting the arrays handed to them, at every
# pair of the world's loop, cost about as much as the manifold's arithmetic.

#: Feature key layout: ((kind * 2 + reference_is_b) * 16 + reference_index) * 16
#: + incident_index) * 2 + clip_end. Vertex indices fit in 4 bits (MAX_VERTICES = 16).
FEATURE_FACE = 0
FEATURE_VERTEX = 1

#: Where the manifold steps write their points: the first shape's points ``(2, 2)``, the
#: second's ``(2, 2)``, ``separation (2,)`` and ``key (2,) int64``. A step that takes the
#: shapes in the other order is handed the two point arrays swapped.
Out = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@njit(cache=True, inline="always")
def _make_key(
    kind: int, reference_is_b: Index, reference_index: Index, incident_index: Index, end: Index
) -> Index:
    return (((kind * 2 + reference_is_b) * 16 + reference_index) * 16 + incident_index) * 2 + end


@njit(cache=True, **UNCOUNTED)
def edge_normals(v: np.ndarray, k: int, out: np.ndarray) -> None:
    """Unit outward normals of the edges of one CCW shape into ``out (>=k, 2)``.

    Edge i runs from vertex i to vertex i+1 (a segment has two edges, opposite normals);
    a degenerate edge gets (0, 0) and a point no normal at all. Shapes of at most LANES
    vertices in rows as the world holds them get every edge's at once (collision/lanes.py;
    the same bits), and ``out``'s rows from k to LANES are overwritten too.
    """
    if k < 2:
        return
    if VECTOR and fits_lanes(v, k) and fits_lanes(out, k):
        normals_at_once(v, k, out)
    else:
        normal_loop(v, k, out)


@compiled_only(forceinline=True, **UNCOUNTED)
def face_separation(
    p: np.ndarray, pn: np.ndarray, kp: int, q: np.ndarray, kq: int, floor: float, stop: float
) -> tuple[float, Index]:
    """Largest separation of ``q`` beyond a face of ``p`` and that face's index, where it
    exceeds ``floor``: else ``(floor, 0)`` (-inf: the largest is always found). Where a face's
    separation exceeds ``stop`` (``>= floor``), that face may be returned as soon as it is found
    (a separating axis: the caller needs no more).

    ``p (>=kp, 2)`` with ``kp >= 2`` and its edge normals ``pn``, ``q (>=kq, 2)``. The
    separation of face i is the smallest ``dot(n_i, q_j - p_i)`` over q's vertices
    (negative: q crosses the face's line). Shapes of at most LANES vertices in rows as the
    world holds them are tested on every face at once (collision/lanes.py: the pile's
    separating-axis tests 1.8 times as fast), others face by face; the answers are the same,
    bit for bit, up to which separating face is returned.
    """
    if VECTOR and fits_lanes(p, kp) and fits_lanes(pn, kp) and fits_lanes(q, kq):
        return faces_beyond(p, pn, kp, q, kq, floor, stop)
    return face_loop(p, pn, kp, q, kq, floor, stop)


@compiled_only(**UNCOUNTED)
def _chain_to_vertices(
    p: np.ndarray, kp: int, p0: Index, pe: Index, q: np.ndarray, kq: int, q0: Index, qv: Index
) -> tuple[float, float, float, float, float, Index, Index]:
    """Closest pair between the vertices of chain q and the edges of chain p.

    A chain is a run of a shape's vertices from index ``p0`` (wrapping at ``kp``); chain p
    has ``pe`` edges (0: just its first vertex), chain q has ``qv`` vertices. Returns
    ``(distance, px, py, qx, qy, p_vertex, q_vertex)`` with ``p_vertex = -1`` when the
    closest point lies inside an edge.
    """
    best = math.inf
    bpx = bpy = bqx = bqy = 0.0
    bi: Index = -1
    bj: Index = -1
    for jj in range(qv):
        j = (q0 + jj) % kq
        for ii in range(max(pe, 1)):
            i = (p0 + ii) % kp
            i2 = (i + 1) % kp if pe > 0 else i
            cx, cy, u = closest_point_on_segment(q[j, 0], q[j, 1], p[i, 0], p[i, 1], p[i2, 0], p[i2, 1])
            ex = q[j, 0] - cx
            ey = q[j, 1] - cy
            d = ex * ex + ey * ey
            if d < best:
                best = d
                bpx, bpy, bqx, bqy = cx, cy, q[j, 0], q[j, 1]
                bj = j
                bi = i if u == 0.0 else (i2 if u == 1.0 else -1)
    return math.sqrt(best), bpx, bpy, bqx, bqy, bi, bj


@compiled_only(**UNCOUNTED)
def _closest_features(
    p: np.ndarray,
    kp: int,
    p0: Index,
    pv: Index,
    pe: Index,
    q: np.ndarray,
    kq: int,
    q0: Index,
    qv: Index,
    qe: Index,
) -> tuple[float, float, float, float, float, Index, Index]:
    """Closest points of two separated chains (see ``_chain_to_vertices``).

    Returns ``(distance, px, py, qx, qy, p_vertex, q_vertex)``; a ``*_vertex`` is the index
    of the vertex the closest point sits on, or -1 when it lies inside an edge.
    """
    d1, px1, py1, qx1, qy1, i1, j1 = _chain_to_vertices(p, kp, p0, pe, q, kq, q0, qv)
    d2, qx2, qy2, px2, py2, j2, i2 = _chain_to_vertices(q, kq, q0, qe, p, kp, p0, pv)
    if d2 < d1:
        return d2, px2, py2, qx2, qy2, i2, j2
    return d1, px1, py1, qx1, qy1, i1, j1


@compiled_only(forceinline=True, **UNCOUNTED)
def manifold_kernel(
    a: np.ndarray,
    an: np.ndarray,
    ka: int,
    b: np.ndarray,
    bn: np.ndarray,
    kb: int,
    speculative: float,
    point_a: np.ndarray,
    point_b: np.ndarray,
    separation: np.ndarray,
    key: np.ndarray,
) -> tuple[int, float, float]:
    """Contact manifold of shapes A and B (world-space vertices).

    ``a (>=ka, 2)``, ``b (>=kb, 2)`` CCW with their edge normals ``an``, ``bn`` (see
    ``edge_normals``); ``speculative`` (units): points farther apart than
    this are dropped. Writes up to two points into ``point_a (2, 2)`` (on A), ``point_b
    (2, 2)`` (on B), ``separation (2,)`` (``dot(point_a - point_b, normal)``, negative when
    overlapping) and ``key (2,) int64``. Returns ``(count, nx, ny)``: the number of points
    (0, 1 or 2) and the unit normal from B toward A.
    """
    if ka < 2 and kb < 2:
        return _vertex_contact(a, 0, b, 0, speculative, (point_a, point_b, separation, key), 0)

    # Faces as int64 from the start: numba compiles a kernel again for an int literal (even
    # one a later assignment replaces) passed to it.
    sep_a = -math.inf
    edge_a: Index = np.int64(0)
    sep_b = -math.inf
    edge_b: Index = np.int64(0)
    if ka >= 2:
        sep_a, edge_a = face_separation(a, an, ka, b, kb, -math.inf, speculative)
        if sep_a > speculative:
            return 0, 0.0, 0.0  # a separating axis: most broadphase pairs end here
    if kb >= 2:
        # B's faces only matter beyond A's (by the tolerance) or beyond the speculative
        # distance; at or below both, A is the reference whatever B's exact separation, and
        # the floor spares most of the search's updates of its best face (measured: the
        # pile's narrowphase 5% faster than searching from -inf).
        floor = min(speculative, sep_a + MANIFOLD_AXIS_TOLERANCE)
        sep_b, edge_b = face_separation(b, bn, kb, a, ka, floor, speculative)
    if sep_a > speculative or sep_b > speculative:
        return 0, 0.0, 0.0

    reference_is_b = kb >= 2 and (ka < 2 or sep_b > sep_a + MANIFOLD_AXIS_TOLERANCE)
    if reference_is_b:
        out_b = (point_b, point_a, separation, key)
        count, nx, ny = _clip_manifold(
            (b, bn, kb), edge_b, sep_b, (a, an, ka), speculative, out_b, np.int64(1)
        )
        return count, nx, ny
    out_a = (point_a, point_b, separation, key)
    count, nx, ny = _clip_manifold((a, an, ka), edge_a, sep_a, (b, bn, kb), speculative, out_a, np.int64(0))
    return count, -nx, -ny


@njit(cache=True, inline="always")
def _vertex_contact(
    a: np.ndarray, ia: Index, b: np.ndarray, ib: Index, speculative: float, out: Out, reference_is_b: Index
) -> tuple[int, float, float]:
    """One contact between vertex ia of A and vertex ib of B (normal from B toward A), written
    into ``out`` (A's point first)."""
    point_a, point_b, separation, key = out
    dx = a[ia, 0] - b[ib, 0]
    dy = a[ia, 1] - b[ib, 1]
    d = math.sqrt(dx * dx + dy * dy)
    if d > speculative:
        return 0, 0.0, 0.0
    if d < MANIFOLD_DEGENERATE_LENGTH:
        # Coincident points have no direction between them; any unit normal is as good.
        nx, ny = 0.0, 1.0
    else:
        nx, ny = dx / d, dy / d
    point_a[0, 0] = a[ia, 0]
    point_a[0, 1] = a[ia, 1]
    point_b[0, 0] = b[ib, 0]
    point_b[0, 1] = b[ib, 1]
    separation[0] = d
    if reference_is_b:
        key[0] = _make_key(FEATURE_VERTEX, 1, ib, ia, 0)
    else:
        key[0] = _make_key(FEATURE_VERTEX, 0, ia, ib, 0)
    return 1, nx, ny


@compiled_only(forceinline=True, **UNCOUNTED)
def _clip_manifold(
    reference: tuple[np.ndarray, np.ndarray, int],
    edge: Index,
    face_sep: float,
    incident: tuple[np.ndarray, np.ndarray, int],
    speculative: float,
    out: Out,
    reference_is_b: Index,
) -> tuple[int, float, float]:
    """Manifold with reference shape ``r`` (face ``edge``, separation ``face_sep``) and incident
    shape ``s``, each given as ``(vertices, edge normals, vertex count)``: the incident edge
    clipped to the reference face's side planes (Sutherland-Hodgman on one edge), written into
    ``out`` (the reference shape's point first).

    Returns the normal pointing from ``r`` toward ``s`` (outward from the reference face).
    """
    r, rn, kr = reference
    s, sn, ks = incident
    point_r, point_s, separation, key = out
    nx = rn[edge, 0]
    ny = rn[edge, 1]
    r2 = edge + 1 if edge + 1 < kr else 0
    r1x = r[edge, 0]
    r1y = r[edge, 1]
    ex = r[r2, 0] - r1x
    ey = r[r2, 1] - r1y
    length = math.sqrt(ex * ex + ey * ey)
    # The face's unit tangent is its normal turned back a quarter (edge_normals: n = (ey, -ex) /
    # length): the same bits as the edge over its length, without waiting for the square root.
    tx = -ny
    ty = nx

    # Incident edge: the face of s most anti-parallel to the reference normal.
    if ks == 1:
        i1: Index = np.int64(0)  # not a literal: see manifold_kernel
        i2: Index = 0
    else:
        lowest = math.inf
        i1 = np.int64(0)
        for j in range(ks):
            d = sn[j, 0] * nx + sn[j, 1] * ny
            if d < lowest:
                lowest = d
                i1 = j
        i2 = i1 + 1 if i1 + 1 < ks else 0

    v1x = s[i1, 0]
    v1y = s[i1, 1]
    v2x = s[i2, 0]
    v2y = s[i2, 1]
    d1 = (v1x - r1x) * tx + (v1y - r1y) * ty
    d2 = (v2x - r1x) * tx + (v2y - r1y) * ty
    if face_sep > 0.0 and (d1 < 0.0 or d1 > length or d2 < 0.0 or d2 > length):
        # Separated with part of the incident edge beyond a side plane: if the closest
        # features are two vertices, the face axis underestimates the distance; use the
        # vertex pair instead (between the reference and incident edges as Box2D does, or
        # against the whole reference shape for a point). Inside the side planes the
        # nearest incident vertex faces the reference edge and the face axis is exact.
        # Starts and counts as int64 values: numba compiles a kernel again for every distinct
        # int literal it is called with.
        n0, n1, n2 = np.int64(0), np.int64(1), np.int64(2)
        if ks == 1:
            d, prx, pry, psx, psy, vr, vs = _closest_features(r, kr, n0, kr, kr, s, ks, n0, n1, n0)
        else:
            d, prx, pry, psx, psy, vr, vs = _closest_features(r, kr, edge, n2, n1, s, ks, i1, n2, n1)
        if d > face_sep + MANIFOLD_AXIS_TOLERANCE and vr >= 0 and vs >= 0:
            if reference_is_b:
                return _vertex_contact(s, vs, r, vr, speculative, (point_s, point_r, separation, key), 1)
            count, vx, vy = _vertex_contact(r, vr, s, vs, speculative, out, 0)
            return count, -vx, -vy
    u_lo = 0.0
    u_hi = 1.0
    if ks == 1 or abs(d2 - d1) < MANIFOLD_DEGENERATE_LENGTH:
        if (d1 < 0.0 or d1 > length) and face_sep > 0.0:
            return _clip_fallback(r, kr, s, ks, speculative, out, reference_is_b)
        if ks == 1:
            u_hi = 0.0
    else:
        ua = -d1 / (d2 - d1)
        ub = (length - d1) / (d2 - d1)
        u_lo = max(0.0, min(ua, ub))
        u_hi = min(1.0, max(ua, ub))
        if u_lo > u_hi:
            if face_sep > 0.0:
                return _clip_fallback(r, kr, s, ks, speculative, out, reference_is_b)
            # Overlapping yet outside the side planes (degenerate slivers): keep the end
            # of the incident edge nearest the reference face.
            u_lo = u_hi = 0.0 if abs(d1 - 0.5 * length) < abs(d2 - 0.5 * length) else 1.0

    count = 0
    ends = 1 if u_hi - u_lo <= 0.0 else 2
    for e in range(ends):
        u = u_lo if e == 0 else u_hi
        px = v1x + u * (v2x - v1x)
        py = v1y + u * (v2y - v1y)
        sep = (px - r1x) * nx + (py - r1y) * ny
        if sep > speculative:
            continue
        point_s[count, 0] = px
        point_s[count, 1] = py
        point_r[count, 0] = px - sep * nx
        point_r[count, 1] = py - sep * ny
        separation[count] = sep
        key[count] = _make_key(FEATURE_FACE, reference_is_b, edge, i1, e)
        count += 1
    return count, nx, ny


@compiled_only(**UNCOUNTED)
def _clip_fallback(
    r: np.ndarray, kr: int, s: np.ndarray, ks: int, speculative: float, out: Out, reference_is_b: Index
) -> tuple[int, float, float]:
    """Separated shapes whose incident edge misses the reference face: closest features,
    written into ``out`` (``r``'s point first).

    Returns the normal from ``r`` toward ``s``.
    """
    point_r, point_s, separation, key = out
    n0 = np.int64(0)  # not a literal: see _clip_manifold
    d, prx, pry, psx, psy, vr, vs = _closest_features(r, kr, n0, kr, kr, s, ks, n0, ks, ks if ks > 1 else n0)
    if d > speculative or d < MANIFOLD_DEGENERATE_LENGTH:
        return 0, 0.0, 0.0
    nx = (psx - prx) / d
    ny = (psy - pry) / d
    point_r[0, 0] = prx
    point_r[0, 1] = pry
    point_s[0, 0] = psx
    point_s[0, 1] = psy
    separation[0] = d
    key[0] = _make_key(FEATURE_VERTEX, reference_is_b, max(vr, 0), max(vs, 0), 1)
    return 1, nx, ny


@dataclass(frozen=True)
class Manifold:
    """Contact manifold of one pair.

    ``normal (2,)`` unit from B toward A; ``point_a (c, 2)`` on A, ``point_b (c, 2)`` on B,
    ``separation (c,)`` (units, negative = overlap), ``key (c,) int64`` feature keys, with
    ``c`` in 0..2 points.
    """

    normal: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    separation: np.ndarray
    key: np.ndarray

    def __len__(self) -> int:
        return int(self.separation.shape[0])


@njit(cache=True)
def _one_manifold(
    a: np.ndarray, an: np.ndarray, ka: int, b: np.ndarray, bn: np.ndarray, kb: int, speculative: float,
    point_a: np.ndarray, point_b: np.ndarray, separation: np.ndarray, key: np.ndarray,
) -> tuple[int, float, float]:  # fmt: skip
    """:func:`manifold_kernel` for a call from Python (the world's loops call it from compiled
    code, which needs no Python wrapper of it)."""
    return manifold_kernel(a, an, ka, b, bn, kb, speculative, point_a, point_b, separation, key)


def manifold(a: object, b: object, speculative: float = 0.0) -> Manifold:
    """Contact manifold of two convex shapes in world coordinates.

    ``a``, ``b``: ``Polygon`` or ``(k, 2)`` array-like vertices (1 = point, 2 = segment);
    ``speculative`` (units, >= 0): points separated by up to this distance are kept too.

    >>> m = manifold([[0, 1], [1, 1], [1, 2], [0, 2]], [[0, 0], [1, 0], [1, 1.1], [0, 1.1]])
    >>> len(m), m.normal.tolist(), m.separation.round(6).tolist()
    (2, [0.0, 1.0], [-0.1, -0.1])
    """
    va = check_vertices(a, "a")
    vb = check_vertices(b, "b")
    spec = checks.number(speculative, "speculative", minimum=0.0)
    point_a = np.zeros((2, 2))
    point_b = np.zeros((2, 2))
    separation = np.zeros(2)
    key = np.zeros(2, dtype=np.int64)
    na = np.zeros_like(va)
    nb = np.zeros_like(vb)
    edge_normals(va, va.shape[0], na)
    edge_normals(vb, vb.shape[0], nb)
    count, nx, ny = _one_manifold(
        va, na, va.shape[0], vb, nb, vb.shape[0], spec, point_a, point_b, separation, key
    )
    return Manifold(
        normal=np.array([nx, ny]) + 0.0,  # adding 0.0 turns a -0.0 into 0.0, as the other faces do
        point_a=point_a[:count].copy(),
        point_b=point_b[:count].copy(),
        separation=separation[:count].copy(),
        key=key[:count].copy(),
    )
