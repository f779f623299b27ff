"""Old import paths of modules that moved.

When a module moves (``vta_mlir.passes.tile_cost`` became ``vta_mlir.passes.tile.cost``), code
written against the old path keeps working: :func:`keep_old_paths` installs an import hook
under which importing the old name gives the module at its new place (the same module object,
so a patch through either name is seen through both), with a :class:`DeprecationWarning`.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Mapping, Sequence
from types import ModuleType

__all__ = ["keep_old_paths"]

#: The prefix of a whole module name among the new places.
_ROOT = "vta_mlir."


class _Alias(importlib.abc.Loader):
    """Loads an old module name as the module now at ``target``."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.target)
        self.spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system gave the module the old name's spec; it keeps its own.
        module.__spec__ = self.spec


class _MovedModules(importlib.abc.MetaPathFinder):
    def __init__(self, package: str, moves: Mapping[str, str]) -> None:
        self.package = package
        self.moves = dict(moves)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != self.package or name not in self.moves:
            return None
        move = self.moves[name]
        new = move if move.startswith(_ROOT) else f"{self.package}.{move}"
        warnings.warn(f"{fullname} moved to {new}", DeprecationWarning, stacklevel=2)
        return importlib.util.spec_from_loader(fullname, _Alias(new))


def keep_old_paths(package: str, moves: Mapping[str, str]) -> None:
    """Make ``package.<old>`` import as ``package.<new>`` for each ``old -> new`` of
    ``moves`` (``new`` relative to ``package``, or a whole name ``vta_mlir.…`` for a module
    that left the package)."""
    for finder in sys.meta_path:
        if isinstance(finder, _MovedModules) and finder.package == package:
            finder.moves.update(moves)
            return
    sys.meta_path.append(_MovedModules(package, moves))
