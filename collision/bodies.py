"""The body store: every body's state as structure-of-arrays rows, grown by doubling.

:class:`Bodies` is the record compiled code receives: one array per field, one row per body
(``n`` rows), read and written in place. :class:`BodyStore` owns arrays with room for more rows
than are used, so adding a body is amortised O(1) (the capacity doubles when it runs out), and
hands out a ``Bodies`` of views of the first ``n`` rows. Removing a body's rows is done in one
place, :meth:`BodyStore.remove`; rows past ``n`` are kept zero.

Rows and bodies: a plain body is one row. A compound body (several convex parts) is a run of
consecutive rows whose ``root`` is the first of them: the root row holds the body's pose,
velocity, mass and inertia; the other rows mirror its pose and carry a part's shape.

The compiled steps every solver's world step shares live here too: checking the live state
(:func:`state_in_range`), integrating forces (:func:`integrate_forces`), keeping the state in
bounds (:func:`keep_in_bounds`) and mirroring a compound's root into its parts
(:func:`sync_parts`), gathered into the step's opening and closing (:func:`open_step`,
:func:`close_step`) that each solver's step calls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from collision import checks
from collision.geometry import wrap_angle, wrap_angles
from collision.kernels import compiled_only, stage
from collision.records import StepContext
from collision.shapes import MAX_VERTICES
from collision.tolerances import (
    MAX_ANGULAR_SPEED,
    MAX_COORDINATE,
    MAX_DENSITY,
    MAX_SPEED,
    MIN_INERTIA,
    MIN_MASS,
    STATE_LIMIT_FACTOR,
)


class Bodies(NamedTuple):
    """The rows of the body store (``n`` rows; views into :class:`BodyStore`'s arrays).

    Pose and motion: ``position (n, 2)`` centroid (units), ``angle (n,)`` radians CCW,
    ``velocity (n, 2)`` units/s, ``angular_velocity (n,)`` rad/s CCW; ``force (n, 2)`` (N) and
    ``torque (n,)`` (N units) accumulated for the next step. Mass: ``mass``, ``inertia (n,)``
    (about the centroid) and their inverses ``inv_mass``, ``inv_inertia (n,)`` (0 for static
    and kinematic bodies, for a compound's part rows, and ``inv_inertia`` for a body whose
    rotation is fixed). Kind: ``static``, ``kinematic``, ``sleeping (n,) bool``; ``root (n,)
    int64`` each row's body (itself for a plain body). Shape: ``local_vertices (n,
    MAX_VERTICES, 2)`` centroid-relative (in the root's frame for a compound's part),
    ``world_vertices`` the same in world space (refreshed by the steps that need them),
    ``vertex_count (n,) int64``, ``radius (n,)`` the largest vertex distance from the centroid.
    Material: ``friction``, ``restitution``, ``static_friction (n,)``.
    """

    position: np.ndarray
    angle: np.ndarray
    velocity: np.ndarray
    angular_velocity: np.ndarray
    force: np.ndarray
    torque: np.ndarray
    mass: np.ndarray
    inertia: np.ndarray
    inv_mass: np.ndarray
    inv_inertia: np.ndarray
    static: np.ndarray
    kinematic: np.ndarray
    sleeping: np.ndarray
    root: np.ndarray
    local_vertices: np.ndarray
    world_vertices: np.ndarray
    vertex_count: np.ndarray
    radius: np.ndarray
    friction: np.ndarray
    restitution: np.ndarray
    static_friction: np.ndarray


#: Each field's trailing shape and dtype.
_FIELDS: dict[str, tuple[tuple[int, ...], type]] = {
    "position": ((2,), np.float64),
    "angle": ((), np.float64),
    "velocity": ((2,), np.float64),
    "angular_velocity": ((), np.float64),
    "force": ((2,), np.float64),
    "torque": ((), np.float64),
    "mass": ((), np.float64),
    "inertia": ((), np.float64),
    "inv_mass": ((), np.float64),
    "inv_inertia": ((), np.float64),
    "static": ((), np.bool_),
    "kinematic": ((), np.bool_),
    "sleeping": ((), np.bool_),
    "root": ((), np.int64),
    "local_vertices": ((MAX_VERTICES, 2), np.float64),
    "world_vertices": ((MAX_VERTICES, 2), np.float64),
    "vertex_count": ((), np.int64),
    "radius": ((), np.float64),
    "friction": ((), np.float64),
    "restitution": ((), np.float64),
    "static_friction": ((), np.float64),
}
assert tuple(_FIELDS) == Bodies._fields

#: Rows the store makes room for at first.
INITIAL_CAPACITY = 16

#: Squared distance from the origin within which ``keep_in_bounds`` leaves a position alone.
_WELL_INSIDE_SQ = (0.5 * MAX_COORDINATE) ** 2


def _allocate(capacity: int) -> dict[str, np.ndarray]:
    return {name: np.zeros((capacity, *shape), dtype=dtype) for name, (shape, dtype) in _FIELDS.items()}


def _whole(arrays: dict[str, np.ndarray]) -> Bodies:
    """Every row of ``arrays`` (in use or not) as a :class:`Bodies`, for writing new rows."""
    return Bodies(*(arrays[name] for name in Bodies._fields))


def readonly(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a``."""
    v = a.view()
    v.flags.writeable = False
    return v


class StoreField:
    """A class attribute that is one field of the rows of the :class:`BodyStore` its owner
    keeps as ``_store`` (a World): the live array itself (``live``: writable, the owner's
    state) or a read-only view of it. Fetch it again after adding or removing bodies."""

    def __init__(self, field: str, live: bool, doc: str) -> None:
        self.field = field
        self.live = live
        self.name = field
        self.__doc__ = doc + (" The live array." if live else " Read-only.")

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, owner: Any, kind: type | None = None) -> Any:
        if owner is None:
            return self
        rows = getattr(owner._store.rows, self.field)
        return rows if self.live else readonly(rows)

    def __set__(self, owner: Any, value: Any) -> None:
        if self.live:
            raise AttributeError(
                f"{self.name}: write into the array ({self.name}[i] = ...), not the attribute"
            )
        raise AttributeError(f"{self.name} is read-only")


@dataclass(frozen=True)
class BodyArguments:
    """What a new body's rows are made of besides its shape, checked (see :meth:`checked`)."""

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

    @classmethod
    def checked(
        cls,
        position: Any,
        angle: Any,
        velocity: Any,
        angular_velocity: Any,
        density: Any,
        kind: tuple[Any, Any],
        materials: tuple[Any, Any, Any],
        defaults: tuple[float, float, float],
    ) -> BodyArguments:
        """``World.add_body``'s and ``add_compound``'s arguments checked (ValueError naming them):
        ``kind`` (static, kinematic), ``materials`` (friction, restitution, static friction;
        None takes the world's ``defaults``). A static body (or one of density 0 that is not
        kinematic) gets no velocity."""
        pos = checks.vector(position, "position")
        ang = checks.number(angle, "angle")
        vel = checks.vector(velocity, "velocity", MAX_SPEED, "MAX_SPEED")
        omega = checks.number(
            angular_velocity, "angular_velocity", minimum=-MAX_ANGULAR_SPEED, maximum=MAX_ANGULAR_SPEED
        )
        dens = checks.number(density, "density", minimum=0.0, maximum=MAX_DENSITY)
        friction, restitution, static_friction = materials
        fr = defaults[0] if friction is None else checks.material(friction, "friction")
        re = defaults[1] if restitution is None else checks.material(restitution, "restitution", maximum=1.0)
        sf = defaults[2] if static_friction is None else checks.material(static_friction, "static_friction")
        is_kinematic = checks.boolean(kind[1], "kinematic")
        if checks.boolean(kind[0], "static") and is_kinematic:
            raise ValueError(
                "static = True, kinematic = True: a body is either static or kinematic, not both"
            )
        is_static = bool(kind[0]) or (dens == 0.0 and not is_kinematic)
        if is_static:
            vel = np.zeros(2)
            omega = 0.0
        return cls(pos, ang, vel, omega, dens, is_static, is_kinematic, fr, re, sf)

    def checked_mass(self, mass: float, inertia: float) -> tuple[float, float]:
        """(mass, inertia) of a dynamic body, refused when their inverses would overflow;
        (0, 0) for static and kinematic bodies (infinite mass)."""
        if self.static or self.kinematic:
            return 0.0, 0.0
        dens = self.density
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


class BodyStore:
    """Owner of the body arrays: room for ``capacity`` rows, of which the first ``count`` are
    bodies. ``rows`` is the :class:`Bodies` of those ``count`` rows (views: writing to them
    writes the store; fetch ``rows`` again after :meth:`append` or :meth:`remove`)."""

    def __init__(self) -> None:
        self._arrays = _allocate(0)
        self._whole = _whole(self._arrays)
        self._count = 0
        # The views of the rows in use, made when first asked for after a change: adding bodies
        # one by one then costs no 21 new views each.
        self._rows: Bodies | None = None
        self._fields: tuple[np.ndarray, ...] = ()
        #: Any compound (a body of several rows) or kinematic body: steps skip their extra work
        #: without.
        self.has_compounds = False
        self.has_kinematic = False

    @property
    def count(self) -> int:
        """Rows in use."""
        return self._count

    @property
    def capacity(self) -> int:
        """Rows the arrays have room for."""
        return int(self._arrays["angle"].shape[0])

    @property
    def rows(self) -> Bodies:
        """The :class:`Bodies` of the rows in use."""
        if self._rows is None:
            n = self._count
            self._fields = tuple(self._arrays[name][:n] for name in Bodies._fields)
            self._rows = Bodies(*self._fields)
        return self._rows

    @property
    def fields(self) -> tuple[np.ndarray, ...]:
        """``rows`` as a plain tuple, for compiled code called from Python (collision.records)."""
        if self._rows is None:
            return tuple(self.rows)
        return self._fields

    def append(self, count: int) -> int:
        """Make ``count`` more rows (zero everywhere, ``root`` pointing at the first of them) and
        return the index of the first. The arrays double in size when they run out of room."""
        n = self._count
        if n + count > self.capacity:
            grown = _allocate(max(2 * self.capacity, n + count, INITIAL_CAPACITY))
            for name, array in self._arrays.items():
                grown[name][:n] = array[:n]
            self._arrays = grown
            self._whole = _whole(grown)
        self._arrays["root"][n : n + count] = n
        self._count = n + count
        self._rows = None
        if count > 1:
            self.has_compounds = True
        return n

    def append_body(
        self,
        args: BodyArguments,
        locals_: list[np.ndarray],
        radii: list[float],
        mass: float,
        inertia: float,
    ) -> int:
        """Append one body of ``len(locals_)`` rows (the first is the root, holding the mass and
        inertia; the others are parts mirroring it) with local vertices ``locals_`` (each ``(k,
        2)``, centroid-relative) and ``radii``; return the root's index."""
        count = len(locals_)
        n = self.append(count)
        rows = slice(n, n + count)
        b = self._whole
        b.position[rows] = args.position
        b.angle[rows] = wrap_angle(args.angle)
        b.velocity[rows] = args.velocity
        b.angular_velocity[rows] = args.angular_velocity
        b.mass[n] = mass
        b.inertia[n] = inertia
        b.inv_mass[n] = 1.0 / mass if mass > 0.0 else 0.0
        b.inv_inertia[n] = 1.0 / inertia if inertia > 0.0 else 0.0
        b.static[rows] = args.static
        b.kinematic[rows] = args.kinematic
        for r, (local, radius) in enumerate(zip(locals_, radii, strict=True)):
            k = local.shape[0]
            b.local_vertices[n + r, :k] = local
            b.vertex_count[n + r] = k
            b.radius[n + r] = radius
        b.friction[rows] = args.friction
        b.restitution[rows] = args.restitution
        b.static_friction[rows] = args.static_friction
        if args.kinematic:
            self.has_kinematic = True
        return n

    def remove(self, first: int, count: int) -> None:
        """Remove rows ``first .. first + count - 1`` (one body's): the rows after them move
        down by ``count``, and so do the ``root`` indices that pointed past them."""
        n = self._count
        last = first + count
        for array in self._arrays.values():
            array[first : n - count] = array[last:n]
            array[n - count : n] = 0
        self._count = n - count
        self._rows = None
        rows = self.rows
        rows.root[rows.root > first] -= count
        self.has_compounds = bool((rows.root != np.arange(self._count)).any())
        self.has_kinematic = bool(rows.kinematic.any())


def check_state(rows: Bodies) -> None:
    """The exact check of the live state (the user may write into it) as a step's input:
    ValueError naming the first entry that is not finite or is beyond ``STATE_LIMIT_FACTOR``
    times its limit (a step would overflow from it)."""
    limits = {
        "position": STATE_LIMIT_FACTOR * MAX_COORDINATE,
        "angle": STATE_LIMIT_FACTOR * MAX_COORDINATE,
        "velocity": STATE_LIMIT_FACTOR * MAX_SPEED,
        "angular_velocity": STATE_LIMIT_FACTOR * MAX_ANGULAR_SPEED,
    }
    for name, limit in limits.items():
        a = getattr(rows, name)
        size = np.abs(a) if a.ndim == 1 else np.hypot(a[:, 0], a[:, 1])
        if not (size <= limit).all():  # also catches NaN
            bad = int(np.argmin(size <= limit))
            shown = np.array2string(a[bad], precision=6) if a.ndim > 1 else f"{a[bad]:.6g}"
            raise ValueError(f"{name}[{bad}] = {shown}: must be finite and at most {limit:g} in size")


# ---------------------------------------------------------------------------------------------
# Compiled steps on the store
# ---------------------------------------------------------------------------------------------


@compiled_only()
def integrate_forces(bodies: Bodies, gravity_x: float, gravity_y: float, dt: float) -> None:
    """v += (g + F / m) dt and w += tau / I dt for dynamic awake bodies; forces are cleared.

    Static bodies get zero velocity: they never move, whatever was written into their rows.
    Rows of infinite mass that move (kinematic bodies, and the parts of a compound, which
    mirror their root's row) keep their velocity: no gravity, no forces. A dynamic body's
    inverse mass is never 0 (``MIN_MASS``), so it tells them apart.
    """
    velocity = bodies.velocity
    angular_velocity = bodies.angular_velocity
    force = bodies.force
    torque = bodies.torque
    inv_mass = bodies.inv_mass
    inv_inertia = bodies.inv_inertia
    static = bodies.static
    sleeping = bodies.sleeping
    for i in range(velocity.shape[0]):
        if static[i]:
            velocity[i, 0] = 0.0
            velocity[i, 1] = 0.0
            angular_velocity[i] = 0.0
        elif inv_mass[i] > 0.0 and not sleeping[i]:
            velocity[i, 0] += (gravity_x + force[i, 0] * inv_mass[i]) * dt
            velocity[i, 1] += (gravity_y + force[i, 1] * inv_mass[i]) * dt
            angular_velocity[i] += torque[i] * inv_inertia[i] * dt
        force[i, 0] = 0.0
        force[i, 1] = 0.0
        torque[i] = 0.0


@compiled_only()
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

    One pass without temporaries (the step's own check, every step); the world then says
    which entry is wrong.
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


@stage()
def open_step(bodies: Bodies, context: StepContext, check: bool) -> bool:
    """The world's part of a step before the response, called by the solver's compiled step
    (one call into compiled code per step: each call costs time in a small world): when the
    state is in range (``state_in_range`` with the STATE_LIMIT_FACTOR limits; not checked
    without ``check``), wrap the angles, integrate forces (with the step context's ``dt`` and
    gravity) and, with ``has_compounds``, mirror compound roots into their parts; return True.
    Otherwise change nothing and return False."""
    if check and not state_in_range(
        bodies.position,
        bodies.angle,
        bodies.velocity,
        bodies.angular_velocity,
        STATE_LIMIT_FACTOR * MAX_COORDINATE,
        STATE_LIMIT_FACTOR * MAX_SPEED,
        STATE_LIMIT_FACTOR * MAX_ANGULAR_SPEED,
    ):
        return False
    wrap_angles(bodies.angle)
    integrate_forces(bodies, context.gravity_x, context.gravity_y, context.dt)
    if context.has_compounds:
        sync_parts(bodies)
    return True


@njit(cache=True)
def begin_step(fields: tuple, context_fields: tuple, check: bool) -> bool:
    """:func:`open_step` called from Python: ``fields``, ``context_fields`` the body store's
    rows and the step context as plain tuples (collision.records)."""
    return open_step(Bodies(*fields), StepContext(*context_fields), check)


@stage()
def close_step(bodies: Bodies, has_compounds: bool) -> None:
    """The world's part of a step after the response, called by the solver's compiled step:
    the state kept in bounds (:func:`keep_in_bounds`) and, with ``has_compounds``, compound
    roots mirrored into their parts."""
    keep_in_bounds(bodies)
    if has_compounds:
        sync_parts(bodies)


@njit(cache=True)
def end_step(fields: tuple, has_compounds: bool) -> None:
    """:func:`close_step` called from Python (``fields``: the body store's rows as a plain tuple)."""
    close_step(Bodies(*fields), has_compounds)


@compiled_only()
def keep_in_bounds(bodies: Bodies) -> None:
    """The end of every step: each speed is cut to ``MAX_SPEED`` and each angular speed to
    ``MAX_ANGULAR_SPEED`` (a speed that is not finite becomes 0), and a body that left the
    world's disc of radius ``MAX_COORDINATE`` is put back on its edge with its outward speed
    removed. So a step always leaves a state within the limits ``World.add_body`` accepts,
    which the next step accepts too: a world never locks itself up, whatever gravity, forces
    and collisions did (bodies far inside the limits are left bit-identical).
    """
    position = bodies.position
    velocity = bodies.velocity
    angular_velocity = bodies.angular_velocity
    for i in range(position.shape[0]):
        vx = velocity[i, 0]
        vy = velocity[i, 1]
        speed_sq = vx * vx + vy * vy
        if not speed_sq <= MAX_SPEED * MAX_SPEED:
            if math.isfinite(speed_sq):
                scale = MAX_SPEED / math.sqrt(speed_sq)
                velocity[i, 0] = vx * scale
                velocity[i, 1] = vy * scale
            else:  # NaN, or components so large their squares overflow
                speed = math.hypot(vx, vy)
                scale = MAX_SPEED / speed if math.isfinite(speed) else 0.0
                velocity[i, 0] = vx * scale if math.isfinite(vx) else 0.0
                velocity[i, 1] = vy * scale if math.isfinite(vy) else 0.0
        w = angular_velocity[i]
        if not abs(w) <= MAX_ANGULAR_SPEED:
            angular_velocity[i] = math.copysign(MAX_ANGULAR_SPEED, w) if w == w else 0.0
        px = position[i, 0]
        py = position[i, 1]
        # hypot is exact but slow, and a body well inside needs none: half the radius leaves
        # the squares' rounding far from the edge (NaN and overflow go on to hypot).
        if px * px + py * py <= _WELL_INSIDE_SQ:
            continue
        reach = math.hypot(px, py)
        if reach > MAX_COORDINATE:
            ux = px / reach
            uy = py / reach
            # Just inside the edge: the rounding of the product must not leave it outside.
            position[i, 0] = ux * (MAX_COORDINATE * (1.0 - 1e-15))
            position[i, 1] = uy * (MAX_COORDINATE * (1.0 - 1e-15))
            outward = velocity[i, 0] * ux + velocity[i, 1] * uy
            if outward > 0.0:
                velocity[i, 0] -= outward * ux
                velocity[i, 1] -= outward * uy


@compiled_only()
def sync_parts(bodies: Bodies) -> None:
    """Copy every compound root's pose, velocity and sleeping flag into its part rows.

    A part's local vertices are in the root's frame (relative to the compound's centre of
    mass), so with the root's pose it is placed exactly.
    """
    root = bodies.root
    for i in range(root.shape[0]):
        if root[i] != i:
            _copy_motion(bodies, root[i], i)


@njit(cache=True, inline="always")
def _copy_motion(bodies: Bodies, source: int, row: int) -> None:
    """Row ``source``'s pose, velocity and sleeping flag into row ``row``."""
    for d in range(2):
        bodies.position[row, d] = bodies.position[source, d]
        bodies.velocity[row, d] = bodies.velocity[source, d]
    bodies.angle[row] = bodies.angle[source]
    bodies.angular_velocity[row] = bodies.angular_velocity[source]
    bodies.sleeping[row] = bodies.sleeping[source]


@njit(cache=True)
def mirror_parts(fields: tuple) -> None:
    """:func:`sync_parts` of the store's rows given as a plain tuple (called from Python)."""
    sync_parts(Bodies(*fields))
