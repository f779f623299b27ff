"""A :class:`vta_mlir.binary.BinaryModule` read back as ``vtaisa`` IR, and the image of a
module's program.

:func:`program_op` builds the ``vtaisa.program`` op of a binary module (how a ``.vtab`` is
read: its segments, argument table and runs, through
:class:`~vta_mlir.dialects.vtaisa_build.ProgramBuilder`); :func:`program_to_module` wraps it in
a module carrying the configuration as ``vta.config``.  :func:`module_to_program` is the other
direction, the serialisation of the single program of a module
(:func:`~vta_mlir.dialects.vtaisa_serialize.serialize`, after verifying it).
``.vtab → vtaisa → .vtab`` is byte-identical.  All three are re-exported by
:mod:`vta_mlir.dialects.vtaisa`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from vta_mlir.binary import BinaryModule

from .vta_config_attr import set_module_config
from .vtaisa_build import ProgramBuilder
from .vtaisa_host import HostStepOp
from .vtaisa_program_ops import ProgramOp
from .vtaisa_serialize import find_program, serialize

__all__ = ["module_to_program", "program_op", "program_to_module"]


def program_op(binary: BinaryModule) -> ProgramOp:
    """The ``vtaisa.program`` op of a :class:`~vta_mlir.binary.BinaryModule`."""
    build = ProgramBuilder(binary.base, binary.config)
    for s in binary.program.segments:
        build.segment(s.name, s.phys, s.nbytes, s.data)
    for a in [*binary.args, *binary.copies]:
        build.argument(a)
    steps = binary.program.host_steps
    for r, run in enumerate([*binary.program.runs, None]):
        for step in steps:
            if step.after_run == r:
                build.host_step(HostStepOp.from_record(step))
        if run is not None:
            build.run(run, binary.program.layers)
    return build.program


def program_to_module(binary: BinaryModule) -> ModuleOp:
    """A module holding the ``vtaisa.program`` of a :class:`~vta_mlir.binary.BinaryModule`, with
    its configuration as the module's ``vta.config`` attribute."""
    module = ModuleOp([program_op(binary)])
    set_module_config(module, binary.config)
    return module


def module_to_program(module: Operation) -> BinaryModule:
    """The :class:`~vta_mlir.binary.BinaryModule` of the single ``vtaisa.program`` in
    ``module`` (configuration from the nearest ``vta.config``), verified.

    Raises :class:`~vta_mlir.errors.VTAError` if there is not exactly one program, or
    :class:`~vta_mlir.ir.diagnostics.DiagnosticError` at the op that does not verify.
    """
    return serialize(find_program(module))
