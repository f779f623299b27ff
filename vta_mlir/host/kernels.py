"""Micro-kernels of a host program: ``vta.uop_loop`` / ``vta.gemm`` / ``vta.alu`` as
:class:`~vta_mlir.runtime.uop_kernel.UopKernel` s.

A micro-kernel (an outermost ``vta.uop_loop``, or a lone ``vta.gemm`` / ``vta.alu``) is one
``VTAPushGEMMOp`` / ``VTAPushALUOp`` of TVM's runtime (``docs/isa.md`` §4.4): its micro-ops in
order, its loop levels with their index factors, one mode.  A micro-op's indices are SRAM
element indices: the buffer's base in its SRAM plus the position written on the op, which may
depend on host values (``%acc[%o]``).

:func:`kernel_template` analyses the op once.  A :class:`KernelTemplate` then makes the
``UopKernel`` for given values of the host values it depends on, checking that every micro-op
stays inside its buffers over all loop iterations, and remembers it: pushing the same
kernel op with the same values hands the command builder the same object under the same key,
so micro-ops already resident in the micro-op SRAM are reused as the runtime's per-call-site
cache does.

The innermost body of a kernel may hold *micro-op list loops*: ``affine.for`` nests with
constant bounds and step 1 around micro-ops, the loops of the runtime's kernel-recording
closure (``docs/isa.md`` §4.4).  Each iteration appends its micro-ops to the kernel's list, in
program order.  A position inside such loops must be linear in their induction variables plus
host values: the template keeps the coefficients, the host program computes the rest (the
position with every list-loop variable 0) and each key enumerates the whole list, checked
against the buffers and the write-hazard rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from xdsl.dialects import affine
from xdsl.ir import Operation, SSAValue

from vta_mlir.dialects.vta import (
    AluOp,
    GemmResetOp,
    MicroOp,
    UopLoopOp,
    enclosing_list_loops,
    kernel_uops,
    linear_position,
)
from vta_mlir.dialects.vta_positions import Sram, list_loop_bounds
from vta_mlir.errors import RuntimeBuildError
from vta_mlir.host.layout import SramBuffer, value_label
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.isa import Uop
from vta_mlir.runtime.uop_kernel import KernelMode, UopKernel, UopLoop

__all__ = ["KernelTemplate", "Operand", "check_kernel", "kernel_template"]

#: A host value as the generated program names it: a constant, or the name of a local.
Operand = int | str

_FIELDS = ("dst", "src", "wgt")


@dataclass(frozen=True)
class _Index:
    """One micro-op index: ``buffer base + constant + key[slot]`` (slot 0: no host value) plus
    ``Σ inner[j]·iv_j`` over the micro-op's list loops."""

    base: int
    constant: int
    slot: int
    count: int
    reach: int
    what: str
    inner: tuple[int, ...] = ()


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
    #: The micro-op list: (number in ``uops``, list-loop part of the dst, src, wgt indices).
    sequence: list[tuple[int, tuple[int, int, int]]] = field(default_factory=list)
    memo: dict[tuple[int, ...], UopKernel] = field(default_factory=dict)

    @property
    def is_static(self) -> bool:
        """True when the kernel depends on no host value."""
        return not self.names

    def make(self, key: tuple[int, ...]) -> UopKernel:
        """The kernel for ``key`` = ``(kernel number, *values of names)``, memoised."""
        out: list[Uop] = []
        for i, (k, inner) in enumerate(self.sequence):
            values = []
            for index, extra in zip(self.uops[k], inner, strict=True):
                if index is None:
                    values.append(0)
                    continue
                pos = index.constant + extra + (key[index.slot] if index.slot else 0)
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


_LIST_LOOP = "a micro-op list loop (affine.for in a vta.uop_loop)"


def check_kernel(op: MicroOp | UopLoopOp, depth: int) -> None:
    """Check the micro-op list loops of a kernel op before its index arithmetic is computed:
    constant bounds and step 1, at least one iteration, only in the innermost body, at most
    ``depth`` (the UOP SRAM depth, docs/isa.md §4.5) micro-ops in all, and every position linear
    in the list loops' induction variables plus host values.  Errors are reported at the op."""
    if not isinstance(op, UopLoopOp):
        return
    for inner in op.walk():
        if isinstance(inner, affine.ForOp):
            parent = inner.parent_op()
            if isinstance(parent, UopLoopOp) and any(
                    isinstance(o, UopLoopOp) for o in parent.body.block.ops):
                report_error(inner, f"{_LIST_LOOP} goes in the innermost vta.uop_loop body")
            bounds = list_loop_bounds(inner)
            if bounds is None:
                report_error(inner, f"{_LIST_LOOP} has constant bounds and step 1")
            if bounds[1] <= bounds[0]:
                report_error(inner, f"{_LIST_LOOP} runs at least once")
            if inner.results:
                report_error(inner, f"{_LIST_LOOP} carries no values")
        elif isinstance(inner, UopLoopOp) and enclosing_list_loops(inner):
            report_error(inner, f"a vta.uop_loop inside {_LIST_LOOP}: the loop levels of a "
                                "kernel enclose its list loops")
    count = op.micro_op_count()
    if count > depth:
        report_error(op, f"the micro-kernel has {count} micro-ops, more than the UOP SRAM depth "
                         f"{depth}")
    for u in op.micro_ops():
        loops = enclosing_list_loops(u)
        if not loops:
            continue
        for kind, _buf, index, constant, _space in u.operand_positions():
            if linear_position(u, index, constant, op) is None:
                report_error(u, f"the {kind} position is not linear in the induction variables "
                                f"of its micro-op list loops: a position inside a list loop is "
                                f"an affine function of the list-loop variables and of host "
                                f"values")


def kernel_template(
    op: MicroOp | UopLoopOp,
    resolve: Callable[[SSAValue, Operation], Operand],
    sram_of: Callable[[SSAValue, Operation, Sram], SramBuffer],
) -> KernelTemplate:
    """Analyse a kernel op (already checked by :func:`check_kernel`); ``resolve`` gives the
    host value of an index operand (for a position inside list loops: its value with every
    list-loop variable 0), ``sram_of`` the buffer of an SRAM operand (checking its space)."""
    loops: list[UopLoopOp] = []
    if isinstance(op, UopLoopOp):
        loops = op.loops()
        if len(loops) > 2:
            report_error(op, f"a micro-kernel has at most 2 loop levels, got {len(loops)}")
    uops = kernel_uops(op)
    if not uops:
        report_error(op, "a micro-kernel needs at least one vta.gemm or vta.alu")
    first = uops[0]
    mode = KernelMode.ALU if isinstance(first, AluOp) else KernelMode.GEMM
    for u in uops:
        # One GEMM or ALU instruction: its reset flag or ALU opcode covers every micro-op.
        if type(u) is not type(first):
            report_error(u, f"a micro-kernel holds one kind of micro-op: {first.name} and "
                            f"{u.name} are mixed")
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
        in_loops = bool(isinstance(op, UopLoopOp) and enclosing_list_loops(u))
        for kind, buf, index, constant, space in u.operand_positions():
            sram = sram_of(buf, u, space)
            slot = 0
            inner: tuple[int, ...] = ()
            if in_loops:
                lin = linear_position(u, index, constant, op)
                if lin is None:
                    report_error(u, f"the {kind} position is not linear in the induction "
                                    "variables of its micro-op list loops")
                inner = lin.inner
            if index is not None:
                value = resolve(index, u)
                if isinstance(value, int):
                    constant += value
                else:
                    if value not in names:
                        names.append(value)
                    slot = names.index(value) + 1
            indices[kind] = _Index(sram.base, constant, slot, sram.count, reach[kind],
                                   f"{value_label(buf, 'the buffer')} in {space.value}", inner)
        if isinstance(u, AluOp) and u.use_imm:
            # The hardware computes (and range-checks) the source index even with an
            # immediate; TVM passes the destination's index there.
            indices["src"] = replace(indices["dst"], reach=reach["src"])
        records.append((indices.get("dst"), indices.get("src"), indices.get("wgt")))
    sequence: list[tuple[int, tuple[int, int, int]]] = []
    if isinstance(op, UopLoopOp):
        for k, ivals in op.micro_op_sequence():
            d, s, w = (0 if index is None else
                       sum(c * v for c, v in zip(index.inner, ivals, strict=True))
                       for index in records[k])
            sequence.append((k, (d, s, w)))
    else:
        sequence.append((0, (0, 0, 0)))
    alu = first if isinstance(first, AluOp) else None
    return KernelTemplate(
        op=op,
        mode=mode,
        reset=isinstance(first, GemmResetOp),
        alu_opcode=int(alu.kind.opcode) if alu else 0,
        use_imm=bool(alu and alu.use_imm),
        imm=alu.imm_value if alu else 0,
        loops=loop_records,
        uops=records,
        names=names,
        sequence=sequence,
    )
