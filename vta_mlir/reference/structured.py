"""Structured ops in the reference evaluator (:mod:`vta_mlir.reference`): ``linalg.generic``,
the named ops, ``linalg.map`` / ``broadcast`` / ``reduce``, their bodies evaluated over the
whole iteration space with numpy broadcasting, and integer reductions (float reductions:
:mod:`.folds`)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects import arith, memref, tensor
from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from vta_mlir.ir.diagnostics import report_error
from vta_mlir.reference.elementwise import (
    COMBINERS,
    EINSUM_LETTERS,
    FLOAT_EXACT,
    as_unsigned,
    storage_type,
    type_width,
    wrap,
)
from vta_mlir.reference.floats import (
    FOLDED_COMBINERS,
    ORDER_FREE_COMBINERS,
    element_op,
    is_float,
    value_dtype,
)
from vta_mlir.reference.folds import float_reduction
from vta_mlir.reference.indexing import full_rank, gather, loop_sizes, scatter, uses_dims

if TYPE_CHECKING:
    from vta_mlir.reference.machine import Machine

__all__ = ["Body", "broadcast", "reduce", "run_structured"]

COMBINER_NAMES = ("addi, muli, maxsi, minsi, maxui, minui, andi, ori, xori, addf, subf, mulf, "
                  "divf, maximumf, minimumf, maxnumf, minnumf")


class Body:
    """Demand-driven evaluation of a structured op's body over its iteration space, or over a
    window of it (a range per loop dimension): each value is a numpy array broadcastable to the
    window's sizes (a dimension the value does not depend on has extent 1)."""

    def __init__(
        self,
        machine: Machine,
        op: Operation,
        block: Block,
        args: Callable[[int], np.ndarray],
        sizes: Sequence[int],
        window: Sequence[range] | None = None,
    ) -> None:
        self.machine = machine
        self.op = op
        self.block = block
        self.args = args
        self.window = list(window) if window is not None else [range(s) for s in sizes]
        self.sizes = [len(r) for r in self.window]
        self.full_sizes = list(sizes)
        self.cache: dict[SSAValue, np.ndarray] = {}

    def restricted(self, window: Sequence[range]) -> Body:
        """The same body over ``window`` (ranges of the whole iteration space)."""
        return Body(self.machine, self.op, self.block, self.args, self.full_sizes, window)

    def local(self, value: SSAValue) -> Operation | None:
        """The op of this body defining ``value``, if any."""
        owner = value.owner
        if isinstance(owner, Operation) and owner.parent_block() is self.block:
            return owner
        return None

    def argument(self, index: int) -> np.ndarray:
        """Body argument ``index`` over the window."""
        value = self.args(index)
        cut = tuple(slice(None) if extent == 1 else slice(r.start, r.stop)
                    for extent, r in zip(value.shape, self.window, strict=True))
        return value[cut]

    def get(self, value: SSAValue) -> np.ndarray:
        if value in self.cache:
            return self.cache[value]
        if isinstance(value, BlockArgument) and value.block is self.block:
            result = self.argument(value.index)
        elif (op := self.local(value)) is not None:
            if isinstance(op, linalg.IndexOp):
                dim = op.dim.value.data
                shape = [1] * len(self.sizes)
                shape[dim] = self.sizes[dim]
                span = self.window[dim]
                result = np.arange(span.start, span.stop, dtype=np.int64).reshape(shape)
            else:
                if op.regions:
                    report_error(op, "ops with regions are not supported inside a linalg body "
                                     "by the reference evaluator")
                if isinstance(op, memref.LoadOp | tensor.ExtractOp):
                    values = [self.load(op)]
                else:
                    values = element_op(op, [self.get(v) for v in op.operands])
                for r, v in zip(op.results, values, strict=True):
                    self.cache[r] = np.asarray(v)
                result = self.cache[value]
        else:
            result = self.machine.value(self.op, value)
        self.cache[value] = np.asarray(result)
        return self.cache[value]


    def load(self, op: memref.LoadOp | tensor.ExtractOp) -> np.ndarray:
        """A ``memref.load`` or ``tensor.extract`` in the body (a gather: its indices computed
        from the loop indices), every element of the window at once."""
        buffer = np.asarray(self.get(op.memref if isinstance(op, memref.LoadOp) else op.tensor))
        indices = [np.asarray(self.get(v), dtype=np.int64) for v in op.indices]
        if len(indices) != buffer.ndim:
            report_error(op, f"{len(indices)} indices for a memref of rank {buffer.ndim}")
        for dim, index in enumerate(indices):
            if index.size and (index.min() < 0 or index.max() >= buffer.shape[dim]):
                report_error(op, f"index {int(index.min() if index.min() < 0 else index.max())}"
                                 f" out of bounds of dimension {dim} (size {buffer.shape[dim]})")
        if not indices:
            return buffer[()]
        return buffer[tuple(np.broadcast_arrays(*indices))]


def broadcast(machine: Machine, op: linalg.BroadcastOp) -> None:
    t = op.init.type
    rank = len(t.get_shape()) if isinstance(t, MemRefType) else 0
    added = set(op.dimensions.get_values())
    kept = [d for d in range(rank) if d not in added]
    maps = [
        AffineMap(rank, 0, tuple(AffineDimExpr(d) for d in kept)),
        AffineMap.identity(rank),
    ]
    run_structured(machine, op, maps, [IteratorType.PARALLEL] * rank, [op.input], [op.init],
                   op.hidden_region.block)


def reduce(machine: Machine, op: linalg.ReduceOp) -> None:
    t = op.input.type
    rank = len(t.get_shape()) if isinstance(t, MemRefType) else 0
    reduced = set(op.dimensions.get_values())
    kept = [d for d in range(rank) if d not in reduced]
    maps = [
        AffineMap.identity(rank),
        AffineMap(rank, 0, tuple(AffineDimExpr(d) for d in kept)),
    ]
    iterators = [IteratorType.REDUCTION if d in reduced else IteratorType.PARALLEL
                 for d in range(rank)]
    run_structured(machine, op, maps, iterators, [op.input], [op.init], op.region.block)


def _stored(value: np.ndarray, dtype: type[np.generic]) -> np.ndarray:
    """A yielded value as the elements of an output of ``dtype``: integers wrapped to its
    width, floats rounded to it."""
    if np.issubdtype(dtype, np.floating):
        return value.astype(dtype, copy=False)
    return wrap(value, np.dtype(dtype).itemsize * 8)


def run_structured(
    machine: Machine,
    op: Operation,
    maps: Sequence[AffineMap],
    iterators: Sequence[IteratorType],
    ins: Sequence[SSAValue],
    outs: Sequence[SSAValue],
    block: Block,
) -> None:
    """Evaluate a structured op given by its maps, iterators, operands and body."""
    operands = list(ins) + list(outs)
    for v in operands:
        if isinstance(v.type, TensorType):
            storage_type(op, v.type)
    for v in outs:
        storage_type(op, v.type)
    arrays = [machine.value(op, v) for v in operands]
    if len(maps) != len(arrays):
        report_error(op, f"has {len(arrays)} operands but {len(maps)} indexing maps")
    sizes = loop_sizes(op, maps, arrays)
    if math.prod(sizes) == 0:
        return
    n = len(sizes)
    reduced = [d for d in range(n) if iterators[d] == IteratorType.REDUCTION]
    for k, m in enumerate(maps[len(ins):]):
        if reduced and uses_dims(m, reduced):
            report_error(op, f"the indexing map of output #{k} uses a reduction dimension")

    gathered: dict[int, np.ndarray] = {}

    def arg_value(i: int) -> np.ndarray:
        if i >= len(arrays):
            report_error(op, "has more body arguments than operands")
        if i not in gathered:
            dtype = value_dtype(op, block.args[i].type)
            gathered[i] = gather(op, arrays[i], maps[i], sizes).astype(dtype)
        return gathered[i]

    body = Body(machine, op, block, arg_value, sizes)
    terminator = block.last_op
    if terminator is None or len(terminator.operands) != len(outs):
        report_error(op, "body must end in a yield of one value per output")
    dtypes = []
    for k, out in enumerate(outs):
        dtypes.append(storage_type(op, out.type))
        if is_float(op, terminator.operands[k].type) != np.issubdtype(dtypes[k], np.floating):
            assert isinstance(out.type, MemRefType)
            report_error(op, f"yields {terminator.operands[k].type} into output #{k}, a memref "
                             f"of {out.type.element_type}")
    accs = [block.args[len(ins) + k] for k in range(len(outs))]
    if reduced and len(outs) > 1 and any(_combiner(body, v, acc) is None for v, acc in zip(
            terminator.operands, accs, strict=True)):
        results = _fold_in_order(body, arg_value, len(ins), terminator.operands, dtypes,
                                 reduced)
    else:
        results = []
        for k, (yielded, acc) in enumerate(zip(terminator.operands, accs, strict=True)):
            if reduced:
                value = _reduction(op, body, yielded, acc, sizes, reduced)
            else:
                value = body.get(yielded)
            results.append(_stored(value, dtypes[k]))
    # Every result is computed before any output is written: an output that is also an
    # input is read with its old values.
    for k, value in enumerate(results):
        scatter(op, arrays[len(ins) + k], maps[len(ins) + k], value, sizes, reduced)


def _combiner(body: Body, yielded: SSAValue, acc: BlockArgument) -> Operation | None:
    """The op combining the accumulator ``acc`` once with a value into ``yielded``, if the
    body computes that output so."""
    combine = body.local(yielded)
    if (
        combine is None
        or type(combine) not in {*COMBINERS, *FOLDED_COMBINERS, *ORDER_FREE_COMBINERS}
        or not acc.has_one_use()
        or acc not in combine.operands
        or combine.operands[0] is combine.operands[1]
    ):
        return None
    return combine


def _fold_in_order(body: Body, arg_value: Callable[[int], np.ndarray], first: int,
                   yielded: Sequence[SSAValue], dtypes: Sequence[type[np.generic]],
                   reduced: Sequence[int]) -> list[np.ndarray]:
    """The outputs of a reduction of several results whose body is not one combiner per
    result (a maximum beside the index where it is reached, as torch-mlir writes an argmax):
    the whole body evaluated once per point of the reduction dimensions, in the loops' order,
    vectorised over the parallel points, each output's accumulator the value the previous
    point yielded."""
    sizes = body.full_sizes
    n = len(sizes)
    keep = [1 if d in reduced else s for d, s in enumerate(sizes)]
    accs = [_stored(np.broadcast_to(full_rank(arg_value(first + k), n), keep), dtype)
            for k, dtype in enumerate(dtypes)]
    for point in itertools.product(*(range(sizes[d]) for d in reduced)):
        window = [range(s) for s in sizes]
        for d, i in zip(reduced, point, strict=True):
            window[d] = range(i, i + 1)

        def args(i: int, held: list[np.ndarray] = accs) -> np.ndarray:
            return held[i - first] if i >= first else arg_value(i)
        step = Body(body.machine, body.op, body.block, args, sizes, window)
        accs = [_stored(np.broadcast_to(full_rank(step.get(v), n), keep), dtype)
                for v, dtype in zip(yielded, dtypes, strict=True)]
    return accs


def _reduction(
    op: Operation,
    body: Body,
    yielded: SSAValue,
    acc: BlockArgument,
    sizes: Sequence[int],
    reduced: Sequence[int],
) -> np.ndarray:
    """The output values of a reduction ``acc = combine(acc, term)``: n-dimensional, extent
    1 along the reduced dimensions."""
    combine = _combiner(body, yielded, acc)
    if combine is None:
        report_error(op, "the reference evaluator supports reductions whose body combines "
                         f"the accumulator once with a value ({COMBINER_NAMES}) and yields "
                         "the result, or several results folded point by point")
    acc_first = combine.operands[0] is acc
    term = combine.operands[1] if acc_first else combine.operands[0]
    if type(combine) not in COMBINERS:
        return float_reduction(body, combine, acc_first, term, acc, reduced)
    ufunc, idempotent, unsigned = COMBINERS[type(combine)]
    combine_width = type_width(combine, combine.results[0].type)
    init = body.get(acc)
    n = len(sizes)
    if isinstance(combine, arith.AddiOp):
        factors = _factors(body, term, combine_width)
        total = _contract([full_rank(body.get(f), n) for f in factors], sizes, reduced)
        return wrap(init + total, combine_width)
    values = full_rank(body.get(term), n)
    if not idempotent:
        values = np.broadcast_to(values, sizes)
    axes = tuple(d for d in reduced if values.shape[d] > 1)
    if unsigned:
        values, init = as_unsigned(values, combine_width), as_unsigned(init, combine_width)
    partial = ufunc.reduce(values, axis=axes, keepdims=True) if axes else values
    return wrap(ufunc(init, partial), combine_width)


def _factors(body: Body, value: SSAValue, width: int) -> list[SSAValue]:
    """``value`` as a product of factors: ``muli`` ops of the body at least ``width`` bits wide
    are split (wrapping the product at such a width and the sum at ``width`` is the same as
    wrapping only the sum)."""
    op = body.local(value)
    if isinstance(op, arith.MuliOp) and type_width(op, op.result.type) >= width:
        return _factors(body, op.lhs, width) + _factors(body, op.rhs, width)
    return [value]


def _contract(factors: Sequence[np.ndarray], sizes: Sequence[int],
              reduced: Sequence[int]) -> np.ndarray:
    """``sum over reduced dimensions of prod(factors)`` (exact modulo 2**64), n-dimensional
    with extent 1 along the reduced dimensions."""
    n = len(sizes)
    if n > len(EINSUM_LETTERS):
        product = factors[0]
        for f in factors[1:]:
            product = product * f
        product = np.broadcast_to(product, sizes)
        return np.sum(product, axis=tuple(reduced), keepdims=True, dtype=np.int64)
    subscripts, operands, present = [], [], set()
    bound = 1
    for f in factors:
        axes = [d for d in range(n) if f.shape[d] > 1]
        present.update(axes)
        subscripts.append("".join(EINSUM_LETTERS[d] for d in axes))
        operands.append(f.reshape([f.shape[d] for d in axes]))
        bound *= int(np.abs(f).max()) if f.size else 0
    reduced_set = set(reduced)
    out_dims = [d for d in range(n) if d in present and d not in reduced_set]
    spec = ",".join(subscripts) + "->" + "".join(EINSUM_LETTERS[d] for d in out_dims)
    # A reduced dimension no factor depends on repeats every term along it.
    repeat = math.prod(sizes[d] for d in reduced if d not in present)
    terms = math.prod(sizes[d] for d in reduced)
    if bound * terms < FLOAT_EXACT:
        # Every partial sum is an integer below 2**53: float64 (and BLAS) is exact.
        total = np.einsum(spec, *(o.astype(np.float64) for o in operands), optimize=True)
        total = np.asarray(total).astype(np.int64)
    else:
        total = np.asarray(np.einsum(spec, *(o.astype(np.int64) for o in operands),
                                     optimize=True), dtype=np.int64)
    if repeat != 1:
        total = total * np.int64(repeat)
    shape = [sizes[d] if d in out_dims else 1 for d in range(n)]
    return total.reshape(shape)
