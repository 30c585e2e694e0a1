"""The engine's reasoning as arrays: what the separating-axis test, the support points, the
tutorial solver's impulses and the arcade solver's ordering computed on the way to their answers.

This is a debug face for drawing and teaching (the program's figures read it), not a second
implementation: each function here runs the engine's own compiled steps (collision.sat's
``axis_separate_polygons``, ``calculate_interval``, ``interval_intersect`` and ``sweep_kernel``;
collision.contacts' ``find_support_points`` and ``find_contacts``; the tutorial solver's
``find_hit``, ``resolve_hit`` and impulse terms; the arcade solver's ``evaluate`` and
``earliest``) and records what they produced. The answers it reports (the chosen axis, the time
of impact, the impulses, the end state of a replayed step) are the engine's, bit for bit; the
tests hold it to that.

- :func:`separating_axes`: Tutorials 1-3 and 5, every face of a pair with its projected
  intervals, gap, closing speed, entry and exit times, the early out and the engine's choice.
- :func:`support_features`: Tutorial 6, the support points along a hit's normal and the pairs.
- :func:`snapshot`, :func:`tutorial_step`: Tutorial 7, one world step of the ``"tutorial"``
  solver replayed from a copy of the bodies, with each hit's impulse terms.
- :func:`arcade_choice`: seed 002, the hits the ``"arcade"`` solver can choose first in a step,
  their contact surfaces, the grazes its surface-area rule ignores and its choice.
"""

from collision.explain.axes import Axes, Support, face_edge, separating_axes, support_features
from collision.explain.steps import (
    ArcadeChoice,
    ImpulseTrace,
    StepInput,
    arcade_choice,
    snapshot,
    tutorial_step,
)

__all__ = [
    "ArcadeChoice",
    "Axes",
    "ImpulseTrace",
    "StepInput",
    "Support",
    "arcade_choice",
    "face_edge",
    "separating_axes",
    "snapshot",
    "support_features",
    "tutorial_step",
]
