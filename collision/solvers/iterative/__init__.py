"""Our iterative solver: persistent contacts, warm starting, speculative contacts, soft step.

One world step (after the world has integrated forces into velocities), stage by stage, each a
module of this package:

1. islands: bodies woken from outside since the last step wake their islands;
2. narrowphase: broadphase over bounding boxes swept over the step, grown by the speculative
   distance, then manifolds (collision/manifold.py) for every candidate pair, with a
   speculative distance that grows with the pair's relative speed over the step, so a pair
   that can touch within the step gets its contact points now, with positive separation;
   islands: sleeping bodies that a moving body touches or reaches within the step wake with
   their islands, and the narrowphase runs again to give them their own contacts;
3. warm_start: each point prepared, and matched with last step's by (body_a, body_b, feature
   key): matched points start from their accumulated impulses;
4. soft_step, per substep: sequential impulses with accumulated clamping (normal >= 0,
   |friction| <= mu * normal) and Box2D v3's soft contact (a spring of ``contact_hertz`` with
   ``damping_ratio`` pushes overlaps apart, at most ``max_push_speed``), a speculative point of
   separation s only stopping approach faster than s / dt, so nothing tunnels at any speed;
   positions <- velocities; relax: the same iterations without the push-out spring, so the
   push-out velocity does not stay in the bodies (piles come to rest instead of jittering);
5. restitution: the impulses of the contacts hit by an impact (approaching faster than the
   threshold) are replaced by one simultaneous impact with Coulomb friction and Poisson
   restitution, solved from the velocities they came in with, so friction and restitution
   act on the impact whenever in the step it happened, and e = 1 keeps kinetic energy; the
   threshold is a few steps of gravity (a small floor without gravity);
   shock: where a contact is left deeper than ``shock_slop``, bodies resting on others are
   lifted out of heavily loaded contacts and stopped from closing in, from the ground up,
   each contact's lower body held (heavy bodies on light ones stand);
6. ccd: a body that went further than its start-of-step contacts could see (it was hit hard
   during the step) is swept against the static bodies and put back where it first touches one;
7. islands: islands (union-find over touching contacts between moving bodies) whose bodies
   all stayed slow for ``time_to_sleep`` sleep together.

:func:`iterative_step` runs them in order in one compiled call over the body store and the
solver's state between steps (:class:`IterativeState`); the Python class only holds that
state. Loops are sequential in a fixed order, so results are bit-identical run to run.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from collision.bodies import Bodies, close_step, open_step
from collision.contacts import Contacts
from collision.kernels import BorrowingCompiler, compile_calls, compiled_only
from collision.profiling import (
    BROADPHASE,
    CONTINUOUS,
    NARROWPHASE,
    PREPARE,
    RESTITUTION,
    SLEEP,
    STORE,
    WAKE,
    lap,
    start_clock,
)
from collision.solvers.iterative.beside import colour_beside_topology, respond_beside
from collision.solvers.iterative.ccd import stop_at_static
from collision.solvers.iterative.colours import no_kept_order
from collision.solvers.iterative.islands import sleep_islands, wake_disturbed, wake_touched
from collision.solvers.iterative.narrowphase import Points, broadphase, collide
from collision.solvers.iterative.restitution import Impact, Motion, apply_restitution, impact_threshold
from collision.solvers.iterative.shock import propagate_shock
from collision.solvers.iterative.soft_step import colour_rows, soft_step
from collision.solvers.iterative.store import STORE_ROWS, pack_contacts
from collision.solvers.iterative.warm_start import (
    Prepared,
    empty_prepared,
    prepare_points,
    run_offsets,
)
from collision.solvers.protocol import StepContext
from collision.solvers.settings import Setting, Settings
from collision.threads import THREADED_BODIES, ThreadPace, step_threads
from collision.tolerances import (
    BROADPHASE_FAT_MARGIN,
    CONTACT_DAMPING_RATIO,
    CONTACT_HERTZ,
    CONTACT_LOAD_MEMORY,
    CONTACT_MAX_PUSH_SPEED,
    CONTINUOUS_BACKOFF,
    RESTITUTION_GRAVITY_STEPS,
    RESTITUTION_THRESHOLD,
    SHOCK_ITERATIONS,
    SHOCK_LOAD_RATIO,
    SHOCK_SLOP,
    SLEEP_ANGULAR_SPEED,
    SLEEP_LINEAR_SPEED,
    SLEEP_TIME,
    SPECULATIVE_DISTANCE,
    STATIC_CONTACT_HERTZ_SCALE,
    WARM_START_MATCH_COSINE,
    WARM_START_MATCH_DISTANCE,
)


class IterativeSettings(Settings):
    """Settings of the ``"iterative"`` solver (``world.solver_settings("iterative")``).

    A bad value raises ValueError naming the setting and leaves the old one.
    """

    substeps = Setting("int", 4, "Substeps per step (Box2D v3's soft step uses 4).", 1, 64)
    velocity_iterations = Setting(
        "int", 1, "Passes per substep that solve the contacts with the soft push-out.", 0, 100
    )
    relax_iterations = Setting(
        "int", 1, "Passes per substep that solve the contacts without the push-out (relax).", 0, 100
    )
    final_relax_iterations = Setting(
        "int",
        1,
        "Extra relax passes at the end of the last substep: bodies wedged deep in a pile end the "
        "step nearly still instead of with a residual velocity they do not move at.",
        0,
        100,
    )
    threads = Setting(
        "int",
        1,
        "Threads a step of a big world (collision.threads.THREADED_BODIES rows or more) may run "
        "its world vertices, broadphase rebuilds, narrowphase and contact passes on (0: as many "
        "as numba runs, NUMBA_NUM_THREADS, or fewer while they step faster: see "
        "collision.threads.ThreadPace). "
        "Results are the same whatever the count. More than one pays on a quiet machine and "
        "costs when another process keeps a core busy (the threads then wait for each other), "
        "which 0 notices and steps on fewer.",
        0,
        256,
    )
    shock_iterations = Setting(
        "int",
        SHOCK_ITERATIONS,
        "Passes of each of the shock propagation's lift and stop passes after the soft step, which "
        "hold heavy bodies on light ones (0: off).",
        0,
        100,
    )
    shock_slop = Setting(
        "real",
        SHOCK_SLOP,
        "Overlap (units) past which the shock propagation acts; heavily loaded contacts are lifted "
        "back to it.",
        0.0,
        1e6,
    )
    shock_load_ratio = Setting(
        "real",
        SHOCK_LOAD_RATIO,
        "Load past which a resting contact is lifted back to shock_slop: the mass its upper body "
        "carries times 1/m_a + 1/m_b of the pair (the soft contact sinks in proportion).",
        0.0,
        1e12,
    )
    warm_start = Setting(
        "bool", True, "Start each contact point from last step's impulses of the point it matches."
    )
    contact_hertz = Setting(
        "real",
        CONTACT_HERTZ,
        "Stiffness (1/s) of the soft contact's push-out spring, capped at a quarter of the substep rate.",
        0.0,
        1e6,
    )
    static_hertz_scale = Setting(
        "real",
        STATIC_CONTACT_HERTZ_SCALE,
        "Factor on contact_hertz for contacts against a body that does not move (they carry stacks).",
        0.0,
        1e3,
    )
    damping_ratio = Setting("real", CONTACT_DAMPING_RATIO, "Damping ratio of the soft contact.", 0.0, 1e3)
    max_push_speed = Setting(
        "real", CONTACT_MAX_PUSH_SPEED, "Fastest (units/s) an overlap is pushed apart.", 0.0, 1e9
    )
    restitution_threshold = Setting(
        "real",
        RESTITUTION_THRESHOLD,
        "Least approach speed (units/s) that is an impact: it bounces, and its friction is the impact's.",
        0.0,
        1e9,
    )
    restitution_gravity_steps = Setting(
        "real",
        RESTITUTION_GRAVITY_STEPS,
        "The impact threshold is at least this many steps of gravity (|g| dt), so resting "
        "contacts are not impacts (they do not bounce).",
        0.0,
        1e6,
    )
    load_memory = Setting(
        "real",
        CONTACT_LOAD_MEMORY,
        "Share (0..1) of last step's normal impulse the soft contact treats as already carried.",
        0.0,
        1.0,
    )
    speculative_distance = Setting(
        "real",
        SPECULATIVE_DISTANCE,
        "Speculative reach (units) of bodies at rest: pairs closer than this get contact points.",
        0.0,
        1e6,
    )
    match_distance = Setting(
        "real",
        WARM_START_MATCH_DISTANCE,
        "How far (units) a renamed contact point may be from last step's to keep its impulses.",
        0.0,
        1e6,
    )
    match_cosine = Setting(
        "real",
        WARM_START_MATCH_COSINE,
        "How close (cosine of the angle) its normal must be to last step's to keep them.",
        -1.0,
        1.0,
    )
    broadphase_margin = Setting(
        "real", BROADPHASE_FAT_MARGIN, "Units the broadphase cache's boxes are grown by.", 0.0, 1e6
    )
    sleep = Setting(
        "bool", True, "Put islands of bodies at rest to sleep (they cost nothing until disturbed)."
    )
    sleep_linear_speed = Setting(
        "real", SLEEP_LINEAR_SPEED, "Speed (units/s) below which a body counts as at rest.", 0.0, 1e9
    )
    sleep_angular_speed = Setting(
        "real", SLEEP_ANGULAR_SPEED, "Angular speed (rad/s) below which a body counts as at rest.", 0.0, 1e9
    )
    time_to_sleep = Setting(
        "real", SLEEP_TIME, "Time (s) an island's bodies must all stay at rest before it sleeps.", 0.0, 1e9
    )


IterativeValues = IterativeSettings.Values


class IterativeState(NamedTuple):
    """What the iterative solver keeps between steps.

    Sleep, per row: ``sleep_time (n,)`` s the body has been slow, ``was_sleeping (n,) bool`` the
    flags the last step ended with, ``island (n,) int64`` the island a sleeping body fell asleep
    with (-1 awake). Broadphase cache (see narrowphase.cached_pairs): ``fat_lo``, ``fat_hi (n,
    2)``, ``fat_skip (n,) bool``, ``fat_valid (1,) bool``, ``fat_pairs (f, 2) int64``. Last
    step's contact points, in (row_a, row_b) order: ``prev_a``, ``prev_b``, ``prev_key (p,)
    int64`` (rows and feature key), ``prev_state (p,) int8``, ``prev_store (6, p)`` (normal and
    tangent impulse, middle of the point x, y, normal x, y). ``kept_order (k,) int64``: the
    order the passes took last step's manifolds in (colours.keep_order)."""

    sleep_time: np.ndarray
    was_sleeping: np.ndarray
    island: np.ndarray
    fat_lo: np.ndarray
    fat_hi: np.ndarray
    fat_skip: np.ndarray
    fat_valid: np.ndarray
    fat_pairs: np.ndarray
    prev_a: np.ndarray
    prev_b: np.ndarray
    prev_key: np.ndarray
    prev_state: np.ndarray
    prev_store: np.ndarray
    kept_order: np.ndarray


def new_state(n: int, keep: IterativeState | None = None) -> IterativeState:
    """A state for ``n`` rows: no stored contacts, an empty broadphase cache, and the sleep
    clocks of ``keep``'s first rows (when given) or none."""
    sleep_time = np.zeros(n)
    was_sleeping = np.zeros(n, dtype=np.bool_)
    island = np.full(n, -1, dtype=np.int64)
    prev = (
        np.zeros(0, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.zeros(0, dtype=np.int8),
        np.zeros((6, 0)),
    )
    if keep is not None:
        k = min(n, keep.sleep_time.shape[0])
        sleep_time[:k] = keep.sleep_time[:k]
        was_sleeping[:k] = keep.was_sleeping[:k]
        island[:k] = keep.island[:k]
        prev = (keep.prev_a, keep.prev_b, keep.prev_key, keep.prev_state, keep.prev_store)
    return IterativeState(
        sleep_time,
        was_sleeping,
        island,
        np.zeros((n, 2)),
        np.zeros((n, 2)),
        np.zeros(n, dtype=np.bool_),
        np.zeros(1, dtype=np.bool_),
        np.zeros((0, 2), dtype=np.int64),
        *prev,
        no_kept_order(),
    )


@compiled_only()
def solver_masses(bodies: Bodies, moving: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the inverse mass and inertia the solver uses: its body's (a compound's part row
    is given its root's) when that body moves this step, else 0."""
    n = bodies.position.shape[0]
    root = bodies.root
    body_inv_mass = bodies.inv_mass
    body_inv_inertia = bodies.inv_inertia
    masses = np.zeros((2, n))
    inv_mass = masses[0]
    inv_inertia = masses[1]
    for i in range(n):
        r = root[i]
        if moving[r]:
            inv_mass[i] = body_inv_mass[r]
            inv_inertia[i] = body_inv_inertia[r]
    return inv_mass, inv_inertia


@compiled_only()
def to_roots(
    bodies: Bodies, prepared: Prepared, moving: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Compounds: the points were prepared on the rows that touched (a part row sits at its
    root's pose, so its arms are the root's); hand them to the roots, which alone move.
    Returns ``(row_a, row_b, moving)``: the rows the points were found on (what next step's
    points are matched by) and the rows that move in the solve."""
    root = bodies.root
    body_a = prepared.body_a
    body_b = prepared.body_b
    row_a = body_a.copy()
    row_b = body_b.copy()
    for k in range(row_a.shape[0]):
        body_a[k] = root[body_a[k]]
        body_b[k] = root[body_b[k]]
    solve_moving = moving.copy()
    for i in range(root.shape[0]):
        if root[i] != i:
            solve_moving[i] = False
    return row_a, row_b, solve_moving


# Inlined by numba: its IR is a few calls to stages (collision.kernels.stage), and a kernel of
# its own would cost a compile of its own.
@njit(cache=True, inline="always")
def solve(
    bodies: Bodies,
    context: StepContext,
    settings: Any,
    state: IterativeState,
    moving: np.ndarray,
    pairs: np.ndarray,
    points: Points,
    c: int,
    threads: int | None,
) -> tuple[Prepared, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, Any]:
    """Stages 3-5: prepare and warm start the ``c`` points, the soft step (on ``threads``,
    None: one), restitution. Returns ``(prepared, total_normal, total_tangent, row_a, row_b,
    kept_order, packed)``: the points (their bodies the roots, their impulses last substep's),
    the impulses over the step (N s), the rows the points were found on, the order the passes
    took the manifolds in (see soft_step.colour_rows), and with ``threads`` the step's contacts
    packed (store.pack_contacts; packed beside the shock's stop passes, see beside.py), else
    None."""
    start = start_clock(context.ticks)
    inv_mass, inv_inertia = solver_masses(bodies, moving)
    offsets = run_offsets(points.pair_index, c)
    prepared, manifolds = prepare_points(
        bodies, (inv_mass, inv_inertia), pairs, points, offsets, state, settings, context.dt, threads
    )
    row_a = prepared.body_a
    row_b = prepared.body_b
    solve_moving = moving
    if context.has_compounds:
        row_a, row_b, solve_moving = to_roots(bodies, prepared, moving)
    start_pose = (bodies.position.copy(), bodies.angle.copy())
    masses = (inv_mass, inv_inertia)
    contacts = (points, prepared, manifolds)
    shock_settings = (
        settings.shock_slop, settings.shock_iterations, settings.max_push_speed * context.dt,
        settings.shock_load_ratio, (context.gravity_x, context.gravity_y),
    )  # fmt: skip
    if threads is None:
        no_room = np.empty(0, dtype=np.int64)
        colouring = colour_rows(
            prepared, manifolds, inv_mass, inv_inertia, threads, state.kept_order, no_room
        )
    else:
        colour = (prepared, manifolds, inv_mass, inv_inertia, threads, state.kept_order)
        colouring, topology, holds = colour_beside_topology(
            colour, (masses, contacts, shock_settings), threads
        )
    lap(context.ticks, PREPARE, start)
    total_normal, total_tangent, max_normal_impulse = soft_step(
        bodies, context, settings, inv_mass, inv_inertia, solve_moving, points, prepared, manifolds, threads,
        colouring,
    )  # fmt: skip
    start = start_clock(context.ticks)
    restitution = (
        Motion(bodies.velocity, bodies.angular_velocity, inv_mass, inv_inertia),
        Impact(points.normal, prepared, manifolds), max_normal_impulse, (total_normal, total_tangent),
        impact_threshold(context, settings),
    )  # fmt: skip
    shock = (
        (bodies.position, bodies.angle), (bodies.velocity, bodies.angular_velocity), start_pose, masses,
        contacts, shock_settings,
    )  # fmt: skip
    packed = None
    if threads is None:
        apply_restitution(*restitution)
        propagate_shock(*shock)
    else:
        store = (points, c, prepared, (total_normal, total_tangent), (row_a, row_b))
        packed = respond_beside(restitution, shock, (topology, holds), store, threads)
    lap(context.ticks, RESTITUTION, start)
    return prepared, total_normal, total_tangent, row_a, row_b, colouring[4], packed


@compiled_only()
def _refused(state: IterativeState) -> tuple:
    """What :func:`iterative_step` returns when the step's opening refuses the state: no points."""
    index = np.empty((5, 0), dtype=np.int64)
    vectors = np.empty((3, 0, 2))
    values = np.empty((STORE_ROWS + 4, 0))
    return False, index, vectors, values, np.empty(0, dtype=np.int8), state.fat_pairs, state.kept_order


@njit(cache=True, pipeline_class=BorrowingCompiler)
def iterative_step(
    fields: tuple, settings_fields: tuple, context_fields: tuple, state_fields: tuple, threads: int | None
) -> tuple[bool, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The whole world step with the iterative solver in one compiled call: the world's
    opening (collision.bodies.open_step), the module docstring's stages 1-7, the world's
    closing (collision.bodies.close_step).

    The body store's rows, the :class:`IterativeSettings` values, the step context and the
    :class:`IterativeState` come as plain tuples (collision.records); ``threads`` is None for
    one thread (numba then compiles no threaded kernel into this specialisation) or the count
    numba is set to (collision/threads.py). Returns ``(done, index, vectors, values,
    contact_state, fat_pairs, kept_order)``: whether the opening accepted the state (if not,
    nothing changed and there are no points), this step's contact points (see
    :func:`pack_contacts`; ``contact_state (c,) int8``), the broadphase cache's pairs and the
    order the passes took the manifolds in; with ``index``'s rows 2-4, ``contact_state`` and
    ``values``' first STORE_ROWS rows they are what the state keeps for the next step.
    """
    bodies = Bodies(*fields)
    settings = IterativeValues(*settings_fields)
    context = StepContext(*context_fields)
    state = IterativeState(*state_fields)
    if not open_step(bodies, context, context.check):
        return _refused(state)
    n = bodies.position.shape[0]
    ticks = context.ticks
    t = start_clock(ticks)
    moving = wake_disturbed(bodies, state, settings.sleep)
    dynamic = moving
    if context.has_compounds or context.has_kinematic:
        dynamic = np.empty(n, dtype=np.bool_)
        root = bodies.root
        inv_mass = bodies.inv_mass
        for i in range(n):
            dynamic[i] = inv_mass[root[i]] > 0.0
    # Where the bodies start, for the continuous pass after the solve.
    start_position = bodies.position.copy() if context.continuous else bodies.position
    start_velocity = bodies.velocity.copy() if context.continuous else bodies.velocity
    t = lap(ticks, WAKE, t)
    pairs, fat_pairs = broadphase(
        bodies, context, settings, (state, state.fat_pairs), moving, dynamic, threads
    )
    t = lap(ticks, BROADPHASE, t)
    points, c = collide(bodies, context, settings, pairs, moving, threads)
    if settings.sleep and wake_touched(bodies, pairs, points, c, moving, state, context.dt):
        # The woken bodies' own contacts (with static bodies, with each other) were skipped.
        pairs, fat_pairs = broadphase(bodies, context, settings, (state, fat_pairs), moving, dynamic, threads)
        points, c = collide(bodies, context, settings, pairs, moving, threads)
    lap(ticks, NARROWPHASE, t)
    prepared, total_normal, total_tangent, row_a, row_b, kept, packed = solve(
        bodies, context, settings, state, moving, pairs, points, c, threads
    )
    t = start_clock(ticks)
    if context.continuous:
        stop_at_static(
            bodies, context, start_position, start_velocity, moving, pairs, points.pair_index[:c],
            settings.speculative_distance, CONTINUOUS_BACKOFF,
        )  # fmt: skip
    t = lap(ticks, CONTINUOUS, t)
    sleep_islands(bodies, context, settings, state, prepared.body_a, prepared.body_b, points.separation[:c])
    t = lap(ticks, SLEEP, t)
    if threads is None:
        index, vectors, values = pack_contacts(
            points, c, prepared, (total_normal, total_tangent), (row_a, row_b)
        )
    else:
        index, vectors, values = packed  # packed beside the shock's stop passes (see solve)
    lap(ticks, STORE, t)
    close_step(bodies, context.has_compounds)
    return True, index, vectors, values, prepared.state, fat_pairs, kept


def _calls_beside_solve(bodies: Bodies, context: StepContext, settings: Any, state: IterativeState) -> None:
    """What :func:`iterative_step` calls besides :func:`solve`, called as it calls them (the
    other branches' results stand in for what they would be): typed, never run, by
    :func:`precompile_part`."""
    _refused(state)
    open_step(bodies, context, context.check)
    moving = wake_disturbed(bodies, state, settings.sleep)
    pairs, _ = broadphase(bodies, context, settings, (state, state.fat_pairs), moving, moving, None)
    points, c = collide(bodies, context, settings, pairs, moving, None)
    wake_touched(bodies, pairs, points, c, moving, state, context.dt)
    stop_at_static(
        bodies, context, bodies.position, bodies.velocity, moving, pairs, points.pair_index[:c],
        settings.speculative_distance, CONTINUOUS_BACKOFF,
    )  # fmt: skip
    prepared = empty_prepared(c)
    sleep_islands(bodies, context, settings, state, prepared.body_a, prepared.body_b, points.separation[:c])
    close_step(bodies, context.has_compounds)


def _response(
    bodies: Bodies, context: StepContext, settings: Any, state: IterativeState, moving: np.ndarray,
    pairs: np.ndarray, points: Points, c: int,
) -> None:  # fmt: skip
    """What :func:`iterative_step` calls in :func:`solve` and after it with what solve returns
    (the packing of the step's contacts): typed, never run, by :func:`precompile_part`."""
    prepared, total_normal, total_tangent, row_a, row_b, _, _ = solve(
        bodies, context, settings, state, moving, pairs, points, c, None
    )
    pack_contacts(points, c, prepared, (total_normal, total_tangent), (row_a, row_b))


def precompile_part(part: str, bodies: Bodies, settings: Any, context: StepContext) -> None:
    """Compile, or load from numba's cache, one part of what :func:`iterative_step` calls, for
    the argument types it calls them with (``settings`` the :class:`IterativeSettings` values):
    "response" the solve (stages 3-5) and the packing of its contacts, "contacts" the rest (the
    two take about as long, with the scene built beside "contacts"). Nothing runs: the parts'
    bodies are only typed (collision.kernels.compile_calls), so ``bodies`` does not change."""
    state = new_state(bodies.position.shape[0])
    if part == "response":
        moving = np.zeros(bodies.position.shape[0], dtype=np.bool_)
        no_rows, no_vectors = np.zeros(0, dtype=np.int64), np.zeros((0, 2))
        points = Points(no_rows, no_rows, no_vectors, no_vectors, no_vectors, np.zeros(0))
        pairs = np.zeros((0, 2), dtype=np.int64)
        compile_calls(_response, bodies, context, settings, state, moving, pairs, points, 0)
        return
    compile_calls(_calls_beside_solve, bodies, context, settings, state)


class IterativeSolver:
    """The world's ``"iterative"`` solver (see the module docstring): holds its
    :class:`IterativeState` between steps."""

    def __init__(self) -> None:
        self._fields = tuple(new_state(0))
        self._pace = ThreadPace()

    @property
    def _state(self) -> IterativeState:
        # Kept as a plain tuple, what the step takes (see Settings.fields).
        return IterativeState._make(self._fields)

    @_state.setter
    def _state(self, state: IterativeState) -> None:
        self._fields = tuple(state)

    def reset(self) -> None:
        """Forget stored contacts, the broadphase cache and sleep clocks (body indices changed)."""
        self._fields = tuple(new_state(0))

    def step(self, bodies: Bodies, settings: IterativeSettings, context: StepContext) -> Contacts | None:
        """Advance ``bodies`` by ``context.dt``: the world's opening, contacts, response,
        positions, the world's closing; returns Contacts (None: the state is out of range,
        nothing changed; see collision.solvers.protocol)."""
        state = self._fields
        rows = bodies.position.shape[0]
        if state[0].shape[0] != rows:  # sleep_time
            state = tuple(new_state(rows, self._state))  # kept only if the step is done
        threads = None if rows < THREADED_BODIES else step_threads(settings.threads, rows, self._pace)
        # Under threads = 0 the pace picks the count and times each step (collision/threads.py).
        paced = threads if threads is not None and settings.threads == 0 else 0
        if paced:
            wall, cpu = time.perf_counter(), time.process_time()
        done, index, vectors, values, contact_state, fat_pairs, kept = iterative_step(
            tuple(bodies), settings.fields, tuple(context), state, threads
        )
        if not done:
            return None
        if paced:
            self._pace.record(paced, time.perf_counter() - wall, time.process_time() - cpu)
        # The warm-start store keeps the arrays (the step only reads them); the contacts get
        # read-only views of them. In IterativeState's order.
        store = (index[3], index[4], index[2], contact_state, values[:STORE_ROWS])
        self._fields = (*state[:7], fat_pairs, *store, kept)
        return Contacts.packed(index, vectors, values[STORE_ROWS:], contact_state)
