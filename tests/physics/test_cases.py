"""The case definitions themselves: each one is derived, justified and applies honestly."""

from __future__ import annotations

import math

import pytest

from demo.bench.engines import OUR_SOLVERS
from demo.bench.physics import AT_LEAST, AT_MOST, WITHIN, Check, case, cases


@pytest.mark.parametrize("c", cases(), ids=lambda c: c.name)
def test_every_case_states_its_law_derivation_and_tolerances(c) -> None:  # type: ignore[no-untyped-def]
    assert c.law and len(c.derivation.split()) >= 30, "the docstring derives the expected values"
    assert c.checks
    for key, check in c.checks.items():
        assert check.kind in (WITHIN, AT_MOST, AT_LEAST), key
        assert math.isfinite(check.expected) and check.tolerance >= 0.0, key
        assert check.why and check.quantity, key
    assert set(c.exempt) <= set(OUR_SOLVERS) and set(c.defects) <= set(OUR_SOLVERS)
    assert not set(c.exempt) & set(c.defects), "a solver is either exempt from a law or held to it"
    assert any(c.applies_to(s) for s in OUR_SOLVERS), "a law no solver of ours is held to"
    assert all(len(reason.split()) >= 8 for reason in (*c.exempt.values(), *c.defects.values()))


def test_case_names_are_unique_and_findable() -> None:
    names = [c.name for c in cases()]
    assert len(names) == len(set(names))
    assert case(names[3]) is cases()[3]
    with pytest.raises(KeyError, match="no physics case 'nope'"):
        case("nope")


def test_checks_pass_and_fail_where_they_should() -> None:
    within = Check("x", "m", 1.0, 0.1, "why")
    assert within.passes(1.05) and within.passes(0.95) and not within.passes(1.11)
    at_most = Check("x", "m", 0.0, 0.02, "why", AT_MOST)
    assert at_most.passes(-5.0) and at_most.passes(0.019) and not at_most.passes(0.021)
    at_least = Check("x", "m", 1.0, 0.0, "why", AT_LEAST)
    assert at_least.passes(1.0) and not at_least.passes(0.99)
    assert not within.passes(math.nan) and not at_most.passes(math.nan)
    assert within.describe_expected() == "1 +- 0.1" and at_most.describe_expected() == "<= 0.02"
