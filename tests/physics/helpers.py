"""Running a shared physics case (demo.bench.physics) in one of our solvers, as a test.

A case's exempt solvers are not run (the case says why the law does not apply to them); a
solver with a known defect against the case runs as a strict xfail whose reason is the defect,
so the test turns red the moment the defect is fixed, and the fix deletes the case's entry.
"""

from __future__ import annotations

from typing import Any

import pytest

from demo.bench.engines import OUR_SOLVERS
from demo.bench.physics import case


def solvers(name: str) -> list[Any]:
    """pytest params: the solvers ``name``'s law applies to, known defects as strict xfails."""
    c = case(name)
    params = []
    for solver in OUR_SOLVERS:
        if not c.applies_to(solver):
            continue
        defect = c.defects.get(solver)
        marks = [pytest.mark.xfail(strict=True, reason=defect)] if defect else []
        params.append(pytest.param(solver, marks=marks, id=solver))
    return params


def holds(name: str, solver: str) -> dict[str, float]:
    """Run case ``name`` with our ``solver``; fail naming every check it misses. Returns the
    measured values."""
    c = case(name)
    values = c.run("ours", solver)
    problems = c.failures(values)
    assert not problems, f"{solver}:\n" + "\n".join(problems)
    return values
