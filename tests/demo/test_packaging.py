"""The wheel: built from the repository, installed into a clean venv, read-only, the program draws.

The wheel is built as a user's ``pip install .`` builds it, from a copy of the sources without
caches, and installed with its dependencies into a fresh venv whose packages are then made
read-only (``chmod -R a-w``; the program runs as an unprivileged user when the tests run as
root, whom file modes do not stop). It runs from an empty folder: the first run compiles the
engine into the user's cache folder, the second loads it. About a minute, most of it numba
compiling the engine once.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from tests.demo.conftest import _missing

ROOT = Path(__file__).resolve().parents[2]
#: What a clone holds at the top level; tests/ too, to show that it stays out of the wheel.
SOURCES = ("pyproject.toml", "README.md", "collision", "demo", "shaders", "assets", "tests")
CACHES = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc", "*.egg-info", "build", "dist")
#: Data files the wheel must hold inside the demo package; the gallery pictures stay out.
DATA = ("shaders/*.vert", "shaders/*.frag", "assets/scenes/*.json", "assets/fonts/*")
BACKGROUND = round(0.2 * 255)
DEMO = ("-m", "demo", "--headless", "--frames", "3", "--screenshot", "out.png", "--profile")


def _run(command: list[Any], timeout: float = 600, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    command = [str(part) for part in command]
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False, **kwargs)
    assert result.returncode == 0, f"{' '.join(command)}: status {result.returncode}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    clone = tmp_path_factory.mktemp("clone")
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, clone / name, ignore=CACHES)
        else:
            shutil.copy2(source, clone / name)
    dist = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", dist, clone])
    (built,) = dist.glob("polycolly-*.whl")
    return built


def test_wheel_holds_the_packages_and_their_data_and_nothing_else(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    tops = {name.split("/")[0] for name in names if ".dist-info/" not in name}
    assert tops == {"collision", "demo"}
    for source in sorted([*ROOT.glob("collision/**/*.py"), *ROOT.glob("demo/**/*.py")]):
        name = source.relative_to(ROOT).as_posix()
        assert name in names, f"{name} is not in the wheel: list its package in pyproject.toml"
    data = [path.relative_to(ROOT).as_posix() for pattern in DATA for path in ROOT.glob(pattern)]
    assert any(name.startswith("shaders/") for name in data) and any(".json" in name for name in data)
    for name in data:
        assert f"demo/{name}" in names, f"{name} is not in the wheel as demo/{name}"
    assert not [name for name in names if name.endswith(".png")], "README pictures belong to the repository"


def _unprivileged() -> dict[str, Any]:
    """subprocess arguments that run a command as someone ``chmod a-w`` stops (root writes anyway)."""
    if os.geteuid() != 0:
        return {}
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        _missing("the tests run as root and there is no user 'nobody' to run a read-only install as")
    return {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}


def _python_for(runner: dict[str, Any]) -> str:
    """A Python 3.11+ with venv that the runner can start (root's own may be in a private folder)."""
    candidates = [
        getattr(sys, "_base_executable", ""),
        sys.executable,
        shutil.which("python3"),
        "/usr/bin/python3",
    ]
    check = "import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))"
    for candidate in dict.fromkeys(c for c in candidates if c):
        try:
            probe = subprocess.run([candidate, "-c", check], capture_output=True, timeout=60, **runner)
        except OSError:  # the runner may not even reach it
            continue
        if probe.returncode == 0:
            return candidate
    _missing(f"no Python 3.11+ with venv that {runner.get('user', 'this user')} can run: tried {candidates}")
    raise AssertionError  # _missing skips or fails


def _set_writable(folder: Path, writable: bool) -> None:
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink():
            mode = path.stat().st_mode
            path.chmod(mode | 0o200 if writable else mode & ~0o222)


@pytest.fixture(scope="module")
def installed(wheel: Path) -> Iterator[SimpleNamespace]:
    """The wheel installed in a fresh venv, its packages read-only; an empty home and working folder."""
    runner = _unprivileged()
    base = Path(tempfile.mkdtemp(prefix="polycolly-wheel-"))
    base.chmod(0o755)  # the runner must reach the venv
    try:
        venv = base / "venv"
        _run([_python_for(runner), "-m", "venv", venv])
        python = venv / "bin" / "python"
        _run([python, "-m", "pip", "install", "-q", wheel])
        site = Path(
            _run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).stdout.strip()
        )
        for package in ("collision", "demo"):
            _set_writable(site / package, False)
        home, work = base / "home", base / "work"
        for folder in (home, work):
            folder.mkdir()
            if runner:
                os.chown(folder, runner["user"], runner["group"])
        drop = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "XDG_CACHE_HOME")
        env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("NUMBA_")}
        env.update(HOME=str(home), NUMBA_DEBUG_CACHE="1")
        yield SimpleNamespace(python=python, site=site, home=home, work=work, env=env, runner=runner)
    finally:
        _set_writable(base, True)
        shutil.rmtree(base, ignore_errors=True)


def _as_runner(installed: SimpleNamespace, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return _run(
        [installed.python, *args], cwd=installed.work, env={**installed.env, **env}, **installed.runner
    )


def _assert_drawn(png: Path) -> None:
    from PIL import Image

    pixels = np.asarray(Image.open(png).convert("RGB")).astype(int)
    assert pixels.shape == (720, 960, 3)
    drawn = np.any(np.abs(pixels - BACKGROUND) > 8, axis=2)
    assert 0.1 < drawn.mean() < 0.9, f"{drawn.mean():.3f} of the picture drawn"
    r, g, b = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    assert ((b > r + 30) & (b > g + 30)).sum() > 1000, "no static bodies (blue fills: the walls)"
    assert ((g > r + 30) & (g > b + 30)).sum() > 1000, "no moving bodies (green fills)"


def _cache_log(result: subprocess.CompletedProcess[str], verb: str) -> list[Path]:
    return [Path(p) for p in re.findall(rf"\[cache\] data {verb} (?:to|from) '([^']+)'", result.stdout)]


def test_installed_read_only_program_draws_from_an_empty_folder(gl: Any, installed: SimpleNamespace) -> None:
    site = installed.site
    assert not {"shaders", "assets", "tests"} & {path.name for path in site.iterdir()}

    where = (
        "import json, collision, demo\nfrom collision import kernel_cache\nfrom demo import resources\n"
        "print(json.dumps([collision.__file__, demo.__file__, str(resources.path('shaders')), "
        "str(kernel_cache.folder())]))"
    )
    found = json.loads(_as_runner(installed, "-c", where).stdout.strip().splitlines()[-1])
    cache = Path(found[3])
    assert [Path(p) for p in found[:3]] == [
        site / "collision" / "__init__.py",
        site / "demo" / "__init__.py",
        site / "demo" / "shaders",
    ]
    assert cache.parent == installed.home / ".cache" / "polycolly" / "numba"

    first = _as_runner(installed, *DEMO)
    assert "compiling the collision engine" in first.stderr
    _assert_drawn(installed.work / "out.png")
    saved = _cache_log(first, "saved")
    # numba's folder for each of the engine's packages (collision, its solvers, ...), side by side.
    assert saved and cache in {path.parent for path in saved}
    assert {path.parent.parent for path in saved} == {cache.parent}
    assert not list(site.rglob("*.nb[ic]"))

    (installed.work / "out.png").unlink()
    second = _as_runner(installed, *DEMO)
    assert "compiling" not in second.stderr
    assert not _cache_log(second, "saved")
    loaded = set(_cache_log(second, "loaded"))
    assert loaded and loaded <= set(saved)  # the entry kernels: callees are compiled into them
    _assert_drawn(installed.work / "out.png")
    startup = [json.loads(run.stdout.strip().splitlines()[-1])["startup_s"] for run in (first, second)]
    print(f"read-only wheel install: startup {startup[0]} s compiling, {startup[1]} s from the cache")


def test_read_only_install_without_a_home_caches_in_a_private_temporary_folder(
    installed: SimpleNamespace,
) -> None:
    probe = "import os, collision; print(os.environ['NUMBA_CACHE_DIR'])"
    folder = Path(_as_runner(installed, "-c", probe, HOME="/nonexistent").stdout.strip())
    assert folder.parent == Path(tempfile.gettempdir()) and folder.name.startswith("polycolly-numba-")
    assert not folder.exists()  # removed at exit
