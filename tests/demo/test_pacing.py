"""The window loop's pacing (demo.run.Pacer) without a window: a stand-in records what the
pacer asks of the window system."""

from __future__ import annotations

from typing import Any

from demo.run import IDLE_CPU_SHARE, IdleBudget, Pacer, idle_share


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


def test_a_longer_period_asked_of_the_wait_sets_the_next_frame_s_start() -> None:
    """Frames of a scene left alone come a longer period apart; a shorter period than the
    rate's is not taken (the cap holds)."""
    pacer = Pacer(rate=60.0)
    window = _Window(esc_after=10**9)
    start = pacer.next
    pacer.wait(window, period=1.0 / 24.0)
    assert abs((pacer.next - start) - 1.0 / 24.0) < 1e-9
    start = pacer.next
    pacer.wait(window, period=1e-4)
    assert abs((pacer.next - start) - 1.0 / 60.0) < 1e-9


def test_the_idle_budget_spaces_frames_by_their_processor_time() -> None:
    """A frame that costs 12 ms of processor, within 0.4 of a core: 30 ms apart; a cheap one
    keeps the full rate; an expensive one no further apart than the longest period."""
    budget = IdleBudget(share=0.4, shortest=1.0 / 60.0, longest=1.0 / 15.0)
    cpu = 0.0
    for _ in range(200):
        budget.frame_done(cpu)
        cpu += 0.012
    assert abs(budget.period() - 0.012 / 0.4) < 1e-6
    for _ in range(200):
        budget.frame_done(cpu)
        cpu += 0.001
    assert budget.period() == 1.0 / 60.0
    for _ in range(200):
        budget.frame_done(cpu)
        cpu += 0.2
    assert budget.period() == 1.0 / 15.0


def test_the_idle_share_comes_from_the_environment_or_a_warning_says_why_not(capsys: Any) -> None:
    assert idle_share({}) == IDLE_CPU_SHARE
    assert idle_share({"POLYCOLLY_IDLE_SHARE": "0.25"}) == 0.25
    for bad in ("0", "-1", "1.5", "nan", "half"):
        assert idle_share({"POLYCOLLY_IDLE_SHARE": bad}) == IDLE_CPU_SHARE
        assert f"POLYCOLLY_IDLE_SHARE={bad!r} is not a number in (0, 1]" in capsys.readouterr().err
