"""The tutorial's figures: their numbers are the engine's answers (the MTD drawn is find_mtd's,
the time of impact on the time line is sweep's, the contact pairs are contact_points', the impulse
shown is the one the world applied, the crack's first hit is the one the world resolved first),
and each figure draws in a real offscreen frame."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from collision import contact_points, explain, find_mtd, intersect, sweep
from collision.explain.steps import P_AX, P_AY, P_JN
from demo import scenes
from demo.draw import palette
from demo.scenes import crack, figures, impulse, teaching
from demo.scenes.base import FrameInput

IDLE = FrameInput()
FRAME_S = 1.0 / 60.0
#: The clear colour (0.2, 0.2, 0.2) as bytes.
BACKGROUND = round(0.2 * 255)


class FigureBatch:
    """Records what a figure draws, with its colour (an OverlayBatch stand-in)."""

    def __init__(self) -> None:
        self.items: list[tuple[str, Any, tuple[float, ...]]] = []

    def _add(self, kind: str, data: Any, color: Any) -> None:
        array = np.asarray(data, dtype=np.float64) if kind != "text" else data
        if kind != "text":
            assert np.isfinite(array).all(), kind
        self.items.append(
            (kind, array, tuple(np.asarray(color, dtype=float).ravel()) if color is not None else ())
        )

    def add_lines(self, segments: Any, color: Any) -> None:
        self._add("lines", np.asarray(segments, dtype=np.float64).reshape(-1, 2, 2), color)

    def add_points(self, points: Any, color: Any) -> None:
        self._add("points", np.asarray(points, dtype=np.float64).reshape(-1, 2), color)

    def add_polygon(self, vertices: Any, fill: Any, outline: Any = None) -> None:
        self._add(
            "polygon",
            np.asarray(vertices, dtype=np.float64).reshape(-1, 2),
            fill if fill is not None else outline,
        )

    def add_arrows(self, start: Any, end: Any, color: Any) -> None:
        s = np.asarray(start, dtype=np.float64).reshape(-1, 2)
        e = np.asarray(end, dtype=np.float64).reshape(-1, 2)
        self._add("arrows", np.stack([s, e], axis=1), color)

    def add_boxes(self, lo: Any, hi: Any, color: Any) -> None:
        self._add("boxes", np.stack([np.reshape(lo, (-1, 2)), np.reshape(hi, (-1, 2))], axis=1), color)

    def add_text(self, text: str, point: Any, color: Any) -> None:
        self._add("text", (str(text), np.asarray(point, dtype=np.float64)), color)

    def of(self, kind: str, color: Any) -> list[Any]:
        want = tuple(float(c) for c in color)
        return [data for k, data, c in self.items if k == kind and c == want]


def overlay(scene: scenes.Scene) -> FigureBatch:
    batch = FigureBatch()
    scene.on_overlay(batch, IDLE)
    return batch


def step(scene: scenes.Scene, steps: int) -> None:
    for _ in range(steps):
        scene.on_step(scene.dt, IDLE)
        scene.world.step(scene.dt)


def touching_frames(scene: scenes.Scene, count: int) -> Iterator[int]:
    """Step and draw ``scene`` ``count`` times, as the program does, yielding after each step
    that made contacts."""
    for k in range(count):
        step(scene, 1)
        overlay(scene)
        if len(scene.world.contacts):
            yield k


# ---- sat and mtd (Tutorials 1-2) ----------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_mtd_arrow_is_find_mtd(seed: int) -> None:
    scene = scenes.build_scene("mtd", seed=seed)
    a, b = scene.world.vertices(0), scene.world.vertices(1)
    mtd = find_mtd(a, b)
    assert mtd is not None and mtd.any()
    batch = overlay(scene)
    (arrow,) = batch.of("arrows", palette.PUSH)
    np.testing.assert_allclose(arrow[0, 1] - arrow[0, 0], mtd, atol=1e-12)
    axes = explain.separating_axes(a, b)
    assert any(figures.face_name(axes, axes.chosen) in line for line in scene.status)
    # One push vector per overlapping axis, every one at least as long as the MTD.
    (candidates,) = batch.of("arrows", palette.PUSH_CANDIDATE)
    lengths = np.hypot(*(candidates[:, 1] - candidates[:, 0]).T)
    assert len(lengths) == int(np.sum(axes.gap <= 0)) and lengths.min() >= np.hypot(*mtd) - 1e-9


def test_sat_steps_in_tutorial_order_and_stops_at_the_separating_axis() -> None:
    scene = scenes.build_scene("sat", seed=3)
    world = scene.world
    world.position[0] = world.position[1] + (40.0, 3.0)  # apart
    a, b = world.vertices(0), world.vertices(1)
    assert not intersect(a, b)
    axes = explain.separating_axes(a, b)
    first = axes.first_separating
    assert first >= 0 and all(axes.gap[:first] <= 0)
    scene.step = None  # all tested
    overlay(scene)
    assert figures.face_name(axes, first) in scene.status[0] and "separates" in scene.status[0]
    scene.step = 0
    for k in range(first):  # the axes before the separating one overlap: the test goes on
        overlay(scene)
        assert "overlap" in scene.status[0] and f"axis {k + 1} of" in scene.status[0]
        assert scene.on_action("next_axis", IDLE)
    overlay(scene)
    assert "separates" in scene.status[0]
    assert f"({len(axes.gap) - first - 1} of {len(axes.gap)} axes never tested)" in scene.status[0]
    # The separating face's edge is drawn, in the "apart" colour.
    edges = overlay(scene).of("lines", palette.AXIS_APART)
    want = explain.face_edge(a if axes.owner[first] == 0 else b, int(axes.edge[first]))
    assert any(np.allclose(e, want[None]) for e in edges), edges
    # ',' steps back; past the last axis the stepping wraps round to "all tested".
    assert scene.on_action("previous_axis", IDLE)
    assert scene.step == first - 1 if first > 0 else scene.step is None


# ---- swept, rotation, contacts (Tutorials 3, 5, 6) ---------------------------------------------


@pytest.mark.parametrize("name", ["swept", "rotation"])
@pytest.mark.parametrize("seed", range(4))
def test_time_of_impact_on_the_time_line_is_sweeps(name: str, seed: int) -> None:
    scene = scenes.build_scene(name, seed=seed)
    hit = sweep(scene.a, scene.b, scene.motion)
    assert hit is not None and hit.t > 0.0, "the scene starts with a hit coming"
    batch = overlay(scene)
    (entry,) = batch.of("lines", palette.ENTRY)
    assert entry[0, 0, 0] == pytest.approx(figures.time_x(teaching.PANEL, hit.t, 1.0), abs=1e-12)
    assert f"t = {hit.t:.3f}" in scene.status[0]
    (ghost,) = batch.of("polygon", palette.TOI_GHOST_FILL)
    np.testing.assert_allclose(ghost, scene.a + scene.motion * hit.t)


def test_a_miss_shows_the_gap_between_exit_and_entry() -> None:
    scene = scenes.build_scene("swept", seed=1)
    scene.motion = (scene.world.position[1] - scene.world.position[0]) * 0.2  # too short to reach
    assert sweep(scene.a, scene.b, scene.motion) is None
    batch = overlay(scene)
    assert "miss" in scene.status[-1]
    axes = explain.separating_axes(scene.a, scene.b, scene.motion)
    if axes.stop != -2:
        (gap,) = batch.of("polygon", palette.MISS_GAP)
        xs = gap[:, 0]
        assert xs.min() == pytest.approx(figures.time_x(teaching.PANEL, axes.earliest_exit, 1.0))


@pytest.mark.parametrize("seed", range(4))
def test_contact_pairs_are_contact_points(seed: int) -> None:
    scene = scenes.build_scene("contacts", seed=seed)
    a, b, motion = scene.a, scene.b, scene.motion
    hit = sweep(a, b, motion)
    assert hit is not None
    pairs = contact_points(a, b, hit, motion)
    batch = overlay(scene)
    (drawn,) = batch.of("lines", palette.CONTACT_PAIR)
    np.testing.assert_array_equal(drawn, np.array([[p, q] for p, q in pairs]))
    kind = explain.support_features(a, b, hit.normal, hit.t, motion).kind
    assert scene.status[1].startswith(kind)


# ---- impulse (Tutorial 7, seed 004) -------------------------------------------------------------


def test_impulse_shown_is_the_one_the_world_applied() -> None:
    scene = scenes.build_scene("impulse")
    world = scene.world
    seen = 0
    for _ in touching_frames(scene, 300):  # in flight, the figure keeps the last step with hits
        trace = scene.watch.last
        assert trace is not None
        for name in ("position", "velocity", "angle", "angular_velocity"):
            np.testing.assert_array_equal(getattr(trace.bodies, name), getattr(world, name))
        for h in range(len(trace)):
            for k in range(int(trace.count[h])):
                row = trace.first_row[h] + k
                assert world.contacts.normal_impulse[row] == trace.points[h, k, P_JN]
                seen += 1
    assert seen > 100  # it comes to rest on the ground, touching it every step
    shown = scene.watch.shown
    assert shown is not None and not shown.picked
    batch = overlay(scene)
    texts = [text for text, _ in (data for kind, data, _ in batch.items if kind == "text")]
    assert "j = -(1 + e) v_rel.n / K" in texts
    j = shown.trace.formula_impulse(shown.h, shown.k)
    assert any(t.startswith("j = ") and t.endswith(f"= {j:.1f} N s") for t in texts)
    assert f"{j:.1f} N s" in scene.status[0]


def test_impulse_click_picks_the_nearest_contact() -> None:
    scene = scenes.build_scene("impulse")
    step(scene, 300)
    overlay(scene)
    trace = scene.watch.last
    assert trace is not None and len(trace)
    point = trace.points[0, 0, P_AX : P_AY + 1]
    assert scene.on_action("attract", FrameInput(cursor=point + 0.1))
    assert (
        scene.watch.shown is not None
        and scene.watch.shown.picked
        and (scene.watch.shown.h, scene.watch.shown.k) == (0, 0)
    )
    overlay(scene)
    assert scene.status[0].startswith("a picked contact")
    # Far from every contact: back to the latest impact.
    assert scene.on_action("attract", FrameInput(cursor=np.array([-500.0, -500.0])))
    assert scene.watch.shown is None


# ---- crack (seed 002) ---------------------------------------------------------------------------


def test_crack_order_is_the_world_order_and_the_first_choice_its_first_hit() -> None:
    scene = scenes.build_scene("crack")
    checked = 0
    for _ in touching_frames(scene, 120):
        world, choice = scene.world, scene.choice
        if choice is None or choice.with_rule < 0:
            continue
        first = choice.with_rule
        assert world.contacts.body_a[0] == choice.body_a[first]
        assert world.contacts.toi[0] == choice.time[first]
        assert "hit(s), resolved in time order" in scene.status[0]
        checked += 1
    assert checked > 50


def test_crack_without_the_rule_names_the_first_found() -> None:
    scene = scenes.build_scene("crack")
    scene.on_action("toggle_surface", IDLE)
    for _ in touching_frames(scene, 40):
        choice = scene.choice
        if choice is not None and choice.without_rule >= 0:
            assert scene.world.contacts.body_a[0] == choice.body_a[choice.without_rule]


# ---- every figure in a real frame ---------------------------------------------------------------

#: Per scene: the world rectangle (x0, y0, x1, y1) where only its figure draws (no body goes there).
PANEL = (teaching.PANEL.x0, teaching.PANEL.y0, teaching.PANEL.x1, teaching.PANEL.y1)
FIGURE_AREAS = {
    "sat": PANEL,
    "mtd": PANEL,
    "swept": PANEL,
    "rotation": PANEL,
    "contacts": PANEL,
    "impulse": (impulse.VIEW[0] + 2.0, impulse.VIEW[3] - 30.0, impulse.VIEW[0] + 40.0, impulse.VIEW[3] - 1.0),
    "crack": (0.0, crack.TIMELINE_Y - 0.5, crack.TIMELINE_LENGTH, crack.TIMELINE_Y + 0.5),
}


@pytest.mark.parametrize("name", list(FIGURE_AREAS))
def test_figure_draws_in_a_real_frame(make_app: Any, name: str) -> None:
    """The figure's own area of a real offscreen frame is drawn on (elsewhere than the bodies)."""
    app = make_app(scene=scenes.build_scene(name))
    for _ in range(70 if name == "impulse" else 3):
        app.frame(FRAME_S)
        app.hide_help()
    pixels = np.asarray(app.ctx.read_pixels()).astype(int)
    x0, y0, x1, y1 = FIGURE_AREAS[name]
    left, top = app.camera.world_to_screen(np.array([x0, y1]))
    right, bottom = app.camera.world_to_screen(np.array([x1, y0]))
    h, w = pixels.shape[:2]
    area = pixels[max(int(top), 0) : min(int(bottom), h), max(int(left), 0) : min(int(right), w)]
    assert area.shape[0] * area.shape[1] > 200, f"{name}: the figure's area is off screen"
    drawn = np.any(np.abs(area - BACKGROUND) > 30, axis=2)
    assert drawn.mean() > 0.02, f"{name}: the figure's area is (almost) empty ({drawn.mean():.3f})"
    # The same scene with its figure left out draws nothing there.
    blank = make_app(scene=scenes.build_scene(name))
    blank._scene.on_overlay = lambda batch, frame: None
    for _ in range(3):
        blank.frame(FRAME_S)
        blank.hide_help()
    bare = np.asarray(blank.ctx.read_pixels()).astype(int)
    bare_area = bare[max(int(top), 0) : min(int(bottom), h), max(int(left), 0) : min(int(right), w)]
    assert np.any(np.abs(bare_area - BACKGROUND) > 30, axis=2).mean() < 0.2 * drawn.mean()


def test_figure_scenes_start_with_different_pictures() -> None:
    """Each teaching scene's first picture shows its own point: what they draw differs."""
    drawn = {}
    for name in ("sat", "mtd", "swept", "rotation", "contacts"):
        scene = scenes.build_scene(name)
        batch = overlay(scene)
        drawn[name] = (tuple(scene.status), len(batch.items))
    assert len(set(drawn.values())) == len(drawn)


def test_rigid_under_the_tutorial_solver_explains_its_latest_impact() -> None:
    scene = scenes.build_scene("rigid", seed=2)
    overlay(scene)
    assert scene.status == [], "no figure under the iterative solver"
    scene.world.solver = "tutorial"
    for _ in touching_frames(scene, 120):
        shown = scene.watch.shown
        if shown is None or shown.trace is not scene.watch.last:
            continue
        # The contact explained is one the world's own step just made, with its impulse.
        row = shown.trace.first_row[shown.h] + shown.k
        assert scene.world.contacts.normal_impulse[row] == shown.trace.points[shown.h, shown.k, P_JN]
        assert "seed 004's formula" in scene.status[0]
        return
    pytest.fail("no impact explained in 120 steps of the rigid scene")


@pytest.mark.parametrize("name", ["sat", "mtd", "swept", "rotation", "contacts"])
@pytest.mark.parametrize("size", [(320, 240), (800, 600), (1280, 800)])
def test_panel_labels_end_before_the_bars_at_any_size(
    make_app: Any, name: str, size: tuple[int, int]
) -> None:
    """A panel's row names are drawn in pixels and its bars in world units: at every window size
    each name ends (in pixels, as drawn) left of the bars of the panel."""
    app = make_app(scene=scenes.build_scene(name))
    app.ctx.resize(*size)
    for _ in range(3):
        app.frame(FRAME_S)
    batch = FigureBatch()
    frame = app.frame_input()
    app.scene.on_overlay(batch, frame)
    panel_x0 = teaching.PANEL.x0
    bars = [poly for kind, poly, _ in batch.items if kind == "polygon" and poly[:, 0].min() >= panel_x0]
    texts = [data for kind, data, _ in batch.items if kind == "text"]
    # The row names share one left end (the panel's, or left of it in a small window).
    column = Counter(round(float(point[0]), 6) for _, point in texts).most_common(1)[0][0]
    assert column <= panel_x0 + 1e-9
    labels = [(text, point) for text, point in texts if round(float(point[0]), 6) == column]
    assert bars and labels, (len(bars), len(labels))
    bar_left = app.camera.world_to_screen(np.array([min(b[:, 0].min() for b in bars), 0.0]))[0]
    atlas = app.renderer.text.atlas
    for text, point in labels:
        if any(t in text for t in ("lowest", "highest")):
            continue  # the support panel's group titles run across the panel, above their rows
        right = app.camera.world_to_screen(point)[0] + atlas.text_width(text)
        assert right < bar_left, (
            f"{name} at {size}: label {text!r} ends at {right:.0f} px, bars begin at {bar_left:.0f}"
        )
