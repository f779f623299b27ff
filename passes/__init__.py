"""Lowering passes of vta-mlir, one module or package per pass (installed as
``vta_mlir.passes``).

A pass with companions is a subpackage named after its flag (``pack/``, ``tile/``,
``inject_dma/``, ``tensorize/``, ``fold_uop_loops/``, ``coproc_sync/``), whose ``__init__`` holds
the pass; analyses that several passes share live in ``analysis/``.

:func:`get_all_passes` is the registry the tools use.  Built-in passes are listed in
:data:`BUILTIN_PASSES` (flag name → module and class, imported on first use); user code adds its
own with :func:`register_pass`, and ``vta-opt`` accepts both (``--load-pass-plugin`` imports a
user module that registers passes).  :func:`scoped_registry` undoes the registrations made
inside it (tests, plugins that fail halfway).  The pipeline and the contracts between the
passes are described in ``docs/pipeline.md``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from xdsl.passes import ModulePass

#: flag name → (module inside ``vta_mlir.passes``, class name), in pipeline order.
BUILTIN_PASSES: dict[str, tuple[str, str]] = {
    "vta-bufferize": ("bufferize", "BufferizePass"),
    "vta-integerize": ("integerize", "IntegerizePass"),
    "vta-narrow-integers": ("narrow_integers", "NarrowIntegersPass"),
    "vta-raise-loops": ("raise_loops", "RaiseLoopsPass"),
    "vta-normalize": ("normalize", "NormalizePass"),
    "vta-merge-alu-immediates": ("merge_alu_immediates", "MergeAluImmediatesPass"),
    "vta-outline-host-steps": ("outline_host_steps", "OutlineHostStepsPass"),
    "vta-pack": ("pack", "PackPass"),
    "vta-tile": ("tile", "TilePass"),
    "vta-bias-gemm": ("bias_gemm", "BiasGemmPass"),
    "vta-residual-gemm": ("residual_gemm", "ResidualGemmPass"),
    "vta-inject-dma": ("inject_dma", "InjectDmaPass"),
    "vta-tensorize": ("tensorize", "TensorizePass"),
    "vta-fold-uop-loops": ("fold_uop_loops", "FoldUopLoopsPass"),
    "vta-coproc-sync": ("coproc_sync", "CoprocSyncPass"),
    "vta-lower-to-isa": ("lower_to_isa", "LowerToIsaPass"),
    "vta-to-isa": ("pipeline", "VtaToIsaPass"),
    # MLIR's `lower-affine`, in place of xDSL's (see the module's docstring).
    "lower-affine": ("lower_affine", "LowerAffinePass"),
}

_user_passes: dict[str, Callable[[], type[ModulePass]]] = {}


def _loader(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        return getattr(importlib.import_module(f"{__name__}.{module}"), cls)

    return load


def register_pass(pass_class: type[ModulePass]) -> type[ModulePass]:
    """Make a user-written pass available under its ``name`` (usable as a class decorator).

    A user pass may not take the name of a built-in one.
    """
    name = getattr(pass_class, "name", None)
    if not isinstance(name, str) or not name:
        raise ValueError(f"{pass_class.__name__} has no pass name (class attribute 'name')")
    if name in BUILTIN_PASSES:
        raise ValueError(f"pass name {name!r} is taken by a built-in pass")
    _user_passes[name] = lambda: pass_class
    return pass_class


class RegistryScope:
    """The registrations made inside a :func:`scoped_registry` block."""

    def __init__(self, saved: dict[str, Callable[[], type[ModulePass]]]) -> None:
        self._saved = saved
        self.kept = False

    def added(self) -> dict[str, type[ModulePass]]:
        """The passes registered (or registered again, as another class) since the block
        began, by name."""
        return {
            name: factory()
            for name, factory in _user_passes.items()
            if self._saved.get(name) is not factory
        }

    def keep(self) -> None:
        """Keep this block's registrations when it ends."""
        self.kept = True


@contextmanager
def scoped_registry() -> Iterator[RegistryScope]:
    """A block at whose end the registered passes are again those of its beginning, unless
    :meth:`RegistryScope.keep` was called::

        with scoped_registry():
            register_pass(MyPass)       # known by name inside the block only
    """
    saved = dict(_user_passes)
    scope = RegistryScope(saved)
    try:
        yield scope
    finally:
        if not scope.kept:
            _user_passes.clear()
            _user_passes.update(saved)


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every available vta-mlir pass (built-in and registered) by its flag name, each behind a
    lazy import."""
    passes: dict[str, Callable[[], type[ModulePass]]] = {}
    for name, (module, cls) in BUILTIN_PASSES.items():
        passes[name] = _loader(module, cls)
    passes.update(_user_passes)
    return passes
