"""Building a ``vtaisa.program`` op by op, with xDSL's :class:`~xdsl.builder.Builder`.

:class:`ProgramBuilder` is how a linked program comes into being: the host lowering
(:func:`vta_mlir.host.lowering.lower_to_isa`) emits the segments and arguments it places and
the runs the command builder records, and the ``.vtab`` reader
(:func:`vta_mlir.dialects.vtaisa_program.program_op`) the ones it decodes.  A run becomes a
``vtaisa.run``: its micro-op words decoded into a ``vtaisa.uops`` table, a ``vtaisa.layer``
marker where the layer of the instructions changes (and at the start of each run of a program
with layers), then one op per instruction.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.builder import Builder
from xdsl.rewriter import InsertPoint

from vta_mlir.abi import ArgSpec
from vta_mlir.config import VTAConfig
from vta_mlir.errors import VTAError
from vta_mlir.isa import Uop, decode_uops, encode_uops
from vta_mlir.program import Run

from .vtaisa_arg import ArgOp
from .vtaisa_host import HostStepOp
from .vtaisa_program_ops import LayerOp, ProgramOp, RunOp, SegmentOp, UopsOp
from .vtaisa_records import insn_to_op

__all__ = ["ProgramBuilder", "uops_of_words"]


def uops_of_words(words: np.ndarray, cfg: VTAConfig, where: str) -> list[Uop]:
    """The micro-ops of staging words; :class:`VTAError` for a word with bits outside the
    micro-op fields (the table could not give the word back)."""
    words = np.asarray(words, dtype=np.uint32)
    uops = decode_uops(words, cfg)
    again = np.asarray(encode_uops(uops, cfg) if uops else np.zeros(0), dtype=np.uint32)
    if not np.array_equal(again, words):
        bad = int(np.flatnonzero(again != words)[0])
        raise VTAError(
            f"{where}: micro-op word {bad} ({int(words[bad]):#010x}) sets bits outside the "
            "micro-op fields of the configuration"
        )
    return uops


class ProgramBuilder:
    """Appends the ops of one linked program to a new ``vtaisa.program`` (:attr:`program`)
    linked at ``base``: segments, then arguments, then runs, in the order they are given."""

    def __init__(self, base: int, cfg: VTAConfig) -> None:
        self.cfg = cfg
        self.program = ProgramOp(base)
        self._builder = Builder(InsertPoint.at_end(self.program.body.block))
        self._runs = 0

    def segment(self, name: str, phys: int, nbytes: int,
                data: bytes | np.ndarray | None = None) -> SegmentOp:
        """A DRAM segment (``data``: the contents of a constant one)."""
        return self._builder.insert(SegmentOp(name, phys, nbytes, data))

    def argument(self, spec: ArgSpec) -> ArgOp:
        """An entry of the argument table, in signature order."""
        return self._builder.insert(ArgOp.from_spec(spec))

    def host_step(self, step: HostStepOp) -> HostStepOp:
        """A host step, after the runs given so far."""
        return self._builder.insert(step)

    def run(self, run: Run, layers: Sequence[str] = ()) -> RunOp:
        """The ``vtaisa.run`` of a recorded run; ``layers`` names the layer indices of
        ``run.layers`` (empty: a program without layers)."""
        op = self._builder.insert(RunOp(uop_base=int(run.uop_base)))
        inner = Builder(InsertPoint.at_end(op.body.block))
        if len(run.uop_words):
            inner.insert(UopsOp(uops_of_words(run.uop_words, self.cfg, f"run {self._runs}")))
        self._runs += 1
        if not layers:
            for insn in run.insns:
                inner.insert(insn_to_op(insn))
            return op
        previous = -1
        for insn, layer in zip(run.insns, run.layers.tolist(), strict=True):
            if layer != previous:
                inner.insert(LayerOp(layers[layer]))
                previous = layer
            inner.insert(insn_to_op(insn))
        return op
