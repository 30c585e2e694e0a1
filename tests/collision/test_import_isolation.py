"""The engine never imports OpenGL, glfw or the demo (checked in a fresh interpreter)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
import collision
import collision.primitives, collision.raycast, collision.shapes
forbidden = sorted(
    name for name in sys.modules
    if name.split(".")[0] in ("OpenGL", "glfw", "demo")
)
print(json.dumps({"forbidden": forbidden, "file": collision.__file__}))
"""


def test_collision_imports_no_gl_glfw_or_demo():
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    # The probe imported this checkout's engine, not the unrelated PyPI package of the same name.
    assert Path(report["file"]).resolve().parent == ROOT / "collision"
    assert report["forbidden"] == []


def test_probe_would_notice_a_forbidden_import():
    # Guard against a probe that cannot fail: importing a stand-in "demo" package shows up.
    probe = "import sys, types; sys.modules['demo'] = types.ModuleType('demo');" + PROBE
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1])["forbidden"] == ["demo"]
