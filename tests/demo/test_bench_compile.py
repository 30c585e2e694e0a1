"""``python -m demo bench --compile``: the options it takes and refuses, and its report (the
measure itself runs, cold, in tests/demo/test_compile_scope.py)."""

from __future__ import annotations

import io
import json
import os

import pytest

from demo import bench
from demo.bench import compile as cold
from demo.bench import machine


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


def test_the_report_starts_with_the_machine_and_each_round_carries_it(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    rounds: list[int] = []

    def cold_round(lanes: int = 1) -> dict[str, object]:
        rounds.append(lanes)
        return {
            "scene": "rigid", "solver": "iterative", "wall_s": 1.0, "cpu_s": 1.5, "import_s": 0.1,
            "build_s": 0.2, "step_s": 0.3, "kernels": 3, "specialisations": 4, "load": [0.1, 0.2],
            "own_s": {"collision.sat._sweep": 0.5},
        }  # fmt: skip

    monkeypatch.setattr(cold, "cold_round", cold_round)
    text = io.StringIO()
    results = cold.compare(2, False, text, None, lanes=1)
    lines = text.getvalue().splitlines()
    assert lines[0] == machine.describe(results[0]["machine"])
    assert lines[0].startswith(f"machine: {machine.processor_name()}, {os.cpu_count()} cores")
    assert rounds == [1, 1] and sum(line.startswith("cold start, scene rigid") for line in lines) == 2
    as_json = io.StringIO()
    cold.compare(1, True, as_json, None)
    assert json.loads(as_json.getvalue())["machine"]["processor"] == machine.processor_name()
