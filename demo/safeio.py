"""The program's files, read and written safely: bounded reads, checked JSON, atomic writes.

Imports neither the engine nor OpenGL (the command line checks files before anything slow).

- :func:`read_regular` reads at most a given number of bytes, and only from a regular file: a
  FIFO would block for ever, a device (a symlink to /dev/zero) would never end, and neither has
  a size that ``stat`` reports, so the limit is on what is read, not on what ``stat`` says.
- :func:`parse_json` parses JSON text with limits on nesting depth and on integer digits,
  checked before the parser recurses or converts: deep nesting would raise RecursionError
  from inside the decoder, and a 5000-digit integer Python's "Exceeds the limit" ValueError.
  Integers too long to be a number of ours come back as :class:`HugeNumber` (which every
  number check refuses, showing the digits), so the field that holds one can be named.
- :func:`write_atomic` writes a temporary file beside the target and renames it over the
  target: a write that fails partway (a full disk) leaves the old file as it was.
  :func:`write_new` does the same for a name that must not exist yet (F2's screenshots).
- :func:`shorten` and :func:`one_line` keep what a message quotes from the user short.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO

#: Longest one-line message (characters) the program prints about a file or an option: the
#: longest it writes itself (an unknown scene's, which lists every scene) is about 320.
MAX_MESSAGE_CHARS = 400
#: Longest quotation of a user's value (a name, a number's text) inside a message (characters).
MAX_QUOTE_CHARS = 60
#: Deepest nesting of JSON arrays and objects accepted: our files nest at most 5 deep
#: (bodies[k].shapes[i][j]); 64 leaves room and stays far below Python's recursion limit.
MAX_JSON_DEPTH = 64
#: Most digits of a JSON integer converted to an int: every integer field of ours (sides,
#: seeds, sizes, counts) has far fewer, and int() of thousands of digits is refused by Python.
MAX_INTEGER_DIGITS = 30
#: Bytes read at a time.
_CHUNK = 1 << 20


class FileProblem(ValueError):
    """A file that cannot be read or written as asked; the message says why in a few words
    (the caller adds which file and for what)."""


class HugeNumber:
    """A JSON number we do not convert: an integer of more than MAX_INTEGER_DIGITS digits, or a
    number beyond float range ("1e400"). Kept as text so that the field holding it can be
    refused by name, showing what the file says (it is not an ``int`` or a ``float``)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        if len(self.text) <= 24:
            return self.text
        digits = self.text.lstrip("-")
        size = f"{len(digits)} digits" if digits.isdigit() else f"{len(self.text)} characters"
        return f"{self.text[:12]}...({size})"


def shorten(value: Any, limit: int = MAX_QUOTE_CHARS) -> str:
    """``value`` as a short one-line quotation: JSON for data (a HugeNumber as its first digits),
    control characters escaped, cut to ``limit`` characters with "..." and the full length."""
    if isinstance(value, str):
        text = repr(value[: limit + 1])
    elif isinstance(value, HugeNumber):
        text = repr(value)
    else:
        text = _json_preview(value, limit + 1)
    if len(text) <= limit:
        return text
    return text[: max(limit - 3, 1)] + "..."


def field_name(key: Any) -> str:
    """A JSON object's key as part of a field path: as it is when it looks like a name, else quoted
    and cut short."""
    if isinstance(key, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,39}", key):
        return key
    return shorten(key, 40)


def short_path(path: str | os.PathLike[str], limit: int = 120) -> str:
    """A file name for a message: as given, control characters escaped, and a long one cut in the
    middle (its folder's start and its own name stay readable)."""
    text = _CONTROLS.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), os.fspath(path))
    if len(text) <= limit:
        return text
    half = (limit - 3) // 2
    return f"{text[:half]}...{text[-(limit - 3 - half) :]}"


def _json_preview(value: Any, limit: int) -> str:
    """The start of ``value`` written as JSON, without walking more of it than ``limit`` needs
    (a value may be a million elements long or nested deep)."""
    out: list[str] = []
    size = 0

    def emit(text: str) -> bool:
        nonlocal size
        out.append(text)
        size += len(text)
        return size <= limit

    def walk(item: Any, depth: int) -> bool:
        if depth > MAX_JSON_DEPTH:
            return emit("...")
        if isinstance(item, HugeNumber):
            return emit(repr(item))
        if isinstance(item, list):
            if not emit("["):
                return False
            for k, element in enumerate(item):
                if (k and not emit(", ")) or not walk(element, depth + 1):
                    return False
            return emit("]")
        if isinstance(item, dict):
            if not emit("{"):
                return False
            for k, (key, element) in enumerate(item.items()):
                if (k and not emit(", ")) or not emit(json.dumps(str(key)[:limit]) + ": "):
                    return False
                if not walk(element, depth + 1):
                    return False
            return emit("}")
        if isinstance(item, str):
            return emit(json.dumps(item[:limit]))
        try:
            return emit(json.dumps(item))
        except (TypeError, ValueError):
            return emit(type(item).__name__)

    walk(value, 0)
    return "".join(out)[: limit + 1]


#: Control characters and every character str.splitlines breaks a line at.
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def one_line(message: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``message`` on one line (control characters as spaces), cut to ``limit`` characters."""
    # Lone surrogates (from a JSON escape or an undecodable file name) cannot be printed.
    flat = _CONTROLS.sub(" ", message).encode("utf-8", "backslashreplace").decode("utf-8")
    if len(flat) <= limit:
        return flat
    return flat[: limit - 3] + "..."


def os_reason(exc: OSError) -> str:
    """An OSError in a few words ("No such file or directory"), without the path it quotes."""
    return exc.strerror or type(exc).__name__


# -- reading ------------------------------------------------------------------------------------


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_regular(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """The bytes of the regular file ``path`` (symlinks followed), at most ``max_bytes``.

    FileProblem (a ValueError) saying why otherwise: missing, unreadable, a folder, a pipe or a
    device (never opened for reading in a way that could block), or longer than ``max_bytes``
    (found by reading, so a file whose size ``stat`` misreports cannot get past it).
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        before = os.stat(path)
        # O_NONBLOCK: if the path is swapped for a FIFO after the stat, opening it still returns.
        fd = os.open(path, flags) if stat.S_ISREG(before.st_mode) else -1
    except OSError as exc:
        raise FileProblem(f"cannot read it ({os_reason(exc)})") from None
    except ValueError:  # a NUL or an unencodable character in the name
        raise FileProblem("cannot read it (the name is not a valid path)") from None
    if fd < 0:
        raise FileProblem(f"is {_kind(before.st_mode)}, not a file")
    if before.st_size > max_bytes:
        os.close(fd)
        raise FileProblem(f"is {before.st_size} bytes long, more than the {max_bytes} accepted")
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode):
            raise FileProblem(f"is {_kind(now.st_mode)}, not a file")
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(_CHUNK, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise FileProblem(f"is more than the {max_bytes} bytes accepted")
        return b"".join(chunks)
    except OSError as exc:
        raise FileProblem(f"cannot read it ({os_reason(exc)})") from None
    finally:
        os.close(fd)


# -- JSON ---------------------------------------------------------------------------------------

#: A JSON string (escapes included), matched without backtracking.
_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"', re.DOTALL)


def _depth_problem(text: str, max_depth: int) -> str | None:
    """Where ``text`` nests arrays and objects deeper than ``max_depth``, or None.

    Brackets inside strings do not count; the scan is linear and never recurses.
    """
    import numpy as np  # noqa: PLC0415 - the command line imports this module before anything slow

    blanked = _STRING.sub('""', text)
    codes = np.frombuffer(blanked.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    if not len(codes):
        return None
    step = np.zeros(256, dtype=np.int8)
    step[[ord("["), ord("{")]] = 1
    step[[ord("]"), ord("}")]] = -1
    depth = np.cumsum(step[codes], dtype=np.int64)
    deepest = int(depth.max())
    if deepest <= max_depth:
        return None
    at = int(np.argmax(depth > max_depth))
    before = blanked.encode("utf-8", "surrogatepass")[:at]
    line = before.count(b"\n") + 1
    column = at - (before.rfind(b"\n") + 1) + 1
    return f"line {line} column {column}: arrays and objects nested more than {max_depth} deep"


def _parse_int(text: str) -> int | HugeNumber:
    if len(text) - text.startswith("-") > MAX_INTEGER_DIGITS:
        return HugeNumber(text)
    return int(text)


def _parse_float(text: str) -> float | HugeNumber:
    value = float(text)
    # "1e400" overflows to infinity: keep the text, so the message shows what the file says.
    return value if value - value == 0.0 else HugeNumber(text)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise FileProblem(f"the field {shorten(key)} appears twice in one object")
        result[key] = value
    return result


def parse_json(data: bytes, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The JSON value in ``data`` (UTF-8, a byte order mark allowed).

    Integers of more than MAX_INTEGER_DIGITS digits and numbers beyond float range become
    :class:`HugeNumber`; ``NaN`` and ``Infinity`` become floats (a number check refuses them
    by field). FileProblem naming the line and column for text that is not UTF-8 JSON, nests
    deeper than ``max_depth`` or repeats a field in one object.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileProblem(f"byte {exc.start}: expected UTF-8 text") from None
    problem = _depth_problem(text, max_depth)
    if problem is not None:
        raise FileProblem(problem)
    try:
        return json.loads(text, parse_int=_parse_int, parse_float=_parse_float, object_pairs_hook=_object)
    except json.JSONDecodeError as exc:
        raise FileProblem(f"line {exc.lineno} column {exc.colno}: expected JSON ({exc.msg})") from None
    except RecursionError:  # the depth scan bounds nesting; this stays a message if it ever is not
        raise FileProblem(f"arrays and objects nested more than {max_depth} deep") from None


# -- writing ------------------------------------------------------------------------------------


def _umask() -> int:
    """The process's umask, read without changing it where Linux reports it."""
    with contextlib.suppress(OSError, ValueError):
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check_writable(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` cannot be written by :func:`write_atomic` (checked before a long run, not
    after it), in a few words; None if it can. Missing folders are fine: they get created."""
    try:
        target = Path(os.path.realpath(path))
        st = os.stat(target)
    except (FileNotFoundError, NotADirectoryError):
        pass
    except ValueError:  # a NUL or an unencodable character in the name
        return "cannot use it (the name is not a valid path)"
    except OSError as exc:
        return f"cannot use it ({os_reason(exc)})"
    else:
        if not stat.S_ISREG(st.st_mode):
            return f"is {_kind(st.st_mode)}, not a file"
    folder = target.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent  # the first existing ancestor: the missing folders get created
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot write into {folder}"
    return None


def write_atomic(path: str | os.PathLike[str], write: Callable[[BinaryIO], None]) -> bool:
    """Write ``path`` by calling ``write(file)`` on a temporary file beside it, then renaming
    that over ``path``: if ``write`` or the disk fails partway, ``path`` is as it was and the
    temporary file is gone. Returns whether an existing file was replaced.

    A symlink keeps pointing at the file it names (that file is the one replaced); a replaced
    file keeps its permissions, a new one gets the umask's. Missing folders are created.
    FileProblem (a ValueError) if ``path`` is a folder, a pipe or a device; OSError from the
    disk, after cleaning up.
    """
    target = Path(os.path.realpath(path))
    try:
        existing: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        existing = None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        raise FileProblem(f"is {_kind(existing.st_mode)}, not a file")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name[:64]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o666 & ~_umask()
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(target.parent)
    return existing is not None


def _sync_folder(folder: Path) -> None:
    """Make the rename durable (best effort: some systems cannot open a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def picture_format(path: str | os.PathLike[str]) -> str | None:
    """The picture format Pillow writes for ``path``'s suffix ("PNG" for .png), or None."""
    from PIL import Image  # noqa: PLC0415 - only when a picture is named

    Image.init()
    fmt = Image.registered_extensions().get(Path(path).suffix.lower())
    return fmt if fmt is not None and fmt in Image.SAVE else None


def write_new(candidates: Iterable[Path], write: Callable[[BinaryIO], None]) -> Path:
    """Write the first of ``candidates`` that does not exist yet (never replacing a file, even one
    created meanwhile by another program), as :func:`write_atomic` does; returns its path.

    The name is reserved by creating it exclusively; a failed write removes the reservation.
    FileProblem if every candidate exists.
    """
    for path in candidates:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        try:
            write_atomic(path, write)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(path)
            raise
        return path
    raise FileProblem("every candidate name is taken")


__all__ = [
    "MAX_INTEGER_DIGITS",
    "MAX_JSON_DEPTH",
    "MAX_MESSAGE_CHARS",
    "MAX_QUOTE_CHARS",
    "FileProblem",
    "HugeNumber",
    "check_writable",
    "field_name",
    "one_line",
    "os_reason",
    "parse_json",
    "picture_format",
    "read_regular",
    "short_path",
    "shorten",
    "write_atomic",
    "write_new",
]


def save_picture(pixels: Any, path: Path | None, folder: Path, first: int = 1) -> tuple[Path, bool]:
    """Save ``pixels (h, w, 3) uint8`` as a picture: ``path`` None as a new PNG in ``folder``
    named by the time (``polycolly-YYYYmmdd-HHMMSS-NNN.png``, NNN from ``first`` up, never over
    a file already there); else at ``path`` in the format of its suffix, replacing a file
    already there. Written beside its name and renamed into place (:func:`write_atomic`,
    :func:`write_new`). Returns (the path, whether a file was replaced).

    ValueError naming the path in one line when it cannot be written.
    """
    from PIL import Image  # noqa: PLC0415 - only the program saves pictures

    image = Image.fromarray(pixels)
    replaced = False
    try:
        if path is None:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            names = (folder / f"polycolly-{stamp}-{k:03d}.png" for k in itertools.count(first))
            path = write_new(names, lambda handle: image.save(handle, format="PNG"))
        else:
            path = Path(path)
            fmt = picture_format(path)
            if fmt is None:
                raise ValueError(f"no picture format has the suffix {shorten(path.suffix)}")
            replaced = write_atomic(path, lambda handle: image.save(handle, format=fmt))
    except (OSError, ValueError) as exc:  # ValueError: a FileProblem, Pillow's refusals
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ValueError(
            one_line(f"screenshot {short_path(path or folder)}: cannot write it ({reason})")
        ) from None
    return path, replaced
