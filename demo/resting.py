"""The contacts of sleeping bodies, for the picture and the counts.

A solver that puts bodies to sleep stops reporting their contacts: they are not solved any
more. The bodies still rest on each other, and a user looking at a pile asleep on the floor
expects its contacts drawn and counted, as Box2D's samples do. A sleeping body does not move,
so the contacts it had in the step it fell asleep are still where they were: they are kept
here until one of their bodies wakes (the solver then reports the pair again itself).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from collision.contacts import Contacts

_FIELDS = (
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


def _pairs(contacts: Any, n: int) -> np.ndarray:
    """Each row's body pair as one int64, the same whichever body is A."""
    a, b = np.asarray(contacts.body_a, np.int64), np.asarray(contacts.body_b, np.int64)
    return np.minimum(a, b) * n + np.maximum(a, b)


class RestingContacts:
    """Call :meth:`after_step` after each step of a world; :meth:`of` gives that world's contacts
    with the sleeping ones its solver left out. A world replaced, given or losing bodies, or
    stepped elsewhere starts over from what its solver reports."""

    def __init__(self) -> None:
        self._key: tuple[int, int, int] | None = None  # (world id, body count, step count)
        self._contacts: Any = None

    def after_step(self, world: Any) -> None:
        reported = world.contacts
        n = int(world.body_count)
        continued = self._key == (id(world), n, int(world.step_count) - 1) and self._contacts is not None
        held = None
        if continued and len(self._contacts) and n:
            last = self._contacts
            sleeping = np.asarray(world.sleeping, dtype=bool)
            still = sleeping | np.asarray(world.static, dtype=bool)
            a, b = np.asarray(last.body_a, np.int64), np.asarray(last.body_b, np.int64)
            keep = still[a] & still[b] & (sleeping[a] | sleeping[b])
            if len(reported):
                keep &= ~np.isin(_pairs(last, n), _pairs(reported, n))
            if keep.any():
                held = keep
        if held is None:
            self._contacts = reported
        else:
            last = self._contacts

            def rows(name: str) -> np.ndarray:
                kept = np.asarray(getattr(last, name))[held]
                return np.concatenate([np.asarray(getattr(reported, name)), kept])

            self._contacts = Contacts(**{name: rows(name) for name in _FIELDS})
        self._key = (id(world), n, int(world.step_count))

    def of(self, world: Any) -> Any:
        """``world``'s contacts now, sleeping ones included (its own report if it was not
        followed step by step)."""
        if self._key == (id(world), int(world.body_count), int(world.step_count)):
            return self._contacts
        return world.contacts
