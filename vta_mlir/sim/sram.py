"""On-chip SRAMs of the functional simulator and the LOAD / STORE instructions that fill and
drain them (``docs/isa.md`` §3.1, §3.3–§3.5).

Each SRAM is one numpy array shaped by the configuration:

* INP ``int8[depth, BATCH, BLOCK_IN]``, WGT ``int8[depth, BLOCK_OUT, BLOCK_IN]``,
* ACC ``int32[depth, BATCH, BLOCK_OUT]`` (little-endian; STORE reads it and truncates, there is no
  separate output buffer in the reference), UOP ``uint32[depth]``.

A LOAD or STORE is executed as one or two whole-array copies between a strided DRAM view and a
dense SRAM block; nothing loops over elements.
"""

from __future__ import annotations

import numpy as np

from vta_mlir.config import VTAConfig
from vta_mlir.errors import SimulatorError
from vta_mlir.isa import MemInsn, MemType
from vta_mlir.sim.dram import DRAM

#: LOAD memory types handled by the generic copy of §3.3 and the counter each one feeds (§3.9).
_LOAD_COUNTER = {
    MemType.UOP: "uop_load_nbytes",
    MemType.WGT: "wgt_load_nbytes",
    MemType.INP: "inp_load_nbytes",
    MemType.ACC: "acc_load_nbytes",
    MemType.ACC_8BIT: "acc_load_nbytes",
}


def _row_dtype(nbytes: int) -> np.dtype:
    """An opaque dtype of ``nbytes`` bytes: gathering whole rows with it moves one item per row,
    which is far faster than fancy-indexing the int8 lanes."""
    return np.dtype(f"V{nbytes}")


class SRAMs:
    """The four SRAMs of one simulated device, plus flat byte and row views used by the
    executors (all views share memory with the typed arrays)."""

    def __init__(self, cfg: VTAConfig) -> None:
        self.cfg = cfg
        self.inp = np.zeros((cfg.inp_buff_depth, cfg.batch, cfg.block_in), dtype=np.int8)
        self.wgt = np.zeros((cfg.wgt_buff_depth, cfg.block_out, cfg.block_in), dtype=np.int8)
        self.acc = np.zeros((cfg.acc_buff_depth, cfg.batch, cfg.block_out), dtype="<i4")
        self.uop = np.zeros(cfg.uop_buff_depth, dtype="<u4")
        self.lanes = cfg.batch * cfg.block_out
        #: ACC as ``int32[depth, BATCH*BLOCK_OUT]``: one row per element, for the ALU.
        self.acc2 = self.acc.reshape(cfg.acc_buff_depth, self.lanes)
        #: One opaque item per BLOCK_IN-byte input row / weight row, for GEMM gathers.
        self.inp_rows = self.inp.reshape(-1, cfg.block_in).view(_row_dtype(cfg.block_in))[:, 0]
        self.wgt_rows = self.wgt.reshape(-1, cfg.block_in).view(_row_dtype(cfg.block_in))[:, 0]
        #: Execution plans of GEMM instructions, keyed by their fields and micro-op words
        #: (vta_mlir.sim.gemm); they depend on nothing else, so they stay valid.
        self.plans: dict[tuple, object] = {}
        #: Element-granular byte views, by memory type, for LOAD.
        self._bytes = {
            MemType.UOP: self.uop.view(np.uint8).reshape(cfg.uop_buff_depth, -1),
            MemType.WGT: self.wgt.view(np.uint8).reshape(cfg.wgt_buff_depth, -1),
            MemType.INP: self.inp.view(np.uint8).reshape(cfg.inp_buff_depth, -1),
            MemType.ACC: self.acc.view(np.uint8).reshape(cfg.acc_buff_depth, -1),
        }

    def clear(self) -> None:
        """Zero every SRAM (the reference starts from uninitialised memory)."""
        for a in (self.inp, self.wgt, self.acc, self.uop):
            a[...] = 0

    # ---- LOAD (§3.3, §3.4) --------------------------------------------------------------------
    def load(self, insn: MemInsn, dram: DRAM) -> tuple[str, int]:
        """Execute a non-NOP LOAD; returns the counter to increment and by how much."""
        mt = insn.memory_type
        counter = _LOAD_COUNTER.get(mt)  # type: ignore[call-overload]
        if counter is None:
            name = MemType(mt).name if mt in MemType._value2member_map_ else str(mt)
            raise SimulatorError(f"LOAD of memory_type {name} ({mt}) is not supported")
        cfg = self.cfg
        x, y = insn.x_size, insn.y_size
        xtotal = insn.x_pad_0 + x + insn.x_pad_1
        ytotal = insn.y_pad_0 + y + insn.y_pad_1
        base = insn.sram_base
        if mt == MemType.ACC_8BIT:
            sram = self._bytes[MemType.ACC]
            elem = cfg.acc_elem_bytes
            dram_elem = cfg.acc8_elem_bytes
        else:
            sram = self._bytes[mt]
            elem = dram_elem = sram.shape[1]
        depth = sram.shape[0]
        if base + xtotal * ytotal > depth:
            raise SimulatorError(
                f"SRAM range [{base}, {base + xtotal * ytotal}) exceeds the "
                f"{'ACC' if mt == MemType.ACC_8BIT else MemType(mt).name} depth {depth}")
        src = dram.view2d(insn.dram_base * dram_elem, y, x * dram_elem, insn.x_stride * dram_elem)
        block = sram[base:base + xtotal * ytotal]
        padded = xtotal != x or ytotal != y
        if padded:
            block[...] = 0  # padding is always zero bytes (§3.3)
        if y and x:
            if mt == MemType.ACC_8BIT:
                lanes = self.lanes
                dst = self.acc2[base:base + xtotal * ytotal].reshape(ytotal, xtotal, lanes)
                # int8 lanes are sign-extended into the int32 accumulator (§3.4)
                dst[insn.y_pad_0:insn.y_pad_0 + y, insn.x_pad_0:insn.x_pad_0 + x] = \
                    src.view(np.int8).reshape(y, x, lanes)
            elif padded:
                dst = block.reshape(ytotal, xtotal, elem)
                dst[insn.y_pad_0:insn.y_pad_0 + y, insn.x_pad_0:insn.x_pad_0 + x] = \
                    src.reshape(y, x, elem)
            else:
                block.reshape(y, x * elem)[...] = src
        return counter, x * y * elem

    # ---- STORE (§3.5) -------------------------------------------------------------------------
    def store(self, insn: MemInsn, dram: DRAM) -> int:
        """Execute a non-NOP STORE; returns the ``out_store_nbytes`` increment."""
        cfg = self.cfg
        if insn.memory_type != MemType.OUT:
            mt = insn.memory_type
            name = MemType(mt).name if mt in MemType._value2member_map_ else str(mt)
            raise SimulatorError(f"STORE supports only memory_type OUT (4), got {name} ({mt})")
        pads = (insn.y_pad_0, insn.y_pad_1, insn.x_pad_0, insn.x_pad_1)
        if any(pads):
            raise SimulatorError(f"STORE padding must be 0, got y_pad/x_pad {pads}")
        x, y = insn.x_size, insn.y_size
        base = insn.sram_base
        depth = cfg.acc_buff_depth
        # The reference reads past the end of its ACC array here without a check.
        if base + x * y > depth:
            raise SimulatorError(
                f"SRAM range [{base}, {base + x * y}) exceeds the ACC depth {depth}")
        out_elem = cfg.out_elem_bytes
        dst = dram.view2d(insn.dram_base * out_elem, y, x * out_elem, insn.x_stride * out_elem)
        if y and x:
            # Truncation to OUT_WIDTH = 8 bits keeps byte 0 of each little-endian int32 lane.
            step = cfg.acc_width // cfg.out_width
            src = self.acc2[base:base + x * y].view(np.uint8)[:, ::step].reshape(y, x * out_elem)
            if y > 1 and insn.x_stride < x:
                for r in range(y):  # overlapping rows: later rows win, as in the reference
                    dst[r] = src[r]
            else:
                dst[...] = src
        return x * y * out_elem
