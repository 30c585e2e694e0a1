"""The iterative solver's contact store: this step's contact points, matched with last step's.

1. ``collide``: broadphase over bounding boxes swept over the step (its pairs cached over
   grown boxes while bodies rest, ``cached_pairs``), then a manifold
   (collision/manifold.py) per candidate pair with a speculative distance that grows with the
   pair's closing speed, so a pair that can touch within the step gets its points now;
2. ``prepare_points``: per point its anchors, effective masses, materials and approach speed,
   and the match with last step's point of the same (body_a, body_b, feature key), or else
   the nearest unclaimed one of the same pair within ``match_distance`` and with a normal
   within ``match_cosine`` (cosine of the angle) of its own, which gives its
   warm-start impulses and its state (new, persisting, speculative);
3. ``group_manifolds``: runs of points of one pair, and the 2 x 2 normal mass of two-point
   manifolds for the block solver.

Everything is structure-of-arrays and compiled; the point lists are in (body_a, body_b) order,
so matching is one merge walk.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from collision.broadphase import candidate_pairs, swept_bounds, transform_vertices
from collision.manifold import edge_normals, manifold_kernel
from collision.tolerances import SOLVER_BLOCK_CONDITION

#: Contact states (the same numbers as collision.world's CONTACT_* constants).
STATE_NEW = 0
STATE_PERSISTING = 1
STATE_SPECULATIVE = 2


@njit(cache=True)
def cached_pairs(
    lo: np.ndarray,
    hi: np.ndarray,
    skip: np.ndarray,
    fat_lo: np.ndarray,
    fat_hi: np.ndarray,
    fat_skip: np.ndarray,
    fat_valid: np.ndarray,
    fat_pairs: np.ndarray,
    fat_margin: float,
) -> tuple[np.ndarray, np.ndarray]:
    """``candidate_pairs(lo, hi, skip)``, exactly, from a cache that bodies at rest keep valid.

    The cache holds boxes grown by ``fat_margin`` (units) around the bounds they were built
    from (``fat_lo``, ``fat_hi (n, 2)``, with ``fat_skip (n,)``; ``fat_valid (1,) bool``) and
    the pairs of those boxes (``fat_pairs``, a superset). While every box stays inside its
    fat box and no skip flag changes, the pairs are the fat pairs whose tight boxes overlap
    (the same test, in the same (i, j) order); otherwise the cache is rebuilt. Returns
    ``(pairs (m, 2), fat_pairs)`` (the fat pairs to keep for next step).
    """
    n = lo.shape[0]
    valid = fat_valid[0]
    if valid:
        for i in range(n):
            if (
                skip[i] != fat_skip[i]
                or lo[i, 0] < fat_lo[i, 0]
                or lo[i, 1] < fat_lo[i, 1]
                or hi[i, 0] > fat_hi[i, 0]
                or hi[i, 1] > fat_hi[i, 1]
            ):
                valid = False
                break
    if not valid:
        for i in range(n):
            fat_lo[i, 0] = lo[i, 0] - fat_margin
            fat_lo[i, 1] = lo[i, 1] - fat_margin
            fat_hi[i, 0] = hi[i, 0] + fat_margin
            fat_hi[i, 1] = hi[i, 1] + fat_margin
            fat_skip[i] = skip[i]
        fat_pairs = candidate_pairs(fat_lo, fat_hi, skip)
        fat_valid[0] = True
    keep = np.empty(fat_pairs.shape[0], dtype=np.bool_)
    m = 0
    for p in range(fat_pairs.shape[0]):
        i = fat_pairs[p, 0]
        j = fat_pairs[p, 1]
        keep[p] = (
            lo[j, 0] <= hi[i, 0] and lo[i, 0] <= hi[j, 0] and lo[j, 1] <= hi[i, 1] and lo[i, 1] <= hi[j, 1]
        )
        if keep[p]:
            m += 1
    pairs = np.empty((m, 2), dtype=np.int64)
    m = 0
    for p in range(fat_pairs.shape[0]):
        if keep[p]:
            pairs[m, 0] = fat_pairs[p, 0]
            pairs[m, 1] = fat_pairs[p, 1]
            m += 1
    return pairs, fat_pairs


@njit(cache=True)
def collide(
    local_vertices: np.ndarray,
    vertex_count: np.ndarray,
    position: np.ndarray,
    angle: np.ndarray,
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    radius: np.ndarray,
    moving: np.ndarray,
    world_vertices: np.ndarray,
    dt: float,
    base_speculative: float,
    fat_lo: np.ndarray,
    fat_hi: np.ndarray,
    fat_skip: np.ndarray,
    fat_valid: np.ndarray,
    fat_pairs: np.ndarray,
    fat_margin: float,
    root: np.ndarray,
    dynamic: np.ndarray,
    filter_pairs: bool,
    continuous: bool,
) -> tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, np.ndarray
]:
    """Broadphase and manifolds: the contact points of this step, in pair order.

    Writes world-space vertices into ``world_vertices (n, MAX_VERTICES, 2)``; ``fat_*`` is
    the broadphase cache (see ``cached_pairs``). With ``filter_pairs``, pairs of rows of one
    body (``root (n,) int64``, the parts of a compound) and pairs where neither row is
    ``dynamic (n,) bool`` (kinematic against kinematic or static) are dropped. Without
    ``continuous`` the boxes are not swept and the speculative reach does not grow with
    speed (overlap and resting contacts only). Returns ``(pairs (m, 2), pair_index (c,),
    key (c,), point_a (c, 2), point_b (c, 2), normal (c, 2), separation (c,), c, fat_pairs)``;
    the point arrays have room for two points per pair and only their first ``c`` rows are
    used.
    """
    n = position.shape[0]
    transform_vertices(local_vertices, vertex_count, position, angle, world_vertices)
    lo = np.empty((n, 2))
    hi = np.empty((n, 2))
    swept_bounds(
        world_vertices,
        vertex_count,
        velocity,
        angular_velocity,
        radius,
        dt if continuous else 0.0,
        base_speculative,
        lo,
        hi,
    )
    skip = np.empty(n, dtype=np.bool_)
    for i in range(n):
        skip[i] = not moving[i]
    pairs, fat_pairs = cached_pairs(lo, hi, skip, fat_lo, fat_hi, fat_skip, fat_valid, fat_pairs, fat_margin)
    if filter_pairs:
        own = 0
        for p in range(pairs.shape[0]):
            i = pairs[p, 0]
            j = pairs[p, 1]
            if root[i] != root[j] and (dynamic[i] or dynamic[j]):
                pairs[own, 0] = i
                pairs[own, 1] = j
                own += 1
        pairs = pairs[:own]
    # Edge normals only of bodies in some pair (a resting pile's static walls and far bodies
    # need none); rows past a body's vertex count are never read.
    m = pairs.shape[0]
    world_normals = np.empty_like(world_vertices)
    has_normals = np.zeros(n, dtype=np.bool_)
    for p in range(m):
        for side in range(2):
            i = pairs[p, side]
            if not has_normals[i]:
                has_normals[i] = True
                edge_normals(world_vertices[i], vertex_count[i], world_normals[i])
    capacity = 2 * m
    pair_index = np.empty(capacity, dtype=np.int64)
    key = np.empty(capacity, dtype=np.int64)
    point_a = np.empty((capacity, 2))
    point_b = np.empty((capacity, 2))
    normal = np.empty((capacity, 2))
    separation = np.empty(capacity)
    pa = np.empty((2, 2))
    pb = np.empty((2, 2))
    ps = np.empty(2)
    pk = np.empty(2, dtype=np.int64)
    c = 0
    for p in range(m):
        i = pairs[p, 0]
        j = pairs[p, 1]
        # How far the pair can close within the step: relative translation plus what the
        # rotation of each can sweep (chord of its radius).
        vx = (velocity[i, 0] if moving[i] else 0.0) - (velocity[j, 0] if moving[j] else 0.0)
        vy = (velocity[i, 1] if moving[i] else 0.0) - (velocity[j, 1] if moving[j] else 0.0)
        reach = 0.0
        if continuous:
            reach = math.sqrt(vx * vx + vy * vy) * dt
            if moving[i]:
                reach += min(abs(angular_velocity[i]) * dt, 2.0) * radius[i]
            if moving[j]:
                reach += min(abs(angular_velocity[j]) * dt, 2.0) * radius[j]
        count, nx, ny = manifold_kernel(
            world_vertices[i],
            world_normals[i],
            vertex_count[i],
            world_vertices[j],
            world_normals[j],
            vertex_count[j],
            base_speculative + reach,
            pa,
            pb,
            ps,
            pk,
        )
        for q in range(count):
            pair_index[c] = p
            key[c] = pk[q]
            point_a[c, 0] = pa[q, 0]
            point_a[c, 1] = pa[q, 1]
            point_b[c, 0] = pb[q, 0]
            point_b[c, 1] = pb[q, 1]
            normal[c, 0] = nx
            normal[c, 1] = ny
            separation[c] = ps[q]
            c += 1
    return pairs, pair_index, key, point_a, point_b, normal, separation, c, fat_pairs


@njit(cache=True)
def prepare_points(
    position: np.ndarray,
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    inv_mass: np.ndarray,
    inv_inertia: np.ndarray,
    friction_body: np.ndarray,
    restitution_body: np.ndarray,
    pairs: np.ndarray,
    pair_index: np.ndarray,
    key: np.ndarray,
    point_a: np.ndarray,
    point_b: np.ndarray,
    normal: np.ndarray,
    separation: np.ndarray,
    c: int,
    prev_a: np.ndarray,
    prev_b: np.ndarray,
    prev_key: np.ndarray,
    prev_state: np.ndarray,
    prev_store: np.ndarray,
    dt: float,
    warm_start: bool,
    match_distance: float,
    match_cosine: float,
) -> tuple[
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
]:
    """Per point: anchors, effective masses, materials, approach speed, warm start, state.

    ``inv_mass``, ``inv_inertia (n,)`` are zero for bodies that do not move this step;
    ``prev_a``, ``prev_b``, ``prev_key``, ``prev_state (p,)`` and ``prev_store (6, p)`` last
    step's points (store rows: normal and tangent impulse, middle of point_a and point_b x, y,
    normal x, y). Returns
    ``(body_a (c,), body_b (c,), anchor_a (c, 2), anchor_b (c, 2), cross_a (c, 2), cross_b (c, 2),
    normal_mass (c,), tangent_mass (c,), friction (c,), restitution (c,), approach (c,) m/s,
    normal_impulse (c,), tangent_impulse (c,) (warm start, N s), toi (c,) s, state (c,) int8)``;
    ``cross_*[:, 0]`` is cross(r, normal), ``cross_*[:, 1]`` cross(r, tangent).
    """
    body_a = np.empty(c, dtype=np.int64)
    body_b = np.empty(c, dtype=np.int64)
    anchor_a = np.empty((c, 2))
    anchor_b = np.empty((c, 2))
    cross_a = np.empty((c, 2))  # cross(r_a, normal), cross(r_a, tangent)
    cross_b = np.empty((c, 2))
    normal_mass = np.empty(c)
    tangent_mass = np.empty(c)
    friction = np.empty(c)
    restitution = np.empty(c)
    approach = np.empty(c)
    normal_impulse = np.zeros(c)
    tangent_impulse = np.zeros(c)
    toi = np.zeros(c)
    state = np.empty(c, dtype=np.int8)

    # One walk over the manifolds (runs of one pair's points), with last step's list walked
    # alongside: both are in (body_a, body_b) order.
    prev_count = prev_a.shape[0]
    found = np.empty(2, dtype=np.int64)
    q = 0
    first = 0
    while first < c:
        p = pair_index[first]
        last = first + 1
        while last < c and pair_index[last] == p:
            last += 1
        a = pairs[p, 0]
        b = pairs[p, 1]
        # -- prepare: anchors, effective masses, materials, approach speed --
        pax = position[a, 0]
        pay = position[a, 1]
        pbx = position[b, 0]
        pby = position[b, 1]
        ima = inv_mass[a]
        imb = inv_mass[b]
        iia = inv_inertia[a]
        iib = inv_inertia[b]
        va_x = velocity[a, 0]
        va_y = velocity[a, 1]
        wa = angular_velocity[a]
        vb_x = velocity[b, 0]
        vb_y = velocity[b, 1]
        wb = angular_velocity[b]
        mu = math.sqrt(friction_body[a] * friction_body[b])
        e = max(restitution_body[a], restitution_body[b])
        for k in range(first, last):
            body_a[k] = a
            body_b[k] = b
            mx = 0.5 * (point_a[k, 0] + point_b[k, 0])
            my = 0.5 * (point_a[k, 1] + point_b[k, 1])
            rax = mx - pax
            ray = my - pay
            rbx = mx - pbx
            rby = my - pby
            anchor_a[k, 0] = rax
            anchor_a[k, 1] = ray
            anchor_b[k, 0] = rbx
            anchor_b[k, 1] = rby
            nx = normal[k, 0]
            ny = normal[k, 1]
            rna = rax * ny - ray * nx
            rnb = rbx * ny - rby * nx
            kn = ima + imb + iia * rna * rna + iib * rnb * rnb
            normal_mass[k] = 1.0 / kn if kn > 0.0 else 0.0
            rta = rax * nx + ray * ny  # cross(r, t) with t = (-ny, nx)
            rtb = rbx * nx + rby * ny
            cross_a[k, 0] = rna
            cross_a[k, 1] = rta
            cross_b[k, 0] = rnb
            cross_b[k, 1] = rtb
            kt = ima + imb + iia * rta * rta + iib * rtb * rtb
            tangent_mass[k] = 1.0 / kt if kt > 0.0 else 0.0
            friction[k] = mu
            restitution[k] = e
            dvx = va_x - wa * ray - vb_x + wb * rby
            dvy = va_y + wa * rax - vb_y - wb * rbx
            vn = dvx * nx + dvy * ny
            approach[k] = vn
            s = separation[k]
            if s > 0.0:
                state[k] = STATE_SPECULATIVE
                toi[k] = min(s / -vn, dt) if vn < 0.0 else dt
            else:
                state[k] = STATE_NEW

        # -- match with last step's points of the same pair --
        while q < prev_count and (prev_a[q] < a or (prev_a[q] == a and prev_b[q] < b)):
            q += 1
        prev_last = q
        while prev_last < prev_count and prev_a[prev_last] == a and prev_b[prev_last] == b:
            prev_last += 1
        if prev_last == q:
            first = last  # a new pair: nothing to match
            continue
        count = last - first
        if (
            prev_last - q == count
            and prev_key[q] == key[first]
            and (count == 1 or prev_key[q + 1] == key[first + 1])
        ):
            # The usual case: the same features in the same order.
            found[0] = q
            found[1] = q + 1
        else:
            # Same features first.
            claimed = 0  # bit r - q: previous point r is taken (a pair has at most 2 points)
            for j in range(count):
                found[j] = -1
                for r in range(q, prev_last):
                    if not (claimed >> (r - q)) & 1 and prev_key[r] == key[first + j]:
                        claimed |= 1 << (r - q)
                        found[j] = r
                        break
            # Then renamed points, closest pair of (point, previous point) first: a deep
            # overlap can swap which face is the reference from one step to the next, which
            # renames its points while the bodies barely move; losing their load at once
            # would drop the bodies above. Only along (nearly) the same normal: an impulse
            # carried to another direction would push the wrong way every step.
            while True:
                best_j = -1
                best_r = -1
                best_d2 = match_distance * match_distance
                for j in range(count):
                    if found[j] >= 0:
                        continue
                    k = first + j
                    mx = 0.5 * (point_a[k, 0] + point_b[k, 0])
                    my = 0.5 * (point_a[k, 1] + point_b[k, 1])
                    for r in range(q, prev_last):
                        if (claimed >> (r - q)) & 1:
                            continue
                        if prev_store[4, r] * normal[k, 0] + prev_store[5, r] * normal[k, 1] < match_cosine:
                            continue
                        dx = prev_store[2, r] - mx
                        dy = prev_store[3, r] - my
                        d2 = dx * dx + dy * dy
                        if d2 < best_d2:
                            best_d2 = d2
                            best_j = j
                            best_r = r
                if best_j < 0:
                    break
                claimed |= 1 << (best_r - q)
                found[best_j] = best_r
        for j in range(count):
            r = found[j]
            if r < 0:
                continue
            k = first + j
            if warm_start:
                normal_impulse[k] = prev_store[0, r]
                tangent_impulse[k] = prev_store[1, r]
            if separation[k] <= 0.0 and prev_state[r] != STATE_SPECULATIVE:
                state[k] = STATE_PERSISTING
        first = last

    return (
        body_a,
        body_b,
        anchor_a,
        anchor_b,
        cross_a,
        cross_b,
        normal_mass,
        tangent_mass,
        friction,
        restitution,
        approach,
        normal_impulse,
        tangent_impulse,
        toi,
        state,
    )


@njit(cache=True)
def group_manifolds(
    pair_index: np.ndarray,
    body_a: np.ndarray,
    body_b: np.ndarray,
    cross_a: np.ndarray,
    cross_b: np.ndarray,
    inv_mass: np.ndarray,
    inv_inertia: np.ndarray,
    c: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Manifolds as runs of points of one pair: ``(offsets (g + 1,), block (g, 7))``.

    Manifold g owns points ``offsets[g]:offsets[g + 1]``. For two-point manifolds ``block``
    holds the 2 x 2 normal effective mass K (k11, k12, k22), its inverse (i11, i12, i22) and
    1.0 when it is well conditioned enough for the block solver (else 0.0).
    """
    # Manifolds: runs of points from the same pair.
    offsets_buffer = np.empty(c + 1, dtype=np.int64)
    groups = 0
    for k in range(c):
        if k == 0 or pair_index[k] != pair_index[k - 1]:
            offsets_buffer[groups] = k
            groups += 1
    offsets_buffer[groups] = c
    offsets = offsets_buffer[: groups + 1]
    # Two-point manifolds: the 2 x 2 normal effective mass K (k11, k12, k22), its inverse
    # (i11, i12, i22) and whether it is well conditioned.
    block = np.zeros((groups, 7))
    for g in range(groups):
        first = offsets[g]
        if offsets[g + 1] - first != 2:
            continue
        a = body_a[first]
        b = body_b[first]
        ms = inv_mass[a] + inv_mass[b]
        rna0 = cross_a[first, 0]
        rnb0 = cross_b[first, 0]
        rna1 = cross_a[first + 1, 0]
        rnb1 = cross_b[first + 1, 0]
        k11 = ms + inv_inertia[a] * rna0 * rna0 + inv_inertia[b] * rnb0 * rnb0
        k22 = ms + inv_inertia[a] * rna1 * rna1 + inv_inertia[b] * rnb1 * rnb1
        k12 = ms + inv_inertia[a] * rna0 * rna1 + inv_inertia[b] * rnb0 * rnb1
        block[g, 0] = k11
        block[g, 1] = k12
        block[g, 2] = k22
        # Near-parallel rows (points almost coincident) make the 2 x 2 solve ill-conditioned.
        det = k11 * k22 - k12 * k12
        if k11 > 0.0 and k22 > 0.0 and det > SOLVER_BLOCK_CONDITION * k11 * k22:
            block[g, 3] = k22 / det
            block[g, 4] = -k12 / det
            block[g, 5] = k11 / det
            block[g, 6] = 1.0
    return offsets, block
