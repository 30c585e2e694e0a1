"""Where numba keeps the engine's compiled kernels.

The kernels are compiled with ``cache=True``: numba writes them to ``__pycache__`` beside the
sources and loads them on later runs (about a second, against most of a minute to compile).
An install the user cannot write (system-wide, a read-only image) would compile on every run,
so importing this module (``collision`` does so before any kernel exists) points
``NUMBA_CACHE_DIR`` at the user's cache folder, ``$XDG_CACHE_HOME/polycolly/numba``
(``~/.cache/polycolly/numba`` by default), unless the user has set it. Like any
``NUMBA_CACHE_DIR`` it holds for the whole process, other packages' numba caches included.
Without a usable home either, a private temporary folder, removed at exit, keeps the program
running (compiling on every run).

Processes may share the cache and compile at the same time (the program's warm-up does, see
``World.precompile``): importing this module also makes numba's additions to a kernel's cache
index take turns (:func:`lock_index_writes`).

A damaged cache file (cut short, overwritten) is a miss with a warning naming it, not an error
from inside numba at the call: the kernel compiles again (:func:`unreadable_entries_missed`);
a cache that cannot be written (a full disk) is a warning, and the kernel runs uncached.

numba stamps a kernel's cache with its own source file, but a kernel holds the compiled code of
every kernel it calls, from other files: after an edit, an update or a checkout that changed
only a callee's file, the caller would load its old code. Importing this module stamps every
engine kernel with all the engine's sources as well (:func:`stamp_with_sources`).
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import shutil
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

#: The engine's source folder, spelled as numba sees it (absolute, symbolic links kept).
PACKAGE = Path(os.path.abspath(os.path.dirname(__file__)))


def user_folder() -> Path:
    """``$XDG_CACHE_HOME/polycolly/numba``, or ``~/.cache/polycolly/numba`` (XDG: relative values ignored)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base, "polycolly", "numba")


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK | os.X_OK)


def choose() -> None:
    """Set ``NUMBA_CACHE_DIR`` when this package's cache folder cannot be written (see the module)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    in_tree = PACKAGE / "__pycache__"
    if os.access(in_tree if in_tree.is_dir() else PACKAGE, os.W_OK | os.X_OK):
        return
    folder = user_folder()
    if not _writable(folder):
        folder = Path(tempfile.mkdtemp(prefix="polycolly-numba-"))
        atexit.register(shutil.rmtree, folder, True)
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    if "numba" in sys.modules:  # imported before us: numba re-reads its settings on request
        from numba.core import config  # noqa: PLC0415

        config.reload_config()


def folder(source_folder: Path = PACKAGE) -> Path:
    """The folder numba keeps the kernels of the modules in ``source_folder`` in.

    ``__pycache__`` beside them, or with ``NUMBA_CACHE_DIR`` set, numba's subfolder for them:
    the folder's name and the SHA-1 of its absolute path.
    """
    root = os.environ.get("NUMBA_CACHE_DIR")
    if not root:
        return source_folder / "__pycache__"
    spelled = os.path.abspath(source_folder)
    digest = hashlib.sha1(spelled.encode()).hexdigest()
    return Path(root, f"{os.path.basename(spelled)}_{digest}")


def lock_index_writes() -> None:
    """Make numba's additions to a kernel's cache index take turns between processes.

    numba adds a specialisation by reading the kernel's index, adding an entry and writing the
    index back, then the entry's file: two processes adding different specialisations of one
    kernel at once can lose one of them, or pair its entry with the other's file (a kernel
    loaded later for the wrong argument types). Each addition here holds an exclusive lock
    (``fcntl.flock``) on a file beside the index. Where that cannot be done (no ``fcntl``, a
    numba without this index), numba's own way stands. A save that fails (a full disk, a folder
    made read-only since) is a RuntimeWarning naming the index, not an error at the call: the
    kernel has compiled and runs; the next process compiles it again."""
    try:
        import fcntl  # noqa: PLC0415 - POSIX only

        from numba.core.caching import IndexDataCacheFile  # noqa: PLC0415
    except ImportError:
        return
    save = IndexDataCacheFile.save
    if getattr(save, "polycolly_locked", False):
        return

    def locked_save(self: Any, key: Any, data: Any) -> None:
        index = getattr(self, "_index_path", None)
        try:
            lock = open(f"{index}.lock", "ab") if index else None  # noqa: SIM115 - held across the save
        except OSError:
            lock = None
        try:
            if lock is None:
                save(self, key, data)
                return
            with lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
                save(self, key, data)
        except OSError as error:
            # numba writes each file whole or not at all (a new file renamed over the old).
            warnings.warn(
                f"numba's cache {index} could not be written ({error}); the kernel runs, and "
                "compiles again in the next process",
                RuntimeWarning,
                stacklevel=4,
            )

    locked_save.polycolly_locked = True  # type: ignore[attr-defined]
    locked_save.unlocked = save  # type: ignore[attr-defined]
    IndexDataCacheFile.save = locked_save  # type: ignore[method-assign]


def unreadable_entries_missed() -> None:
    """A cache index or entry numba cannot read back (a damaged file: cut short, overwritten,
    written by something else) is a miss, with a RuntimeWarning naming the file, instead of an
    error from deep inside numba at the call: the kernel is compiled again and its entry written
    anew. Where numba has no such reader, its own way stands."""
    try:
        from numba.core.caching import IndexDataCacheFile  # noqa: PLC0415
    except ImportError:
        return
    load_index, load_data = IndexDataCacheFile._load_index, IndexDataCacheFile._load_data
    if getattr(load_index, "polycolly_missed", False):
        return

    def _unreadable(path: Any, error: Exception) -> None:
        warnings.warn(
            f"numba's cache file {path} cannot be read ({type(error).__name__}: {error}); "
            "compiling its kernel again",
            RuntimeWarning,
            stacklevel=4,
        )

    def read_index(self: Any) -> Any:
        try:
            return load_index(self)
        except OSError:
            raise
        except Exception as error:  # noqa: BLE001 - any unpickling failure: the file is damaged
            _unreadable(self._index_path, error)
            return {}

    def read_data(self: Any, name: str) -> Any:
        try:
            return load_data(self, name)
        except OSError:
            raise
        except Exception as error:  # noqa: BLE001 - as above
            _unreadable(self._data_path(name), error)
            # numba's load() takes an OSError for a file that is gone: a miss.
            raise OSError(f"unreadable cache entry {name}") from error

    read_index.polycolly_missed = True  # type: ignore[attr-defined]
    IndexDataCacheFile._load_index = read_index  # type: ignore[method-assign]
    IndexDataCacheFile._load_data = read_data  # type: ignore[method-assign]


def sources_digest(root: Path) -> bytes:
    """sha256 of every ``.py`` file under ``root``: its path relative to ``root`` and its bytes."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.digest()


#: Source folders whose kernels' caches carry their whole folder's digest (see the module).
_STAMPED: dict[str, Any] = {}


def stamp_with_sources(root: Path = PACKAGE) -> None:
    """Stamp the cache of every kernel defined under ``root`` with :func:`sources_digest` of
    ``root`` as well as numba's stamp of its own file, so that a change to any source under
    ``root`` compiles them again. The digest is taken once per process (the sources a process
    has imported do not change under it). Where numba has no such stamp, its own way stands."""
    try:
        from numba.core.caching import _SourceFileBackedLocatorMixin  # noqa: PLC0415
    except ImportError:
        return
    _STAMPED[os.path.join(str(root), "")] = functools.cache(functools.partial(sources_digest, root))
    stamp = _SourceFileBackedLocatorMixin.get_source_stamp
    if getattr(stamp, "polycolly_sources", False):
        return

    def get_source_stamp(self: Any) -> Any:
        own = stamp(self)
        for prefix, digest in _STAMPED.items():
            if str(getattr(self, "_py_file", "")).startswith(prefix):
                return own, digest()
        return own

    get_source_stamp.polycolly_sources = True  # type: ignore[attr-defined]
    get_source_stamp.own_file_only = stamp  # type: ignore[attr-defined]
    _SourceFileBackedLocatorMixin.get_source_stamp = get_source_stamp  # type: ignore[method-assign]


choose()
lock_index_writes()
unreadable_entries_missed()
stamp_with_sources()
