"""Every docstring example in the engine runs and prints what it says."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import collision

MODULES = ["collision"] + sorted(
    m.name for m in pkgutil.walk_packages(collision.__path__, "collision.") if not m.name.endswith("__main__")
)

#: The public faces: each shows how it is called.
WITH_EXAMPLES = {
    "collision.batch",
    "collision.pair",
    "collision.world",
    "collision.raycast",
    "collision.shapes",
}


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    if name in WITH_EXAMPLES:
        assert result.attempted > 0


def test_the_public_faces_are_all_covered():
    assert WITH_EXAMPLES <= set(MODULES)
