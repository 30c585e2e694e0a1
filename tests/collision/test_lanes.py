"""The narrowphase's vector code (collision/lanes.py) against its loops, bit for bit."""

from __future__ import annotations

import math
import os
import struct

import numpy as np
import pytest

from collision.kernels import python_entry
from collision.lanes import LANES, face_loop, faces_beyond, normal_loop, normals_at_once
from collision.manifold import edge_normals, face_separation, manifold
from collision.tolerances import MAX_VERTICES

JIT = os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0")


def bits(x: float) -> bytes:
    return struct.pack("<d", x)


def world_rows(vertices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A shape as the world holds it: MAX_VERTICES rows of vertices and of edge normals, the
    rows past its vertices holding whatever was there before (here: noise)."""
    rng = np.random.default_rng(len(vertices))
    rows = rng.normal(scale=1e3, size=(MAX_VERTICES, 2))
    normals = rng.normal(scale=1e3, size=(MAX_VERTICES, 2))
    rows[: len(vertices)] = vertices
    edge_normals(rows, len(vertices), normals)
    return rows, normals


def polygon(rng: np.random.Generator, k: int, centre: tuple[float, float], radius: float) -> np.ndarray:
    """A convex CCW polygon of k vertices (k = 1: a point, 2: a segment)."""
    if k == 1:
        return np.array([centre], dtype=float)
    angles = np.sort(rng.uniform(0.0, 2.0 * math.pi, size=k)) if k > 2 else np.array([0.3, 0.3 + math.pi])
    return np.column_stack([centre[0] + radius * np.cos(angles), centre[1] + radius * np.sin(angles)])


@pytest.mark.skipif(not JIT, reason="the vector code is LLVM IR: without the JIT the loop is the only code")
def test_every_face_at_once_answers_as_the_loop_on_random_pairs() -> None:
    vector, loop = python_entry(faces_beyond), python_entry(face_loop)
    rng = np.random.default_rng(20261129)
    compared = separated = 0
    for _ in range(4000):
        kp = int(rng.integers(2, LANES + 1))
        kq = int(rng.integers(1, LANES + 1))
        p, pn = world_rows(polygon(rng, kp, (0.0, 0.0), rng.uniform(0.2, 2.0)))
        q, _ = world_rows(polygon(rng, kq, tuple(rng.uniform(-2.5, 2.5, size=2)), rng.uniform(0.2, 2.0)))
        stop = float(rng.uniform(0.0, 0.5))
        floor = -math.inf if rng.random() < 0.5 else stop - float(rng.uniform(0.0, 1.0))
        want, want_face = loop(p, pn, kp, q, kq, floor, stop)
        got, got_face = vector(p, pn, kp, q, kq, floor, stop)
        if want > stop:
            # A separating axis: the loop stops at the first it meets, the vector code has
            # them all and gives the largest (as separating, and farther).
            separated += 1
            assert got >= want and got > stop
            whole, whole_face = loop(p, pn, kp, q, kq, floor, math.inf)
            assert (bits(got), got_face) == (bits(whole), whole_face)
        else:
            compared += 1
            assert (bits(got), got_face) == (bits(want), want_face)
    assert compared > 1000 and separated > 1000


@pytest.mark.skipif(not JIT, reason="the vector code is LLVM IR: without the JIT the loop is the only code")
def test_ties_zero_signs_and_degenerate_faces_answer_as_the_loop() -> None:
    vector, loop = python_entry(faces_beyond), python_entry(face_loop)
    # A unit square, a square on top of it (faces at separation 0 and -0), a face of normal
    # (0, 0) that takes no part, and q's vertices past kq (noise) ignored.
    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    p, pn = world_rows(square)
    above, _ = world_rows(square + [0.0, 1.0])
    beside, _ = world_rows(square + [1.0, 0.0])
    corner, _ = world_rows(np.array([[1.0, 1.0]]))
    for q, kq in ((above, 4), (beside, 4), (corner, 1)):
        for floor in (-math.inf, -1.0, 0.0):
            want = loop(p, pn, 4, q, kq, floor, 0.5)
            got = vector(p, pn, 4, q, kq, floor, 0.5)
            assert (bits(got[0]), got[1]) == (bits(want[0]), want[1])
    # Squares touching on a grid, each listed from every starting corner: faces at separation
    # 0 and -0 alike (a zero product's sign follows the coordinate's), in every order.
    for dx in (-1.0, 0.0, 1.0):
        for dy in (-1.0, 0.0, 1.0):
            for turn_p in range(4):
                for turn_q in range(4):
                    rp, rn = world_rows(np.roll(square, turn_p, axis=0))
                    rq, _ = world_rows(np.roll(square, turn_q, axis=0) + [dx, dy])
                    want = loop(rp, rn, 4, rq, 4, -math.inf, 0.5)
                    got = vector(rp, rn, 4, rq, 4, -math.inf, 0.5)
                    assert (bits(got[0]), got[1]) == (bits(want[0]), want[1])
    pn[2] = 0.0  # the top face degenerate: only the others count
    assert vector(p, pn, 4, above, 4, -math.inf, 0.5) == loop(p, pn, 4, above, 4, -math.inf, 0.5)
    assert vector(p, pn, 4, above, 4, -math.inf, 0.5)[1] != 2


def test_face_separation_takes_the_vector_code_or_the_loop_with_the_same_answer() -> None:
    loop, dispatch = python_entry(face_loop), python_entry(face_separation)
    rng = np.random.default_rng(7)
    for kp, kq in ((4, 4), (8, 3), (9, 5), (3, 12), (16, 16)):
        vp = polygon(rng, kp, (0.0, 0.0), 1.0)
        vq = polygon(rng, kq, (0.5, 0.4), 1.0)
        p, pn = world_rows(vp)
        q, _ = world_rows(vq)
        compact = np.ascontiguousarray(vp), np.zeros((kp, 2))
        edge_normals(compact[0], kp, compact[1])
        want = loop(p, pn, kp, q, kq, -math.inf, math.inf)
        assert dispatch(p, pn, kp, q, kq, -math.inf, math.inf) == want
        # Rows too few to load LANES of them: the loop, the same answer.
        assert dispatch(compact[0], compact[1], kp, np.ascontiguousarray(vq), kq, -math.inf, math.inf) == want


def test_a_manifold_of_compact_rows_matches_the_world_s_rows() -> None:
    rng = np.random.default_rng(11)
    for _ in range(200):
        a = polygon(rng, int(rng.integers(3, 9)), (0.0, 0.0), 1.0)
        b = polygon(rng, int(rng.integers(3, 9)), tuple(rng.uniform(-1.5, 1.5, size=2)), 1.0)
        m = manifold(a, b, 0.1)
        # The same pair through rows as the world holds them (the vector code's path).
        ra, na = world_rows(a)
        rb, nb = world_rows(b)
        from collision.manifold import _one_manifold  # noqa: PLC0415

        out = (np.zeros((2, 2)), np.zeros((2, 2)), np.zeros(2), np.zeros(2, dtype=np.int64))
        count, nx, ny = _one_manifold(ra, na, len(a), rb, nb, len(b), 0.1, *out)
        assert count == len(m)
        if count:
            assert (nx + 0.0, ny + 0.0) == tuple(m.normal)
            assert np.array_equal(out[2][:count], m.separation)
            assert np.array_equal(out[0][:count], m.point_a)


@pytest.mark.skipif(not JIT, reason="the vector code is LLVM IR: without the JIT the loop is the only code")
def test_the_vector_code_is_vector_code() -> None:
    # The loop's kernel has no vector of LANES doubles; the vector code's has.
    from numba import njit  # noqa: PLC0415

    @njit
    def through_vector(p, pn, q):  # type: ignore[no-untyped-def]
        return faces_beyond(p, pn, 4, q, 4, -math.inf, 0.0)

    p, pn = world_rows(np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]))
    through_vector(p, pn, p)
    ir_text = through_vector.inspect_llvm(through_vector.signatures[0])
    assert f"<{LANES} x double>" in ir_text


@pytest.mark.skipif(not JIT, reason="the vector code is LLVM IR: without the JIT the loop is the only code")
def test_every_edge_s_normal_at_once_matches_the_loop_bit_for_bit() -> None:
    at_once, loop = python_entry(normals_at_once), python_entry(normal_loop)
    rng = np.random.default_rng(3)
    shapes = [
        polygon(rng, int(rng.integers(2, LANES + 1)), (0.0, 0.0), rng.uniform(1e-3, 1e3)) for _ in range(500)
    ]
    # A repeated vertex (a degenerate edge, normal (0, 0)) and a far-off, tiny shape.
    shapes.append(np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    shapes.append(np.array([[1e6, 1e6], [1e6 + 1e-9, 1e6], [1e6, 1e6 + 1e-9]]))
    for vertices in shapes:
        k = len(vertices)
        rows = np.full((MAX_VERTICES, 2), np.nan)
        rows[:k] = vertices
        want = np.full((MAX_VERTICES, 2), 7.0)
        got = np.full((MAX_VERTICES, 2), 7.0)
        loop(rows, k, want)
        at_once(rows, k, got)
        assert got[:k].tobytes() == want[:k].tobytes()
        # Rows past LANES are never written; those past k up to LANES may be.
        assert np.all(got[LANES:] == 7.0)
