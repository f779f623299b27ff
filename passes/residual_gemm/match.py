"""The residual adds ``vta-residual-gemm`` rewrites: an ``i8`` DRAM tensor sign-extended into
an accumulator SRAM buffer (LOAD ACC_8BIT) and added element by element to another accumulator
tile (an ALU add with a tensor operand)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import MemRefType, i8, i32
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta_positions import Sram, sram_space

__all__ = ["ResidualLoad", "match_residual", "qualifies"]


@dataclass(frozen=True)
class ResidualLoad:
    """The accumulator buffer ``buffer`` holds a residual: ``loads`` sign-extend int8 DRAM
    tiles into it (or into a subview of it), ``adds`` add it (or a subview) in place to another
    accumulator tile.  ``views`` are the subviews of ``buffer`` the loads and adds go through."""

    buffer: memref.AllocOp
    loads: tuple[linalg.GenericOp, ...]
    adds: tuple[linalg.GenericOp, ...]
    views: tuple[memref.SubviewOp, ...]


def qualifies(cfg: VTAConfig) -> bool:
    """An identity weight tile adds an input tensor element to an accumulator element lane for
    lane when the two have the same lanes, and its int8 ``1`` is exact."""
    return cfg.block_in == cfg.block_out and cfg.inp_width == 8 and cfg.wgt_width == 8 \
        and cfg.acc_width == 32


def _identity_maps(op: linalg.GenericOp) -> bool:
    return all(m.data == AffineMap.identity(m.data.num_dims) for m in op.indexing_maps.data)


def _is_load(op: Operation, view: SSAValue) -> bool:
    """``linalg.generic ins(%dram : i8) outs(view) { extsi }`` with identity maps."""
    if not isinstance(op, linalg.GenericOp) or len(op.inputs) != 1 or len(op.outputs) != 1:
        return False
    src = op.inputs[0]
    st = src.type
    if op.outputs[0] is not view or sram_space(st) is not None or not isinstance(
            st, MemRefType) or st.element_type != i8 or not _identity_maps(op):
        return False
    body = list(op.body.block.ops)
    return (len(body) == 2 and isinstance(body[0], arith.ExtSIOp)
            and body[0].input is op.body.block.args[0]
            and isinstance(body[1], linalg.YieldOp)
            and tuple(body[1].operands) == (body[0].result,))


def _is_add(op: Operation, view: SSAValue) -> bool:
    """``linalg.generic ins(%a, view) outs(%a) { addi }`` (either input order), identity maps,
    ``%a`` another accumulator tile."""
    if not isinstance(op, linalg.GenericOp) or len(op.inputs) != 2 or len(op.outputs) != 1:
        return False
    ins = list(op.inputs)
    if view not in ins or op.outputs[0] not in ins or op.outputs[0] is view:
        return False
    if sram_space(op.outputs[0].type) != Sram.ACC or not _identity_maps(op):
        return False
    body = list(op.body.block.ops)
    args = op.body.block.args
    return (len(body) == 2 and isinstance(body[0], arith.AddiOp)
            and {body[0].lhs, body[0].rhs} == {args[0], args[1]}
            and isinstance(body[1], linalg.YieldOp)
            and tuple(body[1].operands) == (body[0].result,))


def match_residual(buffer: memref.AllocOp) -> ResidualLoad | None:
    """The residual held in the accumulator buffer ``buffer``, when every use of it (directly
    or through one subview) is such a load or such an add, and there is at least one of
    each."""
    t = buffer.memref.type
    if sram_space(t) != Sram.ACC or not isinstance(t, MemRefType) or t.element_type != i32:
        return None
    loads: list[linalg.GenericOp] = []
    adds: list[linalg.GenericOp] = []
    views: list[memref.SubviewOp] = []

    def classify(user: Operation, value: SSAValue) -> bool:
        if _is_load(user, value):
            assert isinstance(user, linalg.GenericOp)
            loads.append(user)
            return True
        if _is_add(user, value):
            assert isinstance(user, linalg.GenericOp)
            adds.append(user)
            return True
        return False

    for use in buffer.memref.uses:
        user = use.operation
        if isinstance(user, memref.SubviewOp) and user.source is buffer.memref:
            views.append(user)
            if not all(classify(u.operation, user.result) for u in user.result.uses):
                return None
        elif not classify(user, buffer.memref):
            return None
    if not loads or not adds:
        return None
    return ResidualLoad(buffer, tuple(loads), tuple(adds), tuple(views))
