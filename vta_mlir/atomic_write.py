"""Writing a file all at once: the new contents go to a temporary file in the same folder,
which then replaces the target (``os.replace``, atomic on one file system).

Whatever happens — an error, an interrupt (SIGINT), another process writing the same path — a
reader of the target sees either its complete old contents (or no file) or the complete new
ones, never a truncated file; the temporary file is removed when the write does not finish.
Every output file of the tools and :meth:`vta_mlir.binary.BinaryModule.save` are written this
way.

A target that exists and is not a regular file (``/dev/null``, a FIFO) cannot be replaced
without destroying it, so it is written in place.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import IO

__all__ = ["atomic_open", "write_bytes", "write_text"]


def _umask() -> int:
    """The process's umask, read without changing it where the system allows (changing it, even
    briefly, races with other threads creating files)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _replaceable(path: str) -> bool:
    """Whether ``path`` is absent or a regular file (a device or FIFO is written in place)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return True
    except OSError:
        return True  # the write itself reports the problem
    return stat.S_ISREG(mode)


@contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "wb",
                encoding: str | None = None) -> Iterator[IO]:
    """A file object whose contents replace ``path`` when the ``with`` block ends normally.

    ``mode`` is ``"wb"`` or ``"w"`` (then ``encoding``, UTF-8 by default, applies). On any
    exception, ``KeyboardInterrupt`` included, ``path`` is left as it was and the temporary file
    is removed. The new file gets the permissions ``open`` would give it (``0o666`` less the
    umask). Raises ``OSError`` as ``open`` and ``os.replace`` do.
    """
    if mode not in ("wb", "w"):
        raise ValueError(f"atomic_open: mode must be 'wb' or 'w', not {mode!r}")
    target = os.fspath(path)
    if mode == "w" and encoding is None:
        encoding = "utf-8"
    if not _replaceable(target):
        with open(target, mode, encoding=encoding) as f:
            yield f
        return
    folder, name = os.path.split(os.path.abspath(target))
    # In the target's folder, so that the final rename stays on one file system; hidden, and
    # unique, so that concurrent writers of one path each have their own.
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, encoding=encoding) as f:
            yield f
            f.flush()
            os.fchmod(f.fileno(), 0o666 & ~_umask())
        os.replace(temporary, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise


def write_bytes(path: str | os.PathLike[str], data: bytes | bytearray | memoryview) -> None:
    """Replace ``path`` with ``data`` (see :func:`atomic_open`)."""
    with atomic_open(path, "wb") as f:
        f.write(data)


def write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``text`` (see :func:`atomic_open`)."""
    with atomic_open(path, "w", encoding=encoding) as f:
        f.write(text)
