"""Benchmark of the separating-axis tests, both faces: ``python -m collision.bench``.

On random convex pairs of 3-8 vertices, about half of them overlapping at time 0, with random
relative velocities, on one core:

- the batch face: :func:`~collision.intersect_many`, :func:`~collision.find_mtd_many` and
  :func:`~collision.sweep_many` on packed :class:`~collision.Shapes`, and the world's kernel
  :func:`collision.sat.sweep_pairs`, in pairs per second;
- the one-pair face: :func:`~collision.intersect`, :func:`~collision.find_mtd` and
  :func:`~collision.sweep` called once per pair on ``(k, 2) float64`` arrays, in calls per
  second, beside :func:`pure_python_sat` (a plain pure-Python SAT on lists of tuples) in the
  same run, and the ratio of each to it.

Rates are the best of the repeats, from the timing thread's CPU time, so that other processes on
a shared machine do not count (wall-clock and median figures are printed too); the one-pair
functions and the reference take turns in every repeat. ``--json`` prints one JSON object
instead. The first call's time (compilation, or loading numba's cache) is reported as
``compile_cpu_seconds`` (this process's CPU time) and ``compile_seconds`` (wall clock); a child
process with an empty numba cache measures a cold compile, ``compile_cpu_seconds_cold`` and
``compile_seconds_cold``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np

from collision.shapes import MAX_VERTICES

Vertices = list[tuple[float, float]]


def random_pairs(
    count: int, seed: int = 0, min_vertices: int = 3, max_vertices: int = 8
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``count`` random pairs of convex polygons (3-8 vertices by default) in world space.

    Returns ``world_vertices (2 count, MAX_VERTICES, 2)``, ``vertex_count (2 count,) int64``,
    ``velocity (2 count, 2)``, ``pairs (count, 2) int64`` (body ``2p`` against ``2p + 1``).
    Radii are 0.5-1.5 units; centres are 0-3 units apart (about half the pairs overlap);
    speeds up to 4 units per second, for a sweep over one second.
    """
    rng = np.random.default_rng(seed)
    n = 2 * count
    k = rng.integers(min_vertices, max_vertices + 1, size=n)
    world = np.zeros((n, MAX_VERTICES, 2))
    radius = rng.uniform(0.5, 1.5, size=n)
    # Vertices on an ellipse at sorted angles, with a minimum angular gap so that every
    # polygon is strictly convex.
    for i in range(n):
        gaps = rng.uniform(0.3, 1.0, size=k[i])
        angles = np.cumsum(gaps) / gaps.sum() * 2.0 * np.pi + rng.uniform(0.0, 2.0 * np.pi)
        squash = rng.uniform(0.5, 1.0)
        local = np.stack([np.cos(angles), squash * np.sin(angles)], axis=1) * radius[i]
        turn = rng.uniform(0.0, 2.0 * np.pi)
        c, s = np.cos(turn), np.sin(turn)
        world[i, : k[i]] = local @ np.array([[c, s], [-s, c]])
    offset_angle = rng.uniform(0.0, 2.0 * np.pi, size=count)
    offset_length = rng.uniform(0.0, 3.0, size=count)
    world[1::2] += (np.stack([np.cos(offset_angle), np.sin(offset_angle)], axis=1) * offset_length[:, None])[
        :, None, :
    ]
    velocity = rng.uniform(-4.0, 4.0, size=(n, 2))
    pairs = np.arange(n, dtype=np.int64).reshape(count, 2)
    return world, k.astype(np.int64), velocity, pairs


def pure_python_sat(a: Vertices, b: Vertices) -> tuple[float, float] | None:
    """The reference for the one-pair face: Tutorials 1-2 in plain Python, the way one would
    write them without numpy. ``a``, ``b``: convex CCW polygons as lists of ``(x, y)``.
    Returns the minimum translation ``(x, y)`` of A out of B, or None when a face separates."""
    best = None
    best_sq = math.inf
    for shape in (a, b):
        x0, y0 = shape[-1]
        for x1, y1 in shape:
            nx = y1 - y0  # the edge's outward normal, not normalised
            ny = x0 - x1
            x0, y0 = x1, y1
            # CalculateInterval for A and for B, written out: a call per interval would slow
            # the reference down, and it should be as fast as plain Python goes.
            a_lo = a_hi = a[0][0] * nx + a[0][1] * ny
            for x, y in a:
                d = x * nx + y * ny
                if d < a_lo:
                    a_lo = d
                elif d > a_hi:
                    a_hi = d
            b_lo = b_hi = b[0][0] * nx + b[0][1] * ny
            for x, y in b:
                d = x * nx + y * ny
                if d < b_lo:
                    b_lo = d
                elif d > b_hi:
                    b_hi = d
            if a_lo > b_hi or b_lo > a_hi:
                return None
            # Push A up the axis (b_hi - a_lo) or down it (a_hi - b_lo), whichever is shorter.
            push = b_hi - a_lo if b_hi - a_lo < a_hi - b_lo else b_lo - a_hi
            length_sq = nx * nx + ny * ny
            if push * push < best_sq * length_sq:
                best_sq = push * push / length_sq
                best = (nx * push / length_sq, ny * push / length_sq)
    return best


def one_pair_inputs(
    world: np.ndarray, vertex_count: np.ndarray, velocity: np.ndarray, pairs: np.ndarray
) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray], list[Vertices], list[Vertices]]:
    """The pairs as the one-pair face takes them, ``(k, 2) float64`` arrays (and each pair's
    relative velocity ``(2,)``), and as the pure-Python reference takes them, lists of tuples."""
    a = [world[i, : vertex_count[i]].copy() for i in pairs[:, 0]]
    b = [world[j, : vertex_count[j]].copy() for j in pairs[:, 1]]
    v = [velocity[i] - velocity[j] for i, j in pairs]
    return a, b, v, [[tuple(p) for p in s.tolist()] for s in a], [[tuple(p) for p in s.tolist()] for s in b]


def _time_calls(call: Any, args: list[tuple[Any, ...]]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of ``call(*a)`` for every ``a`` in ``args``."""
    start_wall = time.perf_counter()
    start_cpu = time.thread_time()
    for a in args:
        call(*a)
    return time.thread_time() - start_cpu, time.perf_counter() - start_wall


def time_one_pair(count: int = 2000, repeats: int = 7, seed: int = 3) -> dict[str, dict[str, float]]:
    """Calls per second of the one-pair functions and of :func:`pure_python_sat` on ``count``
    random pairs, taking turns in each of ``repeats`` rounds; each function's ``ratio`` is its
    best rate over the reference's best, ``ratio_median`` the median of the rounds' ratios."""
    from collision import find_mtd, intersect, sweep

    a, b, v, la, lb = one_pair_inputs(*random_pairs(count, seed=seed))
    arrays = list(zip(a, b, strict=True))
    calls: dict[str, tuple[Any, list[tuple[Any, ...]]]] = {
        "pure_python_sat": (pure_python_sat, list(zip(la, lb, strict=True))),
        "intersect": (intersect, arrays),
        "find_mtd": (find_mtd, arrays),
        "sweep": (sweep, list(zip(a, b, v, strict=True))),
    }
    for call, args in calls.values():
        for x in args[:10]:
            call(*x)  # compile or load the kernels first
    cpu: dict[str, list[float]] = {name: [] for name in calls}
    wall: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeats):
        for name, (call, args) in calls.items():
            c, w = _time_calls(call, args)
            cpu[name].append(c)
            wall[name].append(w)
    reference = np.array(cpu["pure_python_sat"])
    result = {}
    for name in calls:
        times = np.array(cpu[name])
        result[name] = {
            "calls_per_second": count / times.min(),
            "calls_per_second_wall": count / min(wall[name]),
            "ratio": float(reference.min() / times.min()),
            "ratio_median": float(np.median(reference / times)),
        }
    return result


def reference_agreement(count: int = 2000, seed: int = 3) -> float:
    """Largest difference (units) between :func:`pure_python_sat`'s push and
    :func:`collision.find_mtd`'s on ``count`` random pairs, which must agree on which pairs
    overlap: the reference is a fair SAT, not a shortcut."""
    from collision import find_mtd

    a, b, _, la, lb = one_pair_inputs(*random_pairs(count, seed=seed))
    worst = 0.0
    for i in range(count):
        ours = find_mtd(a[i], b[i])
        theirs = pure_python_sat(la[i], lb[i])
        if (ours is None) != (theirs is None):
            raise AssertionError(f"pure_python_sat disagrees with find_mtd on pair {i}")
        if ours is not None and theirs is not None:
            worst = max(worst, math.hypot(ours[0] - theirs[0], ours[1] - theirs[1]))
    return worst


def time_batch(count: int = 20_000, repeats: int = 20, seed: int = 0) -> dict[str, dict[str, float]]:
    """Pairs per second of the batch functions on packed Shapes and of the world's kernel
    ``sweep_pairs``, over ``count`` random pairs (best and median of ``repeats`` runs)."""
    from collision import Shapes, find_mtd_many, intersect_many, sweep_many
    from collision.sat import sweep_pairs

    world, vcount, velocity, pairs = random_pairs(count, seed=seed)
    shapes_a = Shapes.packed(world[pairs[:, 0]], vcount[pairs[:, 0]])
    shapes_b = Shapes.packed(world[pairs[:, 1]], vcount[pairs[:, 1]])
    relative = velocity[pairs[:, 0]] - velocity[pairs[:, 1]]
    calls: dict[str, Any] = {
        "intersect_many": lambda: intersect_many(shapes_a, shapes_b),
        "find_mtd_many": lambda: find_mtd_many(shapes_a, shapes_b),
        "sweep_many": lambda: sweep_many(shapes_a, shapes_b, relative),
        "sweep_pairs": lambda: sweep_pairs(world, vcount, velocity, pairs, 1.0),
    }
    result = {}
    for name, call in calls.items():
        call()
        cpu, wall = zip(*(_time_calls(call, [()]) for _ in range(repeats)), strict=True)
        result[name] = {
            "pairs_per_second": count / min(cpu),
            "pairs_per_second_median": count / float(np.median(cpu)),
            "pairs_per_second_wall": count / min(wall),
        }
    return result


def _first_call_seconds() -> tuple[float, float]:
    """Time of the first call of every function timed here, in this process (compiling their
    kernels, or loading them from numba's cache): ``(wall clock, CPU)`` seconds. The process's
    CPU time counts its own work only, so other processes on a loaded machine do not inflate it."""
    start = time.perf_counter()
    start_cpu = time.process_time()
    from collision import Shapes, find_mtd, find_mtd_many, intersect, intersect_many, sweep, sweep_many
    from collision.sat import sweep_pairs

    world, count, velocity, pairs = random_pairs(4, seed=1)
    sweep_pairs(world, count, velocity, pairs, 1.0)
    a = Shapes.packed(world[pairs[:, 0]], count[pairs[:, 0]])
    b = Shapes.packed(world[pairs[:, 1]], count[pairs[:, 1]])
    intersect_many(a, b)
    find_mtd_many(a, b)
    sweep_many(a, b, velocity[pairs[:, 0]])
    intersect(a[0], b[0])
    find_mtd(a[0].copy(), b[0].copy())
    sweep(a[0].copy(), b[0].copy(), (1.0, 0.0))
    return time.perf_counter() - start, time.process_time() - start_cpu


def cold_compile_seconds() -> tuple[float, float]:
    """First-call ``(wall clock, CPU)`` seconds in a child process whose numba cache directory
    is empty."""
    with tempfile.TemporaryDirectory(prefix="polycolly-numba-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        code = "from collision.bench import _first_call_seconds; print(*_first_call_seconds())"
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        wall, cpu = out.stdout.strip().splitlines()[-1].split()
        return float(wall), float(cpu)


def run(
    count: int = 20_000, repeats: int = 20, cold: bool = True, one_pair_count: int = 2000
) -> dict[str, Any]:
    """Measure and return the numbers ``main`` prints."""
    compile_seconds, compile_cpu_seconds = _first_call_seconds()
    from collision import Shapes, find_mtd_many, intersect_many

    world, vcount, _, pairs = random_pairs(count)
    shapes_a = Shapes.packed(world[pairs[:, 0]], vcount[pairs[:, 0]])
    shapes_b = Shapes.packed(world[pairs[:, 1]], vcount[pairs[:, 1]])
    result: dict[str, Any] = {
        "pairs": count,
        "overlapping_fraction": float(intersect_many(shapes_a, shapes_b).mean()),
        "batch": time_batch(count, repeats),
        "one_pair_calls": one_pair_count,
        "one_pair": time_one_pair(one_pair_count, max(3, repeats // 3)),
        "reference_max_difference": reference_agreement(one_pair_count),
        "compile_seconds": compile_seconds,
        "compile_cpu_seconds": compile_cpu_seconds,
    }
    assert find_mtd_many(shapes_a, shapes_b).hit.mean() == result["overlapping_fraction"]
    if cold:
        result["compile_seconds_cold"], result["compile_cpu_seconds_cold"] = cold_compile_seconds()
    return result


#: Largest --pairs, --repeats and --calls: each pair holds two packed shapes of MAX_VERTICES
#: vertices (512 bytes) and their copies, so a million pairs is already a few gigabytes; the
#: other two bound the run's time (a run is repeats x (pairs + calls) queries).
MAX_PAIRS, MAX_CALLS, MAX_REPEATS = 1_000_000, 1_000_000, 1000


def _count(limit: int) -> Any:
    """An argparse type: a whole number in 1..limit, refused in one line otherwise."""

    def read(text: str) -> int:
        value = int(text) if text.lstrip("+-").isdecimal() and len(text) <= 20 else None
        if value is None or not 1 <= value <= limit:
            shown = text if len(text) <= 40 else text[:37] + "..."
            raise argparse.ArgumentTypeError(f"{shown!r}: must be a whole number in 1..{limit}")
        return value

    return read


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m collision.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--pairs", type=_count(MAX_PAIRS), default=20_000, help="number of random pairs (20000)"
    )
    parser.add_argument(
        "--repeats", type=_count(MAX_REPEATS), default=20, help="timed runs; the best is reported (20)"
    )
    parser.add_argument(
        "--calls", type=_count(MAX_CALLS), default=2000, help="one-pair calls per function per round (2000)"
    )
    parser.add_argument("--no-cold", action="store_true", help="skip the cold-compile child process")
    args = parser.parse_args(argv)
    result = run(args.pairs, args.repeats, cold=not args.no_cold, one_pair_count=args.calls)
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"batch face, {result['pairs']} random convex pairs of 3-8 vertices "
        f"({result['overlapping_fraction']:.0%} overlapping), packed Shapes, one core:"
    )
    for name, r in result["batch"].items():
        label = f"{name} (the world's kernel)" if name == "sweep_pairs" else name
        print(
            f"  {label:30s} {r['pairs_per_second']:>12,.0f} pairs/s "
            f"(median {r['pairs_per_second_median']:,.0f}, wall clock {r['pairs_per_second_wall']:,.0f})"
        )
    print(
        f"one-pair face, {result['one_pair_calls']} pairs as (k, 2) float64 arrays, one call each; "
        "the reference on lists of tuples:"
    )
    for name, r in result["one_pair"].items():
        label = "pure-Python SAT (reference)" if name == "pure_python_sat" else name
        ratio = (
            ""
            if name == "pure_python_sat"
            else (f"  {r['ratio']:.2f}x the reference (median of rounds {r['ratio_median']:.2f}x)")
        )
        print(f"  {label:30s} {r['calls_per_second']:>12,.0f} calls/s{ratio}")
    print(
        f"  (the reference's pushes match find_mtd's within {result['reference_max_difference']:.1e} units)"
    )
    print(
        f"first call: {result['compile_cpu_seconds']:.2f} s of CPU, {result['compile_seconds']:.2f} s "
        "wall clock (compile or cache load)"
    )
    if "compile_seconds_cold" in result:
        print(
            f"cold compile: {result['compile_cpu_seconds_cold']:.2f} s of CPU, "
            f"{result['compile_seconds_cold']:.2f} s wall clock (empty numba cache)"
        )


if __name__ == "__main__":
    main()
