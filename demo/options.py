"""The command line's numbers: each option's text converted and range-checked once, against a
named limit, with a message that quotes at most a short piece of what was typed.

The same limits check the values a ``--replay`` file brings (demo.recording). Imports neither
the engine nor OpenGL.
"""

from __future__ import annotations

import argparse
import re

from demo import safeio

#: Largest ``--seed``: any random generator takes a signed 64-bit seed.
MAX_SEED = 2**63 - 1
#: Largest ``--bodies``: 10 000 bodies take about 10 ms a step here; more would not run at an
#: interactive rate (a scene has its own, usually smaller, range).
MAX_BODIES = 10_000
#: Largest ``--frames`` (and frames of a recording): 4.6 hours at 60 frames per second.
MAX_FRAMES = 1_000_000
#: Largest ``--steps`` of ``--stats``: its step times are kept, 8 bytes each.
MAX_STEPS = 1_000_000
#: ``--size`` range (pixels, each side): OpenGL's guaranteed framebuffer size, and a readable minimum.
MIN_SIZE_PX, MAX_SIZE_PX = 16, 8192

#: A whole number as typed: ASCII digits only (int() would also take "1_000", " 12 " and other
#: scripts' digits).
_WHOLE = re.compile(r"[+-]?[0-9]+")


def whole_number(text: str, lo: int, hi: int) -> int:
    """``text`` as an int in lo..hi; argparse.ArgumentTypeError saying what is wrong otherwise.

    A number of more than safeio.MAX_INTEGER_DIGITS digits is out of range without being
    converted (int() refuses thousands of digits, and every limit here is far shorter)."""
    if not _WHOLE.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{safeio.shorten(text)} is not a whole number")
    digits = len(text.lstrip("+-"))
    value = int(text) if digits <= safeio.MAX_INTEGER_DIGITS else None
    shown = text if digits <= safeio.MAX_INTEGER_DIGITS else f"{text[:12]}...({digits} digits)"
    if (value is None and text.startswith("-")) or (value is not None and value < lo):
        raise argparse.ArgumentTypeError(f"{shown} must be at least {lo}")
    if value is None or value > hi:
        raise argparse.ArgumentTypeError(f"{shown} must be at most {hi}")
    return value


def seed(text: str) -> int:
    """``--seed``: 0..MAX_SEED."""
    return whole_number(text, 0, MAX_SEED)


def bodies(text: str) -> int:
    """``--bodies``: 1..MAX_BODIES."""
    return whole_number(text, 1, MAX_BODIES)


def frames(text: str) -> int:
    """``--frames``: 1..MAX_FRAMES."""
    return whole_number(text, 1, MAX_FRAMES)


def steps(text: str) -> int:
    """``--steps``: 1..MAX_STEPS."""
    return whole_number(text, 1, MAX_STEPS)


def window_size(text: str) -> tuple[int, int]:
    """``--size WxH``: two whole numbers in MIN_SIZE_PX..MAX_SIZE_PX."""
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(_WHOLE.fullmatch(p) and len(p) <= safeio.MAX_INTEGER_DIGITS for p in parts):
        raise argparse.ArgumentTypeError(f"{safeio.shorten(text)} is not WIDTHxHEIGHT (for example 960x720)")
    width, height = (int(p) for p in parts)
    if not (MIN_SIZE_PX <= width <= MAX_SIZE_PX and MIN_SIZE_PX <= height <= MAX_SIZE_PX):
        raise argparse.ArgumentTypeError(
            f"{safeio.shorten(text)}: width and height must be within {MIN_SIZE_PX}..{MAX_SIZE_PX} pixels"
        )
    return width, height
