"""vta-mlir: an MLIR compiler for the VTA tensor accelerator, with its simulator and runtime.

The repository keeps ``dialects/``, ``passes/`` and ``tools/`` at its top level; an installed
copy maps them to ``vta_mlir.dialects``, ``vta_mlir.passes`` and ``vta_mlir.tools``
(``[tool.setuptools.package-dir]`` in ``pyproject.toml``).  When this package is imported from a
source checkout instead (for instance ``python -m pytest`` run from the repository root, which
puts the checkout first on ``sys.path``), the mapped folders are not inside ``vta_mlir/``; the
lines below add the checkout root to the package search path so the same names resolve there.

The Python API (``docs/python-api.md``) is available from here, each name loaded on first use
so that ``import vta_mlir`` stays cheap::

    from vta_mlir import compile, parse, print_ir, run_pipeline, lower, trace, Device, VTAConfig

``parse``, ``print_ir``, ``lower``, ``compile`` and ``trace`` come from :mod:`vta_mlir.api`,
``run_pipeline`` from :mod:`vta_mlir.ir.pipeline`, ``Device`` from
:mod:`vta_mlir.runtime.device`, ``VTAConfig`` from :mod:`vta_mlir.config`.
"""

from __future__ import annotations

from pathlib import Path

from vta_mlir.errors import VTAError

__version__ = "0.1.0"

_here = Path(__file__).resolve().parent
_root = _here.parent
if not (_here / "dialects").is_dir() and (_root / "dialects" / "__init__.py").is_file():
    __path__.append(str(_root))  # noqa: F821 - ``__path__`` exists in a package's __init__

__all__ = [
    "Device",
    "DiagnosticError",
    "VTAConfig",
    "VTAError",
    "__version__",
    "compile",
    "lower",
    "parse",
    "print_ir",
    "run_pipeline",
    "trace",
]

#: Lazily loaded names: name -> module defining it.
_LAZY: dict[str, str] = {
    "Device": "vta_mlir.runtime.device",
    "DiagnosticError": "vta_mlir.ir.diagnostics",
    "VTAConfig": "vta_mlir.config",
    "compile": "vta_mlir.api",
    "lower": "vta_mlir.api",
    "parse": "vta_mlir.api",
    "print_ir": "vta_mlir.api",
    "run_pipeline": "vta_mlir.ir.pipeline",
    "trace": "vta_mlir.api",
}


def __getattr__(name: str) -> object:
    # Heavier parts (xDSL, numpy, the simulator) load on first use so that ``import vta_mlir``
    # stays cheap.
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'vta_mlir' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
