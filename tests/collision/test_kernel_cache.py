"""Where numba keeps the compiled kernels: the user's NUMBA_CACHE_DIR, beside the sources, or the
user cache folder (a read-only install: run for real in tests/demo/test_packaging.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from collision import kernel_cache

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, os
import numpy as np
import collision
from collision import kernel_cache
collision.Polygon(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))  # compiles (or loads) a kernel
print(json.dumps({"env": os.environ.get("NUMBA_CACHE_DIR"), "folder": str(kernel_cache.folder())}))
"""


def _probe(**env: str) -> dict[str, Any]:
    clean = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_numba_cache_dir_the_user_set_is_kept_and_used(tmp_path: Path) -> None:
    report = _probe(NUMBA_CACHE_DIR=str(tmp_path))
    assert report["env"] == str(tmp_path)
    # folder() names the subfolder numba really wrote the kernel's index to.
    written = {p.parent for p in tmp_path.rglob("*.nbi")}
    assert written == {Path(report["folder"])}


def test_a_writable_install_keeps_its_kernels_beside_the_sources() -> None:
    if not os.access(kernel_cache.PACKAGE, os.W_OK):
        pytest.skip("this checkout is read-only (tests/demo/test_packaging.py covers that case)")
    report = _probe()
    assert report["env"] is None
    assert Path(report["folder"]) == kernel_cache.PACKAGE / "__pycache__"
    assert any((kernel_cache.PACKAGE / "__pycache__").glob("checks.*.nbi"))


def test_user_folder_follows_xdg_cache_home_then_home(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert kernel_cache.user_folder() == tmp_path / "xdg" / "polycolly" / "numba"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")  # the XDG spec: only absolute paths
    assert kernel_cache.user_folder() == tmp_path / "home" / ".cache" / "polycolly" / "numba"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert kernel_cache.user_folder() == tmp_path / "home" / ".cache" / "polycolly" / "numba"


HAMMER = """
import os
import sys
import time
import collision  # noqa: F401 - its kernel_cache locks numba's index additions
from numba.core import caching
if sys.argv[2] == "unlocked":
    caching.IndexDataCacheFile.save = caching.IndexDataCacheFile.save.unlocked
index = caching.IndexDataCacheFile(sys.argv[1], "kernel", "stamp")
open(f"{sys.argv[1]}/ready-{sys.argv[3]}", "w").close()
while not os.path.exists(f"{sys.argv[1]}/go"):  # all start together
    time.sleep(0.001)
for k in range(40):
    index.save((sys.argv[3], k), b"x" * 2000)
"""


def _hammer(folder: Path, mode: str, writers: int) -> int:
    """``writers`` processes each adding 40 entries to one index at once; the entries kept."""
    from numba.core import caching

    folder.mkdir()
    children = [
        subprocess.Popen([sys.executable, "-c", HAMMER, str(folder), mode, f"w{w}"], cwd=ROOT)
        for w in range(writers)
    ]
    deadline = time.monotonic() + 120.0
    while len(list(folder.glob("ready-*"))) < writers and time.monotonic() < deadline:
        time.sleep(0.01)
    (folder / "go").touch()
    assert all(child.wait(timeout=300) == 0 for child in children)
    index = caching.IndexDataCacheFile(str(folder), "kernel", "stamp")
    overloads = index._load_index()
    # Every entry names its own file: no two entries share one.
    assert len(set(overloads.values())) == len(overloads)
    return len(overloads)


def test_processes_adding_to_one_index_at_once_keep_every_entry(tmp_path: Path) -> None:
    assert _hammer(tmp_path / "locked", "locked", 4) == 4 * 40


def test_without_the_lock_entries_are_lost(tmp_path: Path) -> None:
    """The race the lock is for, shown on numba's own save (else the test above proves nothing)."""
    assert _hammer(tmp_path / "unlocked", "unlocked", 4) < 4 * 40


STALE = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from numba.core import caching
from collision import kernel_cache
if sys.argv[2] == "sources":
    kernel_cache.stamp_with_sources(Path(sys.argv[1], "pkg"))
else:  # numba's own stamp: the kernel's own file only
    mixin = caching._SourceFileBackedLocatorMixin
    mixin.get_source_stamp = mixin.get_source_stamp.own_file_only
from pkg.caller import twice
print(twice())
"""


def _twice_after_an_edit_of_the_callee(tmp_path: Path, mode: str) -> tuple[int, int]:
    """A cached kernel calling one of another file, run, the other file edited, run again."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "caller.py").write_text(
        "from numba import njit\nfrom pkg.callee import value\n\n\n"
        "@njit(cache=True)\ndef twice():\n    return 2 * value()\n"
    )
    callee = "from numba import njit\n\n\n@njit(cache=True)\ndef value():\n    return {}\n"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    runs = []
    for value in (1, 5):
        (package / "callee.py").write_text(callee.format(value))
        result = subprocess.run(
            [sys.executable, "-B", "-c", STALE, str(tmp_path), mode],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        runs.append(int(result.stdout.split()[-1]))
    return runs[0], runs[1]


def test_a_kernel_is_compiled_again_when_a_kernel_it_calls_changed(tmp_path: Path) -> None:
    assert _twice_after_an_edit_of_the_callee(tmp_path, "sources") == (2, 10)


def test_with_numba_s_own_stamp_the_caller_runs_its_old_code(tmp_path: Path) -> None:
    """What the stamp is for, shown on numba's own (else the test above proves nothing)."""
    assert _twice_after_an_edit_of_the_callee(tmp_path, "own") == (2, 2)


DAMAGED = """
import sys, warnings
import numpy as np
import collision  # noqa: F401 - the engine's cache settings
from numba import njit

@njit(cache=True)
def doubled(a):
    return 2.0 * a.sum()

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    answer = doubled(np.arange(4.0))
print(answer, doubled.stats.cache_hits.get(doubled.signatures[0], 0) > 0 if doubled.signatures else None)
for warning in caught:
    print("warning:", warning.category.__name__, warning.message)
"""


@pytest.mark.skipif(
    os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"), reason="no cache without the JIT"
)
@pytest.mark.parametrize("damaged", ["nbc", "nbi"])
def test_a_damaged_cache_file_is_compiled_again_with_a_warning_naming_it(
    tmp_path: Path, damaged: str
) -> None:
    """A kernel's cache entry (nbc) or index (nbi) cut short: the next process gets the right
    answer, a RuntimeWarning naming the file, and a new file; the one after loads it quietly."""
    (tmp_path / "damaged_module.py").write_text(DAMAGED)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": f"{ROOT}:{tmp_path}"}

    def run() -> list[str]:
        out = subprocess.run(
            [sys.executable, "-c", "import damaged_module"],
            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300, check=False,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        return out.stdout.strip().splitlines()

    assert run() == ["12.0 False"]  # compiled, cached
    (path,) = (tmp_path / "cache").rglob(f"damaged_module.doubled-*.{damaged}")
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    again = run()
    assert again[0] == "12.0 False"  # compiled again
    assert len(again) >= 2 and all(line.startswith("warning: RuntimeWarning") for line in again[1:])
    assert path.name in again[1] and "cannot be read" in again[1]
    assert run() == ["12.0 True"]  # the new file loads, quietly


FULL_DISK = """
import errno, warnings
import numpy as np
import collision  # noqa: F401 - the engine's cache settings
from numba import njit
from numba.core.caching import IndexDataCacheFile

def full(self, path):
    raise OSError(errno.ENOSPC, "No space left on device", str(path))

IndexDataCacheFile._open_for_write = full

@njit(cache=True)
def doubled(a):
    return 2.0 * a.sum()

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(doubled(np.arange(4.0)))
for warning in caught:
    print("warning:", warning.category.__name__, warning.message)
"""


@pytest.mark.skipif(
    os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"), reason="no cache without the JIT"
)
def test_a_cache_that_cannot_be_written_is_a_warning_and_the_kernel_runs(tmp_path: Path) -> None:
    """numba's files cannot be written (a full disk): the kernel's answer, a RuntimeWarning that
    names the cache's index and says why, no error."""
    (tmp_path / "full_module.py").write_text(FULL_DISK)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": f"{ROOT}:{tmp_path}"}
    out = subprocess.run(
        [sys.executable, "-c", "import full_module"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0] == "12.0"
    assert len(lines) == 2 and lines[1].startswith("warning: RuntimeWarning")
    assert "full_module.doubled" in lines[1] and "No space left on device" in lines[1]
