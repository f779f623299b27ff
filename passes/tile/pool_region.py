"""Pooling regions of ``vta-tile``: recognising and checking the ops of one (the plan and the
emission are :mod:`.pool`'s).

A pooling region has the parts of a convolution region (:mod:`.conv_region`) with a pooling
``linalg.generic`` (``passes/pack/match_pool.py``) in place of the convolution: over
``(b, c, oh, ow, kh, kw, bb, cc)``, maps ``X(b, c, oh*sh + kh, ow*sw + kw, bb, cc)``,
``Window(kh, kw)`` (an alloc that only gives the window its shape), ``Acc(b, c, oh, ow, bb,
cc)``, body ``maxsi`` or ``addi`` of the accumulator and ``extsi`` of the data.  The data is a
packed ``i8`` DRAM tensor (tensor layout) or a padded copy of one (the convolution's idiom,
filled with any ``i8`` value ``v``); the accumulator is initialised by a fill (``f``: a fill and
an ``add`` of the immediate), the epilogue takes immediates or further accumulators loaded from
DRAM (:mod:`.pool_operands`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NoReturn

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from vta_mlir.config import VTAConfig
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.isa import AluKind
from vta_mlir.passes.analysis.alu_ops import ALU_KINDS, ARITH_ALU_OPS

from .conv_region import erase_region
from .padded import constant_of, is_dram, padded_buffer, shape_of
from .pool_operands import PoolOperand, pool_operands

__all__ = ["ALU_KINDS_INVERSE", "PoolGeometry", "PoolRegion", "generic_alu", "is_pool_op",
           "pool_region"]

_PREFIX = "vta-tile: "
_IDENTITY6 = AffineMap.identity(6)
_D = [AffineExpr.dimension(k) for k in range(8)]


def is_pool_op(op: Operation) -> bool:
    """``op`` is the pooling generic of a stage-1 region: its second input is the rank-2
    window."""
    if not isinstance(op, linalg.GenericOp) or len(op.inputs) != 2:
        return False
    t = op.inputs[1].type
    return isinstance(t, MemRefType) and t.get_num_dims() == 2


@dataclass(frozen=True)
class PoolGeometry:
    """The shape of a pooling region, in tensor elements (channels in blocks)."""

    nb: int
    cb: int
    h: int
    w: int
    pads: tuple[int, int, int, int]  # top, bottom, left, right
    kh: int
    kw: int
    sh: int
    sw: int
    oh: int
    ow: int
    kind: AluKind
    #: The value of the padding (0 without padding).
    pad_value: int
    #: The value the output starts from.
    init: int
    #: The operand accumulators of the epilogue (``.pool_operands``): tiles shaped like the
    #: output's, and per-channel rows.
    operand_tiles: int = 0
    operand_rows: int = 0


@dataclass(eq=False)
class PoolRegion:
    """One pooling region: its accumulator, ops in program order (output last)."""

    accs: list[SSAValue]
    ops: list[Operation]
    output: linalg.GenericOp
    pool: linalg.GenericOp
    #: The packed, unpadded DRAM data.
    x: SSAValue
    geo: PoolGeometry
    padding: list[Operation] = field(default_factory=list[Operation])
    deallocs: list[Operation] = field(default_factory=list[Operation])
    #: The accumulators the epilogue reads besides the output's (``.pool_operands``).
    operands: list[PoolOperand] = field(default_factory=list[PoolOperand])

    def erase(self) -> None:
        """Remove the region's original ops, its accumulator, the padded data and the
        window."""
        window = self.pool.inputs[1].owner
        erase_region(self.ops, self.deallocs, self.accs)
        constants = [f.inputs[0].owner for f in self.padding if isinstance(f, linalg.FillOp)]
        for op in [*reversed(self.padding)]:
            op.detach()
            op.erase()
        if isinstance(window, memref.AllocOp) and not window.memref.uses:
            window.detach()
            window.erase()
        for const in constants:
            if isinstance(const, arith.ConstantOp) and not const.result.uses:
                const.detach()
                const.erase()


def generic_alu(op: Operation) -> tuple[AluKind, int | None] | None:
    """The ALU operation of a one-op in-place generic and its immediate (None: a tensor)."""
    if not isinstance(op, linalg.GenericOp):
        return None
    body = [o for o in op.body.block.ops if not isinstance(o, linalg.YieldOp | arith.ConstantOp)]
    if len(body) != 1 or type(body[0]) not in ARITH_ALU_OPS:
        return None
    kind, negated = ARITH_ALU_OPS[type(body[0])]
    imm = next((constant_of(v) for v in body[0].operands if constant_of(v) is not None), None)
    if imm is not None and negated:
        imm = -imm
    return kind, imm


def pool_region(accs: list[SSAValue], ops: list[Operation], output: linalg.GenericOp,
                deallocs: list[Operation], cfg: VTAConfig,
                position: dict[Operation, int]) -> PoolRegion:
    """The pooling region of ``output`` (collected by :mod:`.region`), checked."""

    def fail(op: Operation, message: str) -> NoReturn:
        report_error(op, _PREFIX + message)

    pool = next(o for o in ops if is_pool_op(o))
    assert isinstance(pool, linalg.GenericOp)
    shape = shape_of(accs[0])
    elem = (cfg.batch, cfg.block_out)
    if len(shape) != 6 or shape[4:] != elem or shape_of(output.outputs[0]) != shape:
        fail(output, f"the accumulator {accs[0].type} and output {output.outputs[0].type} of "
                     f"a pooling region have the packed tensor layout ?x?x?x?x{elem[0]}x"
                     f"{elem[1]}")
    if pool.outputs[0] is not accs[0]:
        fail(pool, "the pooling of a region writes its first accumulator")
    operands = pool_operands(accs, ops, shape, fail)
    loads = {o.init for o in operands if o.loaded}
    fills = {o.init for o in operands if not o.loaded}
    init: int | None = None
    for op in ops:
        if op is pool or op is output or op in loads or op in fills:
            continue
        if isinstance(op, linalg.FillOp):
            value = constant_of(op.inputs[0])
            if init is not None or value is None or position[op] > position[pool]:
                fail(op, "the accumulator of a pooling region is filled once with a constant, "
                         "before the pooling")
            assert value is not None
            init = value
            continue
        alu = generic_alu(op)
        if alu is None or not isinstance(op, linalg.GenericOp) \
                or any(m.data != _IDENTITY6 for m in op.indexing_maps.data) \
                or any(v not in accs for v in op.operands) \
                or (alu[1] is None and len(op.inputs) != 2):
            fail(op, "the element-wise ops of a pooling region are ALU operations with an "
                     "immediate or another accumulator of the region, in place on an "
                     "accumulator")
        assert alu is not None and isinstance(op, linalg.GenericOp)
        if op.outputs[0] is accs[0] and position[op] < position[pool]:
            # The initial value: the fill, then additions of immediates.
            if init is None or alu[0] != AluKind.ADD or alu[1] is None:
                fail(op, "the accumulator of a pooling region starts from a constant: a fill, "
                         "then additions")
            assert init is not None
            init += alu[1]
    if init is None:
        fail(pool, "the accumulator of a pooling region is never initialised")
    assert init is not None
    maps = [m.data for m in pool.indexing_maps.data]
    body = [o for o in pool.body.block.ops if not isinstance(o, linalg.YieldOp)]
    kind = ALU_KINDS_INVERSE.get(type(body[-1])) if body else None
    mx = maps[0]
    strides = (mx.results[2].eval([0, 0, 1, 0, 0, 0, 0, 0], []),
               mx.results[3].eval([0, 0, 0, 1, 0, 0, 0, 0], [])) if mx.num_dims == 8 else (0, 0)
    if (kind is None or mx.num_dims != 8
            or maps[0] != AffineMap(8, 0, (_D[0], _D[1], _D[2] * strides[0] + _D[4],
                                           _D[3] * strides[1] + _D[5], _D[6], _D[7]))
            or maps[1] != AffineMap(8, 0, (_D[4], _D[5]))
            or maps[2] != AffineMap(8, 0, (_D[0], _D[1], _D[2], _D[3], _D[6], _D[7]))
            or min(strides) < 1):
        fail(pool, "the pooling iterates over (b, c, oh, ow, kh, kw, bb, cc) with maps X(b, c, "
                   "oh * sh + kh, ow * sw + kw, bb, cc), Window(kh, kw), Acc(b, c, oh, ow, bb, "
                   "cc) and combines the accumulator by maxsi or addi")
    assert kind is not None
    padded = padded_buffer(pool, pool.inputs[0], cfg, position, fail, "pooling")
    x, pads, pad_value, padding = ((pool.inputs[0], (0, 0, 0, 0), 0, []) if padded is None else
                                   (padded.source, padded.pads, padded.value, padded.ops))
    xs = shape_of(x)
    if (not is_dram(x, cfg.inp_width) or len(xs) != 6 or xs[:2] != shape[:2]
            or xs[4:] != elem):
        fail(pool, f"the data {x.type} of the pooling is an int8 DRAM tensor in the layout of "
                   f"its accumulator {accs[0].type}")
    kh, kw = shape_of(pool.inputs[1])
    nb, cb, oh, ow = shape[:4]
    h, w = xs[2:4]
    if (oh - 1) * strides[0] + kh > h + pads[0] + pads[1] \
            or (ow - 1) * strides[1] + kw > w + pads[2] + pads[3]:
        fail(pool, "the pooling reads beyond its (padded) data")
    geo = PoolGeometry(nb, cb, h, w, pads, kh, kw, strides[0], strides[1], oh, ow, kind,
                       pad_value, init, sum(o.kind != "bcast" for o in operands),
                       sum(o.kind == "bcast" for o in operands))
    return PoolRegion(accs, ops, output, pool, x, geo, padding, deallocs, operands)


#: The pooling kind of each combining arith op.
ALU_KINDS_INVERSE: dict[type[Operation], AluKind] = {
    ALU_KINDS[AluKind.MAX]: AluKind.MAX, ALU_KINDS[AluKind.ADD]: AluKind.ADD}

