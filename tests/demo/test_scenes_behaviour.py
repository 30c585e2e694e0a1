"""Each scene shows what it exists to show: checked against exact answers or the engine's tests."""

from __future__ import annotations

import math

import numpy as np
import pytest

from collision import Polygon, intersect, sweep
from demo import scenes
from demo.scenes import FrameInput, benchmarks, engine, primitives, teaching
from tests.demo.test_scenes_all import RecordingBatch, run

IDLE = FrameInput()

# ----------------------------------------------------------------------------------------------
# Teaching scenes.


def test_sat_colours_flip_when_a_is_moved_onto_b() -> None:
    scene = scenes.build_scene("sat", seed=3)
    world = scene.world
    world.position[0] = (5.0, 95.0)  # far corner: radius <= 15 each, so apart from B in [25, 75]^2
    scene.on_overlay(RecordingBatch(), IDLE)
    assert scene.body_colors[0] == teaching.palette.PAIR_APART == scene.body_colors[1]
    world.position[0] = world.position[1]
    scene.on_overlay(RecordingBatch(), IDLE)
    assert scene.body_colors[0] == teaching.palette.PAIR_COLLIDING == scene.body_colors[1]


def test_arrow_keys_move_a_by_two_units_per_press() -> None:
    scene = scenes.build_scene("sat", seed=1)
    before = scene.world.position[0].copy()
    assert scene.on_action("move_right", IDLE)
    assert scene.on_action("move_up", IDLE)
    assert np.allclose(scene.world.position[0] - before, [2.0, 2.0])


def test_mtd_enter_separates_by_the_push_vector() -> None:
    scene = scenes.build_scene("mtd", seed=4)
    world = scene.world
    world.position[0] = world.position[1] + (3.0, 1.0)
    a, b = world.vertices(0), world.vertices(1)
    assert intersect(a, b)
    batch = RecordingBatch()
    scene.on_overlay(batch, IDLE)
    assert batch.arrows, "the push vector is drawn"
    push = batch.arrows[-1][1] - batch.arrows[-1][0]  # the MTD is drawn last, over the others
    before = world.position[0].copy()
    assert scene.on_action("reset_count", IDLE)  # Enter
    moved = world.position[0] - before
    assert np.allclose(moved, push[0] * teaching.SEPARATE_FACTOR)
    assert not intersect(world.vertices(0), world.vertices(1))
    # Pushed by exactly the MTD (no factor), they would just touch.
    assert intersect(a + push[0], b)


def test_swept_ghost_touches_b() -> None:
    scene = scenes.build_scene("swept", seed=6)
    result = scene.swept()
    hit = result.hit
    assert hit is not None and not hit.overlapping and 0.0 < hit.t < 1.0
    ghost, b = result.ghost, result.b
    assert intersect(ghost, b)  # touching counts
    # A hair earlier along the motion, the ghost does not touch B.
    assert not intersect(ghost - result.motion * 1e-6, b)
    batch = RecordingBatch()
    scene.on_overlay(batch, IDLE)
    assert any(p.shape == ghost.shape and np.allclose(p, ghost) for p in batch.polygons)
    assert any("t = " in line for line in scene.status)


def test_swept_click_aims_at_the_cursor() -> None:
    scene = scenes.build_scene("swept", seed=6)
    cursor = np.array([120.0, 5.0])
    assert scene.on_action("attract", FrameInput(cursor=cursor))
    assert np.allclose(scene.motion, cursor - scene.world.position[0])


def test_rotation_spins_both_and_a_toggles() -> None:
    scene = scenes.build_scene("rotation", seed=1)
    angles = scene.world.angle.copy()
    run(scene, 60)
    turned = (scene.world.angle - angles + math.pi) % (2 * math.pi) - math.pi
    assert np.allclose(turned, [teaching.SPIN_A, teaching.SPIN_B], atol=1e-9)
    scene.on_action("toggle_spin", IDLE)
    angles = scene.world.angle.copy()
    run(scene, 30)
    assert np.array_equal(scene.world.angle, angles)


def _box_pair(angle_a: float) -> teaching.SweptScene:
    shapes = [(Polygon.box(10, 10), (50.0, 70.0), angle_a), (Polygon.box(30, 10), (50.0, 40.0), 0.0)]
    scene = teaching.pair_scene("contacts", 0, ["test"], shapes=shapes, kind=teaching.SweptScene)
    scene.motion = np.array([0.0, -40.0])
    scene.show_pairs = True
    return scene


def test_contacts_edge_edge_gives_two_pairs_and_point_edge_one() -> None:
    flat = _box_pair(0.0).swept()
    assert len(flat.pairs) == 2
    for pa, pb in flat.pairs:  # A's bottom edge (y = 65 - 40 t) on B's top edge (y = 45)
        assert pa[1] == pytest.approx(45.0) and pb[1] == pytest.approx(45.0)
    corner = _box_pair(math.pi / 4).swept()
    assert len(corner.pairs) == 1
    pa, pb = corner.pairs[0]
    assert np.allclose(pa, [50.0, 45.0]) and np.allclose(pb, [50.0, 45.0])


def test_clip_polygon_of_two_squares_is_their_overlap() -> None:
    a = Polygon.box(4, 4).vertices + (1.0, 1.0)  # [-1, 3]^2
    b = Polygon.box(4, 4).vertices  # [-2, 2]^2
    piece = teaching.clip_polygon(a, b)
    assert teaching.polygon_area(piece) == pytest.approx(9.0)
    assert np.allclose(piece.min(axis=0), [-1, -1]) and np.allclose(piece.max(axis=0), [2, 2])
    assert len(teaching.clip_polygon(a + 10.0, b)) == 0


@pytest.mark.parametrize("seed", range(6))
def test_clip_polygon_area_matches_a_brute_force_count(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = Polygon.regular(int(rng.integers(3, 9)), 1.0).rotated(rng.uniform(0, 6)).vertices + rng.uniform(
        -0.5, 0.5, 2
    )
    b = Polygon.regular(int(rng.integers(3, 9)), 1.0).rotated(rng.uniform(0, 6)).vertices
    piece = teaching.clip_polygon(a, b)
    # Count grid cells inside both polygons (half-plane tests), cell area (2.2 / 400)^2.
    g = np.linspace(-1.6, 1.6, 401)
    x, y = np.meshgrid(0.5 * (g[1:] + g[:-1]), 0.5 * (g[1:] + g[:-1]))
    pts = np.column_stack([x.ravel(), y.ravel()])

    def inside(poly: np.ndarray) -> np.ndarray:
        e = np.roll(poly, -1, axis=0) - poly
        rel = pts[:, None, :] - poly[None, :, :]
        return ((e[None, :, 0] * rel[..., 1] - e[None, :, 1] * rel[..., 0]) >= 0).all(axis=1)

    brute = np.count_nonzero(inside(a) & inside(b)) * (3.2 / 400) ** 2
    assert teaching.polygon_area(piece) == pytest.approx(brute, abs=0.02)


def test_clipping_scene_draws_the_intersection() -> None:
    scene = scenes.build_scene("clipping", seed=2)
    batch = RecordingBatch()
    scene.on_overlay(batch, IDLE)
    piece = scene.clipped()
    assert len(piece) >= 3 and any(p.shape == piece.shape and np.allclose(p, piece) for p in batch.polygons)


# ----------------------------------------------------------------------------------------------
# The original's game-like programs.


def test_arcade_player_moves_with_the_arrow_keys() -> None:
    scene = scenes.build_scene("arcade", seed=0)
    p = scene.player
    x0 = scene.world.position[p, 0]
    run(scene, 40, frame=FrameInput(frozenset({"move_left"})))
    assert scene.world.position[p, 0] < x0 - 1.0
    assert scene.world.solver == "arcade"


def test_arcade_spin_turns_static_bodies_at_their_rate() -> None:
    scene = scenes.build_scene("arcade-spin", seed=3)
    spins = scene.static_spin + scene.dynamic_spin
    assert spins
    i, omega = spins[0]
    before = scene.world.angle[i]
    run(scene, 30)
    turned = (scene.world.angle[i] - before + math.pi) % (2 * math.pi) - math.pi
    assert turned == pytest.approx(omega * 30 * scene.dt, abs=1e-9)


def test_bullets_are_removed_after_more_than_five_hits() -> None:
    scene = scenes.build_scene("bullets", seed=0)
    p = scene.player
    scene.world.position[p] = (50.0, 30.0)
    down = FrameInput(cursor=scene.world.position[p] + (0.0, -30.0))  # straight down at the floor
    scene.on_action("attract", down)
    assert len(scene.bullets) == 1
    run(scene, 300)
    assert scene.removed == 1 and scene.bullets == []


def test_laser_stops_at_the_first_body_and_pushes_it() -> None:
    scene = scenes.build_scene("laser", seed=0)
    world = scene.world
    p = scene.player
    target = world.add_body(Polygon.box(4, 4), world.position[p] + (0.0, 30.0))
    world.add_body(Polygon.box(4, 4), world.position[p] + (0.0, 45.0))  # behind the first
    scene.fire(world.position[p] + (0.0, 60.0))
    start, end, _ = scene.shots[-1]
    assert end[1] == pytest.approx(world.position[target, 1] - 2.0)  # the first box's bottom face
    assert world.velocity[target, 1] > 0.0 and world.velocity[target + 1, 1] == 0.0


# ----------------------------------------------------------------------------------------------
# Seeds.


def test_crack_never_snags_with_ordering_and_snags_without() -> None:
    scene = scenes.build_scene("crack")
    run(scene, 600)
    assert scene.snags == 0 and scene.laps >= 1
    scene = scenes.build_scene("crack")
    assert scene.on_action("toggle_ordering", IDLE)
    assert not scene.world.solver_settings("arcade").ordered
    run(scene, 300)
    assert scene.snags > 0
    # Ordering kept, surface-area rule off: the crack's hidden edge still catches the box.
    scene = scenes.build_scene("crack")
    assert scene.on_action("toggle_surface", IDLE)
    arcade = scene.world.solver_settings("arcade")
    assert arcade.ordered and not arcade.surface_rule
    run(scene, 300)
    assert scene.snags > 0


def _disc_points(c: tuple[float, float], r: float) -> np.ndarray:
    a = np.linspace(0, 2 * math.pi, 2000, endpoint=False)
    rr = np.sqrt(np.linspace(0, 1, 40))[:, None]
    return (np.asarray(c) + rr[..., None] * r * np.stack([np.cos(a), np.sin(a)], axis=-1)[None]).reshape(
        -1, 2
    )


@pytest.mark.parametrize("dx", [-16.0, -12.0, -11.0, -9.0, 0.0, 10.5, 14.0])
def test_primitives_polygon_circle_matches_sampling(dx: float) -> None:
    from collision.primitives import Circle

    poly = primitives.Shape("polygon", np.array([0.0, 0.0]), 0.2, 9.0).primitive()
    circle = Circle((dx, 1.0), 3.0)
    samples = _disc_points(circle.center, circle.radius)
    e = np.roll(poly, -1, axis=0) - poly
    rel = samples[:, None, :] - poly[None]
    inside = ((e[None, :, 0] * rel[..., 1] - e[None, :, 1] * rel[..., 0]) >= -1e-9).all(axis=1)
    assert primitives.primitives_collide("polygon", poly, "circle", circle) == bool(inside.any())


def test_primitives_drag_and_shift_drag() -> None:
    scene = scenes.build_scene("primitives")
    shapes = scene.shapes
    kinds = [s.kind for s in shapes]
    point, circle, segment = kinds.index("point"), kinds.index("circle"), kinds.index("segment")
    assert (min(point, circle), max(point, circle)) not in scene.colliding_pairs()
    held = frozenset({"attract"})
    # Press on the point and drag it onto the circle's centre.
    scene.on_action("attract", FrameInput(held, shapes[point].centre.copy()))
    run(scene, 1, frame=FrameInput(held, shapes[circle].centre.copy()))
    assert np.allclose(shapes[point].centre, shapes[circle].centre)
    assert (min(point, circle), max(point, circle)) in scene.colliding_pairs()
    run(scene, 1)
    # Shift-drag the segment's end a quarter turn around its centre: it turns, it does not move.
    seg = shapes[segment]
    centre, angle = seg.centre.copy(), seg.angle
    tip = centre + 10.0 * np.array([math.cos(angle), math.sin(angle)])
    scene.on_action("attract", FrameInput(held, tip, shift=True))
    turned = centre + 10.0 * np.array([math.cos(angle + 1.0), math.sin(angle + 1.0)])
    run(scene, 1, frame=FrameInput(held, turned, shift=True))
    assert np.allclose(seg.centre, centre) and seg.angle == pytest.approx(angle + 1.0)


# ----------------------------------------------------------------------------------------------
# The engine's scenes.


def test_bullet_stops_with_continuous_collision_and_tunnels_without() -> None:
    scene = scenes.build_scene("bullet")
    box = scene.box
    run(scene, 60)
    assert scene.world.position[box, 0] < benchmarks.BULLET_WALL_X
    assert scene.tunnelled == 0
    scene.on_action("toggle_ccd", IDLE)
    run(scene, 60)
    assert scene.tunnelled > 0
    scene.on_action("toggle_ccd", IDLE)
    run(scene, 60)
    assert scene.world.position[box, 0] < benchmarks.BULLET_WALL_X


def test_restitution_bounces_higher_with_higher_restitution() -> None:
    scene = scenes.build_scene("restitution")
    first = scene.first
    rows = slice(first, first + len(engine.RESTITUTIONS))
    landed = np.zeros(len(engine.RESTITUTIONS), dtype=bool)
    peak = np.zeros(len(engine.RESTITUTIONS))
    for _ in range(300):
        scene.world.step(scene.dt)
        y = scene.world.position[rows, 1]
        landed |= y < 0.6
        peak = np.where(landed, np.maximum(peak, y), 0.0)
    assert landed.all() and (np.diff(peak) > 0.1).all()
    assert peak[0] < 0.6  # restitution 0 does not bounce
    assert peak[-1] > 0.8 * engine.DROP_HEIGHT  # restitution 1 comes back near where it started


def test_friction_boxes_stay_only_above_tan_of_the_slope() -> None:
    scene = scenes.build_scene("friction")
    boxes = scene.boxes
    start = scene.world.position[boxes].copy()
    run(scene, 300)
    moved = np.hypot(*(scene.world.position[boxes] - start).T)
    tan = math.tan(engine.RAMP_ANGLE)
    for mu, d in zip(engine.FRICTIONS, moved, strict=True):
        if mu > tan:
            assert d < 0.01, mu
        else:
            assert d > 1.0, mu


def test_mass_ratio_stack_holds() -> None:
    scene = scenes.build_scene("mass-ratio")
    light, heavy = scene.light, scene.heavy
    assert scene.world.mass[heavy] == pytest.approx(400.0 * scene.world.mass[light])
    run(scene, 300)
    pos = scene.world.position
    assert abs(pos[heavy, 0]) < 0.05 and abs(pos[light, 0]) < 0.05
    assert pos[heavy, 1] > pos[light, 1] + 1.0
    assert np.abs(scene.world.angle[[light, heavy]]).max() < 0.05


def test_concave_pieces_cover_each_outline_exactly() -> None:
    scene = scenes.build_scene("concave")
    world = scene.world
    for group, outline in zip(scene.groups, engine.CONCAVE_OUTLINES.values(), strict=True):
        area = sum(teaching.polygon_area(world.vertices(i)) for i in group)
        assert area == pytest.approx(abs(teaching.polygon_area(np.asarray(outline, dtype=np.float64))))
        assert len(group) >= 2  # concave: more than one convex piece
        assert world.parts(group[0]) == group  # one compound body per outline


def test_concave_compounds_stay_rigid() -> None:
    scene = scenes.build_scene("concave")
    world = scene.world

    def distances() -> list[np.ndarray]:
        out = []
        for group in scene.groups:
            v = np.vstack([world.vertices(i) for i in group])
            out.append(np.hypot(*(v[:, None, :] - v[None, :, :]).transpose(2, 0, 1)))
        return out

    start = distances()
    for _ in range(300):
        world.step(scene.dt)
    for before, after in zip(start, distances(), strict=True):
        np.testing.assert_allclose(after, before, rtol=0, atol=1e-9)


def test_tumbler_turns_its_walls_and_keeps_the_bodies_in() -> None:
    scene = scenes.build_scene("tumbler")
    world = scene.world
    walls = scene.walls
    assert all(world.kinematic[walls]) and world.parts(scene.box) == walls
    inner = 0.5 * engine.TUMBLER_SIZE
    for step in range(1, 301):
        run(scene, 1)
        t = step * scene.dt
        expected = (engine.TUMBLER_SPIN * t + math.pi) % (2 * math.pi) - math.pi
        assert world.angle[walls[0]] == pytest.approx(expected, abs=1e-12)
        # Every body stays inside the turning box: in the box's frame, within its inner square.
        c, s = math.cos(-world.angle[walls[0]]), math.sin(-world.angle[walls[0]])
        p = world.position[len(walls) :]
        local = np.stack([c * p[:, 0] - s * p[:, 1], s * p[:, 0] + c * p[:, 1]], axis=1)
        assert np.abs(local).max() < inner
    np.testing.assert_array_equal(world.position[walls], 0.0)


def test_sweep_is_what_the_swept_scene_uses() -> None:
    """The ghost comes from the engine's sweep: the same call gives the same time."""
    scene = scenes.build_scene("swept", seed=9)
    result = scene.swept()
    direct = sweep(scene.world.vertices(0), scene.world.vertices(1), scene.motion)
    assert (direct is None) == (result.hit is None)
    if direct is not None:
        assert direct.t == result.hit.t


def test_mass_ratio_heavy_box_barely_sinks_into_the_light_one() -> None:
    scene = scenes.build_scene("mass-ratio")
    light, heavy = scene.light, scene.heavy
    run(scene, 300)
    pos = scene.world.position
    overlap = (pos[light, 1] + 0.5 * engine.LIGHT_SIZE) - (pos[heavy, 1] - 0.5 * engine.HEAVY_SIZE)
    assert overlap < 0.02
