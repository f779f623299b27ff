"""The serialisation of a ``vtaisa.program``: the runtime image the device loads and the
``.vtab`` writer writes (:class:`vta_mlir.binary.BinaryModule`).

The ops are the program; :func:`serialize` turns a verified one into its image, one way: the
instruction records of each run (encoded into words by the ``.vtab`` writer), the micro-op
words of its ``vtaisa.uops`` table, the layer of every instruction from the ``vtaisa.layer``
markers, the segments and the argument table.  The image is marked checked, so neither the
writer nor the device checks it again.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import Operation

from vta_mlir.abi import ArgSpec
from vta_mlir.binary import BinaryModule
from vta_mlir.errors import VTAError
from vta_mlir.ir.diagnostics import verify_op
from vta_mlir.isa import encode_uops
from vta_mlir.program import HostStep, Program, Run, Segment, number_layers

from .vta_config_attr import get_config
from .vtaisa_arg import ArgOp
from .vtaisa_host import HostStepOp
from .vtaisa_insns import InsnOp
from .vtaisa_program_ops import LayerOp, ProgramOp, RunOp, SegmentOp
from .vtaisa_records import op_to_insn
from .vtaisa_syntax import int_field

__all__ = ["find_program", "serialize", "unchecked_image"]


def find_program(module: Operation) -> ProgramOp:
    """The single ``vtaisa.program`` in ``module``; :class:`VTAError` if there is not
    exactly one."""
    programs = [op for op in module.walk() if isinstance(op, ProgramOp)]
    if len(programs) != 1:
        raise VTAError(f"expected exactly one vtaisa.program, found {len(programs)}")
    return programs[0]


def serialize(program: ProgramOp, *, verified: bool = False) -> BinaryModule:
    """The image of ``program`` (configuration from the nearest ``vta.config``), marked
    checked.

    The verifiers of the program and every op in it run first (raising
    :class:`~vta_mlir.ir.diagnostics.DiagnosticError` at the first op that fails), unless
    ``verified`` says the program has been verified since its last change (the parser and the
    pass pipelines verify the IR they produce).
    """
    if not verified:
        verify_op(program)
    image = unchecked_image(program)
    image.checked = True
    return image


def unchecked_image(program: ProgramOp) -> BinaryModule:
    """The image of ``program`` as it is, not verified (nor marked checked)."""
    cfg = get_config(program)
    segments: list[Segment] = []
    args: list[ArgSpec] = []
    copies: list[ArgSpec] = []
    runs: list[Run] = []
    host_steps: list[HostStep] = []
    names: dict[str, int] = {}
    layer = -1
    for op in program.body.block.ops:
        if isinstance(op, SegmentOp):
            segments.append(op.to_segment())
        elif isinstance(op, ArgOp):
            spec = op.to_spec()
            (copies if spec.copy_of else args).append(spec)
        elif isinstance(op, RunOp):
            table = op.uops_op
            words = encode_uops(table.uops, cfg) if table is not None and len(table) \
                else np.zeros(0, dtype=np.uint32)
            insns, tags = [], []
            for inner in op.body.block.ops:
                if isinstance(inner, LayerOp):
                    layer = names.setdefault(inner.layer, len(names))
                elif isinstance(inner, InsnOp):
                    insns.append(op_to_insn(inner))
                    tags.append(layer)
            runs.append(Run(insns, np.asarray(words, dtype=np.uint32),
                            int_field(op, "uop_base"), np.asarray(tags, dtype=np.int32)))
        elif isinstance(op, HostStepOp):
            host_steps.append(op.to_record(len(runs)))
    layers = number_layers(runs, list(names))
    return BinaryModule(cfg, Program(runs, segments, layers, host_steps), args,
                        program.base_address, copies)
