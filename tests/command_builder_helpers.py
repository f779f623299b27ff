"""Shared by the command builder tests: the default configuration, the staging address,
the conformance data and the TVM tutorial programs of docs/isa.md §5.7 written with a
``CommandBuilder``."""

from __future__ import annotations

from pathlib import Path

from vta_mlir.config import VTAConfig
from vta_mlir.isa import AluKind, Insn, MemInsn, MemType, Uop, module_of
from vta_mlir.runtime.command_builder import CommandBuilder
from vta_mlir.runtime.uop_kernel import KernelMode, UopKernel

DATA = Path(__file__).parent / "data" / "conformance"
DEFAULT = VTAConfig.shipped("default")
STAGING = 0x40000


# ---------------------------------------------------------------------------------------------
# Programs of docs/isa.md §5.7


def vector_add(b: CommandBuilder, a: int, bb: int, c: int, n: int = 64) -> None:
    """``vta_get_started``: C = int8(A + B) over ``n`` accumulator elements."""
    b.load_buffer_2d(a, 0, n, 1, n, 0, 0, 0, 0, 0, MemType.ACC)
    b.load_buffer_2d(bb, 0, n, 1, n, 0, 0, 0, 0, n, MemType.ACC)
    b.begin_kernel()
    b.loop_begin(n, 1, 1, 0)
    b.uop_push(KernelMode.ALU, False, 0, n, 0, AluKind.ADD.opcode, False, 0)
    b.loop_end()
    b.push_alu(b.end_kernel())
    b.dep_push(2, 3)
    b.dep_pop(2, 3)
    b.store_buffer_2d(0, MemType.OUT, c, 0, n, 1, n)


def matrix_multiply(b: CommandBuilder, a: int, w: int, c: int, kb: int = 16, nb: int = 16) -> None:
    """``matrix_multiply``: the calls of the lowered IR of §5.4 (b)."""
    b.begin_kernel()
    b.loop_begin(nb, 1, 0, 0)
    b.uop_push(KernelMode.GEMM, True, 0, 0, 0)
    b.loop_end()
    b.push_gemm(b.end_kernel())
    b.dep_push(2, 1)
    gemm = None
    for ko in range(kb):
        b.dep_pop(2, 1)
        b.load_buffer_2d(a, ko, 1, 1, 1, 0, 0, 0, 0, 0, MemType.INP)
        b.load_buffer_2d(w, ko, 1, nb, kb, 0, 0, 0, 0, 0, MemType.WGT)
        b.dep_push(1, 2)
        b.dep_pop(1, 2)
        if gemm is None:  # the call site's kernel is recorded once, then reused
            b.begin_kernel()
            b.loop_begin(nb, 1, 0, 1)
            b.uop_push(KernelMode.GEMM, False, 0, 0, 0)
            b.loop_end()
            gemm = b.end_kernel()
        b.push_gemm(gemm)
        b.dep_push(2, 1)
    b.dep_push(2, 3)
    b.dep_pop(2, 1)
    b.dep_pop(2, 3)
    b.store_buffer_2d(0, MemType.OUT, c, 0, nb, 1, nb)


# ---------------------------------------------------------------------------------------------
# Commands and queries the rule tests share


def token_balance(insns: list[Insn]) -> dict[str, tuple[int, int]]:
    """(pushes, pops) of each token queue (docs/isa.md §3.2 flag table)."""
    counts = {q: [0, 0] for q in ("l2g", "g2l", "g2s", "s2g")}
    for insn in insns:
        m = module_of(insn)
        prev_q, next_q = {"load": (None, "l2g"), "compute": ("g2l", "g2s"),
                          "store": ("s2g", None)}[m]
        pop_prev_q, pop_next_q = {"load": (None, "g2l"), "compute": ("l2g", "s2g"),
                                  "store": ("g2s", None)}[m]
        if insn.push_prev_dep:
            counts[prev_q][0] += 1
        if insn.push_next_dep:
            counts[next_q][0] += 1
        if insn.pop_prev_dep:
            counts[pop_prev_q][1] += 1
        if insn.pop_next_dep:
            counts[pop_next_q][1] += 1
    return {q: (a, b) for q, (a, b) in counts.items()}


def acc_load(b: CommandBuilder, sram: int = 0) -> None:
    b.load_buffer_2d(0x1000, 0, 1, 1, 1, 0, 0, 0, 0, sram, MemType.ACC)


def inp_load(b: CommandBuilder) -> None:
    b.load_buffer_2d(0x1000, 0, 1, 1, 1, 0, 0, 0, 0, 0, MemType.INP)


def uop_loads(insns: list[Insn]) -> list[MemInsn]:
    return [x for x in insns if isinstance(x, MemInsn) and not x.is_store
            and x.memory_type == MemType.UOP and x.x_size]


def distinct_alu_kernels(count: int, size: int, acc_elems: int) -> list[UopKernel]:
    """ALU ADD-immediate kernels whose destination patterns differ (odd strides mod acc_elems)."""
    return [UopKernel.alu(AluKind.ADD, [Uop((j * (2 * i + 1)) % acc_elems, 0) for j in range(size)],
                          use_imm=True, imm=i + 1) for i in range(count)]
