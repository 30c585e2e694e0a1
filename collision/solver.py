"""Our iterative solver: persistent contacts, warm starting, speculative contacts, soft step.

One world step (after the world has integrated forces into velocities), module by module:

1. broadphase: bounding boxes swept over the step, grown by the speculative distance;
2. manifolds (collision/manifold.py) for every candidate pair, with a speculative distance
   that grows with the pair's relative speed over the step, so a pair that can touch within
   the step gets its contact points now, with positive separation (1-2:
   collision/contact_store.py ``collide``);
3. match each point with last step's by (body_a, body_b, feature key): matched points start
   from their accumulated impulses (warm start) (contact_store ``prepare_points``);
4. sequential impulses with accumulated clamping (normal >= 0, |friction| <= mu * normal) and
   Box2D v3's soft contact (a spring of ``contact_hertz`` with ``damping_ratio`` pushes
   overlaps apart, at most ``max_push_speed``); a speculative point of separation s only
   stops approach faster than s / dt, so nothing tunnels at any speed;
5. positions <- velocities;
6. relax: the same iterations without the push-out spring, so the push-out velocity does not
   stay in the bodies (piles come to rest instead of jittering) (4-6, per substep:
   collision/soft_contact.py);
7. restitution: the bouncing contacts' impulses are replaced by one simultaneous Poisson
   impact from the velocities they came in with, so e = 1 keeps kinetic energy
   (collision/restitution.py); the threshold is a few steps of gravity (a small floor
   without gravity);
8. continuous pass: a body that went further than its start-of-step contacts could see (it
   was hit hard during the step) is swept against the static bodies and put back where it
   first touches one (collision/ccd.py);
9. sleeping: islands (union-find over touching contacts between moving bodies) whose bodies
   all stayed slow for ``SLEEP_TIME`` sleep together (collision/islands.py).

All of it runs in compiled loops over the world's structure-of-arrays state and over the
contact store (also structure-of-arrays); the Python class only holds the store between steps.
Loops are sequential in a fixed order, so results are bit-identical run to run.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from collision.ccd import stop_at_static
from collision.contact_store import collide, group_manifolds, prepare_points
from collision.islands import update_sleep, wake_islands
from collision.restitution import apply_restitution
from collision.soft_contact import soft_step
from collision.tolerances import (
    BROADPHASE_FAT_MARGIN,
    CONTACT_DAMPING_RATIO,
    CONTACT_HERTZ,
    CONTACT_LOAD_MEMORY,
    CONTACT_MAX_PUSH_SPEED,
    CONTINUOUS_BACKOFF,
    RESTITUTION_GRAVITY_STEPS,
    RESTITUTION_THRESHOLD,
    SLEEP_ANGULAR_SPEED,
    SLEEP_LINEAR_SPEED,
    SLEEP_TIME,
    SPECULATIVE_DISTANCE,
    STATIC_CONTACT_HERTZ_SCALE,
    WARM_START_MATCH_COSINE,
    WARM_START_MATCH_DISTANCE,
)
from collision.world import Contacts

#: Defaults: substeps per step, and per substep the passes that solve (with push-out) and
#: relax (without), as Box2D v3.
SUBSTEPS = 4
VELOCITY_ITERATIONS = 1
RELAX_ITERATIONS = 1
#: Extra relax passes at the end of the last substep (see collision.soft_contact.soft_step):
#: bodies wedged deep in a pile end the step nearly still instead of with a residual
#: velocity they do not move at (about 5% of a step's time).
FINAL_RELAX_ITERATIONS = 1

#: Columns of the settings array the compiled step reads (one array instead of a long list of
#: scalars: every argument costs time at each call, a large share of a small world's step).
(
    S_SUBSTEPS,
    S_VELOCITY_ITERATIONS,
    S_RELAX_ITERATIONS,
    S_FINAL_RELAX_ITERATIONS,
    S_WARM_START,
    S_CONTACT_HERTZ,
    S_STATIC_HERTZ_SCALE,
    S_DAMPING_RATIO,
    S_MAX_PUSH_SPEED,
    S_RESTITUTION_THRESHOLD,
    S_RESTITUTION_GRAVITY_STEPS,
    S_LOAD_MEMORY,
    S_SPECULATIVE_DISTANCE,
    S_MATCH_DISTANCE,
    S_MATCH_COSINE,
    S_BROADPHASE_MARGIN,
) = range(16)
SETTINGS_COUNT = 16


@njit(cache=True)
def solve_contacts(
    position: np.ndarray,
    angle: np.ndarray,
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    inv_mass_body: np.ndarray,
    inv_inertia_body: np.ndarray,
    moving: np.ndarray,
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
    gravity_x: float,
    gravity_y: float,
    substeps: int,
    velocity_iterations: int,
    relax_iterations: int,
    final_relax_iterations: int,
    warm_start: bool,
    contact_hertz: float,
    static_hertz_scale: float,
    damping_ratio: float,
    max_push: float,
    restitution_threshold: float,
    reference_weight: float,
    match_distance: float,
    match_cosine: float,
    root: np.ndarray,
    has_compounds: bool,
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
]:
    """Warm start, solve, integrate positions, relax, restitution for ``c`` contact points.

    The steps live in collision.contact_store (prepare, group), collision.soft_contact
    (substeps) and collision.restitution. Moves the moving bodies (``moving (n,) bool``:
    awake and not static; kinematic bodies move with inverse mass 0) and returns
    ``(body_a, body_b, normal_impulse, tangent_impulse, total_normal, total_tangent, toi,
    state, row_a, row_b)`` for the points: ``body_*`` the bodies (compound roots),
    ``row_*`` the rows the points were found on (what last step's points are matched by).

    Compounds (``root (n,) int64``, ``has_compounds``): points are prepared on the rows that
    touched (a part row sits at its root's pose, so its anchors are the root's, and it is
    given its root's inverse mass here), then handed to the roots, which alone move.
    """
    n = position.shape[0]
    inv_mass = np.zeros(n)
    inv_inertia = np.zeros(n)
    for i in range(n):
        r = root[i]
        if moving[r]:
            inv_mass[i] = inv_mass_body[r]
            inv_inertia[i] = inv_inertia_body[r]
    (
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
    ) = prepare_points(
        position,
        velocity,
        angular_velocity,
        inv_mass,
        inv_inertia,
        friction_body,
        restitution_body,
        pairs,
        pair_index,
        key,
        point_a,
        point_b,
        normal,
        separation,
        c,
        prev_a,
        prev_b,
        prev_key,
        prev_state,
        prev_store,
        dt,
        warm_start,
        match_distance,
        match_cosine,
    )
    row_a = body_a
    row_b = body_b
    solve_moving = moving
    if has_compounds:
        row_a = body_a.copy()
        row_b = body_b.copy()
        for k in range(c):
            body_a[k] = root[body_a[k]]
            body_b[k] = root[body_b[k]]
        solve_moving = moving.copy()
        for i in range(n):
            if root[i] != i:
                solve_moving[i] = False
    offsets, block = group_manifolds(pair_index, body_a, body_b, cross_a, cross_b, inv_mass, inv_inertia, c)
    total_normal, total_tangent, max_normal_impulse = soft_step(
        position,
        angle,
        velocity,
        angular_velocity,
        inv_mass,
        inv_inertia,
        inv_mass_body,
        solve_moving,
        normal,
        separation,
        body_a,
        body_b,
        cross_a,
        cross_b,
        normal_mass,
        tangent_mass,
        friction,
        normal_impulse,
        tangent_impulse,
        offsets,
        block,
        dt,
        gravity_x,
        gravity_y,
        substeps,
        velocity_iterations,
        relax_iterations,
        final_relax_iterations,
        contact_hertz,
        static_hertz_scale,
        damping_ratio,
        max_push,
        reference_weight,
    )
    apply_restitution(
        velocity,
        angular_velocity,
        inv_mass,
        inv_inertia,
        body_a,
        body_b,
        normal,
        cross_a,
        cross_b,
        normal_mass,
        restitution,
        approach,
        max_normal_impulse,
        normal_impulse,
        total_normal,
        offsets,
        block,
        restitution_threshold,
    )

    return (
        body_a,
        body_b,
        normal_impulse,
        tangent_impulse,
        total_normal,
        total_tangent,
        toi,
        state,
        row_a,
        row_b,
    )


@njit(cache=True)
def iterative_step(
    local_vertices: np.ndarray,
    vertex_count: np.ndarray,
    position: np.ndarray,
    angle: np.ndarray,
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    inv_mass: np.ndarray,
    inv_inertia: np.ndarray,
    static: np.ndarray,
    sleeping: np.ndarray,
    radius: np.ndarray,
    friction: np.ndarray,
    restitution: np.ndarray,
    world_vertices: np.ndarray,
    gravity: np.ndarray,
    sleep_enabled: bool,
    dt: float,
    sleep_time: np.ndarray,
    was_sleeping: np.ndarray,
    island: np.ndarray,
    fat_lo: np.ndarray,
    fat_hi: np.ndarray,
    fat_skip: np.ndarray,
    fat_valid: np.ndarray,
    fat_pairs: np.ndarray,
    prev_a: np.ndarray,
    prev_b: np.ndarray,
    prev_key: np.ndarray,
    prev_state: np.ndarray,
    prev_store: np.ndarray,
    settings: np.ndarray,
    root: np.ndarray,
    kinematic: np.ndarray,
    has_compounds: bool,
    has_kinematic: bool,
    continuous: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The whole iterative step over the world's arrays (one compiled call).

    Returns this step's contacts, one row per point, packed so that few arrays cross into
    Python: ``(index (5, c) int64`` rows body_a, body_b, feature key, row_a, row_b (the rows
    of compound parts the points were found on, the warm-start store's keys); ``vectors (3, c, 2)``
    rows point_a, point_b, normal; ``scalars (4, c)`` rows separation, toi, total normal and
    total tangent impulse over the step (N s); ``store (6, c)`` rows the last substep's
    normal and tangent impulses, the points' middles x, y and normals x, y (the warm-start
    store);
    ``state (c,) int8``; ``fat_pairs``: the broadphase cache's pairs, kept for next step).
    ``fat_*``: the broadphase cache (collision.contact_store.cached_pairs); ``gravity (2,)``
    units/s^2; ``settings (SETTINGS_COUNT,)``: the solver's settings by the S_* columns.
    ``root (n,) int64`` each row's compound root, ``kinematic (n,) bool``; the flags say
    whether there are any (without, their extra work is skipped); ``continuous``: the
    world's switch (off: no velocity-swept boxes and no speed-grown speculative reach).
    """
    speculative_distance = settings[S_SPECULATIVE_DISTANCE]
    fat_margin = settings[S_BROADPHASE_MARGIN]
    substeps = int(settings[S_SUBSTEPS])
    velocity_iterations = int(settings[S_VELOCITY_ITERATIONS])
    relax_iterations = int(settings[S_RELAX_ITERATIONS])
    final_relax_iterations = int(settings[S_FINAL_RELAX_ITERATIONS])
    warm_start = settings[S_WARM_START] != 0.0
    gravity_x = gravity[0]
    gravity_y = gravity[1]
    # Resting contacts must not bounce: the threshold is at least a few steps of gravity.
    restitution_threshold = max(
        settings[S_RESTITUTION_THRESHOLD],
        settings[S_RESTITUTION_GRAVITY_STEPS] * math.hypot(gravity_x, gravity_y) * dt,
    )
    n = position.shape[0]
    moving = np.empty(n, dtype=np.bool_)
    wake = np.zeros(n, dtype=np.bool_)
    any_wake = False
    for i in range(n):
        if not sleep_enabled:
            sleeping[i] = False
        if was_sleeping[i] and not sleeping[i]:
            # Woken from outside (force, impulse, velocity): its clock starts again, and
            # the island it slept with wakes too.
            sleep_time[i] = 0.0
            if island[i] >= 0:
                wake[island[i]] = True
                any_wake = True
    if any_wake:
        wake_islands(sleeping, sleep_time, island, wake)
    for i in range(n):
        if not sleeping[i]:
            island[i] = -1
        moving[i] = not (static[i] or sleeping[i])
    filter_pairs = has_compounds or has_kinematic
    dynamic = moving
    if filter_pairs:
        dynamic = np.empty(n, dtype=np.bool_)
        for i in range(n):
            dynamic[i] = inv_mass[root[i]] > 0.0
    if continuous:
        # Where the bodies start, for the continuous pass after the solve.
        start_position = position.copy()
        start_velocity = velocity.copy()
    else:
        start_position = position
        start_velocity = velocity
    pairs, pair_index, key, point_a, point_b, normal, separation, c, fat_pairs = collide(
        local_vertices,
        vertex_count,
        position,
        angle,
        velocity,
        angular_velocity,
        radius,
        moving,
        world_vertices,
        dt,
        speculative_distance,
        fat_lo,
        fat_hi,
        fat_skip,
        fat_valid,
        fat_pairs,
        fat_margin,
        root,
        dynamic,
        filter_pairs,
        continuous,
    )
    if has_kinematic:
        # A moving kinematic body wakes what it reaches (Box2D: it keeps its contacts awake).
        wake[:] = False
        any_wake = False
        for p in range(pairs.shape[0]):
            for side in range(2):
                k = root[pairs[p, side]]
                o = root[pairs[p, 1 - side]]
                if (
                    kinematic[k]
                    and moving[k]
                    and sleeping[o]
                    and island[o] >= 0
                    and (velocity[k, 0] != 0.0 or velocity[k, 1] != 0.0 or angular_velocity[k] != 0.0)
                ):
                    wake[island[o]] = True
                    any_wake = True
        if any_wake:
            wake_islands(sleeping, sleep_time, island, wake)
            for i in range(n):
                if sleeping[root[i]]:
                    continue
                sleeping[i] = False
                island[i] = -1
                moving[i] = not static[i]
    (
        body_a,
        body_b,
        normal_impulse,
        tangent_impulse,
        total_normal,
        total_tangent,
        toi,
        state,
        row_a,
        row_b,
    ) = solve_contacts(
        position,
        angle,
        velocity,
        angular_velocity,
        inv_mass,
        inv_inertia,
        moving,
        friction,
        restitution,
        pairs,
        pair_index,
        key,
        point_a,
        point_b,
        normal,
        separation,
        c,
        prev_a,
        prev_b,
        prev_key,
        prev_state,
        prev_store,
        dt,
        gravity_x,
        gravity_y,
        substeps,
        velocity_iterations,
        relax_iterations,
        final_relax_iterations,
        warm_start,
        settings[S_CONTACT_HERTZ],
        settings[S_STATIC_HERTZ_SCALE],
        settings[S_DAMPING_RATIO],
        settings[S_MAX_PUSH_SPEED],
        restitution_threshold,
        settings[S_LOAD_MEMORY],
        settings[S_MATCH_DISTANCE],
        settings[S_MATCH_COSINE],
        root,
        has_compounds,
    )
    if continuous:
        stop_at_static(
            local_vertices,
            vertex_count,
            world_vertices,
            position,
            angle,
            start_position,
            start_velocity,
            inv_mass,
            moving,
            static,
            root,
            has_compounds,
            pairs,
            pair_index[:c],
            dt,
            speculative_distance,
            CONTINUOUS_BACKOFF,
        )
    if sleep_enabled:
        # Islands over bodies: the part rows of compounds are left out and then mirror
        # their roots.
        sleep_static = static
        if has_compounds:
            sleep_static = static.copy()
            for i in range(n):
                if root[i] != i:
                    sleep_static[i] = True
        update_sleep(
            velocity,
            angular_velocity,
            sleep_static,
            kinematic,
            sleeping,
            sleep_time,
            island,
            body_a,
            body_b,
            separation[:c],
            dt,
            SLEEP_LINEAR_SPEED,
            SLEEP_ANGULAR_SPEED,
            SLEEP_TIME,
        )
        if has_compounds:
            for i in range(n):
                r = root[i]
                if r != i:
                    sleeping[i] = sleeping[r]
                    island[i] = island[r]
                    sleep_time[i] = sleep_time[r]
    for i in range(n):
        was_sleeping[i] = sleeping[i]
    index = np.empty((5, c), dtype=np.int64)
    vectors = np.empty((3, c, 2))
    scalars = np.empty((4, c))
    store = np.empty((6, c))
    for k in range(c):
        index[0, k] = body_a[k]
        index[1, k] = body_b[k]
        index[2, k] = key[k]
        index[3, k] = row_a[k]
        index[4, k] = row_b[k]
        for d in range(2):
            vectors[0, k, d] = point_a[k, d]
            vectors[1, k, d] = point_b[k, d]
            vectors[2, k, d] = normal[k, d]
        scalars[0, k] = separation[k]
        scalars[1, k] = toi[k]
        scalars[2, k] = total_normal[k]
        scalars[3, k] = total_tangent[k]
        store[0, k] = normal_impulse[k]
        store[1, k] = tangent_impulse[k]
        store[2, k] = 0.5 * (point_a[k, 0] + point_b[k, 0])
        store[3, k] = 0.5 * (point_a[k, 1] + point_b[k, 1])
        store[4, k] = normal[k, 0]
        store[5, k] = normal[k, 1]
    return index, vectors, scalars, store, state, fat_pairs


#: The solver's settings: column in the settings array, kind ("int", "bool" or "real"), least
#: and greatest value allowed (the kernels divide by substeps, take powers of the hertz, and
#: a negative distance or a cosine outside [-1, 1] would silently turn features off).
_SETTINGS: dict[str, tuple[int, str, float, float]] = {
    "substeps": (S_SUBSTEPS, "int", 1, 64),
    "velocity_iterations": (S_VELOCITY_ITERATIONS, "int", 0, 100),
    "relax_iterations": (S_RELAX_ITERATIONS, "int", 0, 100),
    "final_relax_iterations": (S_FINAL_RELAX_ITERATIONS, "int", 0, 100),
    "warm_start": (S_WARM_START, "bool", 0, 1),
    "contact_hertz": (S_CONTACT_HERTZ, "real", 0.0, 1e6),
    "static_hertz_scale": (S_STATIC_HERTZ_SCALE, "real", 0.0, 1e3),
    "damping_ratio": (S_DAMPING_RATIO, "real", 0.0, 1e3),
    "max_push_speed": (S_MAX_PUSH_SPEED, "real", 0.0, 1e9),
    "restitution_threshold": (S_RESTITUTION_THRESHOLD, "real", 0.0, 1e9),
    "restitution_gravity_steps": (S_RESTITUTION_GRAVITY_STEPS, "real", 0.0, 1e6),
    "load_memory": (S_LOAD_MEMORY, "real", 0.0, 1.0),
    "speculative_distance": (S_SPECULATIVE_DISTANCE, "real", 0.0, 1e6),
    "match_distance": (S_MATCH_DISTANCE, "real", 0.0, 1e6),
    "match_cosine": (S_MATCH_COSINE, "real", -1.0, 1.0),
    "broadphase_margin": (S_BROADPHASE_MARGIN, "real", 0.0, 1e6),
}


def _setting_value(name: str, value: Any) -> Any:
    """``value`` checked for the setting ``name`` (ValueError naming it), as int, bool or float."""
    _, kind, low, high = _SETTINGS[name]
    if kind == "bool":
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"IterativeSolver.{name} = {value!r}: must be True or False")
        return bool(value)
    if kind == "int":
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"IterativeSolver.{name} = {value!r}: must be an integer")
        if not low <= value <= high:
            raise ValueError(f"IterativeSolver.{name} = {value!r}: must be in [{low:g}, {high:g}]")
        return int(value)
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"IterativeSolver.{name} = {value!r}: must be a real number") from None
    if not low <= x <= high:  # also refuses NaN
        raise ValueError(f"IterativeSolver.{name} = {value!r}: must be in [{low:g}, {high:g}]")
    return x


class _Setting:
    """One of IterativeSolver's settings: checked when set (``_setting_value``) and written
    into the solver's settings array, which the compiled step reads. A descriptor, so the
    solver's other attributes, set every step, pay nothing for it."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.column = _SETTINGS[name][0]

    def __get__(self, solver: Any, owner: type | None = None) -> Any:
        if solver is None:
            return self
        return solver.__dict__[self.name]

    def __set__(self, solver: Any, value: Any) -> None:
        value = _setting_value(self.name, value)
        solver._settings[self.column] = float(value)
        solver.__dict__[self.name] = value


class IterativeSolver:
    """The world's ``"iterative"`` solver: ``step(world, dt) -> Contacts``, ``reset()``.

    Settings (attributes, change at will; a bad value raises ValueError naming the setting and
    leaves the old one): ``substeps`` per step, ``velocity_iterations`` and
    ``relax_iterations`` (passes per substep), ``final_relax_iterations`` (extra relax passes
    at the end of the step), ``warm_start`` (bool), ``contact_hertz`` (1/s),
    ``static_hertz_scale`` (stiffer against bodies that do not move), ``damping_ratio``,
    ``max_push_speed`` (units/s), ``restitution_threshold`` (units/s, the least approach speed
    that bounces) and ``restitution_gravity_steps`` (the threshold is at least that many steps
    of gravity, so resting contacts do not bounce), ``load_memory`` (0..1),
    ``speculative_distance`` (units, the speculative reach of bodies at rest),
    ``match_distance`` (units, how far a renamed contact point may be from last step's to
    keep its impulses) and ``match_cosine`` (how close its normal must be),
    ``broadphase_margin`` (units the broadphase cache's boxes are grown by).
    """

    substeps = _Setting()
    velocity_iterations = _Setting()
    relax_iterations = _Setting()
    final_relax_iterations = _Setting()
    warm_start = _Setting()
    contact_hertz = _Setting()
    static_hertz_scale = _Setting()
    damping_ratio = _Setting()
    max_push_speed = _Setting()
    restitution_threshold = _Setting()
    restitution_gravity_steps = _Setting()
    load_memory = _Setting()
    speculative_distance = _Setting()
    match_distance = _Setting()
    match_cosine = _Setting()
    broadphase_margin = _Setting()

    def __init__(
        self,
        substeps: int = SUBSTEPS,
        velocity_iterations: int = VELOCITY_ITERATIONS,
        relax_iterations: int = RELAX_ITERATIONS,
        warm_start: bool = True,
    ) -> None:
        # The compiled step reads the settings from this array; the settings keep it current.
        self._settings = np.zeros(SETTINGS_COUNT)
        self.substeps = substeps
        self.velocity_iterations = velocity_iterations
        self.relax_iterations = relax_iterations
        self.final_relax_iterations = FINAL_RELAX_ITERATIONS
        self.warm_start = warm_start
        self.contact_hertz = CONTACT_HERTZ
        self.static_hertz_scale = STATIC_CONTACT_HERTZ_SCALE
        self.load_memory = CONTACT_LOAD_MEMORY
        self.damping_ratio = CONTACT_DAMPING_RATIO
        self.max_push_speed = CONTACT_MAX_PUSH_SPEED
        self.restitution_threshold = RESTITUTION_THRESHOLD
        self.restitution_gravity_steps = RESTITUTION_GRAVITY_STEPS
        self.speculative_distance = SPECULATIVE_DISTANCE
        self.match_distance = WARM_START_MATCH_DISTANCE
        self.match_cosine = WARM_START_MATCH_COSINE
        self.broadphase_margin = BROADPHASE_FAT_MARGIN
        self.reset()

    def reset(self) -> None:
        """Forget stored contacts and sleep clocks (body indices changed)."""
        self._prev_a = np.zeros(0, dtype=np.int64)
        self._prev_b = np.zeros(0, dtype=np.int64)
        self._prev_key = np.zeros(0, dtype=np.int64)
        self._prev_store = np.zeros((6, 0))
        self._prev_state = np.zeros(0, dtype=np.int8)
        self._sleep_time = np.zeros(0)
        self._was_sleeping = np.zeros(0, dtype=np.bool_)
        self._island = np.zeros(0, dtype=np.int64)
        self._forget_pairs(0)

    def _forget_pairs(self, n: int) -> None:
        """Empty broadphase cache for ``n`` bodies."""
        self._fat_lo = np.zeros((n, 2))
        self._fat_hi = np.zeros((n, 2))
        self._fat_skip = np.zeros(n, dtype=np.bool_)
        self._fat_valid = np.zeros(1, dtype=np.bool_)
        self._fat_pairs = np.zeros((0, 2), dtype=np.int64)

    def step(self, world: Any, dt: float) -> Contacts:
        """Advance ``world`` by ``dt`` seconds: contacts, response, positions; returns Contacts."""
        n = world._position.shape[0]
        if self._sleep_time.shape[0] != n:
            self._resize(n)
        index, vectors, scalars, store, state, self._fat_pairs = iterative_step(
            world._local_vertices,
            world._vertex_count,
            world._position,
            world._angle,
            world._velocity,
            world._angular_velocity,
            world._inv_mass,
            world._inv_inertia,
            world._static,
            world._sleeping,
            world._radius,
            world._friction,
            world._restitution,
            world._world_vertices,
            world._gravity,
            bool(world.sleep_enabled),
            dt,
            self._sleep_time,
            self._was_sleeping,
            self._island,
            self._fat_lo,
            self._fat_hi,
            self._fat_skip,
            self._fat_valid,
            self._fat_pairs,
            self._prev_a,
            self._prev_b,
            self._prev_key,
            self._prev_state,
            self._prev_store,
            self._settings,
            world._root,
            world._kinematic,
            world._has_compounds,
            world._has_kinematic,
            world._continuous,
        )
        # The store keeps the arrays (the kernel only reads it); the view gets read-only rows.
        self._prev_a = index[3]
        self._prev_b = index[4]
        self._prev_key = index[2]
        self._prev_state = state
        self._prev_store = store
        return Contacts._readonly_rows(index, vectors, scalars, state)

    def _resize(self, n: int) -> None:
        keep = min(n, self._sleep_time.shape[0])
        grown = np.zeros(n)
        grown[:keep] = self._sleep_time[:keep]
        was = np.zeros(n, dtype=np.bool_)
        was[:keep] = self._was_sleeping[:keep]
        self._sleep_time = grown
        self._was_sleeping = was
        island = np.full(n, -1, dtype=np.int64)
        island[:keep] = self._island[:keep]
        self._island = island
        self._forget_pairs(n)
