"""The tutorial's figures, drawn from the engine's own intermediate results (collision.explain).

Each function draws one figure into an overlay batch (world units; no GL here) and returns the
lines of text the scene shows as its status:

- :func:`draw_axes`: Tutorials 1-2, every candidate axis as a row of a panel (A's and B's
  intervals, overlapping or apart), the axis in question drawn beside the polygons with the
  edge it comes from, and for the MTD the push vector of every overlapping axis;
- :func:`draw_timeline`: Tutorials 3 and 5, each axis's time window on one 0..1 time line, the
  latest entry and earliest exit, the time of impact or the gap that proves a miss;
- :func:`draw_support`: Tutorial 6, the support points along the normal and the contact pairs;
- :func:`draw_impulse`: Tutorial 7 with seed 004, one contact's impulse and its terms.

A panel sits in the world rectangle ``Panel`` (the teaching scenes keep the right third of
their view free for it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from collision import explain
from demo.draw import palette

#: Gap (units) between the polygons and an axis drawn beside them, and between its A and B bars.
AXIS_MARGIN, BAR_GAP = 4.0, 0.9
#: Rows of a panel are at most this tall (world units); text needs about 3.5.
ROW_MAX = 6.0
#: A panel's label column takes at most this fraction of its width; a gap this wide (as text)
#: separates the labels from the bars.
LABEL_MAX_FRACTION, LABEL_GAP = 0.5, "  "


@dataclass(frozen=True)
class Panel:
    """A world rectangle ``x0, y0, x1, y1`` for a figure's rows; ``label`` units of it on the left
    hold each row's name. ``text_width``: a label's width in world units at the frame's zoom
    (FrameInput.text_width): with it the label column is as wide as the labels (:meth:`fit`)."""

    x0: float
    y0: float
    x1: float
    y1: float
    label: float = 11.0
    text_width: Callable[[str], float] | None = field(default=None, compare=False)
    #: Where the labels start: x0, or left of it when they are wider than the column may be.
    label_x: float | None = None

    @property
    def text_x(self) -> float:
        """The left end of the row names."""
        return self.x0 if self.label_x is None else self.label_x

    def measured(self, text_width: Callable[[str], float] | None) -> Panel:
        """This panel with the frame's label measure."""
        return replace(self, text_width=text_width)

    def _needed(self, labels: Iterable[str]) -> float:
        assert self.text_width is not None
        widest = max((self.text_width(text) for text in labels), default=0.0)
        return widest + self.text_width(LABEL_GAP)

    def fits(self, labels: Iterable[str]) -> bool:
        """Whether ``labels`` fit in a label column of at most LABEL_MAX_FRACTION of the panel
        (always, without a measure)."""
        return self.text_width is None or self._needed(labels) <= LABEL_MAX_FRACTION * (self.x1 - self.x0)

    def fit(self, labels: Iterable[str]) -> Panel:
        """This panel with its label column as wide as the widest of ``labels`` and a gap
        (labels are pixels wide: at a small size or zoom they take more world units), at most
        LABEL_MAX_FRACTION of the panel, the labels then starting left of the panel so that
        they still end before the bars; unchanged without a measure."""
        if self.text_width is None:
            return self
        needed = self._needed(labels)
        label = min(needed, LABEL_MAX_FRACTION * (self.x1 - self.x0))
        return replace(self, label=label, label_x=self.x0 + label - needed)

    def rows(self, count: int) -> tuple[np.ndarray, float]:
        """Centre heights (count,) of ``count`` rows from the top, and the row height."""
        height = min(ROW_MAX, (self.y1 - self.y0) / max(count, 1))
        return self.y1 - height * (np.arange(count) + 0.5), height

    @property
    def bar_x(self) -> tuple[float, float]:
        """Where a row's bar runs (x from, x to)."""
        return self.x0 + self.label, self.x1


def face_name(axes: explain.Axes, f: int) -> str:
    """ "A2" for the second edge of A: how the figures name a face."""
    return f"{'AB'[int(axes.owner[f])]}{int(axes.edge[f]) + 1}"


def _bar(batch: Any, x0: float, x1: float, y: float, thickness: float, color: Any) -> None:
    """A filled horizontal bar from ``x0`` to ``x1`` at height ``y``."""
    h = 0.5 * thickness
    x1 = max(x1, x0 + 0.3)  # a point-like interval still shows
    batch.add_polygon(np.array([[x0, y - h], [x1, y - h], [x1, y + h], [x0, y + h]]), color, None)


def _row_box(batch: Any, panel: Panel, y: float, height: float, color: Any) -> None:
    """A frame around the panel row at height ``y``: the row that matters."""
    batch.add_boxes([panel.text_x - 0.5, y - 0.5 * height], [panel.x1 + 0.5, y + 0.5 * height], color)


def _face_edge(a: np.ndarray, b: np.ndarray, axes: explain.Axes, f: int) -> np.ndarray:
    return explain.face_edge(a if axes.owner[f] == 0 else b, int(axes.edge[f]))


def draw_axis_beside(batch: Any, a: np.ndarray, b: np.ndarray, axes: explain.Axes, f: int) -> None:
    """Face ``f``'s axis as a line beside the polygons, with A's and B's intervals projected on it
    (the tutorial's picture) and the edge the axis comes from."""
    n = axes.normal[f]
    perp = np.array([-n[1], n[0]])
    both = np.concatenate([a, b])
    offset = float(np.max(both @ perp)) + AXIS_MARGIN
    apart = axes.gap[f] > 0.0
    color = palette.AXIS_APART if apart else palette.AXIS_OVERLAP
    lo = min(axes.interval_a[f, 0], axes.interval_b[f, 0]) - 2.0
    hi = max(axes.interval_a[f, 1], axes.interval_b[f, 1]) + 2.0
    batch.add_lines(np.array([[lo * n + offset * perp, hi * n + offset * perp]]), palette.AXIS_LINE)
    for k, (interval, shape, bar_color) in enumerate(
        ((axes.interval_a[f], a, palette.AXIS_A), (axes.interval_b[f], b, palette.AXIS_B))
    ):
        shift = offset + (k - 0.5) * BAR_GAP
        ends = np.array([interval[0] * n + shift * perp, interval[1] * n + shift * perp])
        batch.add_lines(ends[None], bar_color)
        # Guides from the extreme vertices down to the axis.
        along = shape @ n
        extremes = shape[[int(np.argmin(along)), int(np.argmax(along))]]
        feet = np.array([e @ n * n + shift * perp for e in extremes])
        batch.add_lines(np.stack([extremes, feet], axis=1), palette.AXIS_GUIDE)
    edge = _face_edge(a, b, axes, f)
    batch.add_lines(edge[None], color)
    batch.add_points(edge, color)
    mid = 0.5 * (edge[0] + edge[1])
    batch.add_arrows(mid, mid + n * 4.0 * (1 if axes.owner[f] == 1 else -1), color)
    batch.add_text(face_name(axes, f), mid + perp * 1.5, palette.LABEL_TEXT)


def draw_axes(
    batch: Any, a: np.ndarray, b: np.ndarray, axes: explain.Axes, panel: Panel, step: int | None, mtd: bool
) -> list[str]:
    """Tutorial 1 (and 2 with ``mtd``): every axis as a panel row, the current one beside the
    polygons. ``step``: how far a user stepping through the axes has got (None: all tested).
    Returns the status lines."""
    count = len(axes.gap)
    if count == 0:
        return ["two points: no faces to test; they touch only when they coincide"]
    tested = count if step is None else min(step + 1, count)
    first = axes.first_separating
    if first >= 0:
        tested = min(tested, first + 1)  # the early out: nothing after it is looked at
    names = [face_name(axes, f) for f in range(count)]
    labels = list(names)
    for f in range(tested):
        labels[f] += " apart" if axes.gap[f] > 0.0 else (f" {-axes.gap[f]:.1f}" if mtd else "")
    # Room for the widest a label gets, so the bars do not shift as the numbers change; in a
    # window too small for that, the faces' names alone (the status lines give the numbers).
    widest = "A00 apart"
    if not panel.fits([*labels, widest]):
        labels, widest = names, "A00"
    panel = panel.fit([*labels, widest])
    ys, height = panel.rows(count)
    spans = np.concatenate([axes.interval_a, axes.interval_b], axis=1)
    centres = 0.5 * (spans.min(axis=1) + spans.max(axis=1))
    scale = (panel.bar_x[1] - panel.bar_x[0]) / float(np.max(spans.max(axis=1) - spans.min(axis=1)) + 1e-9)
    for f in range(count):
        y = ys[f]
        apart = axes.gap[f] > 0.0
        color = palette.AXIS_APART if apart else palette.AXIS_OVERLAP
        faded = f >= tested
        if f == first or (mtd and f == axes.chosen):
            _row_box(batch, panel, y, height, color)
        x = panel.bar_x[0] + (spans[f] - centres[f]) * scale + 0.5 * (panel.bar_x[1] - panel.bar_x[0])
        alpha = 0.25 if faded else 1.0
        bar = 0.28 * height
        _bar(batch, x[0], x[1], y + 0.3 * height, bar, palette.faded(palette.AXIS_A, alpha))
        _bar(batch, x[2], x[3], y - 0.3 * height + bar * 0.5, bar, palette.faded(palette.AXIS_B, alpha))
        batch.add_text(labels[f], (panel.text_x, y + 0.45 * height), palette.faded(color, alpha))
    status = []
    current = first if first >= 0 and tested == first + 1 else tested - 1
    if mtd and axes.chosen >= 0:
        current = axes.chosen
    draw_axis_beside(batch, a, b, axes, current)
    if first >= 0 and tested == first + 1:
        status.append(
            f"axis {face_name(axes, first)} separates A and B: the test stops there "
            f"({count - first - 1} of {count} axes never tested)"
        )
    elif tested < count:
        name = face_name(axes, tested - 1)
        status.append(f"axis {tested} of {count} ({name}): the intervals overlap; '.' tests the next")
    else:
        status.append(f"all {count} axes overlap: A and B intersect")
    if mtd:
        status.append(draw_push_vectors(batch, a, axes))
    return status


def draw_push_vectors(batch: Any, a: np.ndarray, axes: explain.Axes) -> str:
    """Tutorial 2: the push vector of every overlapping axis from A's centre, the shortest one
    (the engine's MTD) bright. Returns its status line."""
    centre = a.mean(axis=0)
    push = axes.push
    overlapping = np.flatnonzero(axes.gap <= 0.0)
    batch.add_arrows(
        np.repeat(centre[None], len(overlapping), 0), centre + push[overlapping], palette.PUSH_CANDIDATE
    )
    if axes.chosen < 0 or axes.first_separating >= 0:
        return "no overlap: nothing to push"
    mtd = push[axes.chosen]
    batch.add_arrows(centre, centre + mtd, palette.PUSH)
    name = face_name(axes, axes.chosen)
    return f"MTD: axis {name}, the least overlap ({axes.depth:.2f}) of {len(overlapping)}; Enter separates"


def time_x(panel: Panel, t: float, t_max: float) -> float:
    """Where time ``t`` (clamped to 0..t_max) is on a panel's time line."""
    x0, x1 = panel.bar_x
    return x0 + (x1 - x0) * min(max(t / t_max, 0.0), 1.0)


def draw_timeline(batch: Any, a: np.ndarray, b: np.ndarray, axes: explain.Axes, panel: Panel) -> list[str]:
    """Tutorial 3: for each axis the time window in which its intervals overlap, on one time line
    0..t_max; the latest entry, the earliest exit and what they prove. Returns status lines."""
    count = len(axes.gap)
    velocity_row = 1 if axes.velocity_axis.any() else 0
    names = [face_name(axes, f) for f in range(count)]
    apart_word = " apart" if panel.fits(["time", "v apart", *names]) else ""  # else too small
    panel = panel.fit(["time", f"v{apart_word}", *names])
    ys, height = panel.rows(count + velocity_row + 1)
    x0, x1 = panel.bar_x
    scale_y = ys[0] + 0.3 * height
    batch.add_lines(np.array([[[x0, scale_y], [x1, scale_y]]]), palette.AXIS_LINE)
    for t in (0.0, 0.5, 1.0):
        x = time_x(panel, t * axes.t_max, axes.t_max)
        batch.add_lines(np.array([[[x, scale_y - 0.6], [x, scale_y + 0.6]]]), palette.AXIS_LINE)
        batch.add_text(f"{t * axes.t_max:g}", (x - 1.0, scale_y + 3.2), palette.LABEL_TEXT)
    batch.add_text("time", (panel.text_x, scale_y + 1.6), palette.LABEL_TEXT)
    status = []
    if velocity_row:
        y = ys[1]
        ia, ib = axes.velocity_interval_a, axes.velocity_interval_b
        apart = ia[0] > ib[1] or ib[0] > ia[1]
        color = palette.AXIS_APART if apart else palette.AXIS_OVERLAP
        batch.add_text("v" + (apart_word if apart else ""), (panel.text_x, y + 0.45 * height), color)
        lo, hi = min(ia[0], ib[0]), max(ia[1], ib[1])
        k = (x1 - x0) / max(hi - lo, 1e-9)
        _bar(
            batch,
            x0 + (ia[0] - lo) * k,
            x0 + (ia[1] - lo) * k,
            y + 0.15 * height,
            0.25 * height,
            palette.AXIS_A,
        )
        _bar(
            batch,
            x0 + (ib[0] - lo) * k,
            x0 + (ib[1] - lo) * k,
            y - 0.15 * height,
            0.25 * height,
            palette.AXIS_B,
        )
        if apart:
            status.append("the velocity axis parts their shadows across the motion: no hit, no more tests")
    for f in range(count):
        y = ys[f + 1 + velocity_row]
        enter, leave = axes.enter[f], axes.leave[f]
        start, end = max(enter, 0.0), min(leave, axes.t_max)
        color = palette.AXIS_OVERLAP if axes.gap[f] <= 0.0 else palette.AXIS_WINDOW
        if f == axes.chosen:
            _row_box(batch, panel, y, height, palette.TOI)
        batch.add_text(face_name(axes, f), (panel.text_x, y + 0.45 * height), palette.LABEL_TEXT)
        if start <= end:
            xs = time_x(panel, start, axes.t_max), time_x(panel, end, axes.t_max)
            _bar(batch, xs[0], xs[1], y, 0.45 * height, color)
        else:
            batch.add_text("never", (x0, y + 0.45 * height), palette.faded(palette.LABEL_TEXT, 0.6))
    top, bottom = ys[0], ys[-1] - 0.5 * height
    entry, exit_ = axes.latest_entry, axes.earliest_exit
    if axes.stop == -2:
        return status
    xe = time_x(panel, entry, axes.t_max)
    xx = time_x(panel, exit_, axes.t_max)
    batch.add_lines(np.array([[[xe, top], [xe, bottom]]]), palette.ENTRY)
    batch.add_lines(np.array([[[xx, top], [xx, bottom]]]), palette.EXIT)
    if axes.hit and axes.t > 0.0:
        status.append(
            f"time of impact t = {axes.t:.3f}: the latest entry ({face_name(axes, axes.chosen)}), "
            f"before the earliest exit {exit_:.3f}"
        )
        draw_axis_beside(batch, a, b, axes, axes.chosen)
    elif axes.hit:
        status.append(f"overlapping now: depth {axes.depth:.2f} along {face_name(axes, axes.chosen)}")
    else:
        if entry > exit_:
            # An entry after the end of the test is off the time line: the gap runs past its end.
            right = xe + 1.5 if entry > axes.t_max else xe
            batch.add_polygon(
                np.array([[xx, bottom], [right, bottom], [right, top], [xx, top]]), palette.MISS_GAP, None
            )
        shown = "never" if not np.isfinite(entry) else f"{entry:.3f}"
        status.append(f"miss: the latest entry ({shown}) comes after the earliest exit ({exit_:.3f})")
    return status


def ring(batch: Any, points: np.ndarray, color: Any, radius: float = 1.2) -> None:
    """A small circle around each of ``points (m, 2)``: a point that matters."""
    angles = np.linspace(0.0, 2.0 * np.pi, 13)[:-1]
    circle = np.stack([np.cos(angles), np.sin(angles)], axis=1) * radius
    for p in np.asarray(points, dtype=np.float64).reshape(-1, 2):
        batch.add_polygon(p + circle, None, color)


def draw_support(batch: Any, support: explain.Support, normal: np.ndarray) -> str:
    """Tutorial 6: the support points of A (lowest along the normal) and B (highest), the
    contact pairs between them. Returns the status line."""
    ring(batch, support.support_a, palette.AXIS_A)
    ring(batch, support.support_b, palette.AXIS_B, 1.6)
    for points, color in ((support.support_a, palette.AXIS_A), (support.support_b, palette.AXIS_B)):
        if len(points) == 2:
            batch.add_lines(points[None], color)
    if len(support.pairs_a):
        batch.add_lines(np.stack([support.pairs_a, support.pairs_b], axis=1), palette.CONTACT_PAIR)
        batch.add_points(np.concatenate([support.pairs_a, support.pairs_b]), palette.CONTACT_PAIR)
        batch.add_arrows(support.pairs_b, support.pairs_b + normal * 4.0, palette.WHITE)
    what = {
        "point-point": "corner on corner: that pair",
        "point-edge": "A's corner on B's edge: the corner and the edge's closest point",
        "edge-point": "A's edge on B's corner: the corner and the edge's closest point",
        "edge-edge": "edge on edge: the middle two of the four points, each with its partner",
    }[support.kind]
    return f"{support.kind}: {what}"


def draw_support_panel(
    batch: Any, a: np.ndarray, b: np.ndarray, normal: np.ndarray, support: explain.Support, panel: Panel
) -> None:
    """Tutorial 6's search, as a panel: every vertex of A by its height along the normal and of B
    along the opposite direction (bars from the lowest), the support points the engine picked
    framed. ``a``: A's vertices at the time of impact; ``b``: B's."""
    groups = (
        ("A", "A: lowest along n first", a, a @ normal, support.support_a, palette.AXIS_A),
        ("B", "B: highest along n first", b, -(b @ normal), support.support_b, palette.AXIS_B),
    )
    panel = panel.fit([f"{name}{len(vertices)}" for name, _, vertices, *_ in groups])
    ys, height = panel.rows(len(a) + len(b) + 2)
    x0, x1 = panel.bar_x
    top = max(float(np.ptp(g[3])) for g in groups) or 1.0
    row = 0
    for name, title, vertices, heights, chosen, color in groups:
        batch.add_text(title, (panel.text_x, ys[row] + 0.45 * height), color)
        row += 1
        for i in np.argsort(heights, kind="stable"):
            y = ys[row]
            picked = bool(np.any(np.all(np.isclose(chosen, vertices[i], atol=1e-9), axis=1)))
            rise = float(heights[i] - heights.min())
            batch.add_text(f"{name}{i + 1}", (panel.text_x, y + 0.45 * height), color)
            _bar(
                batch,
                x0,
                x0 + (x1 - x0) * rise / top,
                y,
                0.4 * height,
                palette.faded(color, 1.0 if picked else 0.4),
            )
            if picked:
                _row_box(batch, panel, y, height, palette.CONTACT_PAIR)
            row += 1
