"""Packed layouts and the ops of ``vta-pack``'s normal form (stage 1 of ``docs/pipeline.md``).

Layouts (``docs/isa.md`` §1.6), for the configuration's B = BATCH, BI = BLOCK_IN and
BO = BLOCK_OUT:

========================  ====================  =============================================
role                      logical shape         packed memref
========================  ====================  =============================================
``matrix`` (acc, output)  ``N × M``             ``N/B × M/BO × B × BO``
``act``                   ``N × K``             ``N/B × K/BI × B × BI``
``act_t``                 ``K × N``             the same (the host transposes)
``weight``                ``M × K``             ``M/BO × K/BI × BO × BI``
``weight_t``              ``K × M``             the same (the host transposes)
``bias``                  ``M`` or ``1 × M``    ``1 × M/BO × B × BO``
``tensor`` (acc, output)  ``N × O × H × W``     ``N/B × O/BO × H × W × B × BO``
``data``                  ``N × C × H × W``     ``N/B × C/BI × H × W × B × BI``
``kernel``                ``O × I × KH × KW``   ``O/BO × I/BI × KH × KW × BO × BI``
``channel_bias``          ``O`` or ``1 × O``    ``1 × O/BO × 1 × 1 × B × BO``
========================  ====================  =============================================

Every dimension is zero-padded to whole blocks.  The ``bias`` layout is one row block of the
output's: the host replicates the bias over the BATCH lanes of an accumulator element (the
``repeat`` of its ``vta.arg``), because a DMA moves whole elements and cannot repeat a row
inside one.  The normal form broadcasts it over the row blocks with the indexing map
``(b, o, bb, oo) -> (0, o, bb, oo)``; with a single lane (BATCH 1) the lane subscript is the
constant ``0``, ``(0, o, 0, oo)``, which reads the same element.  The ``channel_bias`` of a
convolution is the same element row in the rank of the ``tensor`` layout, broadcast over the
batch blocks and the spatial positions: ``(b, o, h, w, bb, oo) -> (0, o, 0, 0, bb, oo)``.

The builders make the ops of one VTA region, all on packed memrefs; each ALU op is a
``linalg.generic`` in place on the accumulator with a one-op body (its immediate an
``arith.constant`` of the body), e.g.::

    linalg.generic {indexing_maps = [#id4, #id4], iterator_types = [4 x "parallel"]}
        ins(%acc : memref<1x64x1x16xi32>) outs(%acc : memref<1x64x1x16xi32>) {
    ^bb0(%a: i32, %o: i32):
      %c8 = arith.constant 8 : i32
      %r = arith.shrsi %a, %c8 : i32
      linalg.yield %r : i32
    }
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    f32,
    i8,
    i32,
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from vta_mlir.abi import tiled_packing
from vta_mlir.config import VTAConfig
from vta_mlir.isa import AluKind
from vta_mlir.passes.analysis.alu_ops import ALU_KINDS

__all__ = [
    "ARG_ATTR_NAME",
    "ROLE_NAMES",
    "Packing",
    "Role",
    "acc_type",
    "alu_op",
    "contraction_op",
    "contraction_maps_2d",
    "conv_op",
    "fill_op",
    "init_op",
    "packed_acc_shape",
    "packing_for",
    "padded_copy_ops",
    "pool_ops",
    "store_op",
]

#: The argument attribute recording an argument's host-side packing (``docs/dialects.md``).
ARG_ATTR_NAME = "vta.arg"


class Role(StrEnum):
    """How a function argument is used, which fixes its packed layout (module doc)."""

    MATRIX = "matrix"
    ACT = "act"
    ACT_T = "act_t"
    WEIGHT = "weight"
    WEIGHT_T = "weight_t"
    BIAS = "bias"
    TENSOR = "tensor"
    DATA = "data"
    KERNEL = "kernel"
    CHANNEL_BIAS = "channel_bias"
    HOST = "host"


ROLE_NAMES = {
    Role.MATRIX: "a matrix in the accumulator's layout",
    Role.ACT: "the activations of a contraction",
    Role.ACT_T: "transposed activations of a contraction",
    Role.WEIGHT: "the weights of a contraction",
    Role.WEIGHT_T: "transposed (K×N) weights of a contraction",
    Role.BIAS: "a bias broadcast over the rows",
    Role.TENSOR: "an NCHW tensor in the accumulator's layout",
    Role.DATA: "the data of a convolution",
    Role.KERNEL: "the kernel of a convolution",
    Role.CHANNEL_BIAS: "a per-channel bias broadcast over N, H and W",
    Role.HOST: "an operand of host steps only, in its logical layout",
}


@dataclass(frozen=True)
class Packing:
    """The host-side transform of one argument (the fields of ``vta_mlir.abi.ArgSpec``)."""

    shape: tuple[int, ...]
    dtype: str
    padded_shape: tuple[int, ...]
    split_shape: tuple[int, ...]
    perm: tuple[int, ...]
    repeat: tuple[int, ...] = ()
    #: The packed memref's shape when it is not ``packed_shape`` (the same elements in the
    #: same order, viewed with fewer axes: a flattened element-wise tensor,
    #: ``passes/pack/flatten.py``).
    memref_shape: tuple[int, ...] = ()
    #: The convolution window whose patches replace the array (``vta_mlir.abi.ArgSpec``):
    #: the data and kernel of a convolution folded into a 1×1 one.
    window: tuple[int, ...] = ()
    #: A depthwise kernel expanded into block-diagonal weights at compile time
    #: (``passes/pack/depthwise.py``), the dimensions of its channels, ``kh`` and ``kw`` (empty:
    #: not one): ``padded_shape``, ``split_shape`` and ``perm`` pack the expansion
    #: ``C × BLOCK × KH × KW`` of the kernel of logical ``shape``.
    diagonal: tuple[int, ...] = ()
    #: How many packed elements of ``part_width`` bits each element is split into
    #: (``vta_mlir.abi.ArgSpec.parts``): an i32 result's byte planes (``wide_outputs.py``).
    parts: int = 1
    part_width: int = 0

    @property
    def packed_shape(self) -> tuple[int, ...]:
        return tuple(self.split_shape[p] for p in self.perm)

    def memref_type(self) -> MemRefType:
        if self.dtype == "float32":
            element: Attribute = f32
        else:
            element = IntegerType(self.part_width or int(self.dtype.removeprefix("int")))
        return MemRefType(element, self.memref_shape or self.packed_shape)

    def attr(self) -> DictionaryAttr:
        """The ``vta.arg`` dictionary."""

        def ints(values: Sequence[int]) -> DenseArrayBase:
            return DenseArrayBase.from_list(i64, values)

        fields: dict[str, Attribute] = {
            "shape": ints(self.shape),
            "dtype": StringAttr(self.dtype),
        }
        if self.repeat:
            fields["repeat"] = ints(self.repeat)
        if self.window:
            fields["window"] = ints(self.window)
        fields.update({
            "padded_shape": ints(self.padded_shape),
            "split_shape": ints(self.split_shape),
            "perm": ints(self.perm),
        })
        return DictionaryAttr(fields)

    def same_layout(self, other: Packing) -> bool:
        return (self.repeat, self.window, self.padded_shape, self.split_shape, self.perm,
                self.memref_shape, self.diagonal, self.parts) == (
                    other.repeat, other.window, other.padded_shape, other.split_shape,
                    other.perm, other.memref_shape, other.diagonal, other.parts)


def _blocks(n: int, block: int) -> int:
    return -(-n // block)


def packing_for(role: Role, shape: Sequence[int], dtype: str, cfg: VTAConfig) -> Packing:
    """The packing of an argument of logical ``shape`` used in ``role`` (module doc)."""
    shape = tuple(shape)
    b, bi, bo = cfg.batch, cfg.block_in, cfg.block_out
    if role == Role.BIAS:
        # One row block of the output's layout, the bias repeated over its BATCH lanes: the
        # replicated (BATCH, [1,] M) array reads as (1, BATCH, M/BO, BO) in C order, and the
        # transpose puts the lanes inside each column block's element.
        cols = shape[-1]
        padded = (*shape[:-1], _blocks(cols, bo) * bo)
        return Packing(shape, dtype, padded, (1, b, _blocks(cols, bo), bo), (0, 2, 1, 3),
                       repeat=(b,))
    if role == Role.CHANNEL_BIAS:
        # The bias element row of the tensor layout: the replicated (BATCH, [1,] O) array
        # split as (1, 1, 1, BATCH, O/BO, BO), with unit H and W axes so that it has the rank
        # of the accumulator.
        cols = shape[-1]
        padded = (*shape[:-1], _blocks(cols, bo) * bo)
        return Packing(shape, dtype, padded, (1, 1, 1, b, _blocks(cols, bo), bo),
                       (0, 4, 1, 2, 3, 5), repeat=(b,))
    tiles, outer, inner = {
        Role.MATRIX: ((b, bo), None, None),
        Role.ACT: ((b, bi), None, None),
        Role.ACT_T: ((bi, b), (1, 0), (1, 0)),
        Role.WEIGHT: ((bo, bi), None, None),
        Role.WEIGHT_T: ((bi, bo), (1, 0), (1, 0)),
        Role.TENSOR: ((b, bo, None, None), None, None),
        Role.DATA: ((b, bi, None, None), None, None),
        Role.KERNEL: ((bo, bi, None, None), None, None),
    }[role]
    padded, split, perm = tiled_packing(shape, tiles, outer_order=outer, inner_order=inner)
    return Packing(shape, dtype, padded, split, perm)


def acc_type(rows: int, cols: int, cfg: VTAConfig, element: IntegerType = i32) -> MemRefType:
    """The packed accumulator (or output) of a ``rows × cols`` result."""
    return MemRefType(element, packed_acc_shape((rows, cols), cfg))


def packed_acc_shape(shape: Sequence[int], cfg: VTAConfig) -> tuple[int, ...]:
    """The packed accumulator shape of a ``rows × cols`` or ``N × O × H × W`` result: the
    ``matrix`` or ``tensor`` layout."""
    n, o, *spatial = shape
    return (_blocks(n, cfg.batch), _blocks(o, cfg.block_out), *spatial, cfg.batch,
            cfg.block_out)


# --------------------------------------------------------------------------------------------
# Builders
# --------------------------------------------------------------------------------------------

_D = [AffineExpr.dimension(i) for i in range(10)]
_ZERO = AffineExpr.constant(0)
IDENTITY4 = AffineMapAttr(AffineMap.identity(4))
#: (b, o, bb, oo) -> (0, o, 0, oo): a bias row repeated over the batch blocks and lanes.
BROADCAST4 = AffineMapAttr(AffineMap(4, 0, (_ZERO, _D[1], _ZERO, _D[3])))
#: (b, o, bb, oo) -> (0, o, bb, oo): a bias element (lanes replicated by the host) repeated
#: over the batch blocks.
BROADCAST_ELEMENT4 = AffineMapAttr(AffineMap(4, 0, (_ZERO, _D[1], _D[2], _D[3])))
#: Contraction over (b, o, i, bb, oo, ii): X(b, i, bb, ii), W(o, i, oo, ii), Acc(b, o, bb, oo).
CONTRACTION_MAPS = (
    AffineMapAttr(AffineMap(6, 0, (_D[0], _D[2], _D[3], _D[5]))),
    AffineMapAttr(AffineMap(6, 0, (_D[1], _D[2], _D[4], _D[5]))),
    AffineMapAttr(AffineMap(6, 0, (_D[0], _D[1], _D[3], _D[4]))),
)
_PAR = IteratorTypeAttr.parallel()
_RED = IteratorTypeAttr.reduction()
CONTRACTION_ITERATORS = (_PAR, _PAR, _RED, _PAR, _PAR, _RED)
#: Convolution over (b, o, oh, ow, i, kh, kw, bb, oo, ii).
CONV_ITERATORS = (_PAR, _PAR, _PAR, _PAR, _RED, _RED, _RED, _PAR, _PAR, _RED)


def conv_maps(strides: tuple[int, int],
              depthwise: bool = False) -> tuple[AffineMapAttr, AffineMapAttr, AffineMapAttr]:
    """``X(b, i, oh*sh + kh, ow*sw + kw, bb, ii)``, ``W(o, i, kh, kw, oo, ii)``,
    ``Acc(b, o, oh, ow, bb, oo)`` over (b, o, oh, ow, i, kh, kw, bb, oo, ii); a ``depthwise``
    convolution reads the input channel block ``o + i`` (its kernel has one input block per
    output block, ``i`` is 0: the block of the output's own channels)."""
    b, o, oh, ow, i, kh, kw, bb, oo, ii = _D
    sh, sw = strides
    channel = o + i if depthwise else i
    return (
        AffineMapAttr(AffineMap(10, 0, (b, channel, oh * sh + kh, ow * sw + kw, bb, ii))),
        AffineMapAttr(AffineMap(10, 0, (o, i, kh, kw, oo, ii))),
        AffineMapAttr(AffineMap(10, 0, (b, o, oh, ow, bb, oo))),
    )


def _element(value: SSAValue) -> Attribute:
    t = value.type
    assert isinstance(t, MemRefType)
    return t.element_type


def _region(
    operands: Sequence[SSAValue], body: Callable[[Block, Sequence[BlockArgument]], SSAValue]
) -> Region:
    """A one-block region with an argument per operand's element, ending in the yield of
    what ``body`` computes."""
    block = Block(arg_types=[_element(v) for v in operands])
    result = body(block, block.args)
    block.add_op(linalg.YieldOp(result))
    return Region(block)


def _add(block: Block, op: Operation) -> SSAValue:
    block.add_op(op)
    return op.results[0]


def _generic(
    inputs: Sequence[SSAValue],
    output: SSAValue,
    maps: Sequence[AffineMapAttr],
    body: Callable[[Block, Sequence[BlockArgument]], SSAValue],
    iterators: Sequence[IteratorTypeAttr] | None = None,
) -> linalg.GenericOp:
    if iterators is None:
        iterators = (_PAR,) * maps[0].data.num_dims
    return linalg.GenericOp(inputs, [output], _region([*inputs, output], body), maps, iterators)


def _rank(value: SSAValue) -> int:
    t = value.type
    assert isinstance(t, MemRefType)
    return t.get_num_dims()


def _identity(value: SSAValue) -> AffineMapAttr:
    return AffineMapAttr(AffineMap.identity(_rank(value)))


def _multiply_accumulate(block: Block, args: Sequence[BlockArgument]) -> SSAValue:
    x = _add(block, arith.ExtSIOp(args[0], i32))
    w = _add(block, arith.ExtSIOp(args[1], i32))
    p = _add(block, arith.MuliOp(x, w))
    return _add(block, arith.AddiOp(args[2], p))


def contraction_op(act: SSAValue, wgt: SSAValue, acc: SSAValue) -> linalg.GenericOp:
    """``acc[b, o, bb, oo] += Σ_{i, ii} x[b, i, bb, ii] · w[o, i, oo, ii]`` (i8 × i8 → i32)."""
    return _generic([act, wgt], acc, CONTRACTION_MAPS, _multiply_accumulate,
                    CONTRACTION_ITERATORS)


#: A matrix product over (m, n, k) reading its right operand as N × K: A(m, k), B(n, k), C(m, n).
_NK_PRODUCT_MAPS = (
    AffineMapAttr(AffineMap(3, 0, (_D[0], _D[2]))),
    AffineMapAttr(AffineMap(3, 0, (_D[1], _D[2]))),
    AffineMapAttr(AffineMap(3, 0, (_D[0], _D[1]))),
)


#: The same over (h, m, n, k) for a batch of products sharing A: A(m, k), B(h, n, k), C(h, m, n).
_BATCH_NK_PRODUCT_MAPS = (
    AffineMapAttr(AffineMap(4, 0, (_D[1], _D[3]))),
    AffineMapAttr(AffineMap(4, 0, (_D[0], _D[2], _D[3]))),
    AffineMapAttr(AffineMap(4, 0, (_D[0], _D[1], _D[2]))),
)


def contraction_maps_2d(lhs: SSAValue, rhs: SSAValue, acc: SSAValue,
                        batched: bool = False) -> linalg.GenericOp:
    """The stage-0 product ``acc[m, n] += Σ_k lhs[m, k] · rhs[n, k]`` (i8 × i8 → i32) on
    logical matrices, ``rhs`` read as ``N × K``; ``batched``: ``acc[h, m, n] += Σ_k lhs[m, k] ·
    rhs[h, n, k]`` for every batch ``h``."""
    if batched:
        return _generic([lhs, rhs], acc, _BATCH_NK_PRODUCT_MAPS, _multiply_accumulate,
                        (_PAR, _PAR, _PAR, _RED))
    return _generic([lhs, rhs], acc, _NK_PRODUCT_MAPS, _multiply_accumulate, (_PAR, _PAR, _RED))


def conv_op(data: SSAValue, kernel: SSAValue, acc: SSAValue,
            strides: tuple[int, int], depthwise: bool = False) -> linalg.GenericOp:
    """``acc[b, o, oh, ow, bb, oo] += Σ_{i, kh, kw, ii} x[b, i, oh*sh + kh, ow*sw + kw, bb, ii]
    · w[o, i, kh, kw, oo, ii]`` (i8 × i8 → i32); ``depthwise``: ``x[b, o + i, ...]``, the
    block-diagonal kernel's one input block per output block (``passes/pack/depthwise.py``)."""
    return _generic([data, kernel], acc, conv_maps(strides, depthwise), _multiply_accumulate,
                    CONV_ITERATORS)


def alu_op(kind: AluKind, acc: SSAValue, *, imm: int | None = None,
           other: SSAValue | None = None) -> linalg.GenericOp:
    """One ALU operation in place on ``acc``: with the immediate ``imm`` or the accumulator
    buffer ``other`` as second operand."""
    op_class = ALU_KINDS[kind]
    inputs = [acc] if other is None else [acc, other]

    def body(block: Block, args: Sequence[BlockArgument]) -> SSAValue:
        if other is None:
            assert imm is not None
            rhs = _add(block, arith.ConstantOp.from_int_and_width(imm, 32))
        else:
            rhs = args[1]
        return _add(block, op_class(args[0], rhs))  # type: ignore[call-arg]

    return _generic(inputs, acc, [_identity(acc)] * (len(inputs) + 1), body)


def broadcast_map(src: SSAValue) -> AffineMapAttr:
    """The input map reading the packed bias ``src`` (``1 × O × [1 × 1 ×] lanes × BLOCK_OUT``)
    for every accumulator element: its one row block for all of them (and every spatial
    position), its lanes one to one (a single lane is read at 0, the same element)."""
    t = src.type
    assert isinstance(t, MemRefType)
    if t.get_num_dims() == 4:
        return BROADCAST_ELEMENT4 if t.get_shape()[2] > 1 else BROADCAST4
    lane = _D[4] if t.get_shape()[4] > 1 else _ZERO
    return AffineMapAttr(AffineMap(6, 0, (_ZERO, _D[1], _ZERO, _ZERO, lane, _D[5])))


def init_op(src: SSAValue, acc: SSAValue, *, broadcast: bool) -> linalg.GenericOp:
    """``acc`` initialised from the packed argument ``src``: a copy of i32, a sign-extending
    copy of i8, broadcast over the row blocks for a bias."""

    def body(block: Block, args: Sequence[BlockArgument]) -> SSAValue:
        if _element(src) == i8:
            return _add(block, arith.ExtSIOp(args[0], i32))
        return args[0]

    return _generic([src], acc, [broadcast_map(src) if broadcast else _identity(acc),
                                 _identity(acc)], body)


def store_op(acc: SSAValue, out: SSAValue, out_map: AffineMap | None = None) -> linalg.GenericOp:
    """The output: ``out = trunci(acc)``, written through ``out_map`` (the identity by
    default; the weight layout of a later product, ``passes/pack/match_matmul_operands.py``)."""

    def body(block: Block, args: Sequence[BlockArgument]) -> SSAValue:
        return _add(block, arith.TruncIOp(args[0], i8))

    written = _identity(acc) if out_map is None else AffineMapAttr(out_map)
    return _generic([acc], out, [_identity(acc), written], body)


def fill_op(value: SSAValue, acc: SSAValue) -> linalg.FillOp:
    return linalg.FillOp([value], [acc], res=())


def padded_copy_ops(
    data: SSAValue, pads: tuple[int, int, int, int], zero: SSAValue
) -> tuple[memref.AllocOp, linalg.FillOp, memref.SubviewOp, memref.CopyOp]:
    """A zero-padded copy of the packed convolution data ``data`` (``data`` layout, N/B ×
    C/BI × H × W × B × BI): ``pads`` = (top, bottom, left, right) rows and columns of
    ``zero`` around it::

        %xp = memref.alloc() : memref<1x4x58x58x1x16xi8>
        linalg.fill ins(%c0_i8 : i8) outs(%xp : memref<1x4x58x58x1x16xi8>)
        %xi = memref.subview %xp[0, 0, 1, 1, 0, 0] [1, 4, 56, 56, 1, 16] [1, 1, 1, 1, 1, 1]
            : memref<1x4x58x58x1x16xi8> to memref<1x4x56x56x1x16xi8, strided<[215296, 53824,
              928, 16, 16, 1], offset: 944>>
        memref.copy %x, %xi : memref<1x4x56x56x1x16xi8> to memref<1x4x56x56x1x16xi8, ...>
    """
    t = data.type
    assert isinstance(t, MemRefType) and t.get_num_dims() == 6
    shape = tuple(t.get_shape())
    top, bottom, left, right = pads
    padded = (*shape[:2], shape[2] + top + bottom, shape[3] + left + right, *shape[4:])
    alloc = memref.AllocOp.get(t.element_type, shape=padded)
    padded_type = alloc.memref.type
    assert isinstance(padded_type, MemRefType)
    fill = fill_op(zero, alloc.memref)
    view = memref.SubviewOp.from_static_parameters(
        alloc.memref, padded_type, (0, 0, top, left, 0, 0), shape, (1,) * 6)
    copy = memref.CopyOp(data, view.result)
    return alloc, fill, view, copy


#: Pooling over (b, c, oh, ow, kh, kw, bb, cc).
POOL_ITERATORS = (_PAR, _PAR, _PAR, _PAR, _RED, _RED, _PAR, _PAR)


def pool_maps(strides: tuple[int, int]) -> tuple[AffineMapAttr, AffineMapAttr, AffineMapAttr]:
    """``X(b, c, oh*sh + kh, ow*sw + kw, bb, cc)``, ``Window(kh, kw)``,
    ``Acc(b, c, oh, ow, bb, cc)`` over (b, c, oh, ow, kh, kw, bb, cc)."""
    b, c, oh, ow, kh, kw, bb, cc = _D[:8]
    sh, sw = strides
    return (
        AffineMapAttr(AffineMap(8, 0, (b, c, oh * sh + kh, ow * sw + kw, bb, cc))),
        AffineMapAttr(AffineMap(8, 0, (kh, kw))),
        AffineMapAttr(AffineMap(8, 0, (b, c, oh, ow, bb, cc))),
    )


def pool_ops(data: SSAValue, acc: SSAValue, kind: AluKind, window: tuple[int, int],
             strides: tuple[int, int]) -> tuple[memref.AllocOp, linalg.GenericOp]:
    """The window (an alloc that only gives the window its shape) and the pooling
    ``acc[b, c, oh, ow, bb, cc] = kind(acc[...], extsi(x[b, c, oh*sh + kh, ow*sw + kw, bb, cc]))``
    over the window ``(kh, kw)`` of the packed i8 ``data`` (tensor layout)::

        %window = memref.alloc() : memref<3x3xi8>
        linalg.generic {(b, c, oh, ow, kh, kw, bb, cc): X(b, c, oh*2 + kh, ow*2 + kw, bb, cc),
                        Window(kh, kw), Acc(b, c, oh, ow, bb, cc)}
            ins(%xp, %window) outs(%acc) { extsi, maxsi }
    """
    alloc = memref.AllocOp.get(i8, shape=list(window))
    alloc.memref.name_hint = "window"
    op_class = ALU_KINDS[kind]

    def body(block: Block, args: Sequence[BlockArgument]) -> SSAValue:
        x = _add(block, arith.ExtSIOp(args[0], i32))
        return _add(block, op_class(args[2], x))  # type: ignore[call-arg]

    return alloc, _generic([data, alloc.memref], acc, pool_maps(strides), body, POOL_ITERATORS)
