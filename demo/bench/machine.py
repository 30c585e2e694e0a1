"""The machine a benchmark ran on, as its reports name it: processor, cores, level-2 cache,
the versions of Python and of the engines compared, the date and the load.

A ratio between engines depends on the machine (our pyramid has measured 0.89 of Box2D v3's
time on one kind of processor and 1.11 on another, with the same results), so every speed
report starts with this line, and a figure taken from a report carries the machine it came
from.
"""

from __future__ import annotations

import datetime
import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any, TextIO

from demo import warmup_lanes

#: Distributions whose versions a report gives (the engines compared and what compiles ours);
#: one not installed is left out.
DISTRIBUTIONS = ("numba", "numpy", "pyb2d3", "pymunk")


def processor_name(cpuinfo: str | None = None) -> str:
    """The processor's model name: the first ``model name`` of ``cpuinfo`` (the text of
    /proc/cpuinfo, read when None), else what :func:`platform.processor` says, else the
    architecture."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            cpuinfo = ""
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model name" and value.strip():
            return " ".join(value.split())
    return platform.processor() or platform.machine() or "unknown processor"


def level2_cache(cpu: Path = Path("/sys/devices/system/cpu/cpu0/cache")) -> str | None:
    """The size of core 0's level-2 cache as the kernel gives it (``"2048K"``), from
    the ``index*`` folders of ``cpu``; None where there is none to read."""
    try:
        folders = sorted(cpu.glob("index*"))
        for folder in folders:
            if (folder / "level").read_text().strip() == "2":
                return (folder / "size").read_text().strip() or None
    except OSError:
        return None
    return None


def versions() -> dict[str, str]:
    """``{"Python": "3.11.7", "numba": ..., ...}``: Python's and each installed distribution of
    :data:`DISTRIBUTIONS`."""
    found = {"Python": platform.python_version()}
    for name in DISTRIBUTIONS:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def load_average() -> float | None:
    """The one-minute load average, None where the system has none."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def machine() -> dict[str, Any]:
    """The machine now: ``{"processor", "cores", "usable_cores", "l2", "platform", "versions",
    "utc", "load"}`` (``l2`` as :func:`level2_cache`, ``utc`` ISO 8601 to the minute, ``load``
    the one-minute load average)."""
    return {
        "processor": processor_name(),
        "cores": os.cpu_count() or 1,
        "usable_cores": warmup_lanes.usable_cores(),
        "l2": level2_cache(),
        "platform": f"{platform.system()} {platform.machine()}",
        "versions": versions(),
        "utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "load": load_average(),
    }


def describe(found: dict[str, Any]) -> str:
    """:func:`machine`'s answer on one line, as the reports print it first."""
    cores = f"{found['cores']} cores"
    if found["usable_cores"] != found["cores"]:
        cores += f" ({found['usable_cores']} usable)"
    l2 = f", L2 {found['l2']} (core 0)" if found["l2"] else ""
    named = ", ".join(f"{name} {version}" for name, version in found["versions"].items())
    load = "" if found["load"] is None else f", load average {found['load']:.2f}"
    return f"machine: {found['processor']}, {cores}{l2}; {found['platform']}; {named}; {found['utc']}{load}"


def announced(out: TextIO | None) -> dict[str, Any]:
    """:func:`machine`, its line printed first on ``out`` (a text report; None: a JSON one,
    which carries the answer in its ``machine`` field)."""
    found = machine()
    if out is not None:
        print(describe(found), file=out, flush=True)
    return found
