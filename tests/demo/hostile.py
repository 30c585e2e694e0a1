"""Hostile command lines and files for the program's fuzz (tests/demo/test_fuzz_*.py); no tests.

- JSON trees are mutated from valid ones (the example scene files, a real recording): a node
  replaced by a hostile value (numbers beyond every range written as text, denormals, NaN and
  infinities, 10**400, huge and unicode strings, deep nesting, long lists, wrong types), removed,
  or given an unknown field. :func:`dump` writes a tree whose leaves may be :class:`Raw` JSON
  text that Python's encoder could not produce (10**5000, a million brackets).
- Argument lists mix the program's options, misspelt ones and hostile values.
Each generated case carries a class name, which the tests count.
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "assets" / "scenes").glob("*.json"))


@dataclass(frozen=True)
class Raw:
    """JSON text written as it is."""

    text: str


def dump(value: Any) -> str:
    """``value`` as JSON text; Raw leaves as they are, NaN and infinities as JSON5-style words
    (which Python's reader accepts and ours must refuse by field)."""
    if isinstance(value, Raw):
        return value.text
    try:
        return json.dumps(value)  # fast when no Raw leaf is inside
    except TypeError:
        pass
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {dump(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(dump(v) for v in value) + "]"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, bool) or value is None or isinstance(value, str | float):
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    raise TypeError(type(value))


#: Longest text a repeated list makes (characters): the read limits (4 MB for a scene file) are
#: tested end to end; here a longer text would only cost the generator time.
MAX_TEXT_CHARS = 500_000


def nested(depth: int, inner: str = "0", brackets: str = "[]") -> Raw:
    return Raw(brackets[0] * depth + inner + brackets[1] * depth)


#: Numbers as the file writes them: beyond float range, beyond int() digits, denormal, negative
#: zero, exact limits and just past them, NaN and infinities.
NUMBER_TEXTS = [
    "NaN",
    "Infinity",
    "-Infinity",
    "1e400",
    "-1e400",
    "1e309",
    "1" + "0" * 400,
    "-" + "9" * 400,
    "1" + "0" * 5000,
    "5e-324",
    "-5e-324",
    "2.2250738585072014e-308",
    "1e-300",
    "1e-5",
    "1e300",
    "-1e300",
    "1e15",
    "1e12",
    "1000001",
    "1e6",
    "-1e6",
    "9223372036854775808",
    "-9223372036854775809",
    "123456789012345678901234567890",
    "-0",
    "-0.0",
    "0",
    "1",
    "-1",
    "0.5",
    "3",
    "16",
    "17",
    "2001",
    "0.1",
    "0.25",
    "0.2500001",
    "1e-6",
    "1e-7",
]
#: Strings: empty, huge, control characters, lone surrogates, other scripts, numbers as text.
STRING_VALUES: list[Any] = [
    "",
    "x" * 100_000,
    "ünïcødé ☃ 𝔘 日本",
    "\u0000",
    Raw('"\\ud800"'),
    "\n\r\t\x1b[31m",
    "NaN",
    "1",
    "box",
    "iterative",
    "input",
    "cursor",
    "scroll",
    "../../../../etc/passwd.json",
    "/dev/zero.json",
    "a" * 5000 + ".json",
]
OTHER_VALUES: list[Any] = [
    None,
    True,
    False,
    [],
    {},
    [[]],
    {"": None},
    Raw("[" + ", ".join(["0"] * 100_000) + "]"),
    Raw("[" + ", ".join(["[0, 0]"] * 3000) + "]"),
    nested(63),
    nested(65),
    nested(1000),
    nested(100_000),
    nested(50_000, "{}", "[]"),
    Raw('{"a":' * 2000 + "0" + "}" * 2000),
]


def _paths(tree: Any, limit: int = 4000) -> list[tuple[Any, ...]]:
    """Every node's path (keys and indices) in ``tree``, the root first, at most ``limit``."""
    out: list[tuple[Any, ...]] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), tree)]
    while stack and len(out) < limit:
        path, node = stack.pop()
        out.append(path)
        if isinstance(node, dict):
            stack.extend((path + (k,), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((path + (k,), v) for k, v in enumerate(node))
    return out


def _get(tree: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        tree = tree[key]
    return tree


json_leaves = st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats() | st.text(max_size=20)
random_json = st.recursive(
    json_leaves,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=20,
)


@st.composite
def hostile_value(draw: st.DrawFn) -> tuple[str, Any]:
    """(class, value) of one hostile JSON value."""
    kind = draw(st.sampled_from(["number", "number", "string", "structure", "random"]))
    if kind == "number":
        return kind, Raw(draw(st.sampled_from(NUMBER_TEXTS)))
    if kind == "string":
        return kind, draw(st.sampled_from(STRING_VALUES) | st.text(max_size=30))
    if kind == "structure":  # a copy: a later mutation may change it in place
        return kind, copy.deepcopy(draw(st.sampled_from(OTHER_VALUES)))
    return kind, draw(random_json)


@dataclass(frozen=True)
class Case:
    """A generated file: its class (the mutations made, the first one first) and its text, shown
    short when a test reports it (a case may be megabytes long)."""

    cls: str
    text: str

    def __repr__(self) -> str:
        shown = self.text if len(self.text) <= 400 else f"{self.text[:400]}... ({len(self.text)} characters)"
        return f"Case({self.cls!r}, {shown!r})"


@st.composite
def mutated(draw: st.DrawFn, base: Any) -> Case:
    """``base`` with one to three hostile mutations."""
    tree = copy.deepcopy(base)
    classes = []
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(tree)
        path = draw(st.sampled_from(paths))
        op = draw(st.sampled_from(["replace", "replace", "replace", "remove", "extra", "repeat", "retype"]))
        parent = _get(tree, path[:-1]) if path else None
        node = _get(tree, path)
        if op == "remove" and path:
            del parent[path[-1]]
        elif op == "extra" and isinstance(node, dict):
            key = draw(
                st.sampled_from(["colour", "", "x" * 1000, "ünï", "type", "bodies"]) | st.text(max_size=5)
            )
            node[key] = draw(hostile_value())[1]
        elif op == "repeat" and isinstance(node, list) and node:
            times = draw(st.sampled_from([0, 2, 17, 300, 2001]))
            times = min(times, MAX_TEXT_CHARS // max(len(dump(node)), 1))
            node[:] = (node * (times // len(node) + 1))[:times]
        elif op == "retype":
            swapped = dump(node) if not isinstance(node, str) else [node]
            if path:
                parent[path[-1]] = swapped
            else:
                tree = swapped
        else:
            op = "replace"
            cls, value = draw(hostile_value())
            op = f"replace-{cls}"
            if path:
                parent[path[-1]] = value
            else:
                tree = value
        classes.append(op)
    return Case("+".join(dict.fromkeys(classes)), dump(tree))


# -- command lines ------------------------------------------------------------------------------

#: Values for each option: good ones (small, so a run that is accepted ends quickly), and
#: hostile ones. ``{tmp}`` is replaced with the case's folder.
OPTION_VALUES: dict[str, list[str]] = {
    "--scene": ["rigid", "pile", "carousel", "carousel.json", "nope", "", "x" * 100_000, "{tmp}/deep.json"],
    "--seed": ["0", "3", "-1", "1" + "0" * 400, "9" * 5000, "1e3", "0x10", "1_0", "٣", " 3", "+4", ""],
    "--bodies": ["20", "5", "0", "-3", "10001", "1" + "0" * 400, "nan", "2.5", "1e3"],
    "--size": [
        "64x48",
        "16x16",
        "8193x100",
        "0x0",
        "axb",
        "x",
        "1x1x1",
        "1" + "0" * 400 + "x10",
        "٣x٣",
        "64X48",
    ],
    "--solver": ["tutorial", "iterative", "arcade", "fast", "", "x" * 100_000],
    "--frames": ["2", "1", "0", "-1", "1e3", "1000001", "1" + "0" * 5000, "two"],
    "--steps": ["2", "0", "-5", "1000000000000", "1" + "0" * 400, "1.5"],
    "--screenshot": [
        "{tmp}/shot.png",
        "{tmp}/existing.png",
        "{tmp}/shot.txt",
        "{tmp}/noext",
        "{tmp}",
        "{tmp}/blocker/x.png",
    ],
    "--record": ["{tmp}/run.json", "{tmp}/existing.json", "{tmp}", "{tmp}/blocker/x.json", "{tmp}/fifo"],
    "--replay": ["{tmp}/deep.json", "{tmp}/fifo", "{tmp}/zero", "{tmp}/missing.json", "{tmp}"],
}
FLAGS = ["--headless", "--stats", "--profile", "--list-scenes", "--controls-markdown", "--help"]
STRAY = [
    "--sceen",
    "-s",
    "--",
    "-",
    "--scene=rigid",
    "--size=64x48",
    "--bodies=",
    "bench",
    "=",
    "--frames=-1",
]


@st.composite
def argument_list(draw: st.DrawFn, long_runs: bool = True) -> list[str]:
    """A hostile ``python -m demo`` argument list (``long_runs`` False: never --controls-markdown
    or --help, whose output is long, so that end-to-end runs stay short)."""
    flags = FLAGS if long_runs else ["--headless", "--stats", "--profile", "--list-scenes"]
    argv: list[str] = []
    for _ in range(draw(st.integers(0, 5))):
        what = draw(st.sampled_from(["option", "option", "option", "flag", "stray", "text"]))
        if what == "option":
            option = draw(st.sampled_from(sorted(OPTION_VALUES)))
            argv.append(option)
            if draw(st.integers(0, 9)):  # sometimes the value is missing
                argv.append(draw(st.sampled_from(OPTION_VALUES[option])))
        elif what == "flag":
            argv.append(draw(st.sampled_from(flags)))
        elif what == "stray":
            argv.append(draw(st.sampled_from(STRAY)))
        else:
            argv.append(
                draw(
                    st.text(
                        st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12
                    )
                )
            )
    return argv
