"""What a physics case is: one scene, one measurement, exact expected values with tolerances.

A :class:`Case` is defined once and run by any engine adapter (``demo.bench.engines``): the
test suite (tests/physics) runs it in each of our solvers, ``python -m demo bench --physics``
runs it in ours, Box2D v3 and pymunk side by side. Its ``measure`` steps a
:class:`~demo.bench.engines.Sim` and returns named values (SI units); each named value has a
:class:`Check`: the exact answer (derived in the case's docstring), the tolerance and why a
careful engineer accepts that much.

A law that does not apply to one of our solvers is an exemption, with the reason (``exempt``);
a law a solver breaks today is a known defect, described precisely (``defects``): the tests
expect it to fail (strict), so the fix is the moment to delete the entry.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from demo.bench import engines
from demo.bench.engines import Sim
from demo.bench.scenes import SceneSpec

WITHIN, AT_MOST, AT_LEAST = "within", "at most", "at least"


@dataclass(frozen=True)
class Check:
    """One measured value against its exact answer.

    ``kind`` ``"within"``: ``|value - expected| <= tolerance``; ``"at most"``: ``value <=
    expected + tolerance`` (a bound, e.g. an overlap that should be 0); ``"at least"``:
    ``value >= expected - tolerance``. ``why`` justifies the tolerance.
    """

    quantity: str
    unit: str
    expected: float
    tolerance: float
    why: str
    kind: str = WITHIN

    def passes(self, value: float) -> bool:
        """Whether ``value`` meets the check (NaN never does)."""
        if not math.isfinite(value):
            return False
        if self.kind == AT_MOST:
            return value <= self.expected + self.tolerance
        if self.kind == AT_LEAST:
            return value >= self.expected - self.tolerance
        return abs(value - self.expected) <= self.tolerance

    def describe_expected(self) -> str:
        """The expectation as the report prints it: ``3.1 +- 0.01``, ``<= 0.02``, ``>= 1.4``."""
        if self.kind == AT_MOST:
            return f"<= {_num(self.expected + self.tolerance)}"
        if self.kind == AT_LEAST:
            return f">= {_num(self.expected - self.tolerance)}"
        return f"{_num(self.expected)} +- {_num(self.tolerance)}"


def _num(x: float) -> str:
    return f"{x:.4g}"


@dataclass(frozen=True)
class Case:
    """One exact case: ``scene`` built by any engine, ``measure(sim)`` -> ``{key: value}``, and
    a :class:`Check` per key. ``derivation`` is the case builder's docstring."""

    name: str
    law: str
    scene: SceneSpec
    measure: Callable[[Sim], dict[str, float]]
    checks: Mapping[str, Check]
    derivation: str
    exempt: Mapping[str, str] = field(default_factory=dict)
    defects: Mapping[str, str] = field(default_factory=dict)

    def run(self, engine: str, solver: str = "iterative") -> dict[str, float]:
        """Build the scene in ``engine`` (ours with ``solver``) and measure it."""
        return self.measure(engines.build(engine, self.scene, solver))

    def failures(self, values: Mapping[str, float]) -> list[str]:
        """One line per check that ``values`` misses (empty: the case holds)."""
        lines = []
        for key, check in self.checks.items():
            value = values[key]
            if not check.passes(value):
                lines.append(
                    f"{self.name}: {check.quantity} = {value:.6g} {check.unit}, expected "
                    f"{check.describe_expected()} {check.unit} ({check.why})"
                )
        return lines

    def applies_to(self, solver: str) -> bool:
        """Whether our ``solver`` is held to this law."""
        return solver not in self.exempt


def steps_for(seconds: float, dt: float) -> int:
    """Whole steps of ``dt`` covering ``seconds``."""
    return int(round(seconds / dt))
