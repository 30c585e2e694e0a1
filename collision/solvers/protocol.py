"""What a solver is: the protocol every response of the world follows, and its step context.

A world step integrates forces into velocities, then hands the body store to the active
solver, which finds the contacts, responds to them and moves the bodies to the end of the
step. A solver is an object with

- ``step(bodies, settings, context) -> Contacts``: advance ``bodies`` (:class:`~collision.bodies.Bodies`,
  read and written in place) by ``context.dt`` seconds with ``settings`` (its settings class's
  instance, which the world owns) and return the step's contact points;
- ``reset()``: forget whatever it keeps between steps (body indices changed).

A solver reads only what it is given, never the world's own fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from collision.records import compiled_record

if TYPE_CHECKING:
    from collision.bodies import Bodies
    from collision.contacts import Contacts


@compiled_record
class StepContext(NamedTuple):
    """One step's context: ``dt`` (s), gravity ``gravity_x``, ``gravity_y`` (units/s^2), the
    world's ``continuous`` switch, and whether the store holds any compound (``has_compounds``)
    or kinematic (``has_kinematic``) body (without, the steps skip the work those need)."""

    dt: float
    gravity_x: float
    gravity_y: float
    continuous: bool
    has_compounds: bool
    has_kinematic: bool


class Solver(Protocol):
    """A world's response (see the module docstring)."""

    def step(self, bodies: Bodies, settings: Any, context: StepContext) -> Contacts: ...

    def reset(self) -> None: ...
