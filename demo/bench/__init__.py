"""Benchmarks and the physics comparison: ``python -m demo bench`` (see :mod:`demo.bench.cli`).

- :mod:`demo.bench.scenes`: engine-neutral scene descriptions and the one geometry generator;
- :mod:`demo.bench.engines`: adapters building a scene in ours, Box2D v3 and pymunk;
- :mod:`demo.bench.measure`: engine-neutral measures of a state (overlaps, rest, escapes);
- :mod:`demo.bench.physics`: the exact cases, shared by tests/physics and ``--physics``;
- :mod:`demo.bench.run`: our scenes in our world (``SCENES``, also listed by the program);
- :mod:`demo.bench.speed`: ``--vs`` and ``--scale``, each engine in its own process;
- :mod:`demo.bench.machine`: the machine line every speed report starts with;
- :mod:`demo.bench.report`: ``--physics``.
"""

from demo.bench.cli import main
from demo.bench.run import (
    SCENES,
    Scene,
    build_bullet,
    build_pile,
    build_pyramid,
    new_world,
    run_scene,
    warm_up,
)
from demo.bench.scenes import pile_shapes, pyramid_layout

__all__ = [
    "SCENES",
    "Scene",
    "build_bullet",
    "build_pile",
    "build_pyramid",
    "main",
    "new_world",
    "pile_shapes",
    "pyramid_layout",
    "run_scene",
    "warm_up",
]
