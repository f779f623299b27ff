"""vta-mlir: an MLIR compiler for the VTA tensor accelerator, with its simulator and runtime.

The repository keeps ``dialects/``, ``passes/`` and ``tools/`` at its top level; an installed
copy maps them to ``vta_mlir.dialects``, ``vta_mlir.passes`` and ``vta_mlir.tools``
(``[tool.setuptools.package-dir]`` in ``pyproject.toml``).  When this package is imported from a
source checkout instead (for instance ``python -m pytest`` run from the repository root, which
puts the checkout first on ``sys.path``), the mapped folders are not inside ``vta_mlir/``; the
lines below add the checkout root to the package search path so the same names resolve there.
"""

from __future__ import annotations

from pathlib import Path

from vta_mlir.errors import VTAError

__version__ = "0.1.0"

_here = Path(__file__).resolve().parent
_root = _here.parent
if not (_here / "dialects").is_dir() and (_root / "dialects" / "__init__.py").is_file():
    __path__.append(str(_root))  # noqa: F821 - ``__path__`` exists in a package's __init__

__all__ = ["Device", "VTAConfig", "VTAError", "__version__"]


def __getattr__(name: str) -> object:
    # Heavier parts load on first use so that ``import vta_mlir`` stays cheap.
    if name == "Device":
        from vta_mlir.runtime.device import Device

        return Device
    if name == "VTAConfig":
        from vta_mlir.config import VTAConfig

        return VTAConfig
    raise AttributeError(f"module 'vta_mlir' has no attribute {name!r}")
