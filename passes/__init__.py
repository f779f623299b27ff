"""Lowering passes of vta-mlir, one module per pass (installed as ``vta_mlir.passes``).

:func:`get_all_passes` is the registry the tools use; user code adds its own passes next to
these (``vta-opt`` accepts both).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every vta-mlir pass by its flag name, each behind a lazy import."""
    return {}
