"""Micro-kernels of a host program: ``vta.uop_loop`` / ``vta.gemm`` / ``vta.alu`` as
:class:`~vta_mlir.runtime.uop_kernel.UopKernel` s.

A micro-kernel (an outermost ``vta.uop_loop``, or a lone ``vta.gemm`` / ``vta.alu``) is one
``VTAPushGEMMOp`` / ``VTAPushALUOp`` of TVM's runtime (``vta-isa.md`` §4.4): its micro-ops in
order, its loop levels with their index factors, one mode.  A micro-op's indices are SRAM
element indices: the buffer's base in its SRAM plus the position written on the op, which may
depend on host values (``%acc[%o]``).

:func:`kernel_template` analyses the op once.  A :class:`KernelTemplate` then makes the
``UopKernel`` for given values of the host values it depends on, checking that every micro-op
stays inside its buffers over all loop iterations, and remembers it: pushing the same
kernel op with the same values hands the command builder the same object under the same key,
so micro-ops already resident in the micro-op SRAM are reused as the runtime's per-call-site
cache does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from xdsl.ir import Operation, SSAValue

from vta_mlir.dialects.vta import AluOp, GemmOp, Sram, UopLoopOp, kernel_uops
from vta_mlir.errors import RuntimeBuildError
from vta_mlir.host.exprs import Operand
from vta_mlir.host.layout import SramBuffer, value_label
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.isa import Uop
from vta_mlir.runtime.uop_kernel import KernelMode, UopKernel, UopLoop

__all__ = ["KernelTemplate", "kernel_template"]

_FIELDS = ("dst", "src", "wgt")


@dataclass(frozen=True)
class _Index:
    """One micro-op index: ``buffer base + constant + key[slot]`` (slot 0: no host value)."""

    base: int
    constant: int
    slot: int
    count: int
    reach: int
    what: str


@dataclass
class KernelTemplate:
    """One kernel op, ready to make its :class:`UopKernel` for the host values ``names``
    (Python locals of the generated program) it depends on."""

    op: Operation
    mode: KernelMode
    reset: bool
    alu_opcode: int
    use_imm: bool
    imm: int
    loops: tuple[UopLoop, ...]
    uops: list[tuple[_Index | None, _Index | None, _Index | None]]
    names: list[str]
    memo: dict[tuple[int, ...], UopKernel] = field(default_factory=dict)

    @property
    def is_static(self) -> bool:
        """True when the kernel depends on no host value."""
        return not self.names

    def make(self, key: tuple[int, ...]) -> UopKernel:
        """The kernel for ``key`` = ``(kernel number, *values of names)``, memoised."""
        out: list[Uop] = []
        for i, indices in enumerate(self.uops):
            values = []
            for index in indices:
                if index is None:
                    values.append(0)
                    continue
                pos = index.constant + (key[index.slot] if index.slot else 0)
                if pos < 0 or pos + index.reach >= index.count:
                    top = pos + index.reach
                    report_error(self.op, f"micro-op {i} addresses elements [{pos}, {top}] of "
                                          f"{index.what}, which holds {index.count}")
                values.append(index.base + pos)
            out.append(Uop(*values))
        try:
            kernel = UopKernel(self.mode, tuple(out), self.loops, reset=self.reset,
                               alu_opcode=self.alu_opcode, use_imm=self.use_imm, imm=self.imm)
        except RuntimeBuildError as e:
            report_error(self.op, str(e))
        self.memo[key] = kernel
        return kernel


def kernel_template(
    op: GemmOp | AluOp | UopLoopOp,
    resolve: Callable[[SSAValue, Operation], Operand],
    sram_of: Callable[[SSAValue, Operation, Sram], SramBuffer],
) -> KernelTemplate:
    """Analyse a kernel op; ``resolve`` gives the host value of an index operand, ``sram_of``
    the buffer of an SRAM operand (checking its space)."""
    loops: list[UopLoopOp] = []
    if isinstance(op, UopLoopOp):
        loops = op.loops()
        if len(loops) > 2:
            report_error(op, f"a micro-kernel has at most 2 loop levels, got {len(loops)}")
    uops = kernel_uops(op)
    if not uops:
        report_error(op, "a micro-kernel needs at least one vta.gemm or vta.alu")
    first = uops[0]
    mode = KernelMode.GEMM if isinstance(first, GemmOp) else KernelMode.ALU
    for u in uops:
        if isinstance(u, GemmOp) != (mode == KernelMode.GEMM):
            report_error(u, "a micro-kernel holds one kind of micro-op: vta.gemm and vta.alu "
                            "are mixed")
        if isinstance(u, GemmOp) and isinstance(first, GemmOp) and u.is_reset != first.is_reset:
            report_error(u, "all vta.gemm micro-ops of a kernel must agree on reset")
        if isinstance(u, AluOp) and isinstance(first, AluOp) and \
                (u.kind, u.use_imm, u.imm_value) != (first.kind, first.use_imm, first.imm_value):
            report_error(u, "all vta.alu micro-ops of a kernel must share the operation and "
                            "the immediate")
    gemm = mode == KernelMode.GEMM
    loop_records = tuple(
        UopLoop(lp.field("extent"), lp.field("dst_factor"), lp.field("src_factor"),
                lp.field("wgt_factor") if gemm else 0)
        for lp in loops
    )
    reach = {k: sum((lp.extent - 1) * getattr(lp, f"{k}_factor") for lp in loop_records)
             for k in _FIELDS}
    names: list[str] = []
    records: list[tuple[_Index | None, _Index | None, _Index | None]] = []
    for u in uops:
        indices: dict[str, _Index] = {}
        for kind, buf, index, constant, space in u.operand_positions():
            sram = sram_of(buf, u, space)
            slot = 0
            if index is not None:
                value = resolve(index, u)
                if isinstance(value, int):
                    constant += value
                else:
                    if value not in names:
                        names.append(value)
                    slot = names.index(value) + 1
            indices[kind] = _Index(sram.base, constant, slot, sram.count, reach[kind],
                                   f"{value_label(buf, 'the buffer')} in {space.value}")
        if isinstance(u, AluOp) and u.use_imm:
            # The hardware computes (and range-checks) the source index even with an
            # immediate; TVM passes the destination's index there.
            indices["src"] = replace(indices["dst"], reach=reach["src"])
        records.append((indices.get("dst"), indices.get("src"), indices.get("wgt")))
    alu = first if isinstance(first, AluOp) else None
    return KernelTemplate(
        op=op,
        mode=mode,
        reset=isinstance(first, GemmOp) and first.is_reset,
        alu_opcode=int(alu.kind.opcode) if alu else 0,
        use_imm=bool(alu and alu.use_imm),
        imm=alu.imm_value if alu else 0,
        loops=loop_records,
        uops=records,
        names=names,
    )
