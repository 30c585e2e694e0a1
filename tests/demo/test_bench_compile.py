"""``python -m demo bench --compile``: the options it takes and refuses, and its report (the
measure itself runs, cold, in tests/demo/test_compile_scope.py)."""

from __future__ import annotations

import pytest

from demo import bench
from demo.bench import compile as cold


@pytest.mark.parametrize(
    "argv",
    [
        ["--lanes", "2"],
        ["--compile", "--lanes", "3"],
        ["--compile", "--lanes", "0"],
        ["--compile", "--lanes", "2", "pyramid"],
        ["--vs", "box2d", "--lanes", "1"],
    ],
)
def test_lanes_go_with_compile_only_and_are_one_or_two(argv: list[str], capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exit_info:
        bench.main(argv)
    assert exit_info.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_a_round_in_two_lanes_says_what_each_part_and_the_step_took() -> None:
    measured = {
        "scene": "rigid",
        "solver": "iterative",
        "wall_s": 91.5,
        "cpu_s": 146.3,
        "import_s": 0.1,
        "build_s": 0.5,
        "step_s": 16.0,
        "kernels": 117,
        "specialisations": 184,
        "load": [0.3, 1.9],
        "own_s": {
            "collision.solvers.iterative.iterative_step": 15.9,
            "collision.manifold._clip_manifold": 11.7,
        },
        "lanes": [
            {"part": "contacts", "wall_s": 70.2, "cpu_s": 67.5, "kernels": 69},
            {"part": "response", "wall_s": 66.0, "cpu_s": 62.5, "kernels": 67},
        ],
        "step_process": {"wall_s": 17.0, "cpu_s": 16.2, "kernels": 3, "specialisations": 4},
    }
    text = cold.describe(measured)
    assert "first step after 91.5 s wall, 146.3 s CPU" in text
    assert "contacts 70.2 s wall / 67.5 s CPU, response 66.0 s wall / 62.5 s CPU" in text
    assert "then the step: 17.0 s wall / 16.2 s CPU" in text
    assert text.splitlines()[-2].split() == ["15.90", "collision.solvers.iterative.iterative_step"]
    one_lane = {key: value for key, value in measured.items() if key not in ("lanes", "step_process")}
    assert "parts at once" not in cold.describe(one_lane)
