"""The one table of key and mouse bindings.

Both the in-window help overlay and the README controls table are generated from ``BINDINGS``,
so the two can never disagree. Each scene shows only the rows that apply to it (the row's
``scenes`` and the scene's features, :func:`scene_features`), with the text that says what the
input does there; the program (demo.actions) carries out only the actions of those rows, so an
input a scene's help does not list does nothing in that scene.

This module imports no GL or window library: inputs are named with plain strings ("P",
"KP_ADD", "MOUSE_LEFT", "shift+TAB") and demo/app.py maps window-system codes to these names.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
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
    ``kind``: PRESS (once per press) or HOLD (while held); ``scenes``: the scenes where the row
    applies (names; empty: any scene); ``needs``: scene features (see :data:`FEATURES`) the
    scene must have for the row to apply. A row applies to a scene when both hold; an input
    whose rows do not apply to the scene does nothing there. One input may appear in several
    rows, always with the same action, when scenes give that action different meanings (the
    left mouse attracts in ``rigid`` and sets A's motion in ``swept``).
    """

    label: str
    inputs: tuple[tuple[str, str], ...]
    help: str
    group: str
    kind: str = PRESS
    #: Scenes the row applies to (names); empty: every scene.
    scenes: tuple[str, ...] = ()
    #: Scene features the row needs (all of them).
    needs: tuple[str, ...] = ()


def _keys(action: str, *names: str) -> tuple[tuple[str, str], ...]:
    return tuple((name, action) for name in names)


#: What a scene can have that makes a row mean something there (decided by :func:`scene_features`).
FEATURES = {
    "bodies": "the world has bodies",
    "moving": "the world has moving bodies",
    "contacts": "moving bodies that touch, so contacts to draw",
    "attract": "the mouse pulls and pushes the moving bodies",
    "gravity": "moving bodies and a gravity that is not zero",
    "material": "moving bodies whose material the keys set",
    "solver": "moving bodies whose collision response `m` switches",
    "count": "a body count that can change",
    "random": "a scene built at random from its seed",
    "turret": "a turret (Scene.turret is not None)",
}

#: The teaching scenes: two polygons, A and B, that the scene moves itself.
PAIR_SCENES = ("sat", "mtd", "swept", "rotation", "contacts", "clipping")
#: The swept-test scenes: the left mouse sets A's motion.
SWEPT_SCENES = ("swept", "rotation", "contacts")
#: The scenes with a player pushed by the arrow keys.
PLAYER_SCENES = ("arcade", "arcade-spin", "bullets", "laser")
#: Scenes built at random from their seed (Space builds the next seed; elsewhere it would only
#: rebuild the same scene, which is `r`). A test checks this list against the builders.
RANDOM_SCENES = (*PAIR_SCENES, "rigid", "arcade", "arcade-spin", "bullets", "laser", "tumbler")
#: Scenes that drive their moving body themselves to show one solver's behaviour (crack: the
#: arcade solver's ordering): the material keys and the solver switch would only defeat that.
DRIVEN_SCENES = ("crack",)

_ATTRACT = ("attract",)
_MATERIAL = ("material",)
_CONTACTS = ("contacts",)
_ARROWS = (
    _keys("move_left", "LEFT")
    + _keys("move_right", "RIGHT")
    + _keys("move_up", "UP")
    + _keys("move_down", "DOWN")
)
_LEFT = _keys("attract", "MOUSE_LEFT")
_ENTER = _keys("reset_count", "ENTER", "KP_ENTER")

BINDINGS: tuple[Binding, ...] = (
    # The original T7 demo's controls.
    Binding("left mouse", _LEFT, "attract bodies to the cursor (held)", "original", HOLD, needs=_ATTRACT),
    Binding(
        "right mouse",
        _keys("repel", "MOUSE_RIGHT"),
        "repel bodies from the cursor (held)",
        "original",
        HOLD,
        needs=_ATTRACT,
    ),
    Binding("p", _keys("pause", "P"), "pause / resume (help stays up)", "original"),
    Binding("h", _keys("help", "H"), "show the help again", "original"),
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
    Binding(
        "7 / 4",
        _keys("friction_up", "7", "KP_7") + _keys("friction_down", "4", "KP_4"),
        "dynamic friction +/- 0.05 (0..1)",
        "original",
        needs=_MATERIAL,
    ),
    Binding(
        "8 / 5",
        _keys("restitution_up", "8", "KP_8") + _keys("restitution_down", "5", "KP_5"),
        "restitution +/- 0.05 (0..1)",
        "original",
        needs=_MATERIAL,
    ),
    Binding(
        "9 / 6",
        _keys("static_friction_up", "9", "KP_9") + _keys("static_friction_down", "6", "KP_6"),
        "static friction +/- 0.01 (0..1.5)",
        "original",
        needs=_MATERIAL,
    ),
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
        "solver: tutorial / iterative / arcade",
        "program",
        needs=("solver",),
    ),
    Binding(
        "x",
        _keys("fire", "X"),
        "fire a bullet from the turret at the cursor (held: repeats)",
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
    Binding("F2", _keys("screenshot", "F2"), "save a screenshot (PNG)", "view"),
    Binding("u", _keys("show_push", "U"), "push vectors (MTD arrows) on / off", "view", needs=_CONTACTS),
    Binding("t", _keys("show_toi", "T"), "time-of-impact ghosts on / off", "view", needs=_CONTACTS),
    Binding(
        "i", _keys("show_impulses", "I"), "normal and friction impulses on / off", "view", needs=_CONTACTS
    ),
    # Scene keys: what an input does in the scenes that give it their own meaning.
    Binding("arrows", _ARROWS, "move polygon A (held)", "scene", HOLD, PAIR_SCENES),
    Binding("arrows", _ARROWS, "push the player (held)", "scene", HOLD, PLAYER_SCENES),
    Binding("left mouse", _LEFT, "set A's motion toward the cursor", "scene", HOLD, SWEPT_SCENES),
    Binding("left mouse", _LEFT, "fire a bullet at the cursor (held: repeats)", "scene", HOLD, ("bullets",)),
    Binding("left mouse", _LEFT, "fire the laser at the cursor (held: repeats)", "scene", HOLD, ("laser",)),
    Binding("left drag", _LEFT, "drag a shape (with Shift: turn it)", "scene", HOLD, ("primitives",)),
    Binding(
        "Enter", _ENTER, "separate A from B (push A out by the MTD)", "scene", PRESS, ("mtd", *SWEPT_SCENES)
    ),
    Binding(
        "Space",
        _keys("regenerate", "SPACE"),
        "new random polygons A and B",
        "scene",
        PRESS,
        PAIR_SCENES,
        ("random",),
    ),
    Binding(
        "a",
        _keys("toggle_spin", "A"),
        "spin on / off",
        "scene",
        PRESS,
        ("rotation", "contacts", "arcade-spin"),
    ),
    Binding(
        "1",
        _keys("toggle_ordering", "1", "KP_1"),
        "earliest-first ordering on / off",
        "scene",
        PRESS,
        ("crack",),
    ),
    Binding(
        "2", _keys("toggle_surface", "2", "KP_2"), "surface-area rule on / off", "scene", PRESS, ("crack",)
    ),
    Binding("k", _keys("toggle_ccd", "K"), "continuous collision on / off", "scene", PRESS, ("bullet",)),
    Binding("l", _keys("reload", "L"), "reload the scene file", "scene", PRESS, ("*.json",)),
)

GROUP_TITLES = {
    "original": "from the original demo",
    "program": "ours",
    "view": "view",
    "scene": "scene keys",
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


# ----------------------------------------------------------------------------------------------
# Which rows apply to a scene.


def scene_features(scene: Any, gravity: Any = None) -> frozenset[str]:
    """The :data:`FEATURES` scene ``scene`` (a demo.scenes.Scene) has.

    ``gravity``: the scene's own gravity (2,) if the world's has been switched off by `g`
    (default: the world's). Decided from the scene itself (its world, ``mouse_forces``,
    ``turret``, body-count range) and, for what the scene cannot say, from RANDOM_SCENES and
    DRIVEN_SCENES.
    """
    world = scene.world
    name = str(scene.name)
    found: set[str] = set()
    if world.body_count:
        found.add("bodies")
    if world.body_count and not bool(np.all(np.asarray(world.static, dtype=bool))):
        found |= {"moving", "contacts"}
        if name not in DRIVEN_SCENES:
            found |= {"material", "solver"}
        if scene.mouse_forces:
            found.add("attract")
        g = np.asarray(world.gravity if gravity is None else gravity, dtype=np.float64)
        if np.any(g != 0.0):
            found.add("gravity")
    if scene.turret is not None:
        found.add("turret")
    if scene.min_bodies < scene.max_bodies:
        found.add("count")
    if name in RANDOM_SCENES:
        found.add("random")
    return frozenset(found)


def _in_scenes(binding: Binding, name: str) -> bool:
    if not binding.scenes:
        return True
    if name.lower().endswith(".json") and "*.json" in binding.scenes:
        return True
    return name in binding.scenes


def applies_to(binding: Binding, scene: Any, features: frozenset[str] | None = None) -> bool:
    """Whether ``binding`` means something in ``scene`` (a Scene, a scene name or None: every row).

    ``features``: the scene's features if already known (default: :func:`scene_features`).
    """
    if scene is None:
        return True
    name = scene if isinstance(scene, str) else str(scene.name)
    if not _in_scenes(binding, name):
        return False
    if not binding.needs:
        return True
    if features is None:
        features = _features_of(scene)
    return all(need in features for need in binding.needs)


def _features_of(scene: Any) -> frozenset[str]:
    if isinstance(scene, str):
        return _named_scene_features(scene)
    return scene_features(scene)


@cache
def _named_scene_features(name: str) -> frozenset[str]:
    """The features of scene ``name`` (a registered scene or a scene file) as built with seed 0."""
    from demo import scenes  # noqa: PLC0415 - demo.scenes imports the engine: only when asked

    return scene_features(scenes.build_scene(name))


def rows_for(scene: Any, features: frozenset[str] | None = None) -> list[Binding]:
    """The bindings that apply to ``scene`` (a Scene, a scene name, or None: all), in table order."""
    if scene is not None and features is None and any(b.needs for b in BINDINGS):
        features = _features_of(scene)
    return [b for b in BINDINGS if applies_to(b, scene, features)]


def handled_actions(scene: Any, features: frozenset[str] | None = None) -> frozenset[str]:
    """The actions that do something in ``scene``: those its rows bind. Others do nothing there."""
    return frozenset(action for b in rows_for(scene, features) for _, action in b.inputs)


def help_rows(scene: Any = None, features: frozenset[str] | None = None) -> list[tuple[str, str]]:
    """The help overlay's rows, grouped: (label, help) per binding; a group heading is (title, "").

    ``scene``: only the rows that apply to that scene (a Scene or a scene name; None: all rows).
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


#: Features a scene file's world can have (files are not random and keep their body count).
_FILE_FEATURES = frozenset(FEATURES) - {"random", "count"}


def _where(binding: Binding, features: dict[str, frozenset[str]]) -> str:
    """The README's "Scenes" cell: every registered scene the row applies to, and scene files."""
    if not binding.scenes and not binding.needs:
        return "all"
    names = [name for name, found in features.items() if applies_to(binding, name, found)]
    cell = ", ".join(f"`{name}`" for name in names)
    if _in_scenes(binding, "x.json") and set(binding.needs) <= _FILE_FEATURES:
        needs = set(binding.needs)
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


def controls_markdown() -> str:
    """The README controls table (markdown), generated from ``BINDINGS`` and the scenes.

    The "Scenes" column lists the scenes each row applies to, decided as the program decides
    it (every registered scene is built once to find its features).
    """
    from demo import scenes  # noqa: PLC0415

    features = {name: _named_scene_features(name) for name in scenes.scene_names()}
    rows = ["| Input | Action | From | Scenes |", "|---|---|---|---|"]
    for b in BINDINGS:
        label = b.label.replace("|", "\\|")
        rows.append(f"| {label} | {b.help} | {GROUP_TITLES[b.group]} | {_where(b, features)} |")
    note = "\nAn input does something only in the scenes its rows list; elsewhere it does nothing.\n"
    return "\n".join(rows) + "\n" + note
