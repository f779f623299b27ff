"""The analysis of ``vta-tensorize``: what every linalg op on SRAM buffers of a module becomes.

:func:`plan_tensorize` recognises each op's form — a fill of an accumulator, a GEMM
contraction, a convolution contraction (its loops ordered for one micro-kernel, :mod:`.conv`),
an element-wise ALU operation (:mod:`.elementwise`) — and the nests it becomes, before anything
is rewritten: an op that fits none of them is reported at the op and the module is left as it
was.  The patterns of :mod:`.patterns` then rewrite each op of their own form.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, ModuleOp
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineExpr

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import IMM_MAX, IMM_MIN, AluKind, AluOp, GemmOp, GemmResetOp
from vta_mlir.dialects.vta_config_attr import get_config
from vta_mlir.dialects.vta_positions import Sram, space_text, sram_space

from ..analysis.sram_views import HostIndex, constant_int
from ..analysis.unsupported import Unsupported, report_unsupported
from .conv import conv_schedule
from .elementwise import match_elementwise
from .nest import (
    Nest,
    check_buffer,
    dim_of,
    infer_extents,
    leading_shape,
    linearise,
    loop_nest_for,
    sram_operand,
)

__all__ = ["Form", "TensorizePlan", "Tensorization", "plan_tensorize"]


class Form(StrEnum):
    """The forms of linalg op ``vta-tensorize`` lowers, one pattern each."""

    FILL = "fill"
    CONTRACTION = "contraction"
    CONV = "conv"
    ELEMENTWISE = "elementwise"


@dataclass(frozen=True)
class Tensorization:
    """What one op becomes: its form and the nests that replace it, in order."""

    form: Form
    nests: tuple[Nest, ...]


@dataclass
class TensorizePlan:
    """Every linalg op on SRAM buffers of a module with what it becomes, and the host index
    values their positions are forms over."""

    index: HostIndex
    targets: dict[Operation, Tensorization]


# ---------------------------------------------------------------------------------------------
# linalg.fill


def _match_fill(op: linalg.FillOp, cfg: VTAConfig, index: HostIndex) -> Tensorization:
    if len(op.outputs) != 1 or len(op.inputs) != 1:
        raise Unsupported("a fill of SRAM takes one value and one output buffer")
    out = op.outputs[0]
    space = sram_space(out.type)
    if space != Sram.ACC:
        where = space_text(space) if space is not None else "DRAM"
        raise Unsupported(
            f"fills a {where} buffer: VTA initialises only accumulator "
            f"({space_text(Sram.ACC)}) buffers"
        )
    t = check_buffer(out, Sram.ACC, cfg, "fill output")
    buf = sram_operand(out, Sram.ACC, cfg, "fill output", index)
    value = constant_int(op.inputs[0])
    if value is None:
        raise Unsupported("the fill value must be an integer arith.constant")
    if not IMM_MIN <= value <= IMM_MAX:
        raise Unsupported(
            f"fill value {value} does not fit the signed 16-bit ALU immediate "
            f"({IMM_MIN}..{IMM_MAX})"
        )
    shape = leading_shape(t, Sram.ACC, cfg)
    looped = [i for i, n in enumerate(shape) if n > 1]
    subscripts = [AffineExpr.constant(0)] * len(shape)
    for j, i in enumerate(looped):
        subscripts[i] = AffineExpr.dimension(j)
    extents = tuple(shape[i] for i in looped)
    dst = linearise(subscripts, buf.strides).simplify(len(looped), 0)
    offsets = {"dst": buf.offset}
    nests = [
        Nest(extents, {"dst": dst}, lambda p: GemmResetOp(buf.base, p["dst"]), offsets),
    ]
    if value:
        # Reset, then add the value: the ALU's immediate is the only way to write a constant.
        nests.append(
            Nest(
                extents,
                {"dst": dst},
                lambda p: AluOp(AluKind.ADD, buf.base, p["dst"], imm=value),
                offsets,
            )
        )
    return Tensorization(Form.FILL, tuple(nests))



# ---------------------------------------------------------------------------------------------
# GEMM contraction


def _is_extsi_of(value: SSAValue, arg: BlockArgument) -> bool:
    owner = value.owner
    return isinstance(owner, arith.ExtSIOp) and owner.input is arg


def _check_contraction_body(op: linalg.GenericOp, cfg: VTAConfig) -> None:
    block = op.body.block
    x, w, a = block.args
    expected = "acc + extsi(x) * extsi(w) (arith.extsi, arith.extsi, arith.muli, arith.addi)"
    ops = list(block.ops)
    names = ", ".join(o.name for o in ops[:-1]) or "nothing"
    acc_type = IntegerType(cfg.acc_width)
    if (
        len(ops) != 5
        or not isinstance(ops[-1], linalg.YieldOp)
        or len(ops[-1].operands) != 1
        or a.type != acc_type
    ):
        raise Unsupported(f"the contraction body must compute {expected}, got {names}")
    add = ops[-1].operands[0].owner
    ok = isinstance(add, arith.AddiOp) and add.result.type == acc_type
    if ok:
        assert isinstance(add, arith.AddiOp)
        mul_value = add.rhs if add.lhs is a else add.lhs if add.rhs is a else None
        mul = mul_value.owner if mul_value is not None else None
        ok = isinstance(mul, arith.MuliOp) and (
            (_is_extsi_of(mul.lhs, x) and _is_extsi_of(mul.rhs, w))
            or (_is_extsi_of(mul.lhs, w) and _is_extsi_of(mul.rhs, x))
        )
    if not ok:
        raise Unsupported(f"the contraction body must compute {expected}, got {names}")


def _match_contraction(
    op: linalg.GenericOp, cfg: VTAConfig, index: HostIndex
) -> Tensorization:
    if len(op.inputs) != 2 or len(op.outputs) != 1:
        raise Unsupported(
            "a GEMM contraction reads one input and one weight buffer and accumulates into one "
            f"accumulator buffer, got {len(op.inputs)} input(s) and {len(op.outputs)} output(s)"
        )
    spaces = [sram_space(v.type) for v in op.inputs]
    if spaces == [Sram.INP, Sram.WGT]:
        x_idx, w_idx = 0, 1
    elif spaces == [Sram.WGT, Sram.INP]:
        x_idx, w_idx = 1, 0
    else:
        got = ", ".join(space_text(s) if s is not None else "DRAM" for s in spaces)
        raise Unsupported(
            f"a GEMM contraction reads a {space_text(Sram.INP)} and a {space_text(Sram.WGT)} "
            f"buffer, got {got}"
        )
    x, w, acc = op.inputs[x_idx], op.inputs[w_idx], op.outputs[0]
    if sram_space(acc.type) != Sram.ACC:
        raise Unsupported(
            f"a GEMM contraction accumulates into a {space_text(Sram.ACC)} buffer, got "
            f"{acc.type}"
        )
    types = {
        "inp": check_buffer(x, Sram.INP, cfg, "contraction input"),
        "wgt": check_buffer(w, Sram.WGT, cfg, "contraction weight"),
        "acc": check_buffer(acc, Sram.ACC, cfg, "contraction output"),
    }
    # The body's first two arguments follow the operand order; the product is symmetric.
    _check_contraction_body(op, cfg)
    maps = op.indexing_maps.data
    amap = {"inp": maps[x_idx].data, "wgt": maps[w_idx].data, "acc": maps[2].data}
    for k, m in amap.items():
        if m.num_symbols:
            raise Unsupported(f"the {k} indexing map has symbols")
        if len(m.results) != len(types[k].get_shape()):
            raise Unsupported(f"the {k} indexing map does not match the buffer's rank")

    # The intrinsic: X(.., bb, ii), W(.., oo, ii), Acc(.., bb, oo).
    bb = dim_of(amap["inp"].results[-2], "the batch subscript of the input")
    ii = dim_of(amap["inp"].results[-1], "the block_in subscript of the input")
    oo = dim_of(amap["wgt"].results[-2], "the block_out subscript of the weight")
    intrinsic = (
        f"Acc(..., bb, oo) += X(..., bb, ii) * W(..., oo, ii) over "
        f"{cfg.batch}x{cfg.block_in}x{cfg.block_out} (BATCH x BLOCK_IN x BLOCK_OUT)"
    )
    if (
        len({bb, ii, oo}) != 3
        or dim_of(amap["wgt"].results[-1], "the block_in subscript of the weight") != ii
        or dim_of(amap["acc"].results[-2], "the batch subscript of the output") != bb
        or dim_of(amap["acc"].results[-1], "the block_out subscript of the output") != oo
    ):
        raise Unsupported(f"the innermost subscripts are not the tensor intrinsic {intrinsic}")
    inner = {bb, ii, oo}
    leading: dict[str, tuple[AffineExpr, ...]] = {k: m.results[:-2] for k, m in amap.items()}
    for k, exprs in leading.items():
        for e in exprs:
            if e.used_dims() & inner:
                raise Unsupported(
                    f"the {k} element subscript {e} uses an intrinsic dimension; the innermost "
                    f"dimensions must be exactly the tensor intrinsic {intrinsic}"
                )
    num_dims = op.get_num_loops()
    element_dims = [d for d in range(num_dims) if d not in inner]
    shapes = {k: leading_shape(t, Sram(k), cfg) for k, t in types.items()}
    subscripts = [
        (e, n) for k in ("acc", "inp", "wgt") for e, n in zip(leading[k], shapes[k], strict=True)
    ]
    extents = infer_extents(element_dims, subscripts)
    bufs = {
        "inp": sram_operand(x, Sram.INP, cfg, "contraction input", index),
        "wgt": sram_operand(w, Sram.WGT, cfg, "contraction weight", index),
        "acc": sram_operand(acc, Sram.ACC, cfg, "contraction output", index),
    }
    accesses = {k: linearise(leading[k], bufs[k].strides) for k in ("acc", "inp", "wgt")}
    listed = 0
    schedule = conv_schedule(leading, element_dims, extents, accesses["acc"], num_dims, cfg)
    if schedule is not None:
        element_dims, listed = schedule
    loop_extents, positions = loop_nest_for(op, element_dims, extents, accesses)
    nest = Nest(
        loop_extents,
        positions,
        lambda p: GemmOp(
            bufs["acc"].base, p["acc"], bufs["inp"].base, p["inp"], bufs["wgt"].base, p["wgt"]
        ),
        {k: b.offset for k, b in bufs.items()},
        listed,
    )
    # A convolution (its loops ordered for one micro-kernel) has a pattern of its own.
    return Tensorization(Form.CONTRACTION if schedule is None else Form.CONV, (nest,))


# ---------------------------------------------------------------------------------------------
# Dispatch


_HANDLED = (
    "vta-tensorize lowers linalg.fill of an accumulator, GEMM contractions and element-wise "
    "ALU operations (linalg.generic)"
)


def _match(op: Operation, cfg: VTAConfig, index: HostIndex) -> Tensorization:
    if isinstance(op, linalg.FillOp):
        return _match_fill(op, cfg, index)
    if not isinstance(op, linalg.GenericOp):
        raise Unsupported(f"this linalg op is not supported on VTA SRAM buffers: {_HANDLED}")
    if op.res:
        raise Unsupported("linalg on tensors is not supported on VTA SRAM buffers")
    if any(sram_space(v.type) in (Sram.INP, Sram.WGT) for v in op.operands):
        return _match_contraction(op, cfg, index)
    return Tensorization(Form.ELEMENTWISE, tuple(match_elementwise(op, cfg, index)))


def _is_target(op: Operation) -> bool:
    """A linalg op with an operand in SRAM."""
    return (
        op.name.startswith("linalg.")
        and not isinstance(op, linalg.YieldOp)
        and any(sram_space(v.type) is not None for v in op.operands)
    )


def plan_tensorize(module: ModuleOp) -> TensorizePlan:
    """What every linalg op on SRAM buffers of ``module`` becomes; the first op that cannot
    be tensorized is reported (nothing has changed then)."""
    index = HostIndex()
    targets: dict[Operation, Tensorization] = {}
    for op in module.walk():
        if _is_target(op):
            try:
                targets[op] = _match(op, get_config(op), index)
            except Unsupported as exc:
                report_unsupported(op, "cannot be tensorized for VTA", exc)
    return TensorizePlan(index, targets)
