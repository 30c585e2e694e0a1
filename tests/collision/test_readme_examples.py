"""README's python examples run as they are, and print what their comments say: every line
``print(...)  # text`` must print exactly ``text``."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

import collision

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
PRINTED = re.compile(r"^print\(.*\)\s+# (.*)$")


def test_readme_has_an_example_of_each_face():
    assert len(BLOCKS) >= 3
    text = "\n".join(BLOCKS)
    for name in ("collision.intersect", "find_mtd", "sweep", "Shapes", "_many(", "World(", "raycast"):
        assert name in text


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_example_prints_what_it_says(block):
    expected = [m.group(1) for line in block.splitlines() if (m := PRINTED.match(line))]
    assert expected, "an example shows what it prints"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, str(README), "exec"), {"__name__": "__readme__"})
    assert out.getvalue().splitlines() == expected


def test_readme_error_example_is_the_engines_message():
    quoted = re.search(r"`(a\[2\] = \(1, 0\.2\): [^`]*)`", README.read_text())
    assert quoted is not None
    with pytest.raises(collision.GeometryError) as info:
        collision.intersect([[0, 0], [2, 0], [1, 0.2], [1, 2]], [[0, 0]])
    assert str(info.value) == quoted.group(1)
