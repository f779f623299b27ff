"""The VTA simulator: paged DRAM, the four SRAMs, bit-exact functional execution of every
instruction (docs/isa.md §3), deterministic dependency queues and the cycle model
(docs/timing-model.md)."""

from vta_mlir.sim.dram import DRAM
from vta_mlir.sim.functional import Executor, decode_stream
from vta_mlir.sim.simulator import QUEUES, RunResult, Simulator
from vta_mlir.sim.sram import SRAMs

__all__ = ["DRAM", "QUEUES", "SRAMs", "Executor", "RunResult", "Simulator", "decode_stream"]
