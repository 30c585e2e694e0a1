"""Session-wide reporting: the fuzz suites' case counts per class of hostile input."""

from __future__ import annotations

import sys
from typing import Any


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One ``[fuzz]`` line: cases per class and the fuzz modules' time (when any fuzz ran)."""
    fuzz = sys.modules.get("tests.collision.test_fuzz_common")  # imported only by a fuzz module
    if fuzz is None:
        return
    classes = fuzz.by_class()
    if not classes:
        return
    spent = sum(fuzz.seconds().values())
    per_class = ", ".join(f"{name} {n}" for name, n in sorted(classes.items()))
    terminalreporter.write_line(f"[fuzz] {fuzz.total()} cases in {spent:.0f} s; per class: {per_class}")
