"""The one table of bindings: consistent, complete, and the source of the help and README table."""

from __future__ import annotations

import re
from pathlib import Path

from demo import controls, scenes

ROOT = Path(__file__).resolve().parents[2]

#: Every control the program promises (issue 5): the original's and ours.
PROMISED_ACTIONS = {
    "attract",
    "repel",
    "pause",
    "help",
    "gravity",
    "friction_toggle",
    "static_friction_toggle",
    "more_bodies",
    "fewer_bodies",
    "reset_count",
    "regenerate",
    "friction_up",
    "friction_down",
    "restitution_up",
    "restitution_down",
    "static_friction_up",
    "static_friction_down",
    "quit",
    "single_step",
    "restart",
    "next_scene",
    "previous_scene",
    "cycle_solver",
    "fire",
    "show_contacts",
    "show_normals",
    "show_bounds",
    "show_velocities",
    "zoom_in",
    "zoom_out",
    "pan",
    "reset_view",
    "screenshot",
}


def test_every_promised_action_is_bound() -> None:
    assert PROMISED_ACTIONS <= set(controls.ACTIONS)


def test_original_keys_map_to_their_actions() -> None:
    expected = {
        "P": "pause",
        "H": "help",
        "G": "gravity",
        "F": "friction_toggle",
        "S": "static_friction_toggle",
        "EQUAL": "more_bodies",
        "KP_ADD": "more_bodies",
        "MINUS": "fewer_bodies",
        "ENTER": "reset_count",
        "SPACE": "regenerate",
        "7": "friction_up",
        "4": "friction_down",
        "8": "restitution_up",
        "5": "restitution_down",
        "9": "static_friction_up",
        "6": "static_friction_down",
        "ESCAPE": "quit",
        "MOUSE_LEFT": "attract",
        "MOUSE_RIGHT": "repel",
        "X": "fire",
        "O": "single_step",
        "M": "cycle_solver",
    }
    for name, action in expected.items():
        assert controls.action_for(name) == action, name


def test_shift_tab_goes_back_and_shift_does_not_hide_plain_keys() -> None:
    assert controls.action_for("TAB") == "next_scene"
    assert controls.action_for("TAB", shift=True) == "previous_scene"
    assert controls.action_for("EQUAL", shift=True) == "more_bodies"  # '+' is shift + '='
    assert controls.action_for("NOT_A_KEY") is None


def test_help_lists_every_binding_once() -> None:
    lines = controls.help_lines()
    for binding in controls.BINDINGS:
        matching = [line for line in lines if line.startswith(binding.label + " ") and binding.help in line]
        assert len(matching) == 1, binding.label


def test_markdown_table_has_one_row_per_binding() -> None:
    lines = scenes.controls_markdown().strip().splitlines()
    table = [line for line in lines if line.startswith("|")]
    assert lines[: len(table)] == table  # the table first, then its note
    assert table[0].startswith("| Input | Action")
    assert re.fullmatch(r"\|(---\|)+", table[1])
    assert len(table) == 2 + len(controls.BINDINGS)
    for row, binding in zip(table[2:], controls.BINDINGS, strict=True):
        assert binding.help in row


def test_markdown_scenes_column_lists_where_each_row_applies() -> None:
    table = [line for line in scenes.controls_markdown().splitlines() if line.startswith("| ")][1:]
    names = scenes.scene_names()
    built = {name: scenes.build_scene(name) for name in names}
    for row, binding in zip(table, controls.BINDINGS, strict=True):
        cell = row.rstrip(" |").rsplit("| ", 1)[1]
        listed = {name for name in names if f"`{name}`" in cell}
        expected = {
            name for name in names if controls.applies_to(binding, controls.scene_features(built[name]))
        }
        if cell == "all":
            assert expected == set(names), binding.label
        else:
            assert listed == expected, binding.label
    by_help = {b.help: row for b, row in zip(controls.BINDINGS, table, strict=True)}
    assert "`sat`" not in by_help["gravity on / off"] and "`rigid`" in by_help["gravity on / off"]
    assert "`swept`" in by_help["set A's motion toward the cursor"]
    assert "`swept`" not in by_help["attract bodies to the cursor (held)"]


def test_an_input_means_one_thing_in_a_scene_and_the_same_action_everywhere() -> None:
    actions: dict[str, str] = {}
    for binding in controls.BINDINGS:
        for name, action in binding.inputs:
            assert actions.setdefault(name, action) == action, name
    left = [b.help for b in controls.BINDINGS if ("MOUSE_LEFT", "attract") in b.inputs]
    assert len(left) == 6  # rigid's attract, swept's motion, bullets, laser, primitives' drag, impulse's pick


def test_readme_contains_exactly_the_generated_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = scenes.controls_markdown()
    assert readme.count(table) == 1, "paste `python -m demo --controls-markdown` into README.md"
    header = table.splitlines()[0]
    assert readme.count(header) == 1, "README.md has a second, stale controls table"


def test_readme_contains_exactly_the_generated_scene_table() -> None:
    from demo.gallery import readme_table

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count(readme_table()) == 1, "paste `python -m demo.gallery --readme` into README.md"
