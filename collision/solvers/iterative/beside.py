"""Serial work of a big world's step run side by side on two threads.

Most of a big world's step runs on every thread (the narrowphase, the packing, the passes),
but some of it is serial: the passes' colouring, restitution's Gauss-Seidel over the step's
impacts, and the shock propagation's walk from the ground up. Where two of those read nothing
the other writes, they run at once, one on each of two threads (a parallel loop of two
iterations, each a task; collision.tasks hands their arguments across):

- the colouring (soft_step.colour_rows) beside the shock's walk (shock.shock_walk: layers,
  holds), which reads only the contacts and the masses, before the soft step;
- the stop passes' rows but their touch flags (shock_rows.stop_values: contacts and masses)
  beside the shock's travels, loads and lift (shock.shock_travel, shock.shock_loads,
  shock.lift_planned: the pose), after it, and restitution (velocities and impulses) on both
  threads as they come free: its groups, which share no moving body, in chunks each thread
  takes in turn (restitution_apart.resolve_taken), so that a landing's long restitution does not
  keep the lift's thread waiting; the touch flags, which read the travels, follow on every
  thread (shock_rows.stop_touches). A big impact (IMPACTS_THREADED manifolds or more: a
  rain of bodies landing together) is resolved first instead, on every thread;
- the shock's stop passes (velocities) beside the packing of the step's contacts
  (store.pack_contacts: points and impulses), which the step would otherwise pack at its end
  (what runs between, the continuous pass and the islands, changes neither).

The results are those of the serial order, bit for bit, whatever the threads.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from collision.kernels import compiled_only, stage
from collision.solvers.iterative.colours import kept_size, kept_views
from collision.solvers.iterative.restitution_apart import (
    IMPACTS_THREADED,
    apply_restitution_apart,
    impacts_apart,
    resolve_taken,
    taken_chunks,
)
from collision.solvers.iterative.shock import (
    lift_planned,
    propagate_shock,
    shock_loads,
    shock_travel,
    shock_walk,
    topology_room,
    travel_room,
)
from collision.solvers.iterative.shock_rows import stop_pass, stop_room, stop_touches, stop_values
from collision.solvers.iterative.soft_step import colour_rows
from collision.solvers.iterative.store import pack_contacts, pack_contacts_into, packed_room
from collision.tasks import flat_leaves, nesting_token, rebuilt_value

#: Chunks per thread a small impact's groups are cut into (restitution_apart.taken_chunks): fine
#: enough that the threads end together within a chunk or so.
TAKEN_CHUNKS = 8


@compiled_only()
def _colour_or_topology(task: int, flat: tuple, token: Any, found: np.ndarray) -> None:
    """Task 0: the colouring, kept in ``room``; ``found[0]`` 1 if it is the ``kept`` order it
    was given (it held), 0 if it is in ``room``, 2 if neither (room too small: it cannot leave
    the loop), and ``found[1]`` its length. Task 1: the shock's walk, ``found[2]`` 1 if a
    manifold holds a body. The arguments ``(colour, shock, topology, room)``
    (see :func:`colour_beside_topology`) from ``flat`` and ``token`` (collision.tasks)."""
    colour, shock, topology, room = rebuilt_value(flat, token)
    if task == 0:
        prepared, manifolds, inv_mass, inv_inertia, threads, kept = colour
        made = colour_rows(prepared, manifolds, inv_mass, inv_inertia, threads, kept, room)[4]
        if made.ctypes.data == kept.ctypes.data:
            found[0] = 1
        else:
            found[0] = 0 if made.ctypes.data == room.ctypes.data else 2
        found[1] = made.shape[0]
    else:
        masses, contacts, settings = shock
        found[2] = 1 if shock_walk(masses, contacts, settings, topology) else 0


# The tasks' answers go into an array the caller made and reads: made and read back inside the
# parallel kernel, it read as made (zeros) although a task had written it from within a call.
@compiled_only(parallel=True)
def _colour_and_topology(tasks: tuple, found: np.ndarray) -> None:
    """:func:`_colour_or_topology`'s two tasks on two threads."""
    flat = flat_leaves(tasks)
    token = nesting_token(tasks)
    for task in prange(2):
        _colour_or_topology(task, flat, token, found)


@stage()
def colour_beside_topology(colour: tuple, shock: tuple, threads: int) -> tuple[tuple, tuple, bool]:
    """The passes' order (soft_step.colour_rows, ``colour`` its arguments but the room) and,
    on two threads or more, beside it the shock's walk (shock.shock_walk; ``shock`` =
    ``(masses, contacts, settings)`` as propagate_shock takes them). Returns ``(colouring,
    topology, holds)``: colour_rows' answer, the topology (see shock.topology_room; its loads
    not yet found) and whether a manifold holds a body (False with fewer than two threads:
    nothing was found, and :func:`respond_beside` then runs the shock in full)."""
    prepared, manifolds, inv_mass, inv_inertia, _, kept = colour
    n = inv_mass.shape[0]
    groups = manifolds.offsets.shape[0] - 1
    topology = topology_room(n, groups)
    if threads < 2:
        no_room = np.empty(0, dtype=np.int64)
        return (
            colour_rows(prepared, manifolds, inv_mass, inv_inertia, threads, kept, no_room),
            topology,
            False,
        )
    room = np.empty(kept_size(groups, n, prepared.body_a.shape[0]), dtype=np.int64)
    found = np.zeros(3, dtype=np.int64)
    _colour_and_topology((colour, shock, topology, room), found)
    if found[0] == 2:  # a guard (kept_size bounds a colour order): made again here, on this thread
        no_room = np.empty(0, dtype=np.int64)
        colouring = colour_rows(prepared, manifolds, inv_mass, inv_inertia, threads, kept, no_room)
        return colouring, topology, found[2] == 1
    made = kept if found[0] == 1 else room[: found[1]]
    order, starts, link, perm = kept_views(made)
    return (order, starts, link, perm, made), topology, found[2] == 1


@compiled_only()
def _restitution_or_lift(task: int, flat: tuple, token: Any, found: np.ndarray) -> None:
    """Task 0: the shock's travels and, where a point is deep and a manifold ``holds`` a body,
    the loads and, if one is loaded, the lift; ``found[0]`` 1 if lifted. Task 1: if a
    manifold ``holds`` a body (else there is no lift and no stop pass), the stop rows but their
    touch flags into ``stops``. Then both: restitution's chunks, as they take them
    (restitution_apart.resolve_taken). The arguments ``(apart, shock, travelled, topology, holds,
    stops)`` (see :func:`respond_beside`; ``apart`` = ``(motion, impact, totals, groups,
    chunks)``) from ``flat`` and ``token``."""
    apart, shock, travelled, topology, holds, stops = rebuilt_value(flat, token)
    if task == 0:
        pose, _, start, masses, contacts, settings = shock
        deep = shock_travel(pose, start, contacts, settings, travelled)
        if deep and holds and shock_loads(masses, settings, topology):
            lift_planned(pose, masses, contacts, settings, travelled, topology)
            found[0] = 1
    elif holds:
        _, _, _, masses, (points, prepared, _), _ = shock
        link, order, layer, held, _ = topology
        stop_values(points, prepared, (link, order, layer), held, masses, stops)
    resolve_taken(*apart)


@compiled_only(parallel=True)
def _restitution_and_lift(tasks: tuple, found: np.ndarray) -> None:
    """:func:`_restitution_or_lift`'s two tasks on two threads."""
    flat = flat_leaves(tasks)
    token = nesting_token(tasks)
    for task in prange(2):
        _restitution_or_lift(task, flat, token, found)


@compiled_only()
def _stops_or_pack(task: int, flat: tuple, token: Any) -> None:
    """Task 0: the shock's stop passes; task 1: the step's contacts packed. The arguments
    ``(stops, store, packed)`` (see :func:`respond_beside`) from ``flat`` and ``token``."""
    (velocity, rows, passes), store, packed = rebuilt_value(flat, token)
    if task == 0:
        for _ in range(passes):
            stop_pass(velocity, rows)
    else:
        points, c, prepared, totals, point_rows = store
        pack_contacts_into(points, c, prepared, totals, point_rows, packed)


@compiled_only(parallel=True)
def _stops_and_pack(tasks: tuple) -> None:
    """:func:`_stops_or_pack`'s two tasks on two threads."""
    flat = flat_leaves(tasks)
    token = nesting_token(tasks)
    for task in prange(2):
        _stops_or_pack(task, flat, token)


@stage()
def respond_beside(
    restitution: tuple, shock: tuple, found: tuple, store: tuple, threads: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Restitution (``restitution``: apply_restitution's arguments; its impact resolved group
    by group, restitution_apart.apply_restitution_apart) then the shock (``shock``:
    propagate_shock's arguments), the walk ``found`` = ``(topology, holds)`` by
    :func:`colour_beside_topology`, then the step's contacts packed (``store``:
    store.pack_contacts' arguments), which it returns: on two threads or more, the stop rows'
    values beside the shock's travels and lift and restitution's groups on both threads as
    they come free (a big impact first instead, on every thread), then the rows' touch flags
    on every thread, then the stop passes beside the packing (which reads no velocity); else
    one after the other in full."""
    points, c, prepared, totals, rows = store
    motion, impact, _, impact_totals, _ = restitution
    groups = impacts_apart(*restitution)
    if threads < 2:
        apply_restitution_apart(motion, impact, impact_totals, groups, threads)
        propagate_shock(*shock)
        return pack_contacts(points, c, prepared, totals, rows)
    # A big impact (a rain of bodies landing together) on every thread before the shock's
    # lift, a small one beside it.
    resolved = groups[0].shape[0] >= IMPACTS_THREADED
    if resolved:
        apply_restitution_apart(motion, impact, impact_totals, groups, threads)
    chunks = taken_chunks(groups, impact_totals[0].shape[0], 0 if resolved else TAKEN_CHUNKS * threads)
    apart = (motion, impact, impact_totals, groups, chunks)
    topology, holds = found
    pose, velocity, _, _, _, settings = shock
    travelled = travel_room(pose[0].shape[0], prepared.body_a.shape[0])
    lifted = np.zeros(1, dtype=np.int64)
    stops = stop_room(topology[1].shape[0])
    _restitution_and_lift((apart, shock, travelled, topology, holds, stops), lifted)
    packed = packed_room(c)
    if lifted[0] == 1:
        link, order, layer, _, _ = topology
        stop_touches(travelled[0], points, prepared, (link, order, layer), stops)
        _stops_and_pack(((velocity, stops, settings[1]), store, packed))
    else:
        pack_contacts_into(points, c, prepared, totals, rows, packed)
    return packed
