"""The benchmark scenes of demo/bench.py: their layout, and the JSON fields of one run."""

from __future__ import annotations

import json

import numpy as np

from demo import bench

FIELDS = {
    "scene",
    "bodies",
    "steps",
    "step_ms_median",
    "step_ms_p95",
    "contacts_max",
    "max_displacement",
    "max_speed_end",
    "escaped",
    "nan",
}


def test_pyramid_layout_is_210_boxes_resting_row_on_row() -> None:
    centres = np.array(bench.pyramid_layout())
    assert len(centres) == 210
    rows = np.unique(centres[:, 1])
    np.testing.assert_allclose(rows, 0.5 + np.arange(20))
    bottom = centres[centres[:, 1] == 0.5]
    assert len(bottom) == 20
    assert abs(bottom[:, 0].mean()) < 1e-12
    np.testing.assert_allclose(np.diff(np.sort(bottom[:, 0])), 1.05)  # 0.05 m gaps


def test_pile_shapes_are_convex_and_sized_as_specified() -> None:
    shapes = bench.pile_shapes(seed=3, count=100)
    assert len(shapes) == 100
    for vertices, x, y in shapes:
        k = len(vertices)
        assert 3 <= k <= 8
        radius = np.linalg.norm(vertices, axis=1)
        assert np.allclose(radius, radius[0]) and 0.25 <= radius[0] <= 0.75
        edges = np.roll(vertices, -1, axis=0) - vertices
        cross = (
            edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
        )
        assert np.all(cross > 0.0)  # convex, counter-clockwise
        assert -20.0 < x < 20.0 and y >= 1.0
    again = bench.pile_shapes(seed=3, count=100)
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(shapes, again, strict=True))


def test_bullet_run_reports_exactly_the_agreed_fields(capsys) -> None:  # type: ignore[no-untyped-def]
    assert bench.main(["bullet", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip())
    assert set(result) == FIELDS | {"bullet_x"}
    assert result["scene"] == "bullet" and result["bodies"] == 2 and result["steps"] == 60
    assert result["escaped"] == 0 and result["nan"] is False
    assert 9.9 <= result["bullet_x"] <= 10.1
