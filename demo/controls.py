"""The one table of key and mouse bindings.

Both the in-window help overlay and the README controls table are generated from ``BINDINGS``,
so the two can never disagree. Each scene shows only the rows that apply to it (the scene's
features, :func:`scene_features`: what its world has and the traits it declares), with the text
that says what the input does there; the program (demo.actions) carries out only the actions
of those rows, so an input a scene's help does not list does nothing in that scene.

This module imports no GL, window library or engine: inputs are named with plain strings ("P",
"KP_ADD", "MOUSE_LEFT", "shift+TAB") and demo/window.py maps window-system codes to these names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

#: How an action fires: once per press, or every frame while the input is held.
PRESS = "press"
HOLD = "hold"


@dataclass(frozen=True)
class Binding:
    """One row of the controls table.

    ``label``: how the input is written for a user ("7 / 4"); ``inputs``: (input name, action)
    pairs the row binds; ``help``: what it does; ``group``: the heading it is listed under;
    ``kind``: PRESS (once per press) or HOLD (while held); ``needs``: scene features (see
    :data:`FEATURES`) the scene must have for the row to apply. An input whose rows do not apply
    to the scene does nothing there. One input may appear in several rows, always with the same
    action, when scenes give that action different meanings (the left mouse attracts in
    ``rigid`` and sets A's motion in ``swept``).
    """

    label: str
    inputs: tuple[tuple[str, str], ...]
    help: str
    group: str
    kind: str = PRESS
    needs: tuple[str, ...] = ()


def _keys(action: str, *names: str) -> tuple[tuple[str, str], ...]:
    return tuple((name, action) for name in names)


#: What a scene's world can have that makes a row mean something there (decided by
#: :func:`scene_features`); the scenes' traits (demo.scenes.base.TRAITS) are features too.
WORLD_FEATURES = {
    "bodies": "the world has bodies",
    "moving": "the world has moving bodies",
    "contacts": "moving bodies that touch, so contacts to draw",
    "attract": "the mouse pulls and pushes the moving bodies",
    "gravity": "moving bodies and a gravity that is not zero",
    "material": "moving bodies whose material the keys set",
    "solver": "moving bodies whose collision response `m` switches",
    "count": "a body count that can change",
    "turret": "a turret (Scene.turret is not None)",
}

_MATERIAL = ("material",)
_CONTACTS = ("contacts",)
_ARROWS = (
    _keys("move_left", "LEFT")
    + _keys("move_right", "RIGHT")
    + _keys("move_up", "UP")
    + _keys("move_down", "DOWN")
)
_LEFT = _keys("attract", "MOUSE_LEFT")
_RIGHT = _keys("repel", "MOUSE_RIGHT")
_ENTER = _keys("reset_count", "ENTER", "KP_ENTER")


def _material_keys(material: str, up: str, down: str, help: str) -> Binding:
    """The original's pair of digit keys (on the main row or the keypad) raising and lowering
    one material of the moving bodies: actions ``<material>_up`` and ``<material>_down``."""
    inputs = _keys(f"{material}_up", up, f"KP_{up}") + _keys(f"{material}_down", down, f"KP_{down}")
    return Binding(f"{up} / {down}", inputs, help, "original", needs=_MATERIAL)


def _player_fire(what: str, feature: str) -> Binding:
    """Either mouse button fires ``what`` from the player in scenes with ``feature``."""
    help = f"fire {what} from the player at the cursor (held: repeats)"
    return Binding("left / right mouse", _LEFT + _RIGHT, help, "scene", HOLD, (feature,))


BINDINGS: tuple[Binding, ...] = (
    # The original T7 demo's controls.
    Binding("left mouse", _LEFT, "attract bodies to the cursor (held)", "original", HOLD, ("attract",)),
    Binding("right mouse", _RIGHT, "repel bodies from the cursor (held)", "original", HOLD, ("attract",)),
    Binding("p", _keys("pause", "P"), "pause / resume (help stays up)", "original"),
    Binding("h", _keys("help", "H"), "show the help again (next page if it has several)", "original"),
    Binding("g", _keys("gravity", "G"), "gravity on / off", "original", needs=("gravity",)),
    Binding("f", _keys("friction_toggle", "F"), "dynamic friction on / off", "original", needs=_MATERIAL),
    Binding(
        "s", _keys("static_friction_toggle", "S"), "static friction on / off", "original", needs=_MATERIAL
    ),
    Binding(
        "+ / -",
        _keys("more_bodies", "EQUAL", "KP_ADD") + _keys("fewer_bodies", "MINUS", "KP_SUBTRACT"),
        "one body more / fewer (5..999)",
        "original",
        needs=("count",),
    ),
    Binding("Enter", _ENTER, "back to the default body count", "original", needs=("count",)),
    Binding(
        "Space", _keys("regenerate", "SPACE"), "new random bodies", "original", needs=("random", "moving")
    ),
    _material_keys("friction", "7", "4", "dynamic friction +/- 0.05 (0..1)"),
    _material_keys("restitution", "8", "5", "restitution +/- 0.05 (0..1)"),
    _material_keys("static_friction", "9", "6", "static friction +/- 0.01 (0..1.5)"),
    Binding("Esc", _keys("quit", "ESCAPE"), "quit", "original"),
    # Ours.
    Binding("o", _keys("single_step", "O"), "one step while paused", "program"),
    Binding("r", _keys("restart", "R"), "restart the scene", "program"),
    Binding(
        "Tab / Shift+Tab",
        _keys("next_scene", "TAB") + _keys("previous_scene", "shift+TAB"),
        "next / previous scene",
        "program",
    ),
    Binding(
        "m",
        _keys("cycle_solver", "M"),
        "this scene's solver: tutorial / iterative / arcade",
        "program",
        needs=("solver",),
    ),
    Binding(
        "[ / ]",
        _keys("slower", "LEFT_BRACKET") + _keys("faster", "RIGHT_BRACKET"),
        "slow motion / faster: halve or double the speed of time (1/8x .. 4x)",
        "program",
    ),
    Binding(
        "x",
        _keys("fire", "X"),
        "fire the turret (the gun drawn in the scene) at the cursor (held: repeats)",
        "program",
        HOLD,
        needs=("turret",),
    ),
    Binding("c", _keys("show_contacts", "C"), "contact points on / off", "view", needs=_CONTACTS),
    Binding("n", _keys("show_normals", "N"), "contact normals on / off", "view", needs=_CONTACTS),
    Binding("b", _keys("show_bounds", "B"), "bounding boxes on / off", "view", needs=("bodies",)),
    Binding("v", _keys("show_velocities", "V"), "velocities on / off", "view", needs=("moving",)),
    Binding(
        "mouse wheel",
        _keys("zoom_in", "SCROLL_UP") + _keys("zoom_out", "SCROLL_DOWN"),
        "zoom about the cursor",
        "view",
    ),
    Binding("middle drag", _keys("pan", "MOUSE_MIDDLE"), "pan the view", "view", HOLD),
    Binding("Home", _keys("reset_view", "HOME"), "reset the view", "view"),
    Binding("F2", _keys("screenshot", "F2"), "save a screenshot (PNG; the path is shown)", "view"),
    Binding("u", _keys("show_push", "U"), "push vectors (MTD arrows) on / off", "view", needs=_CONTACTS),
    Binding("t", _keys("show_toi", "T"), "time-of-impact ghosts on / off", "view", needs=_CONTACTS),
    Binding(
        "i", _keys("show_impulses", "I"), "normal and friction impulses on / off", "view", needs=_CONTACTS
    ),
    # Scene keys: what an input does in the scenes that give it their own meaning.
    Binding("arrows", _ARROWS, "move polygon A (held)", "scene", HOLD, ("pair",)),
    Binding("arrows", _ARROWS, "push the player (held)", "scene", HOLD, ("player",)),
    Binding("left mouse", _LEFT, "set A's motion toward the cursor", "scene", HOLD, ("aim",)),
    _player_fire("a bullet", "bullets"),
    _player_fire("the laser", "laser"),
    Binding("left drag", _LEFT, "drag a shape (with Shift: turn it)", "scene", HOLD, ("drag",)),
    Binding("Enter", _ENTER, "separate A from B (push A out by the MTD)", "scene", PRESS, ("separate",)),
    Binding(
        "Space",
        _keys("regenerate", "SPACE"),
        "new random polygons A and B",
        "scene",
        PRESS,
        ("pair", "random"),
    ),
    Binding("a", _keys("toggle_spin", "A"), "spin on / off", "scene", PRESS, ("spin",)),
    Binding(
        ". / ,",
        _keys("next_axis", "PERIOD") + _keys("previous_axis", "COMMA"),
        "test the next / previous candidate axis (A's edges, then B's), as the tutorial does",
        "scene",
        PRESS,
        ("axes",),
    ),
    Binding("left mouse", _LEFT, "pick the contact nearest the cursor", "scene", HOLD, ("pick",)),
    Binding(
        "1",
        _keys("toggle_ordering", "1", "KP_1"),
        "earliest-first ordering on / off (arcade solver)",
        "scene",
        PRESS,
        ("ordering",),
    ),
    Binding(
        "2",
        _keys("toggle_surface", "2", "KP_2"),
        "surface-area rule on / off (arcade solver)",
        "scene",
        PRESS,
        ("ordering",),
    ),
    Binding("k", _keys("toggle_ccd", "K"), "continuous collision on / off", "scene", PRESS, ("ccd",)),
    Binding("l", _keys("reload", "L"), "reload the scene file", "scene", PRESS, ("file",)),
)

GROUP_TITLES = {
    "original": "from the original demo",
    "program": "ours",
    "view": "view",
    "scene": "this scene",
}


def action_for(input_name: str, shift: bool = False) -> str | None:
    """The action bound to ``input_name`` ("P", "MOUSE_LEFT", ...), or None.

    With ``shift`` held a "shift+NAME" binding wins; otherwise the plain binding applies.
    """
    table = _ACTIONS
    if shift and f"shift+{input_name}" in table:
        return table[f"shift+{input_name}"]
    return table.get(input_name)


def _build_action_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for binding in BINDINGS:
        for name, action in binding.inputs:
            if table.get(name, action) != action:
                raise ValueError(f"input {name!r} bound twice ({table[name]!r} and {action!r})")
            table[name] = action
    return table


_ACTIONS = _build_action_table()

#: Every action name, in table order.
ACTIONS: tuple[str, ...] = tuple(dict.fromkeys(a for b in BINDINGS for _, a in b.inputs))

#: Actions that act while held rather than once per press.
HOLD_ACTIONS = frozenset(a for b in BINDINGS if b.kind == HOLD for _, a in b.inputs)
#: Press actions that a held key repeats (at the keyboard's repeat rate).
REPEATING = frozenset({"more_bodies", "fewer_bodies", "slower", "faster"})


# ----------------------------------------------------------------------------------------------
# Which rows apply to a scene.


def scene_features(scene: Any, gravity: Any = None) -> frozenset[str]:
    """The features scene ``scene`` (a demo.scenes.Scene) has: its traits and :data:`WORLD_FEATURES`.

    ``gravity``: the scene's own gravity (2,) if the world's has been switched off by `g`
    (default: the world's).
    """
    world = scene.world
    found: set[str] = set(scene.traits)
    if world.body_count:
        found.add("bodies")
    if world.body_count and not bool(np.all(np.asarray(world.static, dtype=bool))):
        found |= {"moving", "contacts", "solver"}
        if "driven" not in found:
            found.add("material")
        if scene.mouse_forces:
            found.add("attract")
        g = np.asarray(world.gravity if gravity is None else gravity, dtype=np.float64)
        if np.any(g != 0.0):
            found.add("gravity")
    if scene.turret is not None:
        found.add("turret")
    if scene.min_bodies < scene.max_bodies:
        found.add("count")
    return frozenset(found)


def applies_to(binding: Binding, features: frozenset[str] | None) -> bool:
    """Whether ``binding`` means something in a scene with ``features`` (None: every row)."""
    return features is None or all(need in features for need in binding.needs)


def rows_for(scene: Any, features: frozenset[str] | None = None) -> list[Binding]:
    """The bindings that apply to ``scene`` (a Scene, or None: all), in table order."""
    if scene is not None and features is None:
        features = scene_features(scene)
    return [b for b in BINDINGS if applies_to(b, features)]


def handled_actions(scene: Any, features: frozenset[str] | None = None) -> frozenset[str]:
    """The actions that do something in ``scene``: those its rows bind. Others do nothing there."""
    return frozenset(action for b in rows_for(scene, features) for _, action in b.inputs)


def help_rows(scene: Any = None, features: frozenset[str] | None = None) -> list[tuple[str, str]]:
    """The help overlay's rows, grouped: (label, help) per binding; a group heading is (title, "").

    ``scene``: only the rows that apply to that scene (a Scene; None: all rows).
    """
    chosen_rows = rows_for(scene, features)
    rows: list[tuple[str, str]] = []
    for group, title in GROUP_TITLES.items():
        chosen = [(b.label, b.help) for b in chosen_rows if b.group == group]
        if chosen:
            rows.append((f"-- {title} --", ""))
            rows.extend(chosen)
    return rows


def help_lines(scene: Any = None) -> list[str]:
    """The help as plain text lines, ``label  help`` (labels padded to one width)."""
    width = max(len(b.label) for b in BINDINGS)
    return [f"{label.ljust(width)}  {text}" if text else label for label, text in help_rows(scene)]


#: Features a scene file can have: the world's (a file's body count is fixed) and "file".
_FILE_FEATURES = (frozenset(WORLD_FEATURES) - {"count"}) | {"file"}


def _where(binding: Binding, features: dict[str, frozenset[str]]) -> str:
    """The README's "Scenes" cell: every built-in scene the row applies to, and scene files."""
    if not binding.needs:
        return "all"
    names = [name for name, found in features.items() if applies_to(binding, found)]
    cell = ", ".join(f"`{name}`" for name in names)
    needs = set(binding.needs)
    if needs <= _FILE_FEATURES:
        if "gravity" in needs:
            files = "scene files with gravity"
        elif needs & {"moving", "contacts", "material", "solver", "attract"}:
            files = "scene files with moving bodies"
        elif "bodies" in needs:
            files = "scene files with bodies"
        else:
            files = "scene files"
        cell = f"{cell}, {files}" if cell else files
    return cell


def controls_markdown(features: dict[str, frozenset[str]]) -> str:
    """The README controls table (markdown), generated from ``BINDINGS``.

    ``features``: each built-in scene's features by name, in Tab order (demo.__main__ builds
    the scenes to find them). The "Scenes" column lists the scenes each row applies to, decided
    as the program decides it.
    """
    rows = ["| Input | Action | From | Scenes |", "|---|---|---|---|"]
    for b in BINDINGS:
        label = b.label.replace("|", "\\|")
        rows.append(f"| {label} | {b.help} | {GROUP_TITLES[b.group]} | {_where(b, features)} |")
    note = "\nAn input does something only in the scenes its rows list; elsewhere it does nothing.\n"
    return "\n".join(rows) + "\n" + note
