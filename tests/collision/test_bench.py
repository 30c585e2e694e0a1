"""``python -m collision.bench`` runs and reports every figure; its pure-Python reference is a
real SAT (the same pushes as find_mtd). No timing is asserted."""

from __future__ import annotations

import json

import numpy as np

from collision import find_mtd
from collision.bench import main, one_pair_inputs, pure_python_sat, random_pairs, reference_agreement


def test_bench_prints_batch_throughput_and_one_pair_ratios(capsys):
    main(["--pairs", "300", "--repeats", "2", "--calls", "200", "--no-cold", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert set(result["batch"]) == {"intersect_many", "find_mtd_many", "sweep_many", "sweep_pairs"}
    assert set(result["one_pair"]) == {"pure_python_sat", "intersect", "find_mtd", "sweep"}
    for figures in result["batch"].values():
        assert figures["pairs_per_second"] > 0.0
    for figures in result["one_pair"].values():
        assert figures["calls_per_second"] > 0.0 and figures["ratio"] > 0.0
    assert 0.3 < result["overlapping_fraction"] < 0.7
    main(["--pairs", "300", "--repeats", "2", "--calls", "200", "--no-cold"])
    text = capsys.readouterr().out
    for name in ("find_mtd_many", "sweep_many", "pure-Python SAT", "x the reference", "calls/s", "pairs/s"):
        assert name in text


def test_the_reference_is_a_real_sat():
    assert reference_agreement(500) < 1e-12
    world, count, velocity, pairs = random_pairs(200, seed=8)
    a, b, _, la, lb = one_pair_inputs(world, count, velocity, pairs)
    apart = sum(pure_python_sat(x, y) is None for x, y in zip(la, lb, strict=True))
    assert 0 < apart < 200
    for x, y, lx, ly in zip(a, b, la, lb, strict=True):
        ours, theirs = find_mtd(x, y), pure_python_sat(lx, ly)
        assert (ours is None) == (theirs is None)
        if ours is not None:
            np.testing.assert_allclose(theirs, ours, rtol=0.0, atol=1e-12)
