"""A step's contact points as the iterative solver's stages hand them on."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Points(NamedTuple):
    """A step's contact points (room for two per pair, the first ``c`` used): ``pair_index``
    (the pair of each point), ``key (., ) int64`` (its feature key, see collision/manifold.py),
    ``point_a``, ``point_b``, ``normal (., 2)`` (unit, from B toward A), ``separation (.,)``
    (units, negative when overlapping)."""

    pair_index: np.ndarray
    key: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    normal: np.ndarray
    separation: np.ndarray
