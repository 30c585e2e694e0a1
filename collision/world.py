"""The physics world: a body store, forces, the step, queries, the step's contacts.

A :class:`World` holds ``n = body_count`` bodies in a body store (collision.bodies: one array
per field, one row per body). ``step(dt)`` integrates forces into velocities, then hands the
store to the chosen solver (collision.solvers: "tutorial", "arcade" or "iterative"), which
finds the contacts, responds and integrates positions.

>>> from collision import Polygon, World
>>> world = World(gravity=(0.0, -10.0), solver="tutorial")
>>> ground = world.add_body(Polygon.box(20.0, 1.0), (0.0, -0.5), static=True)
>>> box = world.add_body(Polygon.box(1.0, 1.0), (0.0, 3.0))
>>> for _ in range(120):
...     world.step(1.0 / 60.0)
>>> bool(abs(world.position[box, 1] - 0.5) < 0.05)
True
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np

from collision import checks, profiling
from collision.bodies import BodyArguments, BodyStore, StoreField, check_state, mirror_parts, readonly
from collision.broadphase import transform_vertices, warn_crowd
from collision.contacts import Contacts
from collision.raycast import RayHit, bodies_at, cast_ray
from collision.shapes import Polygon, check_vertices, compound_parts
from collision.solvers import SOLVER_NAMES, SOLVERS, Settings, Solver, StepContext, precompile_step
from collision.tolerances import (
    MAX_ACCELERATION,
    MAX_ANGULAR_SPEED,
    MAX_COORDINATE,
    MAX_SPEED,
    MAX_TIME_STEP,
    MIN_TIME_STEP,
)

__all__ = ["BODY_DYNAMIC", "BODY_KINEMATIC", "BODY_STATIC", "SOLVER_NAMES", "World"]

#: Default static friction. For "tutorial" it is the cone of the "invisible step" (sticking while
#: |tangential speed| < static_friction * |normal speed|); for "arcade" it is the glue speed
#: (units/s) below which sliding stops. 0.5 is the original T7 program's key-adjusted value.
DEFAULT_STATIC_FRICTION = 0.5

#: Body kinds (``World.body_kind``).
BODY_DYNAMIC, BODY_STATIC, BODY_KINEMATIC = 0, 1, 2


class World:
    """Rigid bodies (points, segments, convex polygons) and their simulation.

    ``World(gravity=(0, -10), solver="iterative", friction=0.6, restitution=0.0,
    static_friction=0.5)``: ``gravity`` units/s^2; ``solver`` one of ``"tutorial"`` (Tutorial 7
    impulses), ``"arcade"`` (Tutorial 4 velocity reflection with seed 002's ordered timeslices)
    or ``"iterative"``; each solver's switches are its settings (:meth:`solver_settings`). The
    material values are the defaults for bodies added later (``None`` in :meth:`add_body`).

    ``static_friction`` means, for "tutorial", the cone of the "invisible step" (a contact
    sticks while its tangential speed is below ``static_friction`` times its normal approach
    speed) and, for "arcade", the glue speed in units/s below which sliding stops dead.
    Materials of a pair mix as Box2D does: friction sqrt(a b), restitution max(a, b), static
    friction sqrt(a b).

    State, one row per body (``n = body_count``; the arrays are replaced as bodies are added
    and removed, so fetch them again after those): ``position (n, 2)`` centroid, ``angle (n,)``
    radians CCW, ``velocity (n, 2)``, ``angular_velocity (n,)`` rad/s are the live arrays
    (writable); ``mass``, ``inertia``, ``static``, ``kinematic``, ``body_kind``,
    ``local_vertices``, ``vertex_count``, ``radius`` ... are read-only. Static bodies have mass,
    inertia and their inverses 0 and never move.

    Kinematic bodies (``add_body(..., kinematic=True)``) have them 0 too but move with the
    velocity they are given, pushing and carrying dynamic bodies. Compound bodies
    (:meth:`add_compound`) take one row per convex part: the root row is the body, the other
    rows mirror it (see :meth:`parts`, :meth:`root`). ``continuous`` (default True) switches
    continuous collision (see that property).
    """

    def __init__(
        self,
        gravity: Any = (0.0, -10.0),
        solver: str = "iterative",
        friction: float = 0.6,
        restitution: float = 0.0,
        static_friction: float = DEFAULT_STATIC_FRICTION,
    ) -> None:
        self.gravity = gravity
        self._solver_name = self._checked_solver_name(solver)
        self.friction = checks.material(friction, "friction")
        self.restitution = checks.material(restitution, "restitution", maximum=1.0)
        self.static_friction = checks.material(static_friction, "static_friction")
        self._solvers: dict[str, Solver] = {}
        self._settings: dict[str, Settings] = {}
        self.time = 0.0
        self.step_count = 0
        self.contacts = Contacts.empty()
        self._continuous = True
        self._warned_crowd = False
        self.profile = profiling.Profile()
        self._store = BodyStore()

    @property
    def continuous(self) -> bool:
        """Continuous collision (default True). On: the iterative solver reaches as far as the
        pair can close within the step (speculative contacts) over velocity-swept
        broadphase boxes, and the tutorial and arcade solvers find the time of impact. Off:
        every solver tests overlap only (the iterative solver keeps its resting
        ``speculative_distance``), so a fast body can pass through a thin one."""
        return self._continuous

    @continuous.setter
    def continuous(self, value: Any) -> None:
        self._continuous = checks.boolean(value, "continuous")

    # -- solver ----------------------------------------------------------------------------------

    @staticmethod
    def _checked_solver_name(name: Any) -> str:
        if not isinstance(name, str) or name not in SOLVERS:
            raise ValueError(f"solver = {checks.show(name)}: must be one of {', '.join(SOLVER_NAMES)}")
        return name

    @property
    def solver(self) -> str:
        """The response in use, one of ``SOLVER_NAMES`` (settable). A new solver starts with every
        body awake: sleep is the solver's."""
        return self._solver_name

    @solver.setter
    def solver(self, name: str) -> None:
        name = self._checked_solver_name(name)
        if name != self._solver_name:
            self._store.rows.sleeping[:] = False
        self._solver_name = name

    def solver_settings(self, name: str | None = None) -> Settings:
        """The settings of solver ``name`` (default: the one in use), which this world keeps
        for it whether it is in use or not: documented attributes, checked when set, for
        example ``world.solver_settings("arcade").ordered = False``."""
        key = self._solver_name if name is None else self._checked_solver_name(name)
        settings = self._settings.get(key)
        if settings is None:
            settings = self._settings[key] = SOLVERS[key].settings()
        return settings

    @property
    def settings(self) -> Settings:
        """The settings of the solver in use (see :meth:`solver_settings`)."""
        return self.solver_settings()

    def _solver_object(self) -> Solver:
        solver = self._solvers.get(self._solver_name)
        if solver is None:
            solver = self._solvers[self._solver_name] = SOLVERS[self._solver_name].make()
        return solver

    # -- bodies ----------------------------------------------------------------------------------

    @property
    def body_count(self) -> int:
        """Rows in the world (a compound counts one per part)."""
        return self._store.count

    def _check_index(self, i: Any, name: str = "i") -> int:
        return checks.index(i, name, self._store.count)

    def _material_defaults(self) -> tuple[float, float, float]:
        """What a new body's friction, restitution and static friction are when not given."""
        return self.friction, self.restitution, self.static_friction

    def add_body(
        self,
        shape: Any,
        position: Any,
        angle: float = 0.0,
        velocity: Any = (0.0, 0.0),
        angular_velocity: float = 0.0,
        density: float = 1.0,
        static: bool = False,
        friction: float | None = None,
        restitution: float | None = None,
        static_friction: float | None = None,
        kinematic: bool = False,
    ) -> int:
        """Add a body and return its index.

        ``shape``: a :class:`Polygon` or ``(k, 2)`` local vertices (1 = point, 2 = segment,
        3..MAX_VERTICES = convex polygon). The body's ``position (2,)`` is where the shape's
        centroid goes; the shape is stored centroid-relative, rotated by ``angle`` (radians CCW).
        ``density`` (mass per unit area; points and segments get ``5 * density``) 0 or
        ``static=True`` makes a static body (it never moves; its velocity is kept 0).
        ``kinematic=True`` makes a kinematic body: moved only by its velocity and angular
        velocity (given here or with :meth:`set_velocity`), never by gravity, forces,
        impulses or contacts (infinite mass: its mass, inertia and their inverses are 0),
        and it pushes and carries the dynamic bodies it touches. Materials ``None`` take the
        world's defaults. Adding a body costs amortised O(1): the store doubles its room when full.
        """
        verts = check_vertices(shape, "shape")
        args = BodyArguments.checked(
            position,
            angle,
            velocity,
            angular_velocity,
            density,
            (static, kinematic),
            (friction, restitution, static_friction),
            self._material_defaults(),
        )
        poly = shape if isinstance(shape, Polygon) else Polygon.from_checked(verts)
        checks.placement([verts - poly.centroid], "shape", args.position)
        mass, inertia = args.checked_mass(*poly.mass_properties(args.density))
        return self._store.append_body(args, [verts - poly.centroid], [poly.radius], mass, inertia)

    def add_compound(
        self,
        shapes: Any,
        position: Any,
        angle: float = 0.0,
        velocity: Any = (0.0, 0.0),
        angular_velocity: float = 0.0,
        density: float = 1.0,
        static: bool = False,
        kinematic: bool = False,
        friction: float | None = None,
        restitution: float | None = None,
        static_friction: float | None = None,
    ) -> int:
        """Add one rigid body made of several convex parts and return its root's index.

        ``shapes``: a list of 1..``MAX_COMPOUND_PARTS`` :class:`Polygon` or ``(k, 2)`` arrays in
        one common local frame (for example ``decompose(outline)``'s pieces, as given); points
        and segments count with their nominal mass (``5 * density``). The body's ``position
        (2,)`` is where the compound's centre of mass goes; it is turned by ``angle``. Mass
        is the sum of the parts', the centre of mass their mass-weighted centroid, inertia
        the parallel-axis sum ``sum(I_i + m_i |c_i - c|^2)``. Other arguments as
        :meth:`add_body`.

        The compound takes consecutive rows: the returned root row holds its pose, velocity,
        mass and inertia, and every further part is a row that mirrors the root (its
        position, angle and velocities are overwritten with the root's at every step, so
        write to the root's row; its ``mass`` and ``inertia`` show 0). Any row of a compound
        stands for the whole body in :meth:`apply_force`, :meth:`apply_forces`,
        :meth:`apply_impulse`, :meth:`set_velocity`, :meth:`set_fixed_rotation` and
        :meth:`set_material`; contacts and queries report the root. :meth:`parts` and
        :meth:`root` tell the rows apart.
        """
        locals_, radii, unit_mass, unit_inertia = compound_parts(shapes)
        args = BodyArguments.checked(
            position, angle, velocity, angular_velocity, density, (static, kinematic),
            (friction, restitution, static_friction), self._material_defaults(),
        )  # fmt: skip
        checks.placement(locals_, "shapes", args.position)
        mass, inertia = args.checked_mass(unit_mass * args.density, unit_inertia * args.density)
        return self._store.append_body(args, locals_, radii, mass, inertia)

    def root(self, i: int) -> int:
        """The root row of the body that row ``i`` belongs to (``i`` itself for a plain body)."""
        k = self._check_index(i)
        return int(self._store.rows.root[k])

    def parts(self, i: int) -> list[int]:
        """The rows of the body that row ``i`` belongs to, root first (``[i]`` for a plain body)."""
        k = self._check_index(i)
        root = self._store.rows.root
        r = int(root[k])
        end = r + 1
        n = self.body_count
        while end < n and root[end] == r:
            end += 1
        return list(range(r, end))

    def remove_body(self, i: int) -> None:
        """Remove body ``i`` (a compound by its root: all its rows); bodies after it move down
        as many indices as it had rows. A part row of a compound is refused (ValueError)."""
        k = self._check_index(i)
        r = int(self._store.rows.root[k])
        if r != k:
            raise ValueError(
                f"i = {k}: is a part of the compound with root {r}; remove_body({r}) removes the compound"
            )
        self._store.remove(k, len(self.parts(k)))
        for solver in self._solvers.values():
            solver.reset()
        self.contacts = Contacts.empty()

    def shape(self, i: int) -> np.ndarray:
        """``(k, 2)`` centroid-relative local vertices of body ``i`` (a copy)."""
        k = self._check_index(i)
        rows = self._store.rows
        return rows.local_vertices[k, : rows.vertex_count[k]].copy()

    def vertices(self, i: int) -> np.ndarray:
        """``(k, 2)`` world-space vertices of body ``i`` now (a copy)."""
        k = self._check_index(i)
        return self.world_vertices()[k, : self._store.rows.vertex_count[k]].copy()

    def world_vertices(self) -> np.ndarray:
        """``(n, MAX_VERTICES, 2)`` world-space vertices of every body now (read-only; slots past
        ``vertex_count[i]`` are unused)."""
        rows = self._store.rows
        if self._store.has_compounds:
            mirror_parts(self._store.fields)
        transform_vertices(
            rows.local_vertices, rows.vertex_count, rows.position, rows.angle, rows.world_vertices
        )
        return readonly(rows.world_vertices)

    # -- state views -----------------------------------------------------------------------------

    # Fetch these again after adding or removing bodies.
    position = StoreField(
        "position", True, "``(n, 2)`` centroids (a compound's parts follow its root: write the root's)."
    )
    angle = StoreField("angle", True, "``(n,)`` radians CCW.")
    velocity = StoreField("velocity", True, "``(n, 2)`` units/s.")
    angular_velocity = StoreField("angular_velocity", True, "``(n,)`` rad/s CCW.")
    mass = StoreField(
        "mass", False, "``(n,)``: 0 for static, kinematic and part rows (a compound's is its root's)."
    )
    inertia = StoreField(
        "inertia", False, "``(n,)`` about the centroid (a compound's about its centre of mass)."
    )
    static = StoreField("static", False, "``(n,) bool``.")
    kinematic = StoreField("kinematic", False, "``(n,) bool`` (every part of a kinematic compound too).")
    roots = StoreField("root", False, "``(n,) int64``: each row's root row (see :meth:`add_compound`).")
    local_vertices = StoreField(
        "local_vertices", False, "``(n, MAX_VERTICES, 2)``, centroid-relative; unused slots 0."
    )
    vertex_count = StoreField("vertex_count", False, "``(n,) int64``.")
    radius = StoreField("radius", False, "``(n,)``: largest vertex distance from the centroid (units).")
    sleeping = StoreField(
        "sleeping", False, "``(n,) bool`` (only the iterative solver puts bodies to sleep)."
    )
    force = StoreField("force", False, "``(n, 2)`` N, accumulated for the next step (:meth:`apply_force`).")
    torque = StoreField("torque", False, "``(n,)`` N units CCW, accumulated for the next step.")
    body_friction = StoreField("friction", False, "``(n,)`` dynamic friction (:meth:`set_material`).")
    body_restitution = StoreField("restitution", False, "``(n,)`` restitution (:meth:`set_material`).")
    body_static_friction = StoreField(
        "static_friction", False, "``(n,)`` static friction (:meth:`set_material`)."
    )

    @property
    def body_kind(self) -> np.ndarray:
        """``(n,) int8``: ``BODY_DYNAMIC`` (0), ``BODY_STATIC`` (1) or ``BODY_KINEMATIC`` (2) (a new
        array)."""
        rows = self._store.rows
        return rows.static.astype(np.int8) + np.int8(BODY_KINEMATIC) * rows.kinematic.astype(np.int8)

    @property
    def fixed_rotation(self) -> np.ndarray:
        """``(n,) bool`` (a new array): bodies whose rotation is fixed (:meth:`set_fixed_rotation`)."""
        rows = self._store.rows
        return (rows.inv_inertia == 0.0) & (rows.inertia > 0.0)

    @property
    def gravity(self) -> np.ndarray:
        """``(2,)`` units/s^2 (a copy; assign a new vector to change it)."""
        return np.array(self._gravity)

    @gravity.setter
    def gravity(self, value: Any) -> None:
        g = checks.vector(value, "gravity", MAX_ACCELERATION, "MAX_ACCELERATION")
        self._gravity = (float(g[0]), float(g[1]))

    def set_material(
        self,
        i: int | None = None,
        friction: float | None = None,
        restitution: float | None = None,
        static_friction: float | None = None,
    ) -> None:
        """Set the material of body ``i`` (or of every body when ``i`` is None); None keeps a value.
        A row of a compound sets every part's."""
        rows: slice | list[int] = slice(None) if i is None else self.parts(i)
        fr = None if friction is None else checks.material(friction, "friction")
        re = None if restitution is None else checks.material(restitution, "restitution", maximum=1.0)
        sf = None if static_friction is None else checks.material(static_friction, "static_friction")
        b = self._store.rows
        for array, value in ((b.friction, fr), (b.restitution, re), (b.static_friction, sf)):
            if value is not None:
                array[rows] = value

    # -- forces ----------------------------------------------------------------------------------

    def _moved_body(self, i: Any) -> int | None:
        """The root of row ``i``, or None for a static or kinematic body (forces and impulses
        do not move those)."""
        k = int(self._store.rows.root[self._check_index(i)])
        rows = self._store.rows
        return None if rows.static[k] or rows.kinematic[k] else k

    def _torque_of(self, k: int, force: np.ndarray, point: Any) -> float:
        """r x F of ``force`` at world ``point`` about body ``k``'s centroid (0 without a point)."""
        if point is None:
            return 0.0
        p = checks.vector(point, "point")
        rx, ry = p - self._store.rows.position[k]
        return float(rx * force[1] - ry * force[0])

    def apply_force(self, i: int, force: Any, point: Any = None) -> None:
        """Add ``force (2,)`` (N) to body ``i`` for the next step; at world ``point (2,)`` it also
        adds the torque r x F (CCW positive), and it wakes the body. Static and kinematic bodies
        ignore forces (a documented no-op: nothing but their velocity moves them). A row of a
        compound acts on the compound (its root)."""
        k = int(self._store.rows.root[self._check_index(i)])
        f = checks.vector(force, "force", math.inf)
        torque = self._torque_of(k, f, point)
        if self._moved_body(k) is None:
            return
        b = self._store.rows
        linear = math.hypot(*(b.force[k] + f)) * b.inv_mass[k]
        angular = abs(b.torque[k] + torque) * b.inv_inertia[k]
        accel = ("MAX_ACCELERATION", MAX_ACCELERATION)
        checks.push_limits(k, "force", force, point, (linear, *accel), (angular, *accel))
        b.force[k] += f
        b.torque[k] += torque
        b.sleeping[k] = False

    def apply_forces(self, bodies: Any, forces: Any) -> None:
        """Add ``forces (m, 2)`` (N, through the centroids) to ``bodies`` for the next step: the
        batch form of :meth:`apply_force`, without a Python loop per body.

        ``bodies``: ``(m,)`` body indices, or an ``(n,) bool`` mask with ``m`` bodies set; a row
        of a compound acts on the compound (a body given twice gets both forces). Static and
        kinematic bodies are skipped; a body given a non-zero force wakes. ValueError, changing
        nothing, when an index or force is bad or a body would go beyond ``MAX_ACCELERATION``.
        """
        index = checks.body_indices(bodies, "bodies", self.body_count)
        f = checks.vectors(forces, "forces", index.size)
        b = self._store.rows
        roots = b.root[index]
        moved = ~(b.static[roots] | b.kinematic[roots])
        roots, f = roots[moved], f[moved]
        total = b.force.copy()
        np.add.at(total, roots, f)  # a body given twice (or two rows of a compound) gets both
        accel = np.hypot(total[roots, 0], total[roots, 1]) * b.inv_mass[roots]
        if not (accel <= MAX_ACCELERATION).all():
            bad = int(roots[np.argmin(accel <= MAX_ACCELERATION)])
            raise ValueError(f"forces: would take body {bad} beyond MAX_ACCELERATION = {MAX_ACCELERATION:g}")
        b.force[roots] = total[roots]
        b.sleeping[roots[np.any(f != 0.0, axis=1)]] = False

    def apply_impulse(self, i: int, impulse: Any, point: Any = None) -> None:
        """Change body ``i``'s velocity by ``impulse (2,)`` (N s) / m now; at world ``point (2,)``
        its angular velocity changes by (r x J) / I too, and it wakes. Static and kinematic
        bodies ignore impulses (a documented no-op). A row of a compound acts on the compound
        (its root)."""
        k = int(self._store.rows.root[self._check_index(i)])
        j = checks.vector(impulse, "impulse", math.inf)
        b = self._store.rows
        dw = self._torque_of(k, j, point) * b.inv_inertia[k]
        if self._moved_body(k) is None:
            return
        speed = math.hypot(*(b.velocity[k] + j * b.inv_mass[k]))
        spin = abs(b.angular_velocity[k] + dw)
        spins = (spin, "MAX_ANGULAR_SPEED", MAX_ANGULAR_SPEED)
        checks.push_limits(k, "impulse", impulse, point, (speed, "MAX_SPEED", MAX_SPEED), spins)
        b.velocity[k] += j * b.inv_mass[k]
        b.angular_velocity[k] += dw
        b.sleeping[k] = False

    def set_velocity(self, i: int, velocity: Any, angular_velocity: float | None = None) -> None:
        """Set body ``i``'s velocity ``(2,)`` (and angular velocity) and wake it. Static: refused.
        This is how a kinematic body is steered. A row of a compound sets the compound's."""
        k = int(self._store.rows.root[self._check_index(i)])
        v = checks.vector(velocity, "velocity", MAX_SPEED, "MAX_SPEED")
        w = None
        if angular_velocity is not None:
            w = checks.number(
                angular_velocity, "angular_velocity", minimum=-MAX_ANGULAR_SPEED, maximum=MAX_ANGULAR_SPEED
            )
        b = self._store.rows
        if b.static[k]:
            raise ValueError(f"i = {k}: is a static body, which cannot move")
        b.velocity[k] = v
        if w is not None:
            b.angular_velocity[k] = w
        b.sleeping[k] = False
        if self._store.has_compounds:
            mirror_parts(self._store.fields)

    def set_fixed_rotation(self, i: int, fixed: bool = True) -> None:
        """Fix body ``i``'s rotation (its inverse inertia becomes 0: contacts, forces and impulses
        never turn it; its angular velocity is set to 0) or, with ``fixed=False``, free it again.
        Its ``inertia`` is kept. Static and kinematic bodies: a no-op. A row of a compound acts
        on the compound."""
        k = int(self._store.rows.root[self._check_index(i)])
        on = checks.boolean(fixed, "fixed")
        b = self._store.rows
        if b.static[k] or b.kinematic[k]:
            return
        inertia = b.inertia[k]
        b.inv_inertia[k] = 0.0 if on or inertia <= 0.0 else 1.0 / inertia
        if on:
            b.angular_velocity[k] = 0.0

    # -- step ------------------------------------------------------------------------------------

    def step(self, dt: float) -> None:
        """Advance the world by ``dt`` seconds (``MIN_TIME_STEP`` to ``MAX_TIME_STEP``) with the
        chosen solver. A step ends within the limits of :meth:`add_body` (see
        ``bodies.keep_in_bounds``), so the next one accepts it; a refused step changes nothing."""
        with self.profile as ticks:
            h = checks.number(dt, "dt", minimum=MIN_TIME_STEP, maximum=MAX_TIME_STEP)
            solver = self._solver_object()
            settings = self.solver_settings()
            store = self._store
            context = self._step_context(h, crowd := np.zeros(1, dtype=np.int64), ticks)
            # The solver opens the step with the world's part (bodies.open_step), so the whole
            # step is one call into compiled code.
            contacts = solver.step(store.rows, settings, context)
            if contacts is None:
                check_state(store.rows)  # the exact check: raises, naming the first entry out of range
                # In range after all (the fast check's squares can overflow where the values do not).
                contacts = solver.step(store.rows, settings, context._replace(check=False))
                assert contacts is not None  # unchecked, the opening takes any state
            self.contacts = contacts
            self.time += h
            self.step_count += 1
            self._warned_crowd = self._warned_crowd or (bool(crowd[0]) and warn_crowd(store.count))

    def _step_context(self, dt: float, crowd: np.ndarray, ticks: np.ndarray) -> StepContext:
        s, (gx, gy) = self._store, self._gravity
        return StepContext(dt, gx, gy, self._continuous, s.has_compounds, s.has_kinematic, crowd, ticks)

    @property
    def precompile_parts(self) -> tuple[str, ...]:
        """The parts of a step with the solver in use that :meth:`precompile` takes one by one."""
        return SOLVERS[self._solver_name].parts

    def precompile(self, part: str | None = None) -> None:
        """Compile, or load from numba's cache, the kernels a step of this world calls, without
        changing the world: ``part`` None the whole step, else one of :attr:`precompile_parts`
        (processes sharing numba's cache, ``NUMBA_CACHE_DIR``, can compile the parts at once;
        a step after them all compiles only its own kernel). Another name raises ValueError."""
        context = self._step_context(MAX_TIME_STEP, np.zeros(1, dtype=np.int64), profiling.NOT_PROFILED)
        precompile_step(self._solver_name, self._store.rows, self.solver_settings(), context, part)

    # -- measures ------------------------------------------------------------------------------

    def state_hash(self) -> str:
        """sha256 hex digest of the bytes of positions, angles, velocities, angular velocities."""
        digest = hashlib.sha256()
        for a in (self.position, self.angle, self.velocity, self.angular_velocity):
            digest.update(np.ascontiguousarray(a).tobytes())
        return digest.hexdigest()

    def kinetic_energy(self) -> float:
        """Total kinetic energy (J) of the dynamic bodies: sum m v^2 / 2 + I w^2 / 2."""
        b = self._store.rows
        v2 = np.sum(b.velocity**2, axis=1)
        return float(0.5 * np.sum(b.mass * v2) + 0.5 * np.sum(b.inertia * b.angular_velocity**2))

    def momentum(self) -> np.ndarray:
        """``(2,)`` total linear momentum (N s) of the dynamic bodies."""
        b = self._store.rows
        return np.sum(b.mass[:, None] * b.velocity, axis=0)

    # -- queries ---------------------------------------------------------------------------------

    def _cast(self, start: Any, end: Any, ignore: Any, every: bool, radius: Any) -> list[RayHit]:
        s = checks.vector(start, "start")
        e = checks.vector(end, "end")
        r = checks.number(radius, "radius", minimum=0.0, maximum=MAX_COORDINATE)
        ignored = checks.body_indices(ignore, "ignore", self.body_count)
        root = self._store.rows.root
        skip = np.isin(root, root[ignored])  # a compound is ignored whole
        self.world_vertices()
        return cast_ray(self._store.rows, s, e, skip, every, r)

    def raycast(self, start: Any, end: Any, ignore: Any = (), radius: float = 0.0) -> RayHit | None:
        """The nearest body the segment ``start (2,)`` -> ``end (2,)`` enters, or None.

        Bodies in ``ignore`` (an index, indices or an ``(n,) bool`` mask) are skipped (any row
        of a compound skips all of it). Polygons are hit where the segment enters them; points
        and segments, which have no area, where it comes within ``radius`` (units, >= 0) of
        them: with the default 0, a segment body exactly where the ray crosses it and a point
        only if the ray passes through it. A compound is reported by its root.
        """
        hits = self._cast(start, end, ignore, False, radius)
        return hits[0] if hits else None

    def raycast_all(self, start: Any, end: Any, ignore: Any = (), radius: float = 0.0) -> list[RayHit]:
        """Every body the segment enters, nearest first (see :meth:`raycast`); a compound once,
        at its nearest part's hit, by its root."""
        return self._cast(start, end, ignore, True, radius)

    def query_point(self, p: Any, radius: float = 0.0) -> list[int]:
        """Indices (ascending) of the bodies containing world point ``p (2,)``: polygons that
        hold it (their border counts), points and segments within ``radius`` (units, >= 0) of
        it. A compound is reported by its root."""
        q = checks.vector(p, "p")
        r = checks.number(radius, "radius", minimum=0.0, maximum=MAX_COORDINATE)
        self.world_vertices()
        return bodies_at(self._store.rows, q, r)
