"""The residuals ``vta-residual-gemm`` rewrites: an ``i8`` DRAM tensor sign-extended into an
accumulator SRAM buffer (LOAD ACC_8BIT) and added element by element to another accumulator
tile (an ALU add with a tensor operand) — as it is, or rescaled first by ALU operations in place
whose first multiplies it by an int8 immediate."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, i8, i32
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineMap

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta_positions import Sram, sram_space

__all__ = ["RescaledResidual", "ResidualLoad", "match_rescaled", "match_residual", "qualifies"]


@dataclass(frozen=True)
class ResidualLoad:
    """The accumulator buffer ``buffer`` holds a residual: ``loads`` sign-extend int8 DRAM
    tiles into it (or into a subview of it), ``adds`` add it (or a subview) in place to another
    accumulator tile.  ``views`` are the subviews of ``buffer`` the loads and adds go through."""

    buffer: memref.AllocOp
    loads: tuple[linalg.GenericOp, ...]
    adds: tuple[linalg.GenericOp, ...]
    views: tuple[memref.SubviewOp, ...]


@dataclass(frozen=True)
class RescaledResidual:
    """The accumulator buffer ``buffer`` holds a residual that ALU operations rescale in place
    before it is added: each load of ``loads`` (into ``targets[k]``, the buffer or a subview)
    is followed by ``scales[k]``, an in-place multiplication of the same view by the int8
    immediate ``factors[k]``."""

    buffer: memref.AllocOp
    loads: tuple[linalg.GenericOp, ...]
    scales: tuple[linalg.GenericOp, ...]
    factors: tuple[int, ...]
    views: tuple[memref.SubviewOp, ...]


def qualifies(cfg: VTAConfig) -> bool:
    """An identity weight tile adds an input tensor element to an accumulator element lane for
    lane when the two have the same lanes, and its int8 ``1`` is exact."""
    return cfg.block_in == cfg.block_out and cfg.inp_width == 8 and cfg.wgt_width == 8 \
        and cfg.acc_width == 32


def _static_acc(t: Attribute) -> bool:
    """An i32 accumulator SRAM buffer of static shape (an input buffer of the same shape can
    replace it)."""
    return (sram_space(t) == Sram.ACC and isinstance(t, MemRefType) and t.element_type == i32
            and all(d >= 0 for d in t.get_shape()))


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
    if not _static_acc(t):
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


def _int8_factor(op: Operation, view: SSAValue) -> int | None:
    """The immediate of ``linalg.generic ins(view) outs(view) { muli %in, c }`` when it is an
    int8 value other than 0 (an identity weight tile times it is exact), else ``None``."""
    if not isinstance(op, linalg.GenericOp) or tuple(op.inputs) != (view,) or tuple(
            op.outputs) != (view,) or not _identity_maps(op):
        return None
    body = list(op.body.block.ops)
    args = op.body.block.args
    mul = next((o for o in body if isinstance(o, arith.MuliOp)), None)
    if mul is None or len([o for o in body if not isinstance(o, arith.ConstantOp)]) != 2:
        return None
    other = mul.rhs if mul.lhs is args[0] else mul.lhs if mul.rhs is args[0] else None
    if other is None or not isinstance(other.owner, arith.ConstantOp):
        return None
    value = other.owner.value
    if not isinstance(value, IntegerAttr):
        return None
    c = value.value.data
    y = body[-1]
    if not isinstance(y, linalg.YieldOp) or tuple(y.operands) != (mul.result,):
        return None
    return c if -128 <= c <= 127 and c != 0 else None


def _next_user(op: Operation, value: SSAValue) -> Operation | None:
    """The first op after ``op`` in its block that uses ``value``."""
    nxt = op.next_op
    while nxt is not None:
        if value in nxt.operands:
            return nxt
        nxt = nxt.next_op
    return None


def match_rescaled(buffer: memref.AllocOp) -> RescaledResidual | None:
    """The residual of the accumulator buffer ``buffer`` when every use of it (directly or
    through one subview each) is a load, an operation in place or an operand of another op,
    and every load is followed first by a multiplication in place by an int8 immediate."""
    if not _static_acc(buffer.memref.type):
        return None
    values: list[SSAValue] = [buffer.memref]
    views: list[memref.SubviewOp] = []
    for use in buffer.memref.uses:
        user = use.operation
        if isinstance(user, memref.SubviewOp) and user.source is buffer.memref:
            views.append(user)
            values.append(user.result)
    loads: list[linalg.GenericOp] = []
    scales: list[linalg.GenericOp] = []
    factors: list[int] = []
    for value in values:
        for use in value.uses:
            user = use.operation
            if isinstance(user, memref.SubviewOp) and value is buffer.memref:
                continue
            if not _is_load(user, value):
                continue
            assert isinstance(user, linalg.GenericOp)
            scale = _next_user(user, value)
            factor = _int8_factor(scale, value) if scale is not None else None
            if factor is None:
                return None
            assert isinstance(scale, linalg.GenericOp)
            loads.append(user)
            scales.append(scale)
            factors.append(factor)
    if not loads:
        return None
    return RescaledResidual(buffer, tuple(loads), tuple(scales), tuple(factors), tuple(views))
