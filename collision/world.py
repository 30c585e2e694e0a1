"""The physics world: bodies as structure-of-arrays state, forces, the step, queries, contacts.

A :class:`World` holds ``n = body_count`` bodies in numpy arrays, one row per body (see the
``_position``, ``_velocity``, ... attributes listed in :class:`World`). ``step(dt)`` integrates
forces into velocities, then hands over to the chosen response ("tutorial", "arcade" or
"iterative"), which finds the contacts, responds and integrates positions.

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
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numba import njit

from collision.broadphase import transform_vertices
from collision.shapes import MAX_VERTICES, GeometryError, Polygon, check_vertices
from collision.tolerances import (
    MAX_ACCELERATION,
    MAX_ANGULAR_SPEED,
    MAX_COMPOUND_PARTS,
    MAX_COORDINATE,
    MAX_DENSITY,
    MAX_SPEED,
    MAX_TIME_STEP,
    MIN_INERTIA,
    MIN_MASS,
    QUERY_PICK_RADIUS,
    STATE_LIMIT_FACTOR,
)

#: Contact states (``Contacts.state``).
CONTACT_NEW = 0
CONTACT_PERSISTING = 1
CONTACT_SPECULATIVE = 2

SOLVER_NAMES = ("tutorial", "arcade", "iterative")

#: Default static friction. For "tutorial" it is the cone of the "invisible step" (sticking while
#: |tangential speed| < static_friction * |normal speed|); for "arcade" it is the glue speed
#: (units/s) below which sliding stops. 0.5 is the original T7 program's key-adjusted value.
DEFAULT_STATIC_FRICTION = 0.5


class Solver(Protocol):
    def step(self, world: World, dt: float) -> Contacts: ...


def _readonly(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


# ---------------------------------------------------------------------------------------------
# Result types
# ---------------------------------------------------------------------------------------------


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
        specs = {
            "body_a": (np.int64, (m,)),
            "body_b": (np.int64, (m,)),
            "point_a": (np.float64, (m, 2)),
            "point_b": (np.float64, (m, 2)),
            "normal": (np.float64, (m, 2)),
            "separation": (np.float64, (m,)),
            "toi": (np.float64, (m,)),
            "normal_impulse": (np.float64, (m,)),
            "tangent_impulse": (np.float64, (m,)),
            "state": (np.int8, (m,)),
        }
        for name, (dtype, shape) in specs.items():
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
    def _trusted(
        cls,
        body_a: np.ndarray,
        body_b: np.ndarray,
        point_a: np.ndarray,
        point_b: np.ndarray,
        normal: np.ndarray,
        separation: np.ndarray,
        toi: np.ndarray,
        normal_impulse: np.ndarray,
        tangent_impulse: np.ndarray,
        state: np.ndarray,
    ) -> Contacts:
        """Contacts over arrays a solver has just made, already read-only and with the
        dtypes and shapes above: no copying or checking (a large share of a small world's
        step). For solvers only; everyone else uses the checked constructor."""
        view = cls.__new__(cls)
        view.__dict__.update(
            body_a=body_a,
            body_b=body_b,
            point_a=point_a,
            point_b=point_b,
            normal=normal,
            separation=separation,
            toi=toi,
            normal_impulse=normal_impulse,
            tangent_impulse=tangent_impulse,
            state=state,
        )
        return view

    @classmethod
    def _readonly_rows(
        cls, index: np.ndarray, vectors: np.ndarray, scalars: np.ndarray, state: np.ndarray
    ) -> Contacts:
        """Contacts over the packed arrays of the iterative step (``index (3, m)`` body_a,
        body_b, feature key; ``vectors (3, m, 2)`` point_a, point_b, normal; ``scalars (4, m)``
        separation, toi, normal and tangent impulse; ``state (m,)``), made on first use: most
        steps nobody reads them, and making the read-only rows is a share of a small step."""
        view = cls.__new__(cls)
        view.__dict__["_packed"] = (index, vectors, scalars, state)
        return view

    def __getattr__(self, name: str) -> Any:
        # Only called for missing attributes: the rows of a packed view, made once.
        packed = self.__dict__.get("_packed")
        if packed is None or name not in _CONTACT_FIELDS:
            raise AttributeError(name)
        index, vectors, scalars, state = packed
        rows = {
            "body_a": index[0],
            "body_b": index[1],
            "point_a": vectors[0],
            "point_b": vectors[1],
            "normal": vectors[2],
            "separation": scalars[0],
            "toi": scalars[1],
            "normal_impulse": scalars[2],
            "tangent_impulse": scalars[3],
            "state": state,
        }
        for key, row in rows.items():
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


_CONTACT_FIELDS = frozenset(
    (
        "body_a",
        "body_b",
        "point_a",
        "point_b",
        "normal",
        "separation",
        "toi",
        "normal_impulse",
        "tangent_impulse",
        "state",
    )
)


@dataclass(frozen=True)
class RayHit:
    """A ray (segment) hit: ``body`` index, ``t`` fraction along start->end in [0, 1],
    ``point (2,)`` where it enters, ``normal (2,)`` unit outward normal of the surface hit."""

    body: int
    t: float
    point: np.ndarray
    normal: np.ndarray


# ---------------------------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def integrate_forces(
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    force: np.ndarray,
    torque: np.ndarray,
    inv_mass: np.ndarray,
    inv_inertia: np.ndarray,
    static: np.ndarray,
    sleeping: np.ndarray,
    gx: float,
    gy: float,
    dt: float,
) -> None:
    """v += (g + F / m) dt and w += tau / I dt for dynamic awake bodies; forces are cleared.

    Static bodies get zero velocity: they never move, whatever was written into their rows.
    Rows of infinite mass that move (kinematic bodies, and the parts of a compound, which
    mirror their root's row) keep their velocity: no gravity, no forces. A dynamic body's
    inverse mass is never 0 (``MIN_MASS``), so it tells them apart.
    """
    for i in range(velocity.shape[0]):
        if static[i]:
            velocity[i, 0] = 0.0
            velocity[i, 1] = 0.0
            angular_velocity[i] = 0.0
        elif inv_mass[i] > 0.0 and not sleeping[i]:
            velocity[i, 0] += (gx + force[i, 0] * inv_mass[i]) * dt
            velocity[i, 1] += (gy + force[i, 1] * inv_mass[i]) * dt
            angular_velocity[i] += torque[i] * inv_inertia[i] * dt
        force[i, 0] = 0.0
        force[i, 1] = 0.0
        torque[i] = 0.0


@njit(cache=True)
def wrap_angle(a: float) -> float:
    """``a`` wrapped to [-pi, pi)."""
    return (a + math.pi) % (2.0 * math.pi) - math.pi


@njit(cache=True)
def state_in_range(
    position: np.ndarray,
    angle: np.ndarray,
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    max_coordinate: float,
    max_speed: float,
    max_angular_speed: float,
) -> bool:
    """True when every position and angle is finite and at most ``max_coordinate`` in size,
    every speed at most ``max_speed`` and every angular speed at most ``max_angular_speed``.

    One pass without temporaries (the step's own check, every step); ``World._check_state``
    then says which entry is wrong.
    """
    # Squared lengths (no hypot): a square that overflows fails here and the exact check
    # decides. Written as "not (x <= limit)" so NaN fails too.
    c2 = max_coordinate * max_coordinate
    s2 = max_speed * max_speed
    for i in range(position.shape[0]):
        if not (position[i, 0] * position[i, 0] + position[i, 1] * position[i, 1] <= c2):
            return False
        if not (abs(angle[i]) <= max_coordinate):
            return False
        if not (velocity[i, 0] * velocity[i, 0] + velocity[i, 1] * velocity[i, 1] <= s2):
            return False
        if not (abs(angular_velocity[i]) <= max_angular_speed):
            return False
    return True


@njit(cache=True)
def wrap_angles(angle: np.ndarray) -> None:
    """Angles outside [-pi, pi) wrapped into it; angles inside are left bit-identical."""
    for i in range(angle.shape[0]):
        if angle[i] < -math.pi or angle[i] >= math.pi:
            angle[i] = wrap_angle(angle[i])


@njit(cache=True)
def integrate_positions(
    position: np.ndarray,
    angle: np.ndarray,
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    static: np.ndarray,
    sleeping: np.ndarray,
    dt: float,
) -> None:
    """x += v dt, angle += w dt (wrapped to [-pi, pi)) for dynamic awake bodies."""
    for i in range(position.shape[0]):
        if static[i] or sleeping[i]:
            continue
        position[i, 0] += velocity[i, 0] * dt
        position[i, 1] += velocity[i, 1] * dt
        angle[i] = wrap_angle(angle[i] + angular_velocity[i] * dt)


@njit(cache=True)
def sync_parts(
    root: np.ndarray,
    position: np.ndarray,
    angle: np.ndarray,
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    sleeping: np.ndarray,
) -> None:
    """Copy every compound root's pose, velocity and sleeping flag into its part rows.

    ``root (n,) int64``: each row's root (a plain body is its own root). A part's local
    vertices are in the root's frame (relative to the compound's centre of mass), so with the
    root's pose it is placed exactly.
    """
    for i in range(root.shape[0]):
        r = root[i]
        if r == i:
            continue
        position[i, 0] = position[r, 0]
        position[i, 1] = position[r, 1]
        angle[i] = angle[r]
        velocity[i, 0] = velocity[r, 0]
        velocity[i, 1] = velocity[r, 1]
        angular_velocity[i] = angular_velocity[r]
        sleeping[i] = sleeping[r]


@njit(cache=True)
def _point_inside(verts: np.ndarray, k: int, px: float, py: float, radius: float) -> bool:
    if k == 1:
        dx = px - verts[0, 0]
        dy = py - verts[0, 1]
        return dx * dx + dy * dy <= radius * radius
    if k == 2:
        ax = verts[0, 0]
        ay = verts[0, 1]
        ex = verts[1, 0] - ax
        ey = verts[1, 1] - ay
        s = ((px - ax) * ex + (py - ay) * ey) / (ex * ex + ey * ey)
        s = min(1.0, max(0.0, s))
        dx = px - (ax + s * ex)
        dy = py - (ay + s * ey)
        return dx * dx + dy * dy <= radius * radius
    for e in range(k):
        ax = verts[e, 0]
        ay = verts[e, 1]
        bx = verts[(e + 1) % k, 0]
        by = verts[(e + 1) % k, 1]
        # CCW polygon: the point is inside when it is left of (or on) every edge.
        if (bx - ax) * (py - ay) - (by - ay) * (px - ax) < 0.0:
            return False
    return True


@njit(cache=True)
def query_point_kernel(
    world_vertices: np.ndarray, vertex_count: np.ndarray, px: float, py: float, radius: float
) -> np.ndarray:
    """Indices (ascending, int64) of the bodies containing point (px, py); points and segments
    count when within ``radius``."""
    n = vertex_count.shape[0]
    found = np.empty(n, dtype=np.int64)
    m = 0
    for i in range(n):
        if _point_inside(world_vertices[i], vertex_count[i], px, py, radius):
            found[m] = i
            m += 1
    return found[:m].copy()


# ---------------------------------------------------------------------------------------------
# Boundary checks
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def begin_step(
    position: np.ndarray,
    angle: np.ndarray,
    velocity: np.ndarray,
    angular_velocity: np.ndarray,
    force: np.ndarray,
    torque: np.ndarray,
    inv_mass: np.ndarray,
    inv_inertia: np.ndarray,
    static: np.ndarray,
    sleeping: np.ndarray,
    gravity: np.ndarray,
    dt: float,
    check: bool,
) -> bool:
    """The world's part of a step in one call (each call costs time in a small world): when
    the state is in range (``state_in_range`` with the STATE_LIMIT_FACTOR limits; not checked
    without ``check``), wrap the angles and integrate forces, and return True; otherwise
    change nothing and return False."""
    if check and not state_in_range(
        position,
        angle,
        velocity,
        angular_velocity,
        STATE_LIMIT_FACTOR * MAX_COORDINATE,
        STATE_LIMIT_FACTOR * MAX_SPEED,
        STATE_LIMIT_FACTOR * MAX_ANGULAR_SPEED,
    ):
        return False
    wrap_angles(angle)
    integrate_forces(
        velocity,
        angular_velocity,
        force,
        torque,
        inv_mass,
        inv_inertia,
        static,
        sleeping,
        gravity[0],
        gravity[1],
        dt,
    )
    return True


def _scalar(value: Any, name: str, *, minimum: float | None = None, maximum: float | None = None) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} = {value!r}: must be a real number") from None
    if not math.isfinite(x):
        raise ValueError(f"{name} = {value!r}: must be finite")
    if minimum is not None and x < minimum:
        raise ValueError(f"{name} = {value!r}: must be >= {minimum}")
    if maximum is not None and x > maximum:
        raise ValueError(f"{name} = {value!r}: must be <= {maximum}")
    return x


def _vector(value: Any, name: str, limit: float = MAX_COORDINATE, what: str = "MAX_COORDINATE") -> np.ndarray:
    """A finite ``(2,)`` vector no longer than ``limit`` (the named constant ``what``): beyond
    the limits in collision.tolerances, products inside the step would overflow to inf/NaN."""
    try:
        v = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} = {value!r}: must be a 2-vector of real numbers") from None
    if v.shape != (2,):
        raise ValueError(f"{name} = {value!r}: must be a 2-vector, got shape {v.shape}")
    if not np.isfinite(v).all():
        raise ValueError(f"{name} = {value!r}: must be finite")
    if math.hypot(v[0], v[1]) > limit:
        raise ValueError(f"{name} = {value!r}: is longer than {what} = {limit:g}")
    return v


def _material(value: Any, name: str, *, maximum: float | None = None) -> float:
    return _scalar(value, name, minimum=0.0, maximum=maximum)


@dataclass(frozen=True)
class _BodyArguments:
    """add_body's and add_compound's shared arguments, checked."""

    position: np.ndarray
    angle: float
    velocity: np.ndarray
    angular_velocity: float
    density: float
    static: bool
    kinematic: bool
    friction: float
    restitution: float
    static_friction: float


# ---------------------------------------------------------------------------------------------
# The world
# ---------------------------------------------------------------------------------------------


class World:
    """Rigid bodies (points, segments, convex polygons) and their simulation.

    ``World(gravity=(0, -10), solver="iterative", friction=0.6, restitution=0.0,
    static_friction=0.5)``: ``gravity`` units/s^2; ``solver`` one of ``"tutorial"`` (Tutorial 7
    impulses), ``"arcade"`` (Tutorial 4 velocity reflection with seed 002's ordered timeslices;
    ``ordered = False`` gives the tutorial's immediate processing) or ``"iterative"``; the
    material values are the defaults for bodies added later (``None`` in :meth:`add_body`).

    ``static_friction`` means, for "tutorial", the cone of the "invisible step" (a contact
    sticks while its tangential speed is below ``static_friction`` times its normal approach
    speed) and, for "arcade", the glue speed in units/s below which sliding stops dead.
    Materials of a pair mix as Box2D does: friction sqrt(a b), restitution max(a, b), static
    friction sqrt(a b).

    State, one row per body (``n = body_count``; arrays are reallocated by add/remove, so
    fetch them again after those): ``position (n, 2)`` centroid, ``angle (n,)`` radians CCW,
    ``velocity (n, 2)``, ``angular_velocity (n,)`` rad/s are the live arrays (writable);
    ``mass``, ``inertia``, ``static`` are read-only. Static bodies have mass, inertia and
    their inverses 0 and never move.

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
        g = _vector(gravity, "gravity", MAX_ACCELERATION, "MAX_ACCELERATION")
        self._check_solver_name(solver)
        self.friction = _material(friction, "friction")
        self.restitution = _material(restitution, "restitution", maximum=1.0)
        self.static_friction = _material(static_friction, "static_friction")
        self._gravity = g
        self._solver_name = solver
        self._solvers: dict[str, Solver] = {}
        self.sleep_enabled = True
        #: Arcade: process hits earliest first (seed 002) or immediately in pair order (Tutorial 4).
        self.ordered = True
        #: Arcade, ordered: rank simultaneous hits by contact surface and ignore corner-only
        #: grazes (seed 002's crack rule).
        self.surface_rule = True
        self.time = 0.0
        self.step_count = 0
        self.contacts = Contacts.empty()
        self._continuous = True
        #: Any compound / kinematic body in the world: the steps skip their extra work without.
        self._has_compounds = False
        self._has_kinematic = False
        self._allocate(0)

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
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"continuous = {value!r}: must be True or False")
        self._continuous = bool(value)

    # -- storage -------------------------------------------------------------------------------

    def _allocate(self, n: int) -> None:
        self._position = np.zeros((n, 2))
        self._angle = np.zeros(n)
        self._velocity = np.zeros((n, 2))
        self._angular_velocity = np.zeros(n)
        self._mass = np.zeros(n)
        self._inertia = np.zeros(n)
        self._inv_mass = np.zeros(n)
        self._inv_inertia = np.zeros(n)
        self._static = np.zeros(n, dtype=np.bool_)
        self._kinematic = np.zeros(n, dtype=np.bool_)
        self._root = np.arange(n, dtype=np.int64)
        self._local_vertices = np.zeros((n, MAX_VERTICES, 2))
        self._vertex_count = np.zeros(n, dtype=np.int64)
        self._radius = np.zeros(n)
        self._friction = np.zeros(n)
        self._restitution = np.zeros(n)
        self._static_friction = np.zeros(n)
        self._force = np.zeros((n, 2))
        self._torque = np.zeros(n)
        self._sleeping = np.zeros(n, dtype=np.bool_)
        self._world_vertices = np.zeros((n, MAX_VERTICES, 2))

    _ARRAYS = (
        "_position",
        "_angle",
        "_velocity",
        "_angular_velocity",
        "_mass",
        "_inertia",
        "_inv_mass",
        "_inv_inertia",
        "_static",
        "_kinematic",
        "_root",
        "_local_vertices",
        "_vertex_count",
        "_radius",
        "_friction",
        "_restitution",
        "_static_friction",
        "_force",
        "_torque",
        "_sleeping",
        "_world_vertices",
    )

    # -- solver ----------------------------------------------------------------------------------

    @staticmethod
    def _check_solver_name(name: Any) -> None:
        if not isinstance(name, str) or name not in SOLVER_NAMES:
            raise ValueError(f"solver = {name!r}: must be one of {', '.join(map(repr, SOLVER_NAMES))}")

    @property
    def solver(self) -> str:
        """The response in use: ``"tutorial"``, ``"arcade"`` or ``"iterative"`` (settable)."""
        return self._solver_name

    @solver.setter
    def solver(self, name: str) -> None:
        self._check_solver_name(name)
        if name != self._solver_name:
            # Only the iterative solver maintains sleep; the others simulate every body.
            self._sleeping[:] = False
        self._solver_name = name

    def _solver_object(self) -> Solver:
        name = self._solver_name
        solver = self._solvers.get(name)
        if solver is None:
            if name == "tutorial":
                from collision.impulse import TutorialSolver

                solver = TutorialSolver()
            elif name == "arcade":
                from collision.arcade import ArcadeSolver

                solver = ArcadeSolver()
            else:
                try:
                    from collision.solver import IterativeSolver
                except ImportError as exc:
                    raise NotImplementedError("the iterative solver is not available yet") from exc
                solver = IterativeSolver()
            self._solvers[name] = solver
        return solver

    # -- bodies ----------------------------------------------------------------------------------

    @property
    def body_count(self) -> int:
        return int(self._position.shape[0])

    def _check_index(self, i: Any, name: str = "i") -> int:
        n = self.body_count
        if isinstance(i, bool) or not isinstance(i, int | np.integer):
            raise ValueError(f"{name} = {i!r}: must be a body index (int)")
        k = int(i)
        if not 0 <= k < n:
            raise ValueError(f"{name} = {k}: no such body (body_count = {n})")
        return k

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
        world's defaults.
        """
        verts = check_vertices(shape, "shape")
        head = self._body_arguments(
            position,
            angle,
            velocity,
            angular_velocity,
            density,
            static,
            kinematic,
            friction,
            restitution,
            static_friction,
        )
        poly = Polygon(verts)
        mass, inertia = self._checked_mass(poly.mass_properties(head.density), head)
        local = verts - poly.centroid
        return self._append_rows(head, [local], [float(poly.radius)], mass, inertia)

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
        stands for the whole body in :meth:`apply_force`, :meth:`apply_impulse`,
        :meth:`set_velocity` and :meth:`set_material`; contacts and queries report the root.
        :meth:`parts` and :meth:`root` tell the rows apart.
        """
        if isinstance(shapes, (str, bytes)) or not hasattr(shapes, "__len__"):
            raise GeometryError(f"shapes = {shapes!r}: must be a list of polygons")
        count = len(shapes)
        if count == 0:
            raise GeometryError("shapes = []: a compound needs at least one part")
        if count > MAX_COMPOUND_PARTS:
            raise GeometryError(f"shapes: {count} parts, more than MAX_COMPOUND_PARTS = {MAX_COMPOUND_PARTS}")
        parts = [check_vertices(shapes[i], f"shapes[{i}]") for i in range(count)]
        head = self._body_arguments(
            position,
            angle,
            velocity,
            angular_velocity,
            density,
            static,
            kinematic,
            friction,
            restitution,
            static_friction,
        )
        # Unit density first: the centre of mass does not depend on it (static bodies have 0).
        polys = [Polygon(v) for v in parts]
        unit = [poly.mass_properties(1.0) for poly in polys]
        masses = np.array([m for m, _ in unit])
        total = float(masses.sum())
        centroids = np.array([poly.centroid for poly in polys])
        centre = (masses[:, None] * centroids).sum(axis=0) / total
        offsets = centroids - centre
        unit_inertia = float(
            sum(i for _, i in unit) + float((masses * (offsets[:, 0] ** 2 + offsets[:, 1] ** 2)).sum())
        )
        mass, inertia = self._checked_mass((total * head.density, unit_inertia * head.density), head)
        locals_ = [v - centre for v in parts]
        radii = [float(np.hypot(v[:, 0], v[:, 1]).max()) for v in locals_]
        return self._append_rows(head, locals_, radii, mass, inertia)

    def root(self, i: int) -> int:
        """The root row of the body that row ``i`` belongs to (``i`` itself for a plain body)."""
        k = self._check_index(i)
        return int(self._root[k])

    def parts(self, i: int) -> list[int]:
        """The rows of the body that row ``i`` belongs to, root first (``[i]`` for a plain body)."""
        k = self._check_index(i)
        r = int(self._root[k])
        end = r + 1
        n = self.body_count
        while end < n and self._root[end] == r:
            end += 1
        return list(range(r, end))

    @property
    def kinematic(self) -> np.ndarray:
        """``(n,) bool`` read-only: kinematic bodies (and every part of a kinematic compound)."""
        return _readonly(self._kinematic)

    @property
    def roots(self) -> np.ndarray:
        """``(n,) int64`` read-only: each row's root row (see :meth:`add_compound`)."""
        return _readonly(self._root)

    def _sync_parts(self) -> None:
        if self._has_compounds:
            sync_parts(
                self._root,
                self._position,
                self._angle,
                self._velocity,
                self._angular_velocity,
                self._sleeping,
            )

    def _body_arguments(
        self,
        position: Any,
        angle: Any,
        velocity: Any,
        angular_velocity: Any,
        density: Any,
        static: Any,
        kinematic: Any,
        friction: Any,
        restitution: Any,
        static_friction: Any,
    ) -> _BodyArguments:
        """The arguments add_body and add_compound share, checked (ValueError naming them)."""
        pos = _vector(position, "position")
        ang = _scalar(angle, "angle")
        vel = _vector(velocity, "velocity", MAX_SPEED, "MAX_SPEED")
        omega = _scalar(
            angular_velocity, "angular_velocity", minimum=-MAX_ANGULAR_SPEED, maximum=MAX_ANGULAR_SPEED
        )
        dens = _scalar(density, "density", minimum=0.0, maximum=MAX_DENSITY)
        fr = self.friction if friction is None else _material(friction, "friction")
        re = self.restitution if restitution is None else _material(restitution, "restitution", maximum=1.0)
        sf = (
            self.static_friction if static_friction is None else _material(static_friction, "static_friction")
        )
        is_kinematic = bool(kinematic)
        if bool(static) and is_kinematic:
            raise ValueError(
                "static = True, kinematic = True: a body is either static or kinematic, not both"
            )
        is_static = bool(static) or (dens == 0.0 and not is_kinematic)
        if is_static:
            vel = np.zeros(2)
            omega = 0.0
        return _BodyArguments(pos, ang, vel, omega, dens, is_static, is_kinematic, fr, re, sf)

    @staticmethod
    def _checked_mass(mass_inertia: tuple[float, float], head: _BodyArguments) -> tuple[float, float]:
        """(mass, inertia) of a dynamic body, refused when their inverses would overflow;
        (0, 0) for static and kinematic bodies (infinite mass)."""
        if head.static or head.kinematic:
            return 0.0, 0.0
        mass, inertia = mass_inertia
        dens = head.density
        if mass < MIN_MASS:
            raise ValueError(
                f"density = {dens!r}: gives this shape a mass of {mass:.3g}, below MIN_MASS = "
                f"{MIN_MASS:g} (its inverse would overflow); use a larger density or static=True"
            )
        if 0.0 < inertia < MIN_INERTIA:
            raise ValueError(
                f"density = {dens!r}: gives this shape a moment of inertia of {inertia:.3g}, below "
                f"MIN_INERTIA = {MIN_INERTIA:g} (its inverse would overflow); use a larger density "
                "or a larger shape"
            )
        return mass, inertia

    def _append_rows(
        self,
        head: _BodyArguments,
        locals_: list[np.ndarray],
        radii: list[float],
        mass: float,
        inertia: float,
    ) -> int:
        """Append one body of ``len(locals_)`` rows (the first is the root, holding the mass and
        inertia; the others are parts mirroring it) and return the root's index."""
        n = self.body_count
        count = len(locals_)
        for name in self._ARRAYS:
            old = getattr(self, name)
            grown = np.zeros((n + count,) + old.shape[1:], dtype=old.dtype)
            grown[:n] = old
            setattr(self, name, grown)
        rows = slice(n, n + count)
        self._position[rows] = head.position
        self._angle[rows] = wrap_angle(head.angle)
        self._velocity[rows] = head.velocity
        self._angular_velocity[rows] = head.angular_velocity
        self._mass[n] = mass
        self._inertia[n] = inertia
        self._inv_mass[n] = 1.0 / mass if mass > 0.0 else 0.0
        self._inv_inertia[n] = 1.0 / inertia if inertia > 0.0 else 0.0
        self._static[rows] = head.static
        self._kinematic[rows] = head.kinematic
        self._root[rows] = n
        for r, (local, radius) in enumerate(zip(locals_, radii, strict=True)):
            k = local.shape[0]
            self._local_vertices[n + r, :k] = local
            self._vertex_count[n + r] = k
            self._radius[n + r] = radius
        self._friction[rows] = head.friction
        self._restitution[rows] = head.restitution
        self._static_friction[rows] = head.static_friction
        if count > 1:
            self._has_compounds = True
        if head.kinematic:
            self._has_kinematic = True
        return n

    def remove_body(self, i: int) -> None:
        """Remove body ``i`` (a compound by its root: all its rows); bodies after it move down
        as many indices as it had rows. A part row of a compound is refused (ValueError)."""
        k = self._check_index(i)
        r = int(self._root[k])
        if r != k:
            raise ValueError(
                f"i = {k}: is a part of the compound with root {r}; remove_body({r}) removes the compound"
            )
        rows = self.parts(k)
        count = len(rows)
        for name in self._ARRAYS:
            setattr(self, name, np.delete(getattr(self, name), rows, axis=0))
        self._root[self._root > k] -= count
        self._has_compounds = bool((self._root != np.arange(self.body_count)).any())
        self._has_kinematic = bool(self._kinematic.any())
        for solver in self._solvers.values():
            reset = getattr(solver, "reset", None)
            if reset is not None:
                reset()
        self.contacts = Contacts.empty()

    def shape(self, i: int) -> np.ndarray:
        """``(k, 2)`` centroid-relative local vertices of body ``i`` (a copy)."""
        k = self._check_index(i)
        return self._local_vertices[k, : self._vertex_count[k]].copy()

    def vertices(self, i: int) -> np.ndarray:
        """``(k, 2)`` world-space vertices of body ``i`` now (a copy)."""
        k = self._check_index(i)
        return self.world_vertices()[k, : self._vertex_count[k]].copy()

    def world_vertices(self) -> np.ndarray:
        """``(n, MAX_VERTICES, 2)`` world-space vertices of every body now (read-only; slots past
        ``vertex_count[i]`` are unused)."""
        self._sync_parts()
        transform_vertices(
            self._local_vertices, self._vertex_count, self._position, self._angle, self._world_vertices
        )
        return _readonly(self._world_vertices)

    # -- state views -----------------------------------------------------------------------------

    @property
    def position(self) -> np.ndarray:
        """``(n, 2)`` centroids (the live array; a compound's part rows are overwritten with
        its root's at every step: write to the root's row)."""
        return self._position

    @property
    def angle(self) -> np.ndarray:
        """``(n,)`` radians CCW (the live array)."""
        return self._angle

    @property
    def velocity(self) -> np.ndarray:
        """``(n, 2)`` units/s (the live array)."""
        return self._velocity

    @property
    def angular_velocity(self) -> np.ndarray:
        """``(n,)`` rad/s CCW (the live array)."""
        return self._angular_velocity

    @property
    def mass(self) -> np.ndarray:
        """``(n,)`` read-only (0 for static and kinematic bodies; a compound's root row holds
        the compound's, its other rows 0)."""
        return _readonly(self._mass)

    @property
    def inertia(self) -> np.ndarray:
        """``(n,)`` read-only, about the centroid (0 for static and kinematic bodies and points;
        a compound's root row holds the compound's about its centre of mass, its other rows 0)."""
        return _readonly(self._inertia)

    @property
    def static(self) -> np.ndarray:
        """``(n,) bool`` read-only."""
        return _readonly(self._static)

    @property
    def vertex_count(self) -> np.ndarray:
        """``(n,) int64`` read-only."""
        return _readonly(self._vertex_count)

    @property
    def sleeping(self) -> np.ndarray:
        """``(n,) bool`` read-only (only the iterative solver puts bodies to sleep)."""
        return _readonly(self._sleeping)

    @property
    def body_friction(self) -> np.ndarray:
        """``(n,)`` per-body dynamic friction, read-only (change with :meth:`set_material`)."""
        return _readonly(self._friction)

    @property
    def body_restitution(self) -> np.ndarray:
        """``(n,)`` per-body restitution, read-only (change with :meth:`set_material`)."""
        return _readonly(self._restitution)

    @property
    def body_static_friction(self) -> np.ndarray:
        """``(n,)`` per-body static friction, read-only (change with :meth:`set_material`)."""
        return _readonly(self._static_friction)

    @property
    def gravity(self) -> np.ndarray:
        """``(2,)`` units/s^2 (a copy; assign a new vector to change it)."""
        return self._gravity.copy()

    @gravity.setter
    def gravity(self, value: Any) -> None:
        self._gravity = _vector(value, "gravity", MAX_ACCELERATION, "MAX_ACCELERATION")

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
        fr = None if friction is None else _material(friction, "friction")
        re = None if restitution is None else _material(restitution, "restitution", maximum=1.0)
        sf = None if static_friction is None else _material(static_friction, "static_friction")
        if fr is not None:
            self._friction[rows] = fr
        if re is not None:
            self._restitution[rows] = re
        if sf is not None:
            self._static_friction[rows] = sf

    # -- forces ----------------------------------------------------------------------------------

    def apply_force(self, i: int, force: Any, point: Any = None) -> None:
        """Add ``force (2,)`` (N) to body ``i`` for the next step; at world ``point (2,)`` it also
        adds the torque r x F (CCW positive). Static and kinematic bodies ignore forces (a
        documented no-op: nothing but their velocity moves them). A row of a compound acts on
        the compound (its root)."""
        k = int(self._root[self._check_index(i)])
        f = _vector(force, "force", math.inf)
        torque = 0.0
        if point is not None:
            p = _vector(point, "point")
            rx, ry = p - self._position[k]
            torque = float(rx * f[1] - ry * f[0])
        if self._static[k] or self._kinematic[k]:
            return
        linear = math.hypot(*(self._force[k] + f)) * self._inv_mass[k]
        angular = abs(self._torque[k] + torque) * self._inv_inertia[k]
        if not linear <= MAX_ACCELERATION or not angular <= MAX_ACCELERATION:
            raise ValueError(
                f"force = {force!r}: would accelerate body {k} beyond MAX_ACCELERATION = {MAX_ACCELERATION:g}"
            )
        self._force[k] += f
        self._torque[k] += torque
        self._sleeping[k] = False

    def apply_impulse(self, i: int, impulse: Any, point: Any = None) -> None:
        """Change body ``i``'s velocity by ``impulse (2,)`` (N s) / m now; at world ``point (2,)``
        its angular velocity changes by (r x J) / I too. Static and kinematic bodies ignore
        impulses (a documented no-op). A row of a compound acts on the compound (its root)."""
        k = int(self._root[self._check_index(i)])
        j = _vector(impulse, "impulse", math.inf)
        dw = 0.0
        if point is not None:
            p = _vector(point, "point")
            rx, ry = p - self._position[k]
            dw = float(rx * j[1] - ry * j[0]) * self._inv_inertia[k]
        if self._static[k] or self._kinematic[k]:
            return
        speed = math.hypot(*(self._velocity[k] + j * self._inv_mass[k]))
        spin = abs(self._angular_velocity[k] + dw)
        if not speed <= MAX_SPEED or not spin <= MAX_ANGULAR_SPEED:
            raise ValueError(
                f"impulse = {impulse!r}: would spin or speed body {k} beyond MAX_SPEED = {MAX_SPEED:g}"
            )
        self._velocity[k] += j * self._inv_mass[k]
        self._angular_velocity[k] += dw
        self._sleeping[k] = False

    def set_velocity(self, i: int, velocity: Any, angular_velocity: float | None = None) -> None:
        """Set body ``i``'s velocity ``(2,)`` (and angular velocity) and wake it. Static: refused.
        This is how a kinematic body is steered. A row of a compound sets the compound's."""
        k = int(self._root[self._check_index(i)])
        v = _vector(velocity, "velocity", MAX_SPEED, "MAX_SPEED")
        w = (
            None
            if angular_velocity is None
            else _scalar(
                angular_velocity, "angular_velocity", minimum=-MAX_ANGULAR_SPEED, maximum=MAX_ANGULAR_SPEED
            )
        )
        if self._static[k]:
            raise ValueError(f"i = {k}: is a static body, which cannot move")
        self._velocity[k] = v
        if w is not None:
            self._angular_velocity[k] = w
        self._sleeping[k] = False
        self._sync_parts()

    # -- step ------------------------------------------------------------------------------------

    def _check_state(self) -> None:
        # The state arrays are writable by the user: check them as inputs of the step.
        limits = {
            "position": STATE_LIMIT_FACTOR * MAX_COORDINATE,
            "angle": STATE_LIMIT_FACTOR * MAX_COORDINATE,
            "velocity": STATE_LIMIT_FACTOR * MAX_SPEED,
            "angular_velocity": STATE_LIMIT_FACTOR * MAX_ANGULAR_SPEED,
        }
        for name, limit in limits.items():
            a = getattr(self, "_" + name)
            size = np.abs(a) if a.ndim == 1 else np.hypot(a[:, 0], a[:, 1])
            if not (size <= limit).all():  # also catches NaN
                bad = int(np.argmin(size <= limit))
                raise ValueError(f"{name}[{bad}] = {a[bad]!r}: must be finite and at most {limit:g} in size")

    def step(self, dt: float) -> None:
        """Advance the world by ``dt`` seconds (> 0) with the chosen solver."""
        h = _scalar(dt, "dt", maximum=MAX_TIME_STEP)
        if h <= 0.0:
            raise ValueError(f"dt = {dt!r}: must be > 0")
        solver = self._solver_object()
        arrays = (
            self._position,
            self._angle,
            self._velocity,
            self._angular_velocity,
            self._force,
            self._torque,
            self._inv_mass,
            self._inv_inertia,
            self._static,
            self._sleeping,
            self._gravity,
            h,
        )
        if not begin_step(*arrays, True):
            self._check_state()  # the exact check: raises, naming the first entry out of range
            # In range after all (the fast check's squares can overflow where the values do not).
            begin_step(*arrays, False)
        self._sync_parts()
        self.contacts = solver.step(self, h)
        self._sync_parts()
        self.time += h
        self.step_count += 1

    # -- measures ------------------------------------------------------------------------------

    def state_hash(self) -> str:
        """sha256 hex digest of the bytes of positions, angles, velocities, angular velocities."""
        digest = hashlib.sha256()
        for a in (self._position, self._angle, self._velocity, self._angular_velocity):
            digest.update(np.ascontiguousarray(a).tobytes())
        return digest.hexdigest()

    def kinetic_energy(self) -> float:
        """Total kinetic energy (J) of the dynamic bodies: sum m v^2 / 2 + I w^2 / 2."""
        v2 = np.sum(self._velocity**2, axis=1)
        return float(0.5 * np.sum(self._mass * v2) + 0.5 * np.sum(self._inertia * self._angular_velocity**2))

    def momentum(self) -> np.ndarray:
        """``(2,)`` total linear momentum (N s) of the dynamic bodies."""
        return np.sum(self._mass[:, None] * self._velocity, axis=0)

    # -- queries ---------------------------------------------------------------------------------

    def _skip_mask(self, ignore: Any) -> np.ndarray:
        skip = np.zeros(self.body_count, dtype=np.bool_)
        for idx in ignore:
            k = self._check_index(idx, "ignore")
            skip[self._root == self._root[k]] = True  # a compound is ignored whole
        return skip

    def raycast(self, start: Any, end: Any, ignore: Any = ()) -> RayHit | None:
        """The nearest body the segment ``start (2,)`` -> ``end (2,)`` enters, or None.

        Bodies in ``ignore`` are skipped (any row of a compound skips all of it); points and
        segments are hit within ``QUERY_PICK_RADIUS`` of the ray. A compound is reported by
        its root.
        """
        from collision.segment import raycast_kernel

        s = _vector(start, "start")
        e = _vector(end, "end")
        skip = self._skip_mask(ignore)
        wv = self.world_vertices()
        body, t, nx, ny = raycast_kernel(
            s[0], s[1], e[0], e[1], wv, self._vertex_count, skip, QUERY_PICK_RADIUS
        )
        if body < 0:
            return None
        t = float(t)
        return RayHit(int(self._root[body]), t, s + t * (e - s), np.array([nx, ny], dtype=np.float64))

    def raycast_all(self, start: Any, end: Any, ignore: Any = ()) -> list[RayHit]:
        """Every body the segment enters, nearest first (see :meth:`raycast`); a compound once,
        at its nearest part's hit, by its root."""
        from collision.segment import raycast_all_kernel

        s = _vector(start, "start")
        e = _vector(end, "end")
        skip = self._skip_mask(ignore)
        wv = self.world_vertices()
        bodies, ts, normals = raycast_all_kernel(
            s[0], s[1], e[0], e[1], wv, self._vertex_count, skip, QUERY_PICK_RADIUS
        )
        hits = []
        seen = set()
        for b, t, nrm in zip(bodies, ts, normals, strict=True):
            r = int(self._root[b])
            if r in seen:  # a compound: its nearest part's hit only
                continue
            seen.add(r)
            hits.append(RayHit(r, float(t), s + float(t) * (e - s), np.array(nrm, dtype=np.float64)))
        return hits

    def query_point(self, p: Any) -> list[int]:
        """Indices (ascending) of the bodies containing world point ``p (2,)``; points and
        segments count within ``QUERY_PICK_RADIUS``; a compound is reported by its root."""
        q = _vector(p, "p")
        wv = self.world_vertices()
        found = query_point_kernel(wv, self._vertex_count, q[0], q[1], QUERY_PICK_RADIUS)
        return sorted({int(self._root[i]) for i in found})
