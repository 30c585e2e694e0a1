"""A glfw window's input, routed into the program: key, button, cursor and wheel callbacks that
only record events (demo.app.App turns them into actions once per frame).
"""

from __future__ import annotations

from typing import Any

import glfw

from demo import controls

#: glfw key names (glfw.KEY_<NAME>) with the same name in demo.controls.
NAMED_KEYS = (
    "LEFT",
    "RIGHT",
    "UP",
    "DOWN",
    "ESCAPE",
    "ENTER",
    "KP_ENTER",
    "SPACE",
    "TAB",
    "HOME",
    "EQUAL",
    "MINUS",
    "KP_ADD",
    "KP_SUBTRACT",
    "LEFT_BRACKET",
    "RIGHT_BRACKET",
    "PERIOD",
    "COMMA",
    "F1",
    "F2",
    "F3",
)


def glfw_key_names() -> dict[int, str]:
    """glfw key codes -> demo.controls input names."""
    names: dict[int, str] = {}
    for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        names[getattr(glfw, f"KEY_{letter}")] = letter
    for digit in "0123456789":
        names[getattr(glfw, f"KEY_{digit}")] = digit
        names[getattr(glfw, f"KEY_KP_{digit}")] = f"KP_{digit}"
    for name in NAMED_KEYS:
        names[getattr(glfw, f"KEY_{name}")] = name
    return names


def connect_window(app: Any, window: Any) -> None:
    """Route a glfw window's callbacks into ``app``'s input recorders (they only record).

    ``app``: a demo.app.App (its ``key``, ``mouse_button``, ``cursor`` and ``scroll``).
    """
    keys = glfw_key_names()
    buttons = {
        glfw.MOUSE_BUTTON_LEFT: "MOUSE_LEFT",
        glfw.MOUSE_BUTTON_RIGHT: "MOUSE_RIGHT",
        glfw.MOUSE_BUTTON_MIDDLE: "MOUSE_MIDDLE",
    }

    def on_key(_win: Any, key: int, _scancode: int, action: int, mods: int) -> None:
        name = keys.get(key)
        if name is None:
            return
        shift = bool(mods & glfw.MOD_SHIFT)
        if action == glfw.REPEAT:
            # A held key repeats only the actions that step a value (+ and - add bodies).
            if controls.action_for(name, shift) in controls.REPEATING:
                app.key(name, True, shift)
            return
        app.key(name, action == glfw.PRESS, shift)

    def on_button(_win: Any, button: int, action: int, mods: int) -> None:
        name = buttons.get(button)
        if name is not None:
            app.mouse_button(name, action == glfw.PRESS, bool(mods & glfw.MOD_SHIFT))

    def on_cursor(_win: Any, x: float, y: float) -> None:
        app.cursor(x, y)

    def on_scroll(_win: Any, _dx: float, dy: float) -> None:
        app.scroll(dy)

    def on_refresh(_win: Any) -> None:
        app.redraw()  # uncovered or resized: the picture must be drawn again

    # Keep references: glfw holds only weak ones to Python callables.
    app.callbacks = (on_key, on_button, on_cursor, on_scroll, on_refresh)
    glfw.set_window_refresh_callback(window, on_refresh)
    glfw.set_key_callback(window, on_key)
    glfw.set_mouse_button_callback(window, on_button)
    glfw.set_cursor_pos_callback(window, on_cursor)
    glfw.set_scroll_callback(window, on_scroll)
