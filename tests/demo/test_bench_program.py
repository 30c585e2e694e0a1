"""``python -m demo bench --program``: the options it takes and refuses, and its report."""

from __future__ import annotations

import pytest

from demo import bench
from demo.bench import program


@pytest.mark.parametrize(
    "argv",
    [
        ["--cold"],
        ["--program", "pyramid"],
        ["--program", "--compile"],
        ["--program", "--vs", "box2d"],
        ["--program", "--profile"],
        ["--program", "--rounds", "0"],
    ],
)
def test_the_program_bench_refuses_options_that_do_not_go_together(argv: list[str], capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exit_info:
        bench.main(argv)
    assert exit_info.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_a_round_is_described_on_one_line_with_its_slowest_frames() -> None:
    measured = {
        "cold": True,
        "esc_compiling_s": 0.12,
        "idle_cpu_s": 2.4,
        "rest_cpu_s": 0.4,
        "esc_s": 0.15,
        "startup_s": 0.9,
        "scene_s": 3.1,
        "compiled_s": 88.2,
        "frame_ms_max": 61.5,
        "frame_ms_median": 11.0,
        "shown": 22,
        "expected": 23,
        "in_order": False,
        "slowest_frames": [[61.5, "pile (frame 9): shown", {"physics": 2.0}]],
        "load": [1.5, 2.0],
    }
    first, slowest = program.describe(measured).splitlines()
    assert first.startswith(
        "program (cold): progress frame 0.9 s, scene 3.1 s, compiled engine from 88.2 s, frame_ms_max 61.5"
    )
    assert "2.4 CPU-s (at rest 0.4)" in first and "Esc 0.15 s (while compiling 0.12 s)" in first
    assert "scenes shown 22/23 (out of order)" in first and "load average 1.5 -> 2.0" in first
    assert "pile (frame 9): shown" in slowest
