"""The C allocator's settings for stepping worlds, made when the engine is imported.

A step allocates its arrays afresh (numba's arrays: the contact points, their packed rows, the
broadphase's pairs), megabytes a step in a big world, and frees them by the next. glibc serves
each block past 128 KiB (or past what it last freed, up to 32 MiB) from a new mapping and gives
free memory at the top of its heap back to the system once a few megabytes lie there: either
way the next step's arrays come from pages the system must fault in again, zeroed (the
8000-body pile: 150-360 page faults a step, 0.3-0.6 ms of system time on a step of 8 ms).
:func:`keep_freed_memory` raises both thresholds (``mallopt``): blocks up to MMAP_THRESHOLD
come from the heap, which is trimmed only past TRIM_THRESHOLD free, so what a step frees is
there for the next (19 faults a step, no system time to speak of). The process keeps up to
TRIM_THRESHOLD of freed memory instead of returning it at once.

The settings are the whole process's. They are left as they are where the user chose glibc's
own (any ``MALLOC_*_`` variable of the environment), with ``POLYCOLLY_SYSTEM_MALLOC=1``, or
where the C library has no ``mallopt`` (not glibc: macOS, Windows, musl ignore it or lack it).
"""

from __future__ import annotations

import ctypes
import os

#: Blocks up to this many bytes come from the heap (glibc's largest, 32 MiB on 64 bits).
MMAP_THRESHOLD = 32 * 1024 * 1024
#: Free memory at the top of the heap past this many bytes goes back to the system.
TRIM_THRESHOLD = 256 * 1024 * 1024
#: glibc's ``mallopt`` parameters (malloc.h).
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
#: Set to 1 to leave the C allocator as the system has it.
OPT_OUT = "POLYCOLLY_SYSTEM_MALLOC"


def keep_freed_memory() -> bool:
    """Raise glibc's mmap and trim thresholds (see the module docstring). Returns whether both
    were set; False where the environment or the C library leaves them alone."""
    if os.environ.get(OPT_OUT, "") not in ("", "0"):
        return False
    if any(name.startswith("MALLOC_") and name.endswith("_") for name in os.environ):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # The order matters to glibc only in that either call turns off its own adjustment of both.
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))


KEPT = keep_freed_memory()
