"""What a solver is: the protocol every response of the world follows, and its step context.

A world step integrates forces into velocities, then hands the body store to the active
solver, which finds the contacts, responds to them and moves the bodies to the end of the
step. A solver is an object with

- ``step(bodies, settings, context) -> Contacts | None``: advance ``bodies``
  (:class:`~collision.bodies.Bodies`, read and written in place) by ``context.dt`` seconds
  (:class:`~collision.records.StepContext`) with ``settings`` (its settings class's instance,
  which the world owns) and return the step's contact points. The whole step: it opens with
  the world's part (:func:`~collision.bodies.open_step`: the state checked, forces
  integrated) and closes with it (:func:`~collision.bodies.close_step`: the state kept in
  bounds), so a solver that runs in one compiled call crosses into compiled code once per
  step. When the opening finds the state out of range it returns None, changing nothing;
- ``reset()``: forget whatever it keeps between steps (body indices changed).

A solver reads only what it is given, never the world's own fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from collision.records import StepContext

if TYPE_CHECKING:
    from collision.bodies import Bodies
    from collision.contacts import Contacts


class Solver(Protocol):
    """A world's response (see the module docstring)."""

    def step(self, bodies: Bodies, settings: Any, context: StepContext) -> Contacts | None: ...

    def reset(self) -> None: ...


__all__ = ["Solver", "StepContext"]
