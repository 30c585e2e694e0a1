"""Benchmark of the compiled swept separating-axis test: ``python -m collision.bench``.

Times :func:`collision.sat.sweep_pairs` (time of impact for movers, depth and normal for
overlapping pairs) over random convex pairs of 3-8 vertices, about half of them
overlapping at time 0, with random relative velocities, on one core. Prints pairs per
second: the best of the repeats, from the timing thread's CPU time, so that other
processes on a shared machine do not count (the wall-clock figure is printed too).
``--json`` prints one JSON object instead. The first call's time (compilation, or loading
numba's cache) is reported as ``compile_seconds``; a child process with an empty numba
cache measures a cold compile, ``compile_seconds_cold``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from collision.shapes import MAX_VERTICES


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


def _first_call_seconds() -> float:
    """Time of the first call of the sweep in this process (compile or cache load)."""
    from collision.sat import sweep_pairs

    world, count, velocity, pairs = random_pairs(4, seed=1)
    start = time.perf_counter()
    sweep_pairs(world, count, velocity, pairs, 1.0)
    return time.perf_counter() - start


def cold_compile_seconds() -> float:
    """First-call time in a child process whose numba cache directory is empty."""
    with tempfile.TemporaryDirectory(prefix="polycolly-numba-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        code = "from collision.bench import _first_call_seconds; print(_first_call_seconds())"
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        return float(out.stdout.strip().splitlines()[-1])


def run(count: int = 20_000, repeats: int = 20, cold: bool = True) -> dict[str, float | int]:
    """Measure and return the numbers ``main`` prints."""
    compile_seconds = _first_call_seconds()
    from collision.sat import intersect_kernel, sweep_pairs

    world, vcount, velocity, pairs = random_pairs(count)
    overlapping = sum(intersect_kernel(world[i, : vcount[i]], world[j, : vcount[j]]) for i, j in pairs)
    wall = []
    cpu = []
    hit = None
    for _ in range(repeats):
        start_wall = time.perf_counter()
        start_cpu = time.thread_time()
        hit, _, _, _ = sweep_pairs(world, vcount, velocity, pairs, 1.0)
        cpu.append(time.thread_time() - start_cpu)
        wall.append(time.perf_counter() - start_wall)
    assert hit is not None
    result: dict[str, float | int] = {
        "pairs": count,
        # CPU time of this thread: other processes sharing the machine do not count.
        "pairs_per_second": count / min(cpu),
        "pairs_per_second_median": count / float(np.median(cpu)),
        "pairs_per_second_wall": count / min(wall),
        "overlapping_fraction": overlapping / count,
        "hit_fraction": float(hit.mean()),
        "compile_seconds": compile_seconds,
    }
    if cold:
        result["compile_seconds_cold"] = cold_compile_seconds()
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m collision.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--pairs", type=int, default=20_000, help="number of random pairs (20000)")
    parser.add_argument("--repeats", type=int, default=20, help="timed runs; the best is reported (20)")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold-compile child process")
    args = parser.parse_args(argv)
    result = run(args.pairs, args.repeats, cold=not args.no_cold)
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"swept SAT: {result['pairs_per_second']:,.0f} pairs/s on one core "
        f"(median {result['pairs_per_second_median']:,.0f}, "
        f"wall clock {result['pairs_per_second_wall']:,.0f}; {result['pairs']} pairs, "
        f"{result['overlapping_fraction']:.0%} overlapping, {result['hit_fraction']:.0%} hit within 1 s)"
    )
    print(f"first call: {result['compile_seconds']:.2f} s (compile or cache load)")
    if "compile_seconds_cold" in result:
        print(f"cold compile: {result['compile_seconds_cold']:.2f} s (empty numba cache)")


if __name__ == "__main__":
    main()
