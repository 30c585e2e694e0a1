"""The program's shape: no module of demo/ longer than the engine's limit
(tests.collision.test_structure.MAX_MODULE_LINES), so each stays readable as one piece."""

from __future__ import annotations

from pathlib import Path

from tests.collision.test_structure import MAX_MODULE_LINES

DEMO = Path(__file__).resolve().parents[2] / "demo"


def test_no_demo_module_is_longer_than_600_lines() -> None:
    sizes = {
        str(path.relative_to(DEMO.parent)): len(path.read_text().splitlines()) for path in DEMO.rglob("*.py")
    }
    assert sizes, f"no modules found under {DEMO}"
    big = {name: lines for name, lines in sizes.items() if lines > MAX_MODULE_LINES}
    assert not big, f"modules over {MAX_MODULE_LINES} lines: {big}"
