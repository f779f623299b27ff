"""Thread count of the BLAS behind numpy while the simulator runs.

The GEMM fast path (:mod:`vta_mlir.sim.gemm`) issues one float matrix product per GEMM
instruction, each of modest size (e.g. 32×256 by 256×1024), interleaved with small numpy
operations.  A multi-threaded BLAS wakes its worker threads at every such call; on small or
shared machines (2 virtual cores, other processes running) that wake-up costs more than the
product itself, and a run became 5–20× slower than with one thread in measurements on such a
machine.  The reference simulator is single-threaded too.  So by default a run limits the BLAS
to one thread *for the calling thread only*, and restores the previous setting afterwards.

Only OpenBLAS (the BLAS of numpy's wheels) offers a per-thread setting
(``openblas_set_num_threads_local``, OpenBLAS ≥ 0.3.27); with any other BLAS, or where the
library cannot be located, nothing is changed.  The policy comes from the environment variable
``VTA_SIM_BLAS_THREADS`` (a positive integer, or ``default`` to leave the BLAS alone) or from
:func:`set_threads`.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

ENV_VAR = "VTA_SIM_BLAS_THREADS"

_setter: Callable[[int], int] | None = None
_searched = False
_threads: int | None = None
_threads_set = False


def _find_setter() -> Callable[[int], int] | None:
    """``openblas_set_num_threads_local`` of the OpenBLAS loaded in this process, if any."""
    import numpy  # noqa: F401 - numpy must have loaded its BLAS before the search

    paths: list[str] = []
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                path = line.rstrip("\n").split(maxsplit=5)[-1]
                if "openblas" in os.path.basename(path).lower() and path not in paths:
                    paths.append(path)
    except OSError:  # not Linux: leave the BLAS alone
        return None
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
            fn = lib.openblas_set_num_threads_local
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_int]
        return fn
    return None


def set_threads(n: int | None) -> None:
    """Use ``n`` BLAS threads during runs (``None``: leave the BLAS library's own setting)."""
    global _threads, _threads_set
    if n is not None and n < 1:
        raise ValueError(f"BLAS thread count must be positive, got {n}")
    _threads, _threads_set = n, True


def threads() -> int | None:
    """The thread count runs use (``None`` = untouched), from :func:`set_threads` or the
    environment (default 1)."""
    if _threads_set:
        return _threads
    value = os.environ.get(ENV_VAR, "1").strip().lower()
    if value == "default":
        return None
    try:
        return max(1, int(value))
    except ValueError:
        return 1


@contextmanager
def limited() -> Iterator[None]:
    """Apply :func:`threads` to the calling thread for the duration of the block."""
    global _setter, _searched
    n = threads()
    if n is None:
        yield
        return
    if not _searched:
        _setter, _searched = _find_setter(), True
    if _setter is None:
        yield
        return
    previous = _setter(n)
    try:
        yield
    finally:
        _setter(previous)
