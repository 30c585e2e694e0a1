"""Importing the engine makes glibc keep freed memory for the next step (collision/memory.py):
checked by the page faults of allocating and freeing megabytes again and again, each in a
fresh interpreter, with the engine's settings, opted out of, and with the user's own."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Eight arrays of 4 MiB, every page written, freed together, ten times after three to settle:
# the page faults a round costs.
PROBE = """
import json, resource
import numpy as np
import collision
from collision import memory

def rounds(n):
    for _ in range(n):
        arrays = [np.ones(512 * 1024) for _ in range(8)]
        del arrays

rounds(3)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
rounds(10)
faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 10
print(json.dumps({"kept": memory.KEPT, "faults": faults}))
"""

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"


def probe(**env: str) -> dict:
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "POLYCOLLY_SYSTEM_MALLOC"
    }
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not GLIBC, reason="glibc's mallopt")
def test_freed_megabytes_are_reused_without_page_faults() -> None:
    kept = probe()
    system = probe(POLYCOLLY_SYSTEM_MALLOC="1")
    assert kept["kept"] and not system["kept"]
    # 32 MiB a round is 8192 pages: the system's settings fault most of them in again.
    assert system["faults"] > 2000
    assert kept["faults"] < 100


@pytest.mark.skipif(not GLIBC, reason="glibc's mallopt")
def test_the_users_own_malloc_settings_are_left_alone() -> None:
    mine = probe(MALLOC_TRIM_THRESHOLD_="131072")
    assert not mine["kept"]
    assert mine["faults"] > 2000  # the user's small trim threshold holds
