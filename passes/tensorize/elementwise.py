"""Element-wise ALU operations for ``vta-tensorize``: a ``linalg.generic`` in place on an
accumulator buffer whose body is one ALU operation becomes a nest around ``vta.alu``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, MemRefType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import BlockArgument, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import IMM_MAX, IMM_MIN, AluOp
from vta_mlir.dialects.vta_positions import Sram, space_text, sram_element_shape, sram_space

from ..analysis.alu_ops import ARITH_ALU_OPS, COMMUTATIVE
from ..analysis.sram_views import HostIndex, constant_int
from ..analysis.unsupported import Unsupported
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

__all__ = ["match_elementwise"]


_SUPPORTED_ALU = (
    "arith.minsi, arith.maxsi, arith.addi, arith.muli, arith.shrsi, or arith.subi / arith.shli "
    "by a constant"
)


@dataclass(frozen=True)
class _Operand:
    """An operand of the element-wise operation: the destination element itself, another
    accumulator element (buffer and subscripts) or a constant."""

    is_self: bool = False
    buffer: SSAValue | None = None
    subscripts: tuple[AffineExpr, ...] = ()
    const: int | None = None


def _classify_operand(
    value: SSAValue,
    op: linalg.GenericOp,
    maps: Sequence[AffineMap],
    out_map: AffineMap,
) -> _Operand:
    out = op.outputs[0]
    block = op.body.block
    if isinstance(value, BlockArgument) and value.block is block:
        index = value.index
        operand = op.operands[index]
        m = maps[index]
        if operand is out and m == out_map:
            return _Operand(is_self=True)
        return _Operand(buffer=operand, subscripts=m.results)
    const = constant_int(value)
    if const is not None:
        return _Operand(const=const)
    raise Unsupported(
        "an operand of the element-wise operation must be an element of a buffer operand or "
        "an integer arith.constant"
    )


def match_elementwise(op: linalg.GenericOp, cfg: VTAConfig, index: HostIndex) -> list[Nest]:
    if len(op.outputs) != 1 or op.res:
        raise Unsupported("an element-wise op on SRAM writes exactly one accumulator buffer")
    out = op.outputs[0]
    for v in op.operands:
        space = sram_space(v.type)
        if space != Sram.ACC:
            where = space_text(space) if space is not None else "DRAM"
            raise Unsupported(
                f"an element-wise op reads and writes {space_text(Sram.ACC)} buffers only, got "
                f"a {where} operand ({v.type})"
            )
        check_buffer(v, Sram.ACC, cfg, "element-wise operand")
    for it in op.iterator_types.data:
        if it.data != linalg.IteratorType.PARALLEL:
            raise Unsupported(
                f"an element-wise op has only parallel iterators, got '{it.data.value}' (a "
                "reduction over accumulator elements is not an ALU operation)"
            )
    maps = [m.data for m in op.indexing_maps.data]
    for m, v in zip(maps, op.operands, strict=True):
        assert isinstance(v.type, MemRefType)
        if m.num_symbols or len(m.results) != len(v.type.get_shape()):
            raise Unsupported("an indexing map has symbols or does not match its buffer's rank")
    out_map = maps[-1]

    block = op.body.block
    body = [o for o in block.ops if not isinstance(o, linalg.YieldOp | arith.ConstantOp)]
    yield_op = block.last_op
    if len(body) != 1:
        names = ", ".join(o.name for o in body) or "nothing"
        raise Unsupported(
            f"the body of an element-wise op must be exactly one ALU operation ({_SUPPORTED_ALU})"
            f", got {names}"
        )
    compute = body[0]
    if type(compute) not in ARITH_ALU_OPS:
        raise Unsupported(
            f"'{compute.name}' is not an ALU operation (supported: {_SUPPORTED_ALU})"
        )
    if (
        not isinstance(yield_op, linalg.YieldOp)
        or len(yield_op.operands) != 1
        or yield_op.operands[0] is not compute.results[0]
    ):
        raise Unsupported("the body must yield the result of its ALU operation")
    acc_type = IntegerType(cfg.acc_width)
    if compute.results[0].type != acc_type:
        raise Unsupported(
            f"the ALU operates on {acc_type}, got '{compute.name}' on {compute.results[0].type}"
        )
    kind, negated = ARITH_ALU_OPS[type(compute)]
    # `subi`/`shli` by a constant are rewritten to `add`/`shr` of its negation: not swappable.
    commutative = kind in COMMUTATIVE and not negated
    lhs, rhs = (_classify_operand(v, op, maps, out_map) for v in compute.operands)
    if not lhs.is_self and commutative and rhs.is_self:
        lhs, rhs = rhs, lhs
    if not lhs.is_self:
        raise Unsupported(
            f"'{compute.name}' must update the output element in place (its first operand the "
            "output element, the other a constant or an accumulator element): VTA's ALU "
            "computes acc[d] = op(acc[d], imm or acc[s])"
        )
    imm: int | None = None
    if rhs.const is not None:
        imm = rhs.const
        if isinstance(compute, arith.SubiOp | arith.ShLIOp):
            imm = -imm
        if not IMM_MIN <= imm <= IMM_MAX:
            raise Unsupported(
                f"immediate {imm} of '{compute.name}' does not fit the signed 16-bit ALU "
                f"immediate ({IMM_MIN}..{IMM_MAX})"
            )
    elif isinstance(compute, arith.SubiOp | arith.ShLIOp):
        what = "subtraction" if isinstance(compute, arith.SubiOp) else "left shift"
        raise Unsupported(
            f"a {what} of a tensor operand is unsupported: VTA's ALU has no such operation "
            "(only a constant operand can be negated into add / shr)"
        )

    # Element dimensions: all but the two lane dimensions of the accumulator element.
    batch_dim = dim_of(out_map.results[-2], "the batch subscript of the output")
    lane_dim = dim_of(out_map.results[-1], "the block_out subscript of the output")
    lanes = (out_map.results[-2], out_map.results[-1])
    if batch_dim == lane_dim:
        raise Unsupported("the two innermost subscripts of the output must be distinct dims")
    lane_sizes = sram_element_shape(Sram.ACC, cfg)
    for m in maps:
        # A lane of size 1 (the batch lane when BATCH is 1) may also be written as 0.
        if any(
            e != lane and not (n == 1 and e == AffineExpr.constant(0))
            for e, lane, n in zip(m.results[-2:], lanes, lane_sizes, strict=True)
        ):
            raise Unsupported(
                "every operand must be read at the output's lane (its two innermost subscripts "
                "the same as the output's): the ALU works lane by lane"
            )
        for e in m.results[:-2]:
            if e.used_dims() & {batch_dim, lane_dim}:
                raise Unsupported(
                    f"element subscript {e} uses a lane dimension of the accumulator element"
                )
    num_dims = op.get_num_loops()
    element_dims = [d for d in range(num_dims) if d not in (batch_dim, lane_dim)]
    subscripts: list[tuple[AffineExpr, int]] = []
    for m, v in zip(maps, op.operands, strict=True):
        assert isinstance(v.type, MemRefType)
        shape = leading_shape(v.type, Sram.ACC, cfg)
        subscripts += list(zip(m.results[:-2], shape, strict=True))
    extents = infer_extents(element_dims, subscripts)
    dst = sram_operand(out, Sram.ACC, cfg, "element-wise output", index)
    accesses = {"dst": linearise(out_map.results[:-2], dst.strides)}
    offsets = {"dst": dst.offset}
    src = dst
    if rhs.buffer is not None:
        src = sram_operand(rhs.buffer, Sram.ACC, cfg, "element-wise operand", index)
        accesses["src"] = linearise(rhs.subscripts[:-2], src.strides)
        offsets["src"] = src.offset
    elif rhs.is_self:
        # x op x: the source is the destination element itself.
        accesses["src"] = accesses["dst"]
        offsets["src"] = dst.offset
    loop_extents, positions = loop_nest_for(op, element_dims, extents, accesses)
    if imm is not None:
        return [
            Nest(
                loop_extents,
                positions,
                lambda p: AluOp(kind, dst.base, p["dst"], imm=imm),
                offsets,
            )
        ]
    return [
        Nest(
            loop_extents,
            positions,
            lambda p: AluOp(kind, dst.base, p["dst"], src=src.base, src_pos=p["src"]),
            offsets,
        )
    ]

