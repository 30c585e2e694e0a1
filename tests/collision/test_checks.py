"""collision.checks: every user number and vector is checked in one place, naming the argument."""

from __future__ import annotations

import math

import numpy as np
import pytest

from collision import checks


@pytest.mark.parametrize(
    ("value", "kwargs", "message"),
    [
        ("1.5", {}, r"dt = '1.5': must be a real number"),
        (None, {}, "must be a real number"),
        (math.nan, {}, "must be finite"),
        (10**400, {}, "<int of 401 digits>: is too large"),
        (-1.0, {"minimum": 0.0}, "must be >= 0"),
        (2.0, {"maximum": 1.0}, "must be <= 1"),
        (0.0, {"above": 0.0}, "must be > 0"),
        (3.0, {"minimum": 0.0, "maximum": 2.0}, r"must be in \[0, 2\]"),
    ],
)
def test_number_refusals_name_the_argument(value: object, kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        checks.number(value, "dt", **kwargs)
    assert str(caught.value).startswith("dt = ")


def test_numbers_integers_and_booleans_accepted() -> None:
    assert checks.number(np.float32(0.5), "x") == 0.5 and isinstance(checks.number(2, "x"), float)
    assert checks.integer(np.int64(3), "n", 0, 5) == 3
    assert checks.boolean(np.bool_(False), "b") is False
    for bad in (True, 2.0, "3"):
        with pytest.raises(ValueError, match="n = .*must be an integer"):
            checks.integer(bad, "n", 0, 5)
    with pytest.raises(ValueError, match=r"n = 9: must be in \[0, 5\]"):
        checks.integer(9, "n", 0, 5)
    with pytest.raises(ValueError, match="b = 1: must be True or False"):
        checks.boolean(1, "b")


def test_vectors_and_points() -> None:
    v = checks.vector((3, 4), "velocity", 5.0, "MAX_SPEED")
    assert v.dtype == np.float64 and v.shape == (2,) and v.tolist() == [3.0, 4.0]
    with pytest.raises(ValueError, match="velocity = .*longer than MAX_SPEED = 4"):
        checks.vector((3, 4), "velocity", 4.0, "MAX_SPEED")
    for bad, message in (
        ((1, 2, 3), "shape"),
        ((1, math.inf), "finite"),
        ("ab", "2-vector"),
        (None, "2-vector of real numbers: a NoneType is not an array"),
    ):
        with pytest.raises(ValueError, match=message):
            checks.vector(bad, "v")
    assert checks.point((1e12, -1e12), "p").tolist() == [1e12, -1e12]  # per coordinate, as vertices
    with pytest.raises(ValueError, match="beyond MAX_COORDINATE"):
        checks.point((2e12, 0.0), "p")


def test_index() -> None:
    assert checks.index(np.int32(2), "i", 3) == 2
    for bad, message in (
        (3, "no such body"),
        (-1, "no such body"),
        (True, "body index"),
        (1.0, "body index"),
    ):
        with pytest.raises(ValueError, match=f"i = .*{message}"):
            checks.index(bad, "i", 3)
