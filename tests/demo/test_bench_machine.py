"""The machine line every speed report starts with: what it reads, and where it is printed."""

from __future__ import annotations

import io
import json
import os
import platform
import re
from importlib import metadata
from pathlib import Path

import pytest

from demo.bench import machine, speed

CPUINFO = """processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R)   Processor
flags\t\t: fpu vme

processor\t: 1
model name\t: Something Else
"""


def test_the_processor_is_the_first_model_name_with_its_spaces_tidied() -> None:
    assert machine.processor_name(CPUINFO) == "Intel(R) Xeon(R) Processor"
    # No model name (some ARM kernels): what the platform module says, never an empty name.
    assert machine.processor_name("processor\t: 0\nBogoMIPS\t: 50.00\n") == (
        platform.processor() or platform.machine() or "unknown processor"
    )


@pytest.mark.skipif(not Path("/proc/cpuinfo").exists(), reason="Linux's /proc/cpuinfo")
def test_on_linux_the_processor_is_the_one_proc_cpuinfo_names() -> None:
    names = re.findall(r"^model name\s*:\s*(.+)$", Path("/proc/cpuinfo").read_text(), re.MULTILINE)
    expected = " ".join(names[0].split()) if names else machine.processor_name("")
    assert machine.processor_name() == expected


def test_the_level_2_cache_is_read_from_the_folder_whose_level_is_2(tmp_path: Path) -> None:
    for index, (level, size) in enumerate([("1", "48K"), ("1", "32K"), ("2", "2048K"), ("3", "105M")]):
        folder = tmp_path / f"index{index}"
        folder.mkdir()
        (folder / "level").write_text(level + "\n")
        (folder / "size").write_text(size + "\n")
    assert machine.level2_cache(tmp_path) == "2048K"
    assert machine.level2_cache(tmp_path / "missing") is None


def test_the_versions_are_those_installed() -> None:
    found = machine.versions()
    assert found["Python"] == platform.python_version()
    assert found["numba"] == metadata.version("numba")
    for name in machine.DISTRIBUTIONS:
        try:
            assert found[name] == metadata.version(name)
        except metadata.PackageNotFoundError:
            assert name not in found


def test_the_line_names_the_processor_cores_versions_date_and_load() -> None:
    found = machine.machine()
    assert found["cores"] == os.cpu_count()
    assert 1 <= found["usable_cores"] <= found["cores"]
    line = machine.describe(found)
    assert line.startswith(f"machine: {found['processor']}, {found['cores']} cores")
    assert f"Python {platform.python_version()}" in line and f"numba {metadata.version('numba')}" in line
    assert re.search(r"; \d{4}-\d\d-\d\d \d\d:\d\d UTC", line)
    if found["load"] is not None:
        assert line.endswith(f"load average {found['load']:.2f}")
    fewer = dict(found, usable_cores=1, cores=4, l2=None, load=None)
    assert ", 4 cores (1 usable); " in machine.describe(fewer)
    assert "L2" not in machine.describe(fewer) and "load" not in machine.describe(fewer)


def _spawn(engine: str, scene_name: str, size: int, steps: int, profile: bool = False) -> dict[str, object]:
    total = {"ours": 1.0, "box2d": 0.5}[engine] * steps / 1e3
    return {
        "engine": engine, "bodies": size, "steps": steps, "total_s": total, "cpu_s": total,
        "step_ms_mean": total * 1e3 / steps, "max_displacement": 0.0, "max_speed_end": 0.0,
        "escaped": 0, "nan": False,
    }  # fmt: skip


def test_the_speed_reports_start_with_the_machine_and_carry_it_in_json(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(speed, "spawn", _spawn)
    text = io.StringIO()
    speed.compare(["pyramid"], "box2d", 1, False, text, None)
    first = text.getvalue().splitlines()[0]
    assert first.startswith(f"machine: {machine.processor_name()}, {os.cpu_count()} cores")
    as_json = io.StringIO()
    speed.compare(["pyramid"], "box2d", 1, True, as_json, None)
    report = json.loads(as_json.getvalue())
    assert report["machine"]["processor"] == machine.processor_name()
    assert report["machine"]["versions"]["Python"] == platform.python_version()
    scaled = io.StringIO()
    speed.scale("box2d", 1, False, scaled, None)
    assert scaled.getvalue().startswith("machine: ")
