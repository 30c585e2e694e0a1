"""The window loop's pacing (demo.run.Pacer) without a window: a stand-in records what the
pacer asks of the window system."""

from __future__ import annotations

from demo.run import Pacer


class _Window:
    """A window whose Esc is down once ``esc_after`` waits for events have returned."""

    def __init__(self, esc_after: int) -> None:
        self.esc_after = esc_after
        self.waits: list[float] = []

    def should_close(self) -> bool:
        return False

    def key_down(self, name: str) -> bool:
        return name == "ESCAPE" and len(self.waits) >= self.esc_after

    def wait_events(self, seconds: float) -> None:
        self.waits.append(seconds)


def test_the_wait_between_frames_ends_when_esc_comes() -> None:
    """Esc pressed while the loop waits for the next frame: the wait ends with the events that
    brought it (the quitting frame runs at once), not at the next frame's time."""
    window = _Window(esc_after=1)
    Pacer(rate=1.0).wait(window)  # the next frame a second away
    assert len(window.waits) == 1
    assert 0.0 < window.waits[0] <= 1.0


def test_the_wait_handles_the_window_s_events_until_the_next_frame() -> None:
    window = _Window(esc_after=10**9)
    pacer = Pacer(rate=1000.0)
    pacer.wait(window)
    assert window.waits and all(0.0 < seconds <= 1e-3 for seconds in window.waits)


def test_an_idle_scene_is_paced_at_the_idle_rate_and_input_brings_the_full_rate_back() -> None:
    """Frames left alone start ``idle_rate`` times a second, the others ``rate`` times: the
    schedule each wait sets is one period of its own kind after the last."""
    pacer = Pacer(rate=60.0, idle_rate=24.0)
    window = _Window(esc_after=10**9)
    start = pacer.next
    pacer.wait(window, idle=True)
    assert abs((pacer.next - start) - 1.0 / 24.0) < 1e-9
    start = pacer.next
    pacer.wait(window, idle=False)
    assert abs((pacer.next - start) - 1.0 / 60.0) < 1e-9


def test_without_an_idle_rate_idle_frames_keep_the_full_rate() -> None:
    pacer = Pacer(rate=60.0)
    start = pacer.next
    pacer.wait(_Window(esc_after=10**9), idle=True)
    assert abs((pacer.next - start) - 1.0 / 60.0) < 1e-9
