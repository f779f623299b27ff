"""Conversion between a linked binary module and ``vtaisa`` IR.

:func:`program_op` builds the ``vtaisa.program`` op of a :class:`vta_mlir.binary.BinaryModule`
(its segments, argument table and runs, each run's micro-op words decoded into a
``vtaisa.uops`` table, and a ``vtaisa.layer`` marker where the layer of the instructions changes
and at the start of each run of a program with layers); :func:`program_to_module` wraps it in
a module carrying the configuration as ``vta.config``.  :func:`module_to_program` goes back through
:meth:`ProgramOp.to_binary <vta_mlir.dialects.vtaisa_program_ops.ProgramOp.to_binary>` and
validates the result.  ``.vtab → vtaisa → .vtab`` is byte-identical.  All three are re-exported by
:mod:`vta_mlir.dialects.vtaisa`.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from vta_mlir.binary import BinaryModule
from vta_mlir.config import VTAConfig
from vta_mlir.errors import VTAError
from vta_mlir.isa import Uop, decode_uops, encode_uops

from .vta_config_attr import set_module_config
from .vtaisa_insns import insn_to_op
from .vtaisa_program_ops import ArgOp, LayerOp, ProgramOp, RunOp, SegmentOp, UopsOp

__all__ = ["module_to_program", "program_op", "program_to_module"]


def _uops_of(words: np.ndarray, cfg: VTAConfig, where: str) -> list[Uop]:
    uops = decode_uops(np.asarray(words, dtype=np.uint32), cfg)
    again = encode_uops(uops, cfg) if uops else np.zeros(0, dtype=np.uint32)
    if not np.array_equal(np.asarray(again, dtype=np.uint32), np.asarray(words, np.uint32)):
        bad = int(np.flatnonzero(np.asarray(again, np.uint32) != np.asarray(words, np.uint32))[0])
        raise VTAError(
            f"{where}: micro-op word {bad} ({int(words[bad]):#010x}) sets bits outside the "
            "micro-op fields of the configuration"
        )
    return uops


def program_op(binary: BinaryModule) -> ProgramOp:
    """The ``vtaisa.program`` op of a :class:`~vta_mlir.binary.BinaryModule`."""
    cfg = binary.config
    body: list[Operation] = [
        SegmentOp(s.name, s.phys, s.nbytes, None if s.data is None else s.data)
        for s in binary.program.segments
    ]
    body += [ArgOp.from_spec(a) for a in [*binary.args, *binary.copies]]
    names = binary.program.layers
    for r, run in enumerate(binary.program.runs):
        ops: list[Operation] = []
        if len(run.uop_words):
            ops.append(UopsOp(_uops_of(run.uop_words, cfg, f"run {r}")))
        if not names:
            ops += [insn_to_op(i) for i in run.insns]
        else:
            # A marker where the layer changes, and at the start of every run.
            previous = -1
            for insn, layer in zip(run.insns, run.layers.tolist(), strict=True):
                if layer != previous:
                    ops.append(LayerOp(names[layer]))
                    previous = layer
                ops.append(insn_to_op(insn))
        body.append(RunOp(ops, run.uop_base))
    return ProgramOp(binary.base, body)


def program_to_module(binary: BinaryModule) -> ModuleOp:
    """A module holding the ``vtaisa.program`` of a :class:`~vta_mlir.binary.BinaryModule`, with
    its configuration as the module's ``vta.config`` attribute."""
    module = ModuleOp([program_op(binary)])
    set_module_config(module, binary.config)
    return module


def module_to_program(module: Operation) -> BinaryModule:
    """The :class:`~vta_mlir.binary.BinaryModule` of the single ``vtaisa.program`` in ``module``
    (configuration from the nearest ``vta.config``), validated.

    Raises :class:`~vta_mlir.errors.VTAError` if there is not exactly one program or it is
    inconsistent.
    """
    programs = [op for op in module.walk() if isinstance(op, ProgramOp)]
    if len(programs) != 1:
        raise VTAError(f"expected exactly one vtaisa.program, found {len(programs)}")
    binary = programs[0].to_binary()
    binary.validate()
    return binary

