"""The benchmark scenes of demo/bench.py: their layout, and the JSON fields of one run."""

from __future__ import annotations

import io
import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

from collision.threads import THREADED_BODIES
from demo import bench
from demo.bench import engines, scenes, speed

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


# -- the comparison harness (python -m demo bench --vs / --scale / --physics) -------------------

ENGINES = ("ours", "box2d", "pymunk")


def _needs(engine: str) -> None:
    """Box2D v3 and pymunk come with the bench extra (pip install -e '.[bench]'); without it the
    comparison has nothing to compare, and says so."""
    if engines.missing(engine) is not None:
        pytest.skip(engines.missing(engine))


@pytest.mark.parametrize("other", ["box2d", "pymunk"])
def test_every_engine_builds_the_same_bodies_from_one_description(other: str) -> None:
    """Same centres of mass, angles, masses and inertias in ours, Box2D v3 (float32) and pymunk."""
    _needs(other)
    scene = scenes.pile(60, seed=5)
    built = {name: engines.build(name, scene) for name in ("ours", other)}
    reference = built["ours"].state()
    mass, inertia = built["ours"].mass_properties()
    for name in (other,):
        state = built[name].state()
        np.testing.assert_allclose(state.position, reference.position, atol=1e-5, err_msg=name)
        np.testing.assert_allclose(np.cos(state.angle), np.cos(reference.angle), atol=1e-6, err_msg=name)
        m, i = built[name].mass_properties()
        np.testing.assert_allclose(m, mass, rtol=1e-5, err_msg=name)
        np.testing.assert_allclose(i, inertia, rtol=1e-5, err_msg=name)


def test_the_pile_spreads_sideways_beyond_1000_bodies_and_keeps_its_1000_layout() -> None:
    assert scenes.pile_columns(1000) == 24 and scenes.pile_columns(250) == 24
    assert scenes.pile_columns(8000) == 192
    tall = max(y for _, _, y in scenes.pile_shapes(count=8000))
    assert tall == max(y for _, _, y in scenes.pile_shapes(count=1000))  # the same 42 rows


@pytest.mark.parametrize("engine", ENGINES)
def test_one_timed_run_in_its_own_process_reports_times_and_outcome(engine: str) -> None:
    _needs(engine)
    result = speed.spawn(engine, "pyramid", 4, 20)
    assert result["engine"] == engine and result["bodies"] == 10 and result["steps"] == 20
    assert result["total_s"] > 0.0 and result["step_ms_mean"] > 0.0 and result["cpu_s"] >= 0.0
    assert result["escaped"] == 0 and result["nan"] is False
    assert result["max_displacement"] < 0.1  # a 4-row pyramid stands
    if engine == "ours" and result["threads"] is not None:
        assert result["threads"] == 1  # numpy's BLAS pool held to one thread: one core compared


def _fake_spawn(calls: list[tuple[str, str, int]], ms: dict[str, float]):  # type: ignore[no-untyped-def]
    def spawn(
        engine: str, scene_name: str, size: int, steps: int, profile: bool = False
    ) -> dict[str, object]:
        calls.append((engine, scene_name, size))
        total = ms[engine] * steps / 1e3
        return {
            "engine": engine,
            "bodies": size * 10,
            "steps": steps,
            "total_s": total,
            "cpu_s": 0.5 * total,
            "step_ms_mean": ms[engine],
            "max_displacement": 0.01,
            "max_speed_end": 0.0,
            "escaped": 0,
            "nan": False,
        }

    return spawn


def test_engines_alternate_their_order_from_round_to_round(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    calls: list[tuple[str, str, int]] = []
    monkeypatch.setattr(speed, "spawn", _fake_spawn(calls, {"ours": 1.0, "box2d": 0.5, "pymunk": 2.0}))
    speed.rounds_of("pyramid", 20, 600, ["ours", "box2d", "pymunk"], 3, None)
    order = [engine for engine, _, _ in calls]
    assert order == ["ours", "box2d", "pymunk", "pymunk", "box2d", "ours", "ours", "box2d", "pymunk"]


def test_compare_prints_each_rounds_ratio_and_their_median(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(speed, "spawn", _fake_spawn([], {"ours": 1.0, "box2d": 0.5, "pymunk": 2.0}))
    text = io.StringIO()
    result = speed.compare(["pyramid"], "all", 2, False, text, None)
    ratio = result["scenes"]["pyramid"]["ratio"]
    assert ratio["box2d"]["wall"]["median"] == pytest.approx(2.0)
    assert ratio["box2d"]["cpu"]["median"] == pytest.approx(2.0)
    assert ratio["pymunk"]["wall"]["rounds"] == pytest.approx([0.5, 0.5])
    printed = text.getvalue()
    assert "ours/box2d: wall median 2.00 (rounds 2.00-2.00), cpu median 2.00" in printed
    assert "ours/pymunk: wall median 0.50" in printed and "max displacement 0.010 m" in printed
    as_json = io.StringIO()
    speed.compare(["pyramid", "bullet"], "box2d", 1, True, as_json, None)
    report = json.loads(as_json.getvalue())["scenes"]
    assert report["pyramid"]["ratio"]["box2d"]["wall"]["median"] == pytest.approx(2.0)
    assert "ratio" not in report["bullet"]  # two bodies: an outcome, not a timing


def test_busy_cores_spin_while_the_block_runs_and_are_gone_after() -> None:
    with speed.busy_cores(2) as spinners:
        assert len(spinners) == 2
        time.sleep(0.5)
        assert all(p.poll() is None for p in spinners), "a spinner ended early"
        # Each runs (a sleeping process would gain nothing): its processor time grows with the
        # wall clock's, by at least a fifth of it even with the cores shared with other work.
        used = [_cpu_seconds(p.pid) for p in spinners]
        time.sleep(0.5)
        assert all(_cpu_seconds(p.pid) - u >= 0.1 for p, u in zip(spinners, used, strict=True))
    assert all(p.poll() is not None for p in spinners), "a spinner outlived the block"


def _cpu_seconds(pid: int) -> float:
    """Processor seconds (user + system) of process ``pid`` (Linux: /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_compare_says_when_other_processes_kept_cores_busy(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(speed, "spawn", _fake_spawn([], {"ours": 1.0, "box2d": 0.5}))
    text = io.StringIO()
    result = speed.compare(["pyramid"], "box2d", 1, False, text, None, busy=1)
    assert result["busy"] == 1
    assert text.getvalue().splitlines()[1] == "1 other process keeping a core busy throughout"


@pytest.mark.parametrize(
    ("x", "fate"),
    [(9.95, "stopped at the wall"), (500.0, "passed through the wall"), (-1.05, "thrown back from the wall")],
)
def test_the_bullet_outcome_says_where_it_ended(x: float, fate: str) -> None:
    assert speed.bullet_fate(x) == fate


def test_scale_fits_the_exponent_of_step_time_against_bodies(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def spawn(
        engine: str, scene_name: str, size: int, steps: int, profile: bool = False
    ) -> dict[str, object]:
        ms = (size / 100.0) ** (1.25 if engine == "ours" else 1.0)
        total = ms * steps / 1e3
        return {
            "engine": engine,
            "bodies": size,
            "steps": steps,
            "total_s": total,
            "cpu_s": total,
            "step_ms_mean": ms,
        }

    monkeypatch.setattr(speed, "spawn", spawn)
    result = speed.scale("box2d", 1, True, io.StringIO(), None)
    assert result["series"]["pile"]["exponent"]["wall"]["ours"] == pytest.approx(1.25)
    assert result["series"]["pyramid"]["exponent"]["cpu"]["box2d"] == pytest.approx(1.0)
    assert [row["size"] for row in result["series"]["pile"]["rows"]] == [250, 500, 1000, 2000, 4000, 8000]


def test_the_stage_profile_is_read_from_a_profiled_world_only() -> None:
    sim = engines.build("ours", scenes.bullet())
    sim.step(2)
    assert speed.stage_profile(sim) is None  # profiling off
    sim.world.profile.enabled = True  # type: ignore[attr-defined]
    sim.step(2)
    profile = speed.stage_profile(sim)
    assert profile is not None and profile == sim.world.profile.total  # type: ignore[attr-defined]
    assert profile["step"] > 0.0 and profile["narrowphase"] > 0.0


def test_a_profiled_run_in_its_own_process_prints_the_stage_table() -> None:
    result = speed.spawn("ours", "pyramid", 4, 20, profile=True)
    assert result["profile_s"]["step"] > 0.0
    assert set(result["profile_s"]) >= {"broadphase", "narrowphase", "prepare", "solve", "relax", "store"}
    text = io.StringIO()
    entry = {"what": "pyramid", "steps": 20, "timed": False, "runs": [{"ours": result}]}
    speed._print_scene("pyramid", entry, ["ours"], text)
    assert "ours per stage, last round:" in text.getvalue()
    assert "narrowphase" in text.getvalue()


@pytest.mark.parametrize(
    "argv",
    [
        ["--case", "open_gap"],
        ["--physics", "--vs", "box2d"],
        ["--vs", "box2d", "--steps", "10"],
        ["--scale", "pile"],
        ["--rounds", "2"],
        ["--vs", "all", "--rounds", "0"],
        ["--vs", "pymunk", "nope"],
        ["--compile", "pyramid"],
        ["--compile", "--vs", "box2d"],
        ["--compile", "--profile"],
        ["--busy", "1"],
        ["--scale", "--busy", "1"],
        ["--scale", "--vs", "box2d", "--busy", "1"],
        ["--vs", "box2d", "--busy", "-1"],
    ],
)
def test_the_command_line_refuses_options_that_do_not_go_together(argv: list[str], capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exit_info:
        bench.main(argv)
    assert exit_info.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_physics_report_shows_every_engine_beside_the_expected_value(capsys) -> None:  # type: ignore[no-untyped-def]
    assert bench.main(["--physics", "--case", "open_gap", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["key"] for row in rows] == ["gap", "vn", "vt", "vb"]
    columns = {"ours/tutorial", "ours/arcade", "ours/iterative"}
    columns |= {name for name in ("box2d", "pymunk") if engines.missing(name) is None}
    assert all(set(row["results"]) == columns for row in rows)
    vn = rows[1]
    assert vn["expected"] == 3.0 and vn["results"]["ours/tutorial"]["status"] == "pass"
    assert vn["results"]["ours/iterative"]["status"] == "pass"
    assert bench.main(["--physics", "--case", "heavy_on_light_stack_10", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {row["results"]["ours/iterative"]["status"] for row in rows} == {"pass"}
    assert bench.main(["--physics", "--case", "corner_wheel"]) == 0
    text = capsys.readouterr().out
    assert "exempt" in text and "time for the spin to fall to 1% of w0 [s]" in text
    assert bench.main(["--physics", "--case", "nope"]) == 2


def test_a_timed_run_compiles_nothing_while_timed_even_a_big_world_s_step() -> None:
    """The warm-up's world is small; a pile past collision.threads.THREADED_BODIES rows steps
    with a specialisation of its own (on threads), which the timed run compiles before its
    clock starts (``compiled_while_timing`` 0); the count itself counts what numba compiles."""
    from numba import njit

    size = THREADED_BODIES + 52
    result = speed.time_run("ours", "pile", size, 2)
    assert result["bodies"] == size and result["compiled_while_timing"] == 0
    with speed.counting_compiles() as compiled:
        assert njit(lambda x: x + 1)(1) == 2
    assert compiled[0] == 1
