"""Programs compiled once per test session, for the tests that take a compiled program as their
input rather than test its compilation: the hazard and SRAM-index checkers, crafted and
mutated binaries, the loop forms compared with the binary of their structured form.

The lowering is deterministic (``tests/test_binary_baseline.py`` pins its bytes), so sharing one
lowering between such tests changes no result. Each call returns a copy of its own: a caller
may change what it gets. Tests of the lowering itself (its determinism, its errors, its
options) call :func:`vta_mlir.lower` as users do.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path

import vta_mlir
from vta_mlir.binary import BinaryModule
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig

__all__ = ["lowered"]


@functools.cache
def _shared(source: str | Path, config: str | VTAConfig | None,
            function: str | None) -> BinaryModule:
    return vta_mlir.lower(source, config=config, function=function)


def lowered(source: str | Path, config: str | VTAConfig | None = None,
            function: str | None = None) -> BinaryModule:
    """``vta_mlir.lower(source, config=config, function=function)`` (``source``: MLIR text or
    a file's path; ``config``: a configuration or a shipped one's name), computed once per
    session for each distinct call."""
    if isinstance(config, VTAConfig):
        # A shipped configuration shares the lowering of its name.
        config = next((name for name in SHIPPED_CONFIGS if VTAConfig.shipped(name) == config),
                      config)
    return copy.deepcopy(_shared(source, config, function))
