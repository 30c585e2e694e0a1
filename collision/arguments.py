"""User arguments that are numbers, vectors, indices and flags, turned into checked values
once, naming the argument.

A refusal is a ``ValueError`` whose message starts with the argument's name and value and says
what was wrong: ``dt = -1.0: must be > 0``. A number is read alike in every form a user may
hand it over (Python and numpy ints and floats of any width, Fractions, 0-d arrays; arrays of
any dtype, byte order, layout and writability); bools, complex numbers, text, containers of the
wrong kind, ragged nesting and integers beyond float64 are refused, and a huge value is named
by its size, never copied into the message. collision.checks re-exports these for the engine.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np

from collision.tolerances import MAX_COORDINATE

#: Longest description of a user's value in a message (characters): a 10 MB string or a
#: 4000-digit integer is named by its type and size, not copied into the message.
SHOWN_LENGTH = 60


def show(value: Any) -> str:
    """A short description of ``value`` for a message: its repr cut to ``SHOWN_LENGTH``
    characters, an integer too long to print by its digit count, an array by shape and dtype.
    Never raises (a value whose repr fails is named by its type)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        digits = int((value.bit_length() - 1) * math.log10(2.0)) + 1
        if abs(value) >= 10**digits:
            digits += 1
        return f"<{'negative ' if value < 0 else ''}int of {digits} digits>"
    if isinstance(value, np.ndarray) and value.size > 4:
        return f"array of shape {value.shape}, dtype {value.dtype}"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 (a user object's repr may raise anything)
        return f"a {type(value).__name__}"
    if len(text) > SHOWN_LENGTH:
        text = f"{text[: SHOWN_LENGTH - 5]}...{text[-2:]}"
    return text


def _not_real(value: Any) -> str | None:
    """Why ``value`` is not a real number (None when it is one)."""
    if isinstance(value, bool | np.bool_):
        return "must be a real number, not a bool"
    if isinstance(value, int | float | np.integer | np.floating | numbers.Real):
        return None
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return _not_real(value[()])
    if isinstance(value, complex | np.complexfloating):
        return "must be a real number, not a complex one"
    return f"must be a real number, not a {type(value).__name__}"


def real(value: Any, name: str) -> float:
    """``value`` as a finite float: a Python or numpy int or float of any width (not a bool,
    a complex number or a string), a ``fractions.Fraction``, or a 0-d array of one. An integer
    or a wide float beyond float64's range is refused as too large (it is not turned into
    inf), NaN and infinities as not finite."""
    if type(value) is float:
        # The common case (World.step's dt every step), without the errstate context below,
        # which costs more than the rest of the step's Python side.
        x = value
    else:
        why = _not_real(value)
        if why is not None:
            raise ValueError(f"{name} = {show(value)}: {why}")
        try:
            with np.errstate(over="ignore"):
                x = float(value)
        except OverflowError:
            x = math.inf
        except Exception as exc:  # noqa: BLE001 (a Real subclass's __float__ may raise anything)
            raise ValueError(f"{name} = {show(value)}: cannot be read as a number ({exc})") from None
    if not math.isfinite(x):
        if _finite_source(value):
            raise ValueError(f"{name} = {show(value)}: is too large (beyond the float64 range)")
        raise ValueError(f"{name} = {show(value)}: must be finite")
    return x


def _finite_source(value: Any) -> bool:
    """Whether ``value`` (a real number that converted to inf or NaN) was finite itself."""
    if isinstance(value, np.ndarray):
        value = value[()]
    if isinstance(value, int | np.integer):
        return True
    if isinstance(value, np.floating):
        return bool(np.isfinite(value))
    if isinstance(value, float):
        return math.isfinite(value)
    return not isinstance(value, numbers.Real) or value == value  # Fraction: always finite


def number(
    value: Any,
    name: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    above: float | None = None,
) -> float:
    """``value`` as a finite float (see :func:`real`), at least ``minimum``, at most ``maximum``
    and greater than ``above`` (each when given)."""
    x = real(value, name)
    if minimum is not None and maximum is not None and not minimum <= x <= maximum:
        raise ValueError(f"{name} = {show(value)}: must be in [{minimum:g}, {maximum:g}]")
    if minimum is not None and x < minimum:
        raise ValueError(f"{name} = {show(value)}: must be >= {minimum:g}")
    if maximum is not None and x > maximum:
        raise ValueError(f"{name} = {show(value)}: must be <= {maximum:g}")
    if above is not None and not x > above:
        raise ValueError(f"{name} = {show(value)}: must be > {above:g}")
    return x


def material(value: Any, name: str, maximum: float | None = None) -> float:
    """A material coefficient (friction, restitution, ...): a finite number >= 0, at most
    ``maximum`` when given."""
    return number(value, name, minimum=0.0, maximum=maximum)


def integer(value: Any, name: str, minimum: int, maximum: int) -> int:
    """``value`` as an int in ``[minimum, maximum]``: a Python or numpy integer, or a 0-d
    array of one (a bool is not an integer here, nor is a float with an integral value)."""
    value = _scalar(value)
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} = {show(value)}: must be an integer")
    n = int(value)
    if not minimum <= n <= maximum:
        raise ValueError(f"{name} = {show(value)}: must be in [{minimum}, {maximum}]")
    return n


def boolean(value: Any, name: str) -> bool:
    """``value`` as a bool: only ``True`` or ``False`` (numpy's too, or a 0-d bool array) are
    accepted; an array of several is refused, not reduced."""
    value = _scalar(value)
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} = {show(value)}: must be True or False")
    return bool(value)


def _scalar(value: Any) -> Any:
    """The item of a 0-d array (numpy's way of holding one number), else ``value`` itself."""
    return value[()] if isinstance(value, np.ndarray) and value.shape == () else value


class _Refusal(Exception):
    """Why an array-like is not an array of real numbers (turned into the caller's error)."""


def _real_array(value: Any) -> np.ndarray:
    """``value`` as a new C-contiguous float64 array of any shape, or :class:`_Refusal` saying
    why it is not one: lists, tuples and arrays of ints and floats of any width and byte order
    (read-only and strided arrays too) are read; bools, complex numbers, strings, ragged
    nesting, and numbers beyond float64's range are refused. Non-finite values are kept (the
    caller names the entry)."""
    if isinstance(value, str | bytes | dict | set | frozenset):
        raise _Refusal(f"a {type(value).__name__} is not an array of numbers")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy's ragged/complex warnings become refusals
            a = np.asarray(value)
    except Exception as exc:  # noqa: BLE001 (ragged nesting, a failing __array__, deep recursion)
        raise _Refusal(f"cannot be read as an array of numbers ({_first_line(exc)})") from None
    kind = a.dtype.kind
    if kind == "f" or kind in "iu":
        with np.errstate(over="ignore", invalid="ignore"):
            out = np.array(a, dtype=np.float64, order="C")
        if kind == "f" and a.dtype.itemsize > 8:
            wide = np.isfinite(a) & ~np.isfinite(out)
            if wide.any():
                raise _Refusal(f"entry {_index_of(wide)} is too large (beyond the float64 range)")
        return out
    if kind == "O":
        if a.ndim == 0:
            raise _Refusal(f"a {type(value).__name__} is not an array of numbers")
        out = np.empty(a.shape, dtype=np.float64)
        for i, item in enumerate(a.flat):
            if isinstance(item, np.ndarray) and item.ndim == 0:
                item = item[()]
            why = _not_real(item)
            if why is not None:
                raise _Refusal(f"entry {_unravel(i, a.shape)} = {show(item)}: {why}")
            try:
                out.flat[i] = float(item)
            except OverflowError:
                raise _Refusal(
                    f"entry {_unravel(i, a.shape)} is too large (beyond the float64 range)"
                ) from None
            except Exception as exc:  # noqa: BLE001
                raise _Refusal(f"entry {_unravel(i, a.shape)} cannot be read as a number ({exc})") from None
        return out
    what = {"b": "bools", "c": "complex numbers", "U": "strings", "S": "bytes"}.get(kind, f"{a.dtype}")
    raise _Refusal(f"holds {what}, not real numbers")


def real_array(value: Any) -> np.ndarray | None:
    """``value`` as a new C-contiguous float64 array of any shape, its numbers read as
    :func:`vector` reads them, or None when it is not an array of real numbers (the caller
    then refuses it, naming the argument)."""
    try:
        return _real_array(value)
    except _Refusal:
        return None


def _first_line(exc: BaseException) -> str:
    text = str(exc).split("\n", 1)[0]
    return text if len(text) <= 2 * SHOWN_LENGTH else text[: 2 * SHOWN_LENGTH] + "..."


def _unravel(i: int, shape: tuple[int, ...]) -> str:
    return str(tuple(int(j) for j in np.unravel_index(i, shape))) if len(shape) > 1 else f"[{i}]"


def _index_of(mask: np.ndarray) -> str:
    return _unravel(int(np.argmax(mask.ravel())), mask.shape)


def vector(
    value: Any, name: str, limit: float = MAX_COORDINATE, limit_name: str = "MAX_COORDINATE"
) -> np.ndarray:
    """``value`` as a finite ``(2,) float64`` vector no longer than ``limit`` (the constant
    ``limit_name`` of collision.tolerances; ``math.inf`` for no limit): beyond those limits,
    products inside the step would overflow to inf or NaN."""
    try:
        v = _real_array(value)
    except _Refusal as why:
        raise ValueError(f"{name} = {show(value)}: must be a 2-vector of real numbers: {why}") from None
    if v.shape != (2,):
        raise ValueError(f"{name} = {show(value)}: must be a 2-vector, got shape {v.shape}")
    if not np.isfinite(v).all():
        raise ValueError(f"{name} = {show(value)}: must be finite")
    if math.hypot(v[0], v[1]) > limit:
        raise ValueError(f"{name} = {show(value)}: is longer than {limit_name} = {limit:g}")
    return v


def point(value: Any, name: str) -> np.ndarray:
    """``value`` as a finite ``(2,) float64`` point whose coordinates are at most
    ``MAX_COORDINATE`` in size, as a shape's vertices must be."""
    p = vector(value, name, math.inf)
    if np.abs(p).max() > MAX_COORDINATE:
        raise ValueError(f"{name} = ({p[0]:g}, {p[1]:g}): is beyond MAX_COORDINATE = {MAX_COORDINATE:g}")
    return p


def index(value: Any, name: str, count: int) -> int:
    """``value`` as an index in ``[0, count)`` of a body (or row) of a world of ``count`` (read
    as :func:`integer` reads it)."""
    value = _scalar(value)
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} = {show(value)}: must be a body index (int)")
    k = int(value)
    if not 0 <= k < count:
        raise ValueError(f"{name} = {show(k)}: no such body (body_count = {count})")
    return k


def body_indices(value: Any, name: str, count: int) -> np.ndarray:
    """``value`` as ``(m,) int64`` indices of bodies of a world of ``count``: one index, a
    sequence or array of them, or an ``(count,) bool`` mask."""
    usage = f"must be body indices (m,) or a ({count},) bool mask"
    value = _scalar(value)
    if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
        return np.array([index(value, name, count)], dtype=np.int64)
    if isinstance(value, str | bytes | dict | set | frozenset):
        raise ValueError(f"{name} = {show(value)}: {usage}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            given = np.asarray(value)
    except Exception as exc:  # noqa: BLE001 (ragged nesting, a failing __array__)
        raise ValueError(f"{name} = {show(value)}: {usage} ({_first_line(exc)})") from None
    if given.dtype == np.bool_:
        if given.shape != (count,):
            raise ValueError(f"{name}: a mask must have shape ({count},), got {given.shape}")
        return np.flatnonzero(given)
    if given.ndim != 1:
        raise ValueError(f"{name} = {show(value)}: {usage}")
    if given.dtype == object:
        return np.array([index(item, f"{name}[{i}]", count) for i, item in enumerate(given)], dtype=np.int64)
    if not (given.size == 0 or np.issubdtype(given.dtype, np.integer)):
        raise ValueError(f"{name} = {show(value)}: {usage}")
    outside = (given < 0) | (given >= count)
    if outside.any():
        raise ValueError(f"{name}: {int(given[np.argmax(outside)])} is no body (body_count = {count})")
    return given.astype(np.int64)


def vectors(value: Any, name: str, count: int, limit: float = math.inf, limit_name: str = "") -> np.ndarray:
    """``value`` as ``(count, 2) float64`` finite vectors, each no longer than ``limit`` (the
    constant ``limit_name`` of collision.tolerances) when given."""
    try:
        v = _real_array(value)
    except _Refusal as why:
        raise ValueError(f"{name}: must be ({count}, 2) real numbers: {why}") from None
    if v.shape != (count, 2):
        raise ValueError(f"{name}: must be ({count}, 2) real numbers, got shape {v.shape}")
    if not np.isfinite(v).all():
        bad = int(np.argmin(np.isfinite(v).all(axis=1)))
        raise ValueError(f"{name}[{bad}] = {v[bad].tolist()}: must be finite")
    if limit < math.inf:
        long = np.hypot(v[:, 0], v[:, 1]) > limit
        if long.any():
            bad = int(np.argmax(long))
            raise ValueError(f"{name}[{bad}] = {v[bad].tolist()}: is longer than {limit_name} = {limit:g}")
    return v


def push_limits(
    body: int,
    name: str,
    value: Any,
    point: Any,
    moving: tuple[float, str, float],
    turning: tuple[float, str, float],
) -> None:
    """Refuse (ValueError) a force or impulse ``value``, the argument ``name``, applied at
    ``point`` (or None), when its effect on ``body`` is beyond a limit: ``moving`` and
    ``turning`` are each ``(amount, the limit's name, the limit)``. A turning too large
    blames ``point``, the lever."""
    amount, limit_name, limit = moving
    if not amount <= limit:
        raise ValueError(f"{name} = {show(value)}: would take body {body} beyond {limit_name} = {limit:g}")
    amount, limit_name, limit = turning
    if not amount <= limit:
        raise ValueError(
            f"point = {show(point)}: {name} = {show(value)} there would turn body {body} beyond "
            f"{limit_name} = {limit:g}"
        )
