"""The one table of key and mouse bindings.

Both the in-window help overlay and the README controls table are generated from ``BINDINGS``,
so the two can never disagree. This module imports no GL or window library: inputs are named
with plain strings ("P", "KP_ADD", "MOUSE_LEFT", "shift+TAB") and demo/app.py maps window-system
codes to these names.
"""

from __future__ import annotations

from dataclasses import dataclass

#: How an action fires: once per press, or every frame while the input is held.
PRESS = "press"
HOLD = "hold"


@dataclass(frozen=True)
class Binding:
    """One row of the controls table.

    ``label``: how the input is written for a user ("7 / 4"); ``inputs``: (input name, action)
    pairs the row binds; ``help``: what it does; ``group``: the heading it is listed under;
    ``kind``: PRESS (once per press) or HOLD (while held); ``scenes``: the scenes where the row
    means something (empty: all). A row may bind no inputs: it then documents what an input
    bound elsewhere does in those scenes (the mouse in the teaching scenes, for example).
    """

    label: str
    inputs: tuple[tuple[str, str], ...]
    help: str
    group: str
    kind: str = PRESS
    #: Scenes the row applies to (names); empty: every scene.
    scenes: tuple[str, ...] = ()


def _keys(action: str, *names: str) -> tuple[tuple[str, str], ...]:
    return tuple((name, action) for name in names)


BINDINGS: tuple[Binding, ...] = (
    # The original T7 demo's controls.
    Binding(
        "left mouse", _keys("attract", "MOUSE_LEFT"), "attract bodies to the cursor (held)", "original", HOLD
    ),
    Binding(
        "right mouse", _keys("repel", "MOUSE_RIGHT"), "repel bodies from the cursor (held)", "original", HOLD
    ),
    Binding("p", _keys("pause", "P"), "pause / resume (help stays up)", "original"),
    Binding("h", _keys("help", "H"), "show the help again", "original"),
    Binding("g", _keys("gravity", "G"), "gravity on / off", "original"),
    Binding("f", _keys("friction_toggle", "F"), "dynamic friction on / off", "original"),
    Binding("s", _keys("static_friction_toggle", "S"), "static friction on / off", "original"),
    Binding(
        "+ / -",
        _keys("more_bodies", "EQUAL", "KP_ADD") + _keys("fewer_bodies", "MINUS", "KP_SUBTRACT"),
        "one body more / fewer (5..999)",
        "original",
    ),
    Binding("Enter", _keys("reset_count", "ENTER", "KP_ENTER"), "back to the default body count", "original"),
    Binding("Space", _keys("regenerate", "SPACE"), "new random bodies", "original"),
    Binding(
        "7 / 4",
        _keys("friction_up", "7", "KP_7") + _keys("friction_down", "4", "KP_4"),
        "dynamic friction +/- 0.05 (0..1)",
        "original",
    ),
    Binding(
        "8 / 5",
        _keys("restitution_up", "8", "KP_8") + _keys("restitution_down", "5", "KP_5"),
        "restitution +/- 0.05 (0..1)",
        "original",
    ),
    Binding(
        "9 / 6",
        _keys("static_friction_up", "9", "KP_9") + _keys("static_friction_down", "6", "KP_6"),
        "static friction +/- 0.01 (0..1.5)",
        "original",
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
    Binding("m", _keys("cycle_solver", "M"), "solver: tutorial / iterative / arcade", "program"),
    Binding("x", _keys("fire", "X"), "fire a bullet at the cursor (held: repeats)", "program", HOLD),
    Binding("c", _keys("show_contacts", "C"), "contact points on / off", "view"),
    Binding("n", _keys("show_normals", "N"), "contact normals on / off", "view"),
    Binding("b", _keys("show_bounds", "B"), "bounding boxes on / off", "view"),
    Binding("v", _keys("show_velocities", "V"), "velocities on / off", "view"),
    Binding(
        "mouse wheel",
        _keys("zoom_in", "SCROLL_UP") + _keys("zoom_out", "SCROLL_DOWN"),
        "zoom about the cursor",
        "view",
    ),
    Binding("middle drag", _keys("pan", "MOUSE_MIDDLE"), "pan the view", "view", HOLD),
    Binding("Home", _keys("reset_view", "HOME"), "reset the view", "view"),
    Binding("F2", _keys("screenshot", "F2"), "save a screenshot (PNG)", "view"),
    Binding("u", _keys("show_push", "U"), "push vectors (MTD arrows) on / off", "view"),
    Binding("t", _keys("show_toi", "T"), "time-of-impact ghosts on / off", "view"),
    Binding("i", _keys("show_impulses", "I"), "normal and friction impulses on / off", "view"),
    # Scene keys: what they do is also in each scene's own help lines.
    Binding(
        "arrows",
        _keys("move_left", "LEFT")
        + _keys("move_right", "RIGHT")
        + _keys("move_up", "UP")
        + _keys("move_down", "DOWN"),
        "move polygon A / the player (held)",
        "scene",
        HOLD,
        (
            "sat",
            "mtd",
            "swept",
            "rotation",
            "contacts",
            "clipping",
            "arcade",
            "arcade-spin",
            "bullets",
            "laser",
        ),
    ),
    Binding(
        "left mouse",
        (),
        "set A's motion toward the cursor",
        "scene",
        PRESS,
        ("swept", "rotation", "contacts"),
    ),
    Binding("left mouse", (), "fire at the cursor (held: repeats)", "scene", PRESS, ("bullets", "laser")),
    Binding("left drag", (), "drag a shape (with Shift: rotate it)", "scene", PRESS, ("primitives",)),
    Binding("Enter", (), "separate A from B (push by the MTD)", "scene", PRESS, ("mtd", "swept", "rotation")),
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
            if name in table:
                raise ValueError(f"input {name!r} bound twice ({table[name]!r} and {action!r})")
            table[name] = action
    return table


_ACTIONS = _build_action_table()

#: Every action name, in table order.
ACTIONS: tuple[str, ...] = tuple(dict.fromkeys(a for b in BINDINGS for _, a in b.inputs))

#: Actions that act while held rather than once per press.
HOLD_ACTIONS = frozenset(a for b in BINDINGS if b.kind == HOLD for _, a in b.inputs)


def applies_to(binding: Binding, scene: str | None) -> bool:
    """Whether ``binding`` means something in scene ``scene`` (None: list every row)."""
    if scene is None or not binding.scenes:
        return True
    if scene.endswith(".json") and "*.json" in binding.scenes:
        return True
    return scene in binding.scenes


def help_rows(scene: str | None = None) -> list[tuple[str, str]]:
    """The help overlay's rows, grouped: (label, help) per binding; a group heading is (title, "").

    ``scene``: only the rows that apply to that scene (None: all rows).
    """
    rows: list[tuple[str, str]] = []
    for group, title in GROUP_TITLES.items():
        chosen = [(b.label, b.help) for b in BINDINGS if b.group == group and applies_to(b, scene)]
        if chosen:
            rows.append((f"-- {title} --", ""))
            rows.extend(chosen)
    return rows


def help_lines() -> list[str]:
    """The help as plain text lines, ``label  help`` (labels padded to one width)."""
    width = max(len(b.label) for b in BINDINGS)
    return [f"{label.ljust(width)}  {text}" if text else label for label, text in help_rows()]


def controls_markdown() -> str:
    """The README controls table (markdown), generated from ``BINDINGS``."""
    rows = ["| Input | Action | From | Scenes |", "|---|---|---|---|"]
    for b in BINDINGS:
        label = b.label.replace("|", "\\|")
        where = ", ".join(f"`{name}`" for name in b.scenes) if b.scenes else "all"
        rows.append(f"| {label} | {b.help} | {GROUP_TITLES[b.group]} | {where} |")
    return "\n".join(rows) + "\n"
