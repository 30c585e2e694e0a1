"""The program's data files (shaders, example scene files, fonts), found by name.

An installed wheel holds them inside this package (``demo/shaders``, ``demo/assets``); a source
checkout or an editable install keeps them in the repository's top-level ``shaders/`` and
``assets/`` folders beside ``demo/``. ``importlib.resources`` reads the installed ones wherever
the package lives (a folder or a zip); the checkout's are a fallback used only when the package
has none.

Example: ``resources.path("shaders/fill.vert").read_text()``, ``resources.scene_file("carousel.json")``.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path, PurePosixPath

#: The top-level data folders, named the same inside the package and in the repository.
FOLDERS = ("shaders", "assets")
#: Where the example scene files are, below FOLDERS' "assets".
SCENES = "assets/scenes"


def _parts(relative: str) -> tuple[str, ...]:
    parts = PurePosixPath(relative).parts
    if not parts or parts[0] not in FOLDERS or ".." in parts:
        raise ValueError(f"resource {relative!r}: expected a path inside one of {', '.join(FOLDERS)}")
    return parts


def path(relative: str) -> Traversable:
    """The data file or folder ``relative`` (``"shaders/fill.vert"``, ``"assets/scenes"``).

    The installed package's copy if it has one, else the source checkout's; if neither exists,
    the installed location, so that reading it fails naming where the file belongs.
    """
    parts = _parts(relative)
    installed = resources.files("demo")
    for part in parts:  # one at a time: some Traversables take a single name
        installed = installed.joinpath(part)
    if installed.is_file() or installed.is_dir():
        return installed
    checkout = Path(__file__).resolve().parent.parent.joinpath(*parts)
    if checkout.exists():
        return checkout
    return installed


def example_scenes() -> list[str]:
    """The file names of the example scene files that come with the program, sorted."""
    folder = path(SCENES)
    if not folder.is_dir():
        return []
    return sorted(entry.name for entry in folder.iterdir() if entry.name.lower().endswith(".json"))


def scene_file(name: str) -> Path | None:
    """The example scene file called ``name`` (a bare file name such as ``"carousel.json"``), or None.

    None also when the package is not in a folder (a zip): scene files are read from disk.
    """
    if name not in example_scenes():
        return None
    found = path(f"{SCENES}/{name}")
    return found if isinstance(found, Path) else None
