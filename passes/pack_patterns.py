"""Packed layouts and the ops of ``vta-pack``'s normal form (stage 1 of ``docs/pipeline.md``).

Layouts (``vta-isa.md`` §1.6), for the configuration's BATCH, BLOCK_IN and BLOCK_OUT:

========================  ==================  =========================================
role                      logical shape       packed memref
========================  ==================  =========================================
``matrix`` (acc, output)  ``N × M``           ``N/BATCH × M/BLOCK_OUT × BATCH × BLOCK_OUT``
``act``                   ``N × K``           ``N/BATCH × K/BLOCK_IN × BATCH × BLOCK_IN``
``act_t``                 ``K × N``           the same (the host transposes)
``weight``                ``M × K``           ``M/BLOCK_OUT × K/BLOCK_IN × BLOCK_OUT × BLOCK_IN``
``weight_t``              ``K × M``           the same (the host transposes)
``bias``                  ``M`` or ``1 × M``  ``1 × M/BLOCK_OUT × BATCH × BLOCK_OUT``
========================  ==================  =========================================

Every dimension is zero-padded to whole blocks.  The ``bias`` layout is one row block of the
output's: the host replicates the bias over the BATCH lanes of an accumulator element (the
``repeat`` of its ``vta.arg``), because a DMA moves whole elements and cannot repeat a row
inside one.  The normal form broadcasts it over the row blocks with the indexing map
``(b, o, bb, oo) -> (0, o, bb, oo)``; with a single lane (BATCH 1) the lane subscript is the
constant ``0``, ``(0, o, 0, oo)``, which reads the same element.

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

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AffineMapAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerType,
    MemRefType,
    StringAttr,
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
from vta_mlir.passes.pack_match import ALU_KINDS

__all__ = [
    "ARG_ATTR_NAME",
    "ROLE_NAMES",
    "Packing",
    "Role",
    "acc_type",
    "alu_op",
    "contraction_op",
    "fill_op",
    "init_op",
    "packing_for",
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


ROLE_NAMES = {
    Role.MATRIX: "a matrix in the accumulator's layout",
    Role.ACT: "the activations of a contraction",
    Role.ACT_T: "transposed activations of a contraction",
    Role.WEIGHT: "the weights of a contraction",
    Role.WEIGHT_T: "transposed (K×N) weights of a contraction",
    Role.BIAS: "a bias broadcast over the rows",
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

    @property
    def packed_shape(self) -> tuple[int, ...]:
        return tuple(self.split_shape[p] for p in self.perm)

    def memref_type(self) -> MemRefType:
        element = IntegerType(int(self.dtype.removeprefix("int")))
        return MemRefType(element, self.packed_shape)

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
        fields.update({
            "padded_shape": ints(self.padded_shape),
            "split_shape": ints(self.split_shape),
            "perm": ints(self.perm),
        })
        return DictionaryAttr(fields)

    def same_layout(self, other: Packing) -> bool:
        return (self.repeat, self.padded_shape, self.split_shape, self.perm) == (
            other.repeat, other.padded_shape, other.split_shape, other.perm)


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
    tiles, outer, inner = {
        Role.MATRIX: ((b, bo), None, None),
        Role.ACT: ((b, bi), None, None),
        Role.ACT_T: ((bi, b), (1, 0), (1, 0)),
        Role.WEIGHT: ((bo, bi), None, None),
        Role.WEIGHT_T: ((bi, bo), (1, 0), (1, 0)),
    }[role]
    padded, split, perm = tiled_packing(shape, tiles, outer_order=outer, inner_order=inner)
    return Packing(shape, dtype, padded, split, perm)


def acc_type(rows: int, cols: int, cfg: VTAConfig, element: IntegerType = i32) -> MemRefType:
    """The packed accumulator (or output) of a ``rows × cols`` result."""
    return MemRefType(element, (_blocks(rows, cfg.batch), _blocks(cols, cfg.block_out),
                                cfg.batch, cfg.block_out))


# --------------------------------------------------------------------------------------------
# Builders
# --------------------------------------------------------------------------------------------

_D = [AffineExpr.dimension(i) for i in range(6)]
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
    iterators: Sequence[IteratorTypeAttr] = (_PAR,) * 4,
) -> linalg.GenericOp:
    return linalg.GenericOp(inputs, [output], _region([*inputs, output], body), maps, iterators)


def contraction_op(act: SSAValue, wgt: SSAValue, acc: SSAValue) -> linalg.GenericOp:
    """``acc[b, o, bb, oo] += Σ_{i, ii} x[b, i, bb, ii] · w[o, i, oo, ii]`` (i8 × i8 → i32)."""

    def body(block: Block, args: Sequence[BlockArgument]) -> SSAValue:
        x = _add(block, arith.ExtSIOp(args[0], i32))
        w = _add(block, arith.ExtSIOp(args[1], i32))
        p = _add(block, arith.MuliOp(x, w))
        return _add(block, arith.AddiOp(args[2], p))

    return _generic([act, wgt], acc, CONTRACTION_MAPS, body, CONTRACTION_ITERATORS)


def alu_op(kind: str, acc: SSAValue, *, imm: int | None = None,
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

    return _generic(inputs, acc, [IDENTITY4] * (len(inputs) + 1), body)


def broadcast_map(src: SSAValue) -> AffineMapAttr:
    """The input map reading the packed bias ``src`` (``1 × O × lanes × BLOCK_OUT``) for every
    accumulator element: its one row block for all of them, its lanes one to one (a single
    lane is read at 0, the same element)."""
    t = src.type
    assert isinstance(t, MemRefType)
    return BROADCAST_ELEMENT4 if t.get_shape()[2] > 1 else BROADCAST4


def init_op(src: SSAValue, acc: SSAValue, *, broadcast: bool) -> linalg.GenericOp:
    """``acc`` initialised from the packed argument ``src``: a copy of i32, a sign-extending
    copy of i8, broadcast over the row blocks for a bias."""

    def body(block: Block, args: Sequence[BlockArgument]) -> SSAValue:
        if _element(src) == i8:
            return _add(block, arith.ExtSIOp(args[0], i32))
        return args[0]

    return _generic([src], acc, [broadcast_map(src) if broadcast else IDENTITY4, IDENTITY4],
                    body)


def store_op(acc: SSAValue, out: SSAValue) -> linalg.GenericOp:
    """The output: ``out = trunci(acc)``."""

    def body(block: Block, args: Sequence[BlockArgument]) -> SSAValue:
        return _add(block, arith.TruncIOp(args[0], i8))

    return _generic([acc], out, [IDENTITY4, IDENTITY4], body)


def fill_op(value: SSAValue, acc: SSAValue) -> linalg.FillOp:
    return linalg.FillOp([value], [acc], res=())
