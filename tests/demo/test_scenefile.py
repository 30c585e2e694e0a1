"""Scene files: the shipped examples load and run; malformed files get one message naming the
file, the field and what was expected; the command line exits 2 for them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from demo import scenes
from demo.scenes import files as scenefile

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "assets" / "scenes").glob("*.json"))


def test_there_are_example_files() -> None:
    assert len(EXAMPLES) >= 2


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs_300_steps(path: Path) -> None:
    scene = scenes.build_scene(str(path))
    assert scene.help and scene.world.body_count > 0
    stats = scenes.run_stats(scene, 300)
    assert not stats["nan"] and stats["escaped"] == 0


def _write(tmp_path: Path, data: object, name: str = "scene.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


GOOD_BODY = {"shape": {"type": "box", "width": 1, "height": 1}, "position": [0, 0]}


def test_every_field_is_applied(tmp_path: Path) -> None:
    data = {
        "description": "test",
        "view": [-5, -5, 5, 5],
        "bounds": [-50, -50, 50, 50],
        "dt": 0.01,
        "world": {
            "gravity": [1, -2],
            "solver": "tutorial",
            "friction": 0.3,
            "restitution": 0.4,
            "sleep": False,
        },
        "bodies": [
            {
                "shape": {"type": "polygon", "vertices": [[0, 0], [2, 0], [0, 2]]},
                "position": [1, 2],
                "angle": 0.5,
                "velocity": [3, 4],
                "angular_velocity": 1.5,
                "density": 2,
                "material": {"friction": 0.1, "restitution": 0.9, "static_friction": 0.2},
            },
            {"shape": {"type": "regular", "sides": 5, "radius": 1}, "position": [3, 3], "static": True},
            {"shape": {"type": "blob", "sides": 1, "rx": 1, "ry": 1}, "position": [-3, 3]},
        ],
    }
    scene = scenefile.load_scene_file(_write(tmp_path, data))
    world = scene.world
    assert scene.view == (-5, -5, 5, 5) and scene.bounds == (-50, -50, 50, 50) and scene.dt == 0.01
    assert (
        np.allclose(world.gravity, [1, -2])
        and world.solver == "tutorial"
        and not world.solver_settings("iterative").sleep
    )
    assert np.allclose(world.position[0], [1, 2]) and world.angle[0] == pytest.approx(0.5)
    assert np.allclose(world.velocity[0], [3, 4]) and world.angular_velocity[0] == 1.5
    assert world.mass[0] == pytest.approx(2 * 2.0)  # triangle of area 2, density 2
    assert world.body_friction[0] == 0.1 and world.body_restitution[0] == 0.9
    assert world.static[1] and not world.static[0]
    assert world.vertex_count[2] == 1
    assert world.body_friction[1] == 0.3  # the world default


@pytest.mark.parametrize(
    ("data", "field", "expected"),
    [
        ("{", "line 1", "expected JSON"),
        ([], "the file", "a JSON object"),
        ({"bodies": []}, "bodies", "a list of 1..2000 bodies"),
        ({"bodys": [GOOD_BODY]}, "bodys", "one of the fields"),
        ({"bodies": [GOOD_BODY], "world": {"solver": "fast"}}, "world.solver", "one of"),
        ({"bodies": [GOOD_BODY], "world": {"gravity": [0]}}, "world.gravity", "a list of 2 numbers"),
        ({"bodies": [GOOD_BODY], "world": {"restitution": 2}}, "world.restitution", "[0, 1]"),
        ({"bodies": [{"shape": {"type": "box", "width": 1, "height": 1}}]}, "bodies[0].position", "[x, y]"),
        ({"bodies": [{"position": [0, 0]}]}, "bodies[0].shape", "a shape object"),
        ({"bodies": [{"shape": {"type": "circle"}, "position": [0, 0]}]}, "bodies[0].shape.type", "one of"),
        (
            {"bodies": [{"shape": {"type": "box", "width": 1}, "position": [0, 0]}]},
            "bodies[0].shape.height",
            "a value",
        ),
        (
            {"bodies": [GOOD_BODY, {**GOOD_BODY, "position": [0, "x"]}]},
            "bodies[1].position[1]",
            "a finite number",
        ),
        ({"bodies": [{**GOOD_BODY, "static": 1}]}, "bodies[0].static", "true or false"),
        ({"bodies": [{**GOOD_BODY, "density": -1}]}, "bodies[0].density", "[0, 1e+06]"),
        (
            {"bodies": [{**GOOD_BODY, "material": {"bounce": 1}}]},
            "bodies[0].material.bounce",
            "one of the fields",
        ),
        (
            {
                "bodies": [
                    {
                        "shape": {"type": "polygon", "vertices": [[0, 0], [2, 0], [1, 0.1], [1, 2]]},
                        "position": [0, 0],
                    }
                ]
            },
            "bodies[0].shape",
            "convex",
        ),
        (
            {"bodies": [{"shape": {"type": "regular", "sides": 40, "radius": 1}, "position": [0, 0]}]},
            "sides",
            "3..16",
        ),
        ({"bodies": [{**GOOD_BODY, "kinematic": "yes"}]}, "bodies[0].kinematic", "true or false"),
        ({"bodies": [{**GOOD_BODY, "static": True, "kinematic": True}]}, "bodies[0].kinematic", "false"),
        ({"bodies": [{**GOOD_BODY, "outline": [[0, 0], [1, 0], [0, 1]]}]}, "bodies[0].outline", "no outline"),
        ({"bodies": [{"outline": [[0, 0], [1, 0]], "position": [0, 0]}]}, "bodies[0].outline", "3..256"),
        (
            {"bodies": [{"outline": [[0, 0], [2, 2], [2, 0], [0, 2]], "position": [0, 0]}]},
            "bodies[0].outline",
            "cross",
        ),
        ({"bodies": [{"shapes": [], "position": [0, 0]}]}, "bodies[0].shapes", "1..64"),
        (
            {"bodies": [{"shapes": [[[0, 0], [1, 0], [0, 1]], [[0, 0], [1, "a"]]], "position": [0, 0]}]},
            "bodies[0].shapes[1][1][1]",
            "a finite number",
        ),
        (
            {"bodies": [{"shapes": [[[0, 0], [2, 0], [1, 0.1], [1, 2]]], "position": [0, 0]}]},
            "bodies[0].shapes[0]",
            "convex",
        ),
    ],
)
def test_malformed_files_name_file_field_and_expectation(
    tmp_path: Path, data: object, field: str, expected: str
) -> None:
    path = _write(tmp_path, data)
    with pytest.raises(scenefile.SceneFileError) as info:
        scenefile.load_scene_file(path)
    message = str(info.value)
    assert str(path) in message and field in message and expected in message
    assert "\n" not in message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(scenefile.SceneFileError, match="cannot read"):
        scenes.build_scene(str(tmp_path / "nope.json"))


def test_command_line_exits_2_with_one_line(tmp_path: Path) -> None:
    path = _write(
        tmp_path, {"bodies": [{"shape": {"type": "box", "width": 0, "height": 1}, "position": [0, 0]}]}
    )
    out = subprocess.run(
        [sys.executable, "-m", "demo", "--scene", str(path), "--stats", "--steps", "1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "bodies[0].shape" in lines[0]


def test_command_line_runs_a_scene_file() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "demo", "--scene", str(EXAMPLES[0]), "--stats", "--steps", "5"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["scene"] == str(EXAMPLES[0])


def test_compound_and_kinematic_bodies(tmp_path: Path) -> None:
    outline = [[0, 0], [3, 0], [3, 1], [1, 1], [1, 3], [0, 3]]  # an L, area 5
    data = {
        "bodies": [
            {"outline": outline, "position": [0, 5], "density": 2},
            {
                "shapes": [[[0, 0], [1, 0], [1, 1], [0, 1]], [[1, 0], [2, 0], [2, 1], [1, 1]]],
                "position": [5, 5],
            },
            {**GOOD_BODY, "position": [0, -1], "velocity": [1, 0], "kinematic": True},
        ]
    }
    scene = scenefile.load_scene_file(_write(tmp_path, data))
    world = scene.world
    l_root = 0
    l_rows = world.parts(l_root)
    assert len(l_rows) >= 2 and world.mass[l_root] == pytest.approx(10.0)
    assert np.allclose(world.position[l_root], [0, 5])
    pair = l_rows[-1] + 1
    assert world.parts(pair) == [pair, pair + 1] and world.mass[pair] == pytest.approx(2.0)
    kin = pair + 2
    assert world.kinematic[kin] and not world.kinematic[:kin].any()
    assert kin in scene.body_colors and l_root not in scene.body_colors
