"""User input turned into checked numbers and arrays, once, naming the argument.

Every public function of the engine checks its arguments here (shapes have their own, richer
check in collision.shapes). A refusal is a ``ValueError`` whose message starts with the
argument's name and value and says what was wrong: ``dt = -1.0: must be > 0``. Past these
checks, kernels trust their input: the limits in collision.tolerances keep every product the
step forms far from overflow, so nothing inside returns NaN.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from collision.tolerances import MAX_COORDINATE


def number(
    value: Any,
    name: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    above: float | None = None,
) -> float:
    """``value`` as a finite float, at least ``minimum``, at most ``maximum`` and greater than
    ``above`` (each when given)."""
    if isinstance(value, str | bytes):
        raise ValueError(f"{name} = {value!r}: must be a real number")
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} = {value!r}: must be a real number") from None
    if not math.isfinite(x):
        raise ValueError(f"{name} = {value!r}: must be finite")
    if minimum is not None and maximum is not None and not minimum <= x <= maximum:
        raise ValueError(f"{name} = {value!r}: must be in [{minimum:g}, {maximum:g}]")
    if minimum is not None and x < minimum:
        raise ValueError(f"{name} = {value!r}: must be >= {minimum:g}")
    if maximum is not None and x > maximum:
        raise ValueError(f"{name} = {value!r}: must be <= {maximum:g}")
    if above is not None and not x > above:
        raise ValueError(f"{name} = {value!r}: must be > {above:g}")
    return x


def material(value: Any, name: str, maximum: float | None = None) -> float:
    """A material coefficient (friction, restitution, ...): a finite number >= 0, at most
    ``maximum`` when given."""
    return number(value, name, minimum=0.0, maximum=maximum)


def integer(value: Any, name: str, minimum: int, maximum: int) -> int:
    """``value`` as an int in ``[minimum, maximum]`` (a bool is not an integer here)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} = {value!r}: must be an integer")
    n = int(value)
    if not minimum <= n <= maximum:
        raise ValueError(f"{name} = {value!r}: must be in [{minimum}, {maximum}]")
    return n


def boolean(value: Any, name: str) -> bool:
    """``value`` as a bool: only ``True`` or ``False`` (numpy's too) are accepted."""
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} = {value!r}: must be True or False")
    return bool(value)


def vector(
    value: Any, name: str, limit: float = MAX_COORDINATE, limit_name: str = "MAX_COORDINATE"
) -> np.ndarray:
    """``value`` as a finite ``(2,) float64`` vector no longer than ``limit`` (the constant
    ``limit_name`` of collision.tolerances; ``math.inf`` for no limit): beyond those limits,
    products inside the step would overflow to inf or NaN."""
    if isinstance(value, str | bytes):
        raise ValueError(f"{name} = {value!r}: must be a 2-vector of real numbers")
    try:
        v = np.array(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} = {value!r}: must be a 2-vector of real numbers") from None
    if v.shape != (2,):
        raise ValueError(f"{name} = {value!r}: must be a 2-vector, got shape {v.shape}")
    if not np.isfinite(v).all():
        raise ValueError(f"{name} = {value!r}: must be finite")
    if math.hypot(v[0], v[1]) > limit:
        raise ValueError(f"{name} = {value!r}: is longer than {limit_name} = {limit:g}")
    return v


def point(value: Any, name: str) -> np.ndarray:
    """``value`` as a finite ``(2,) float64`` point whose coordinates are at most
    ``MAX_COORDINATE`` in size, as a shape's vertices must be."""
    p = vector(value, name, math.inf)
    if np.abs(p).max() > MAX_COORDINATE:
        raise ValueError(f"{name} = ({p[0]:g}, {p[1]:g}): is beyond MAX_COORDINATE = {MAX_COORDINATE:g}")
    return p


def index(value: Any, name: str, count: int) -> int:
    """``value`` as an index in ``[0, count)`` of a body (or row) of a world of ``count``."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} = {value!r}: must be a body index (int)")
    k = int(value)
    if not 0 <= k < count:
        raise ValueError(f"{name} = {k}: no such body (body_count = {count})")
    return k
