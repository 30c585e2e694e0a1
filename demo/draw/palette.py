"""Every colour the program draws with, in one place: straight (not premultiplied) RGBA in 0..1.

The original's colours are ARGB words (``0xAARRGGBB``, ORIGINAL_DEMO.md section 3); :func:`argb`
turns one into a tuple, so the values below can be checked against the original's source.
No GL here: scenes and the HUD read their colours from this module too.
"""

from __future__ import annotations

Color = tuple[float, float, float, float]


def argb(value: int) -> Color:
    """The original's ``0xAARRGGBB`` colour -> (r, g, b, a) floats in 0..1."""
    a, r, g, b = (value >> 24) & 255, (value >> 16) & 255, (value >> 8) & 255, value & 255
    return (r / 255.0, g / 255.0, b / 255.0, a / 255.0)


def faded(color: Color, alpha: float) -> Color:
    """``color`` with its alpha multiplied by ``alpha`` (0..1)."""
    return (color[0], color[1], color[2], color[3] * alpha)


# -- the picture ---------------------------------------------------------------------------------
#: The original's clear colour (main.cpp): dark grey.
BACKGROUND = (0.2, 0.2, 0.2)

# -- bodies (the original's Body.cpp) -----------------------------------------------------------
STATIC_FILL = argb(0x808080FF)  # light blue, half transparent
MOVING_FILL = argb(0x8080FF80)  # light green, half transparent
STATIC_OUTLINE = argb(0xFF8080FF)
MOVING_OUTLINE = argb(0xFF00A000)
#: Kinematic bodies (moved only by their set velocity): amber, apart from static blue and the
#: moving bodies' green; outlined as moving bodies.
KINEMATIC_FILL = argb(0x99FFB030)
#: Bullets (T7b Body.cpp: red particles).
BULLET = argb(0xFFFF0000)

# -- text ----------------------------------------------------------------------------------------
WHITE = (1.0, 1.0, 1.0, 1.0)
BLACK = (0.0, 0.0, 0.0, 1.0)
HUD_TEXT = (1.0, 1.0, 0.6, 1.0)
STATUS_TEXT = (0.7, 1.0, 0.7, 1.0)
HELP_TEXT = (1.0, 1.0, 1.0, 1.0)
HELP_KEY = (1.0, 0.85, 0.45, 1.0)
HELP_HEADING = (0.6, 0.8, 1.0, 1.0)
MESSAGE_TEXT = (1.0, 0.8, 0.5, 1.0)
LABEL_TEXT = (1.0, 1.0, 1.0, 1.0)
#: The translucent panel behind overlay text, so it reads over any body or wall.
PANEL = (0.06, 0.06, 0.08, 0.72)
PANEL_EDGE = (1.0, 1.0, 1.0, 0.18)
#: The start-up progress bar.
PROGRESS_TRACK = (1.0, 1.0, 1.0, 0.15)
PROGRESS_FILL = (0.45, 0.8, 0.45, 1.0)

# -- world overlays ------------------------------------------------------------------------------
#: A shot's line (the original's laser: opaque red).
SHOT = argb(0xFFFF0000)
TURRET = (0.85, 0.85, 0.9, 1.0)
TURRET_BASE = (0.45, 0.45, 0.5, 0.9)
#: Contact points by state (world.contacts.state): new, persisting, speculative.
CONTACT_STATES = ((1.0, 0.3, 0.3, 1.0), (1.0, 0.65, 0.1, 1.0), (0.4, 0.6, 1.0, 1.0))
NORMAL = (1.0, 1.0, 0.4, 1.0)
SEPARATION = (1.0, 0.2, 1.0, 1.0)
PUSH = (1.0, 1.0, 1.0, 1.0)
GHOST = (1.0, 1.0, 1.0, 0.25)
NORMAL_IMPULSE = (1.0, 0.5, 0.2, 1.0)
FRICTION_IMPULSE = (0.3, 1.0, 0.5, 1.0)
BOUNDS = (0.7, 0.7, 0.7, 0.6)
VELOCITY = (0.4, 0.9, 1.0, 1.0)

# -- scenes --------------------------------------------------------------------------------------
#: Teaching pairs (T1/T2 GameCode.cpp): red while colliding, green otherwise.
PAIR_COLLIDING = argb(0x80FF8080)
PAIR_APART = argb(0x8080FF80)
PAIR_NEUTRAL = (0.5, 0.5, 1.0, 0.25)
POLY_A_OUTLINE = WHITE
POLY_B_OUTLINE = BLACK
TOI_GHOST_FILL = (1.0, 1.0, 1.0, 0.25)
TOI_GHOST_LINE = (1.0, 1.0, 1.0, 0.4)
MOTION_GHOST = (1.0, 1.0, 1.0, 0.15)
#: T6's contact pairs: red (0xFFFF0000).
CONTACT_PAIR = argb(0xFFFF0000)
#: The tutorial's figures: an axis's intervals overlapping (red, as a colliding pair) or apart
#: (green); A's and B's bars; the axis line and the guides from the polygons down to it.
AXIS_OVERLAP = (1.0, 0.45, 0.45, 1.0)
AXIS_APART = (0.45, 1.0, 0.45, 1.0)
AXIS_A = (1.0, 1.0, 1.0, 0.95)
AXIS_B = (0.55, 0.7, 1.0, 0.95)
AXIS_LINE = (1.0, 1.0, 1.0, 0.45)
AXIS_GUIDE = (1.0, 1.0, 1.0, 0.18)
#: Push vectors of the axes not chosen; a face's time window while it is still apart.
PUSH_CANDIDATE = (1.0, 1.0, 1.0, 0.35)
AXIS_WINDOW = (1.0, 0.8, 0.3, 0.9)
#: The time line's latest entry, earliest exit, the chosen face and the gap proving a miss.
ENTRY = (1.0, 0.6, 0.2, 1.0)
EXIT = (0.3, 0.85, 1.0, 1.0)
TOI = (1.0, 0.6, 0.2, 0.8)
MISS_GAP = (0.3, 1.0, 0.4, 0.3)
#: The impulse figure's arms from the centroids to the contact point.
ARM = (1.0, 0.9, 0.4, 1.0)
FORMULA_TEXT = (0.85, 0.95, 1.0, 1.0)
#: The crack figure's time slices of a step, alternating.
TIME_SLICES = ((0.3, 0.85, 1.0, 0.9), (0.6, 0.5, 1.0, 0.9))
CLIP_FILL = (1.0, 0.85, 0.2, 0.7)
CLIP_LINE = (1.0, 0.9, 0.3, 1.0)
#: Seed 001's primitives: red when a shape collides with another, green otherwise.
PRIMITIVE_HIT = (1.0, 0.35, 0.35, 1.0)
PRIMITIVE_CALM = (0.5, 1.0, 0.5, 1.0)
#: The concave scene: one colour per outline (its convex pieces share it).
OUTLINE_GROUPS = (
    (1.0, 0.6, 0.3, 0.6),
    (0.4, 0.8, 1.0, 0.6),
    (1.0, 0.9, 0.3, 0.6),
    (0.9, 0.5, 1.0, 0.6),
)
