"""The program's data files by name: shaders and example scene files, from any working folder.

The installed wheel's layout (data inside the package) is tested in test_packaging.py; these
run on the checkout (or editable install) the suite runs from.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from demo import resources, scenes
from demo.scenes import files as scenefile

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("relative", ["shaders", "assets"])
def test_every_data_file_is_found_with_its_content(relative: str) -> None:
    files = [p for p in (ROOT / relative).rglob("*") if p.is_file()]
    assert files
    for file in files:
        name = file.relative_to(ROOT).as_posix()
        assert resources.path(name).read_bytes() == file.read_bytes(), name


@pytest.mark.parametrize("relative", ["", "demo/app.py", "shaders/../pyproject.toml", "tests"])
def test_paths_outside_the_data_folders_are_refused(relative: str) -> None:
    with pytest.raises(ValueError, match="shaders, assets"):
        resources.path(relative)


def test_a_missing_file_points_inside_the_installed_package() -> None:
    missing = resources.path("shaders/missing.vert")
    assert not missing.is_file()
    assert str(missing).endswith(str(Path("demo", "shaders", "missing.vert")))


def test_a_missing_shader_names_the_file(ctx: Any) -> None:
    from demo.draw.render import ShaderError, load_program

    with pytest.raises(ShaderError, match=r"missing\.vert: cannot read"):
        load_program("missing")


def test_example_scenes_are_the_repository_files() -> None:
    assert resources.example_scenes() == sorted(p.name for p in (ROOT / "assets" / "scenes").glob("*.json"))


def test_an_example_loads_by_bare_name_from_any_folder(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    assert scenes.check_scene_name("carousel.json") is None
    scene = scenes.build_scene("carousel.json")
    assert scene.world.body_count > 0
    assert scene.help[0].startswith("carousel.json: ")


def test_a_file_in_the_working_folder_wins_over_the_example(tmp_path: Path, monkeypatch: Any) -> None:
    box = {"shape": {"type": "box", "width": 1, "height": 1}, "position": [0, 0]}
    (tmp_path / "carousel.json").write_text(json.dumps({"description": "mine", "bodies": [box]}))
    monkeypatch.chdir(tmp_path)
    assert scenefile.read_scene_file("carousel.json")["description"] == "mine"


def test_a_missing_scene_file_lists_the_examples(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(scenefile.SceneFileError) as info:
        scenes.build_scene("nope.json")
    message = str(info.value)
    assert message.startswith("scene file nope.json: cannot read it")
    assert all(name in message for name in resources.example_scenes())
