"""Batched matrix products for ``vta-pack``: ``linalg.batch_matmul`` (and the equivalent
``linalg.generic`` over ``(h, m, n, k)``), ``out[h] += act[h] · wgt[h]`` for each of ``H``
batches.

:func:`fold_weight_broadcasts` first reads a right operand that only repeats one matrix over
the batch — a ``linalg.broadcast ins(%w : K×N) outs(%wb : H×K×N) dimensions = [0]`` into a
buffer only batched products read, as torch writes ``nn.Linear`` on a sequence — as that
matrix, through ``(h, m, n, k) -> (k, n)`` (MLIR's ``indexing_maps`` form of the same
product).  :class:`BatchMatcher` recognises the products as :class:`BatchGemm` s.

``passes/pack/plan.py`` then lowers a batched product whose right operand is one matrix for
all batches as one 2-D product on the collapsed rows, ``(H·M) × K`` times ``K × N``: the host
packs the ``H × M × K`` activations (and the ``H × M × N`` output and residuals) as the
matrices of ``H·M`` rows, which is the same layout when ``BATCH`` divides ``M``
(:func:`collapsed_packing`).  A batched product whose right operand varies along the batch
(per-head attention) is a host loop over the batches around one 2-D region, whose operands are
the batches' slices of buffers packed batch by batch (:func:`batched_packing`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import prod
from typing import TYPE_CHECKING

from xdsl.dialects import affine, func, memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StridedLayoutAttr,
    i64,
)
from xdsl.dialects.linalg import abstract_ops as linalg_abstract
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.locations import copy_location
from vta_mlir.ir.upstream_fixes.linalg_batch_matmul import BatchMatmulOp
from vta_mlir.passes.pack.expr import Gemm, result_dims
from vta_mlir.passes.pack.match_matmul import check_contraction_body, check_contraction_types
from vta_mlir.passes.pack.normal_form import Packing

if TYPE_CHECKING:
    from vta_mlir.passes.pack.match import FunctionRecognizer

__all__ = ["BatchGemm", "BatchMatcher", "batch_loop", "batch_slice", "batched_packing",
           "collapsed_batches", "collapsed_packing", "fold_weight_broadcasts", "is_batch_product",
           "is_batched_type"]


@dataclass(eq=False)
class BatchGemm(Gemm):
    """``init + act[h] · wgt[h]`` for ``batch`` batches of ``rows`` rows; ``wgt`` has a batch
    dimension when ``wgt_batched``, else it is one matrix for every batch."""

    batch: int = 1
    rows: int = 1
    wgt_batched: bool = True


def is_batch_product(iterators: Sequence[IteratorType], out_rank: int) -> bool:
    """Four loops, one of them reduced, into a rank-3 output: a batched product."""
    return len(iterators) == 4 and iterators.count(IteratorType.REDUCTION) == 1 \
        and out_rank == 3


def _is_int8(t: object) -> bool:
    return isinstance(t, MemRefType) and t.element_type == IntegerType(8)


def fold_weight_broadcasts(f: func.FuncOp) -> None:
    """Batched products read a matrix they see repeated by a ``linalg.broadcast`` over the
    batch through ``(h, m, n, k) -> (k, n)`` (module doc)."""
    for op in list(f.body.block.ops):
        if not isinstance(op, linalg.BroadcastOp) or op.dimensions.get_values() != (0,):
            continue
        source, target = op.input, op.init
        alloc = target.owner
        if not (_is_int8(target.type) and isinstance(alloc, memref.AllocOp)
                and isinstance(source.type, MemRefType) and source.type.get_num_dims() == 2):
            continue
        readers = [u.operation for u in target.uses
                   if u.operation is not op and not isinstance(u.operation, memref.DeallocOp)]
        default = BatchMatmulOp.get_default_indexing_maps
        if not readers or any(not isinstance(r, BatchMatmulOp) or r.operands[1] is not target
                              or r.operands[0] is target
                              or tuple(default(r))[1] != AffineMap.from_callable(
                                  lambda h, m, n, k: (h, k, n)) for r in readers):
            continue
        n, k = AffineExpr.dimension(2), AffineExpr.dimension(3)
        for reader in readers:
            assert isinstance(reader, BatchMatmulOp)
            maps = list(reader.indexing_maps.data)
            maps[1] = AffineMapAttr(AffineMap(4, 0, (k, n)))
            reader.indexing_maps = ArrayAttr(maps)
            reader.operands = [reader.operands[0], source, *reader.operands[2:]]
        for use in list(target.uses):
            if isinstance(use.operation, memref.DeallocOp):
                Rewriter.erase_op(use.operation)
        Rewriter.erase_op(op)
        Rewriter.erase_op(alloc)


@dataclass
class BatchMatcher:
    """Recognises batched products for :class:`~.match.FunctionRecognizer`."""

    r: FunctionRecognizer

    def contraction(self, op: linalg_abstract.LinalgStructuredOperation,
                    maps: Sequence[AffineMap], iterators: Sequence[IteratorType]) -> None:
        r = self.r
        inputs = list(op.inputs)
        if len(inputs) != 2:
            report_error(op, f"is a batched product of {len(inputs)} inputs: VTA multiplies "
                             "two int8 operands (a quantized_batch_matmul's zero points are "
                             "folded by the frontends)")
        out = op.outputs[0]
        for v in (*inputs, out):
            r.check_buffer(op, v, any_rank=True)
        types = [v.type for v in (*inputs, out)]
        check_contraction_types(op, types)  # type: ignore[arg-type]
        check_contraction_body(op)
        k = iterators.index(IteratorType.REDUCTION)
        out_dims = result_dims(maps[2])
        act_dims = result_dims(maps[0])
        wgt_dims = result_dims(maps[1])
        if None in out_dims or len(set(out_dims)) != 3 or k in out_dims:
            report_error(op, "has indexing maps that are not those of a batched matrix product "
                             "(h, m, n, k) -> (h, m, n)")
        h, m, n = out_dims
        if act_dims not in ([h, m, k], [m, k]):
            report_error(op, "reads its left operand through another map than (h, m, n, k) -> "
                             "(h, m, k), or (m, k) for one matrix in every batch: VTA's "
                             "activations are the rows of each batch")
        forms = {(h, k, n): (True, True), (h, n, k): (True, False), (k, n): (False, True),
                 (n, k): (False, False)}
        form = forms.get(tuple(wgt_dims))  # type: ignore[arg-type]
        if form is None:
            report_error(op, "reads its right operand through another map than (h, k, n), "
                             "(h, n, k) or, one matrix for every batch, (k, n) or (n, k)")
        batched, transposed = form
        *_, rows, depth = types[0].get_shape()  # type: ignore[attr-defined]
        batch, _, cols = types[2].get_shape()  # type: ignore[attr-defined]
        wshape = tuple(types[1].get_shape())  # type: ignore[attr-defined]
        want = (depth, cols) if transposed else (cols, depth)
        if tuple(types[2].get_shape()) != (batch, rows, cols) \
                or wshape != ((batch, *want) if batched else want):
            report_error(op, f"multiplies {types[0]} by {types[1]} into {types[2]}: the shapes "
                             "do not form a batched matrix product")
        init = r.read(op, out)
        act = r.argument_of(op, inputs[0], "activation")
        wgt = r.argument_of(op, inputs[1], "weight")
        r.write(op, out, BatchGemm(op, init, act, False, wgt, transposed, batch, rows, batched))


def collapsed_packing(packing: Packing, shape: tuple[int, ...]) -> Packing:
    """``packing`` of the matrix of ``H·M`` rows, as the packing of the ``H × M × ...``
    argument of logical ``shape`` it collapses (the same layout: no row padding)."""
    padded = (*shape[:-1], packing.padded_shape[-1])
    return Packing(shape, packing.dtype, padded, packing.split_shape, packing.perm,
                   packing.repeat)


def batched_packing(packing: Packing, batch: int) -> Packing:
    """``packing`` of one batch's matrix (or of its byte planes, an i32 result's:
    ``passes/pack/wide_outputs.py``), repeated over ``batch`` batches in front."""
    return Packing((batch, *packing.shape), packing.dtype, (batch, *packing.padded_shape),
                   (batch, *packing.split_shape), (0, *(p + 1 for p in packing.perm)),
                   parts=packing.parts, part_width=packing.part_width)


def is_batched_type(t: Attribute) -> bool:
    """``t`` is a buffer packed batch by batch: the rank-4 matrix layout behind a batch axis
    (an i32 result's byte planes, rank 5 of their own, behind it too)."""
    return isinstance(t, MemRefType) and t.get_num_dims() in (5, 6)


def batch_loop(count: int) -> tuple[affine.ForOp, SSAValue]:
    """The host loop over ``count`` batches around a region, and its variable."""
    block = Block(arg_types=[IndexType()])
    block.args[0].name_hint = "batch"
    loop = affine.ForOp.from_region([], [], [], [], 0, count, Region(block))
    block.add_op(affine.YieldOp.get())
    return loop, block.args[0]


def batch_slice(value: SSAValue, index: SSAValue, before: Operation) -> SSAValue:
    """Batch ``index`` of the batched buffer ``value``: a rank-reducing subview, inserted
    before ``before``."""
    t = value.type
    assert isinstance(t, MemRefType)
    shape = t.get_shape()
    strides = [prod(shape[k + 1:]) for k in range(len(shape))]
    result = MemRefType(t.element_type, shape[1:], StridedLayoutAttr(strides[1:], None))
    view = memref.SubviewOp.get(value, [index, *[0] * (len(shape) - 1)], [1, *shape[1:]],
                                [1] * len(shape), result)
    view.result.name_hint = f"{value.name_hint or 'batched'}_batch"
    copy_location(before, [view])
    Rewriter.insert_op(view, InsertPoint.before(before))
    return view.result


def collapsed_batches(value: SSAValue, source: Operation,
                      cache: dict[tuple[SSAValue, tuple[int, ...]], SSAValue]) -> SSAValue:
    """``value`` with its batches collapsed into its first axis, when it is batched: a
    ``memref.collapse_shape`` next to its allocation (one per buffer, in ``cache``), located
    at ``source``."""
    t = value.type
    assert isinstance(t, MemRefType)
    if not is_batched_type(t):
        return value
    shape = t.get_shape()
    key = (value, (shape[0] * shape[1], *shape[2:]))
    if key not in cache:
        groups = ([0, 1], [2], [3], [4])
        view = memref.CollapseShapeOp(
            operands=[value], result_types=[MemRefType(t.element_type, key[1])],
            properties={"reassociation": ArrayAttr(
                [ArrayAttr([IntegerAttr(d, i64) for d in g]) for g in groups])})
        view.result.name_hint = value.name_hint
        copy_location(source, [view])
        owner = value.owner
        at = InsertPoint.after(owner) if isinstance(owner, Operation) else \
            InsertPoint.at_start(value.block)  # type: ignore[attr-defined]
        Rewriter.insert_op(view, at)
        cache[key] = view.result
    return cache[key]
