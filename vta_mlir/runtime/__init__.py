"""The VTA runtime: the command builder (the JIT runtime's rules, docs/isa.md §4) and the
simulator-backed :class:`Device`."""

from vta_mlir.runtime.command_builder import CommandBuilder, Stage
from vta_mlir.runtime.device import Device, LoadedModule, RunStats
from vta_mlir.runtime.uop_kernel import KernelMode, UopKernel, UopLoop

__all__ = [
    "CommandBuilder",
    "Device",
    "KernelMode",
    "LoadedModule",
    "RunStats",
    "Stage",
    "UopKernel",
    "UopLoop",
]
