"""Records: named tuples of arrays and scalars that compiled code works on, and the step context.

Compiled code passes records between its stages whole (the body store's rows, a step's
context, a solver's settings and state) and reads their fields by name. Across the boundary
from Python, though, a named tuple is costly: numba works its type out in Python at every call
(measured: 6.9 us for the body store's 21 arrays, against 2.2 us for the same arrays as a plain
tuple, whose type numba's dispatcher recognises in C). So the kernels Python calls take plain
tuples of the fields (``tuple(record)``, or the ``fields`` their owners keep) and name them
again inside (``Bodies(*fields)``, free in compiled code); only those entry kernels do.

Inside compiled code, a loop reads a record's arrays from local variables fetched once before
it: each fetch from the record counts a reference, an atomic operation, which in a loop over
points or pairs cost more than the loop's arithmetic.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from collision.profiling import NOT_PROFILED


class StepContext(NamedTuple):
    """One step's context: ``dt`` (s), gravity ``gravity_x``, ``gravity_y`` (units/s^2), the
    world's ``continuous`` switch, whether the store holds any compound (``has_compounds``)
    or kinematic (``has_kinematic``) body (without, the steps skip the work those need),
    ``crowd``, an ``(1,) int64`` flag the broadphase sets when the step's pairs reached their
    budget (``MAX_PAIRS_PER_BODY``; see :func:`collision.broadphase.candidate_pairs`), and
    ``ticks ((len(STAGES),) int64`` or empty)``: where the solver adds the clock ticks each
    stage took when the world profiles (collision/profiling.py; empty: profiling is off), and
    ``check``: whether the step's opening checks the state is in range (see
    :func:`collision.bodies.open_step`; the world turns it off to run a step again whose fast
    check failed on values that are in range)."""

    dt: float
    gravity_x: float
    gravity_y: float
    continuous: bool
    has_compounds: bool
    has_kinematic: bool
    crowd: np.ndarray
    ticks: np.ndarray = NOT_PROFILED
    check: bool = True
