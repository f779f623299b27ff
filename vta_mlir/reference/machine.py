"""The interpreter of the reference evaluator (:mod:`vta_mlir.reference`): host values,
control flow and structured ops, one whole-array numpy operation per op."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

import numpy as np
from xdsl.dialects import affine, arith, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    MemRefType,
    ModuleOp,
    TensorType,
)
from xdsl.dialects.linalg import abstract_ops as linalg_abstract
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import (
    AffineDimExpr,
    AffineMap,
)

from vta_mlir.dialects.vta_host import HostOp
from vta_mlir.ir.dense import dense_int_array
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.index_arith import IndexArithError, is_index_op
from vta_mlir.ir.index_arith import evaluate as evaluate_index_op
from vta_mlir.ir.upstream_fixes.linalg_map import MapOp
from vta_mlir.reference.elementwise import (
    COMBINERS,
    EINSUM_LETTERS,
    FLOAT_EXACT,
    apply_map,
    as_unsigned,
    scalar_op,
    storage_type,
    type_width,
    wrap,
)
from vta_mlir.reference.indexing import full_rank, gather, loop_sizes, scatter, uses_dims

# --------------------------------------------------------------------------------------------
# The interpreter


class _Body:
    """Demand-driven evaluation of a structured op's body over its iteration space: each value
    is a numpy array broadcastable to the loop sizes (a dimension the value does not depend on
    has extent 1)."""

    def __init__(
        self,
        machine: Machine,
        op: Operation,
        block: Block,
        args: Callable[[int], np.ndarray],
        sizes: Sequence[int],
    ) -> None:
        self.machine = machine
        self.op = op
        self.block = block
        self.args = args
        self.sizes = sizes
        self.cache: dict[SSAValue, np.ndarray] = {}

    def local(self, value: SSAValue) -> Operation | None:
        """The op of this body defining ``value``, if any."""
        owner = value.owner
        if isinstance(owner, Operation) and owner.parent_block() is self.block:
            return owner
        return None

    def get(self, value: SSAValue) -> np.ndarray:
        if value in self.cache:
            return self.cache[value]
        if isinstance(value, BlockArgument) and value.block is self.block:
            result = self.args(value.index)
        elif (op := self.local(value)) is not None:
            if isinstance(op, linalg.IndexOp):
                dim = op.dim.value.data
                shape = [1] * len(self.sizes)
                shape[dim] = self.sizes[dim]
                result = np.arange(self.sizes[dim], dtype=np.int64).reshape(shape)
            else:
                if op.regions:
                    report_error(op, "ops with regions are not supported inside a linalg body "
                                     "by the reference evaluator")
                values = scalar_op(op, [self.get(v) for v in op.operands])
                for r, v in zip(op.results, values, strict=True):
                    self.cache[r] = np.asarray(v)
                result = self.cache[value]
        else:
            result = self.machine.value(self.op, value)
        self.cache[value] = np.asarray(result)
        return self.cache[value]


class Machine:
    """Values of the host program: numpy arrays for memrefs (views share memory), 0-d int64
    arrays for integers and indices."""

    def __init__(self, module: ModuleOp | None) -> None:
        self.module = module
        self.env: dict[SSAValue, np.ndarray] = {}
        self.globals: dict[str, np.ndarray] = {}

    def value(self, op: Operation, value: SSAValue) -> np.ndarray:
        try:
            return self.env[value]
        except KeyError:
            report_error(op, "uses a value the reference evaluator did not compute")

    def index(self, op: Operation, value: SSAValue) -> int:
        return int(self.value(op, value))

    # ---- blocks and control flow -----------------------------------------------------------

    def run_block(self, block: Block) -> list[np.ndarray]:
        """Run ``block``; returns the operand values of its terminator."""
        for op in block.ops:
            if isinstance(op, func.ReturnOp):
                if op.operands:
                    report_error(op, "returning values is not supported by the reference "
                                     "evaluator; write results into memref arguments")
                return []
            if isinstance(op, scf.YieldOp | affine.YieldOp):
                return [self.value(op, v) for v in op.operands]
            self.run_op(op)
        return []

    def run_loop(
        self, op: Operation, lower: int, upper: int, step: int, inits: Sequence[SSAValue]
    ) -> None:
        if step <= 0:
            report_error(op, f"loop step {step} is not positive")
        block = op.regions[0].block
        carried = [self.value(op, v) for v in inits]
        for i in range(lower, upper, step):
            self.env[block.args[0]] = np.int64(i)
            for arg, v in zip(block.args[1:], carried, strict=True):
                self.env[arg] = v
            carried = self.run_block(block)
        for r, v in zip(op.results, carried, strict=True):
            self.env[r] = v

    # ---- one op ----------------------------------------------------------------------------

    def run_op(self, op: Operation) -> None:
        if isinstance(op, linalg_abstract.LinalgStructuredOperation):
            self.structured(
                op,
                [m.data for m in op.get_indexing_maps()],
                [it.data for it in op.get_iterator_types()],
                list(op.inputs),
                list(op.outputs),
                op.body.block,
            )
        elif isinstance(op, MapOp):
            self.structured(
                op,
                [m.data for m in op.get_indexing_maps()],
                [it.data for it in op.get_iterator_types()],
                list(op.inputs),
                [op.init],
                op.mapper.block,
            )
        elif isinstance(op, linalg.BroadcastOp):
            self.broadcast(op)
        elif isinstance(op, HostOp):
            # A host step: its body on its operands' arrays (the same buffers, in place).
            for arg, value in zip(op.entry.args, op.operand_values, strict=True):
                self.env[arg] = self.value(op, value)
            self.run_block(op.entry)
        elif isinstance(op, linalg.ReduceOp):
            self.reduce(op)
        elif isinstance(op, memref.AllocOp | memref.AllocaOp):
            t = op.memref.type
            dtype = storage_type(op, t)
            dynamic = iter(self.index(op, v) for v in op.dynamic_sizes)
            shape = [next(dynamic) if d == DYNAMIC_INDEX else d for d in t.get_shape()]
            self.env[op.memref] = np.zeros(shape, dtype=dtype)
        elif isinstance(op, memref.DeallocOp):
            pass
        elif isinstance(op, memref.CopyOp):
            src = self.value(op, op.source)
            dst = self.value(op, op.destination)
            if src.shape != dst.shape:
                report_error(op, f"copies shape {src.shape} into shape {dst.shape}")
            dst[...] = src
        elif isinstance(op, memref.SubviewOp):
            self.env[op.result] = self.subview(op)
        elif isinstance(op, memref.CastOp):
            self.env[op.dest] = self.value(op, op.source)
        elif isinstance(op, memref.CollapseShapeOp | memref.ExpandShapeOp):
            self.env[op.result] = self.reshape(op)
        elif isinstance(op, memref.GetGlobalOp):
            self.env[op.memref] = self.global_array(op)
        elif is_index_op(op) and all(np.ndim(self.value(op, v)) == 0 for v in op.operands):
            # Host index arithmetic (and scalar constants): the shared semantics.
            try:
                value = evaluate_index_op(op, [self.index(op, v) for v in op.operands])
            except IndexArithError as e:
                report_error(op, str(e))
            self.env[op.results[0]] = np.asarray(np.int64(value))
        elif isinstance(op, affine.ForOp):
            lbs = [self.index(op, v) for v in op.lowerBoundOperands]
            ubs = [self.index(op, v) for v in op.upperBoundOperands]
            lower = max(apply_map(op, op.lowerBoundMap.data, lbs))
            upper = min(apply_map(op, op.upperBoundMap.data, ubs))
            self.run_loop(op, lower, upper, op.step.value.data, list(op.inits))
        elif isinstance(op, scf.ForOp):
            self.run_loop(op, self.index(op, op.lb), self.index(op, op.ub),
                          self.index(op, op.step), list(op.iter_args))
        elif isinstance(op, memref.LoadOp | affine.LoadOp):
            self.env[op.results[0]] = np.asarray(self.value(op, op.memref)[self.element(op)])
        elif isinstance(op, memref.StoreOp | affine.StoreOp):
            self.value(op, op.memref)[self.element(op)] = self.value(op, op.value)
        elif op.dialect_name() == "arith" and not op.regions:
            values = scalar_op(op, [self.value(op, v) for v in op.operands])
            for r, v in zip(op.results, values, strict=True):
                self.env[r] = np.asarray(v)
        else:
            report_error(op, "is not supported by the reference evaluator")

    def element(self, op: memref.LoadOp | memref.StoreOp | affine.LoadOp | affine.StoreOp
                ) -> tuple[int, ...]:
        """The element a load or store accesses (loop nests of the input), bounds checked."""
        indices = [self.index(op, v) for v in op.indices]
        if isinstance(op, affine.LoadOp | affine.StoreOp) and op.map is not None:
            indices = list(apply_map(op, op.map.data, indices))
        shape = self.value(op, op.memref).shape
        if len(indices) != len(shape) or any(not 0 <= i < n for i, n in zip(indices, shape,
                                                                              strict=False)):
            report_error(op, f"accesses element {tuple(indices)} of a buffer of shape {shape}")
        return tuple(indices)

    # ---- memref views ----------------------------------------------------------------------

    def subview(self, op: memref.SubviewOp) -> np.ndarray:
        src = self.value(op, op.source)

        def resolve(static: Iterable[int], dynamic: Sequence[SSAValue]) -> list[int]:
            values = iter(self.index(op, v) for v in dynamic)
            return [next(values) if s == DYNAMIC_INDEX else s for s in static]

        offsets = resolve(op.static_offsets.get_values(), op.offsets)
        sizes = resolve(op.static_sizes.get_values(), op.sizes)
        strides = resolve(op.static_strides.get_values(), op.strides)
        index = []
        for axis, (o, s, st) in enumerate(zip(offsets, sizes, strides, strict=True)):
            extent = src.shape[axis]
            if s < 0 or st <= 0 or o < 0 or (s > 0 and o + (s - 1) * st >= extent):
                report_error(op, f"dimension {axis}: offset {o}, size {s}, stride {st} is out of "
                                 f"bounds for extent {extent}")
            index.append(slice(o, o + (s - 1) * st + 1 if s else o, st))
        view = src[tuple(index)]
        result = op.result.type
        assert isinstance(result, MemRefType)
        rank = len(result.get_shape())
        if rank < view.ndim:
            # Rank reduction drops unit dimensions.  Which ones changes neither the elements
            # nor their order, so the target dimensions are matched left to right.
            target = list(result.get_shape())
            keep: list[int] = []
            for axis, extent in enumerate(view.shape):
                t = len(keep)
                if t == rank:
                    continue
                left, needed = view.ndim - axis, rank - t
                if target[t] == extent or (target[t] == DYNAMIC_INDEX and (
                        extent != 1 or left == needed)):
                    keep.append(axis)
            dropped = [a for a in range(view.ndim) if a not in keep]
            if len(keep) != rank or any(view.shape[a] != 1 for a in dropped):
                report_error(op, f"cannot drop unit dimensions of {view.shape} to get {result}")
            view = view.squeeze(tuple(dropped))
        return view

    def reshape(self, op: memref.CollapseShapeOp | memref.ExpandShapeOp) -> np.ndarray:
        src = self.value(op, op.src)
        t = op.result.type
        assert isinstance(t, MemRefType)
        shape = tuple(t.get_shape())
        if any(d == DYNAMIC_INDEX for d in shape):
            report_error(op, "dynamic result shapes are not supported by the reference evaluator")
        view = src.view()
        try:
            view.shape = shape
        except (AttributeError, ValueError):
            report_error(op, f"cannot reshape a strided view of shape {src.shape} to {shape} "
                             "without copying")
        return view

    def global_array(self, op: memref.GetGlobalOp) -> np.ndarray:
        name = op.name_.root_reference.data
        if name in self.globals:
            return self.globals[name]
        found = None
        if self.module is not None:
            for g in self.module.walk():
                if isinstance(g, memref.GlobalOp) and g.sym_name.data == name:
                    found = g
                    break
        if found is None:
            report_error(op, f"global @{name} is not defined in the module")
        t = found.type
        dtype = storage_type(op, t)
        shape = tuple(t.get_shape())
        init = found.initial_value
        if isinstance(init, DenseIntOrFPElementsAttr):
            # From the attribute's bytes: a Python int per element would not scale to weights.
            try:
                values = dense_int_array(init, shape)
            except ValueError as e:
                report_error(op, f"global @{name} {e} of {t}")
            if values is None:
                report_error(op, f"global @{name} does not hold integers")
            array = values.astype(dtype)
        else:
            array = np.zeros(shape, dtype=dtype)
        self.globals[name] = array
        return array

    # ---- structured ops --------------------------------------------------------------------

    def broadcast(self, op: linalg.BroadcastOp) -> None:
        t = op.init.type
        rank = len(t.get_shape()) if isinstance(t, MemRefType) else 0
        added = set(op.dimensions.get_values())
        kept = [d for d in range(rank) if d not in added]
        maps = [
            AffineMap(rank, 0, tuple(AffineDimExpr(d) for d in kept)),
            AffineMap.identity(rank),
        ]
        self.structured(op, maps, [IteratorType.PARALLEL] * rank, [op.input], [op.init],
                        op.hidden_region.block)

    def reduce(self, op: linalg.ReduceOp) -> None:
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
        self.structured(op, maps, iterators, [op.input], [op.init], op.region.block)

    def structured(
        self,
        op: Operation,
        maps: Sequence[AffineMap],
        iterators: Sequence[IteratorType],
        ins: Sequence[SSAValue],
        outs: Sequence[SSAValue],
        block: Block,
    ) -> None:
        operands = list(ins) + list(outs)
        for v in operands:
            if isinstance(v.type, TensorType):
                storage_type(op, v.type)
        for v in outs:
            storage_type(op, v.type)
        arrays = [self.value(op, v) for v in operands]
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

        def arg_value(i: int) -> np.ndarray:
            if i >= len(arrays):
                report_error(op, "has more body arguments than operands")
            return gather(op, arrays[i], maps[i], sizes).astype(np.int64)

        body = _Body(self, op, block, arg_value, sizes)
        terminator = block.last_op
        if terminator is None or len(terminator.operands) != len(outs):
            report_error(op, "body must end in a yield of one value per output")
        results = []
        for k, out in enumerate(outs):
            width = np.dtype(storage_type(op, out.type)).itemsize * 8
            acc = block.args[len(ins) + k]
            yielded = terminator.operands[k]
            if reduced:
                value = self.reduction(op, body, yielded, acc, sizes, reduced, width)
            else:
                value = body.get(yielded)
            results.append(wrap(value, width))
        # Every result is computed before any output is written: an output that is also an
        # input is read with its old values.
        for k, value in enumerate(results):
            scatter(op, arrays[len(ins) + k], maps[len(ins) + k], value, sizes, reduced)

    def reduction(
        self,
        op: Operation,
        body: _Body,
        yielded: SSAValue,
        acc: BlockArgument,
        sizes: Sequence[int],
        reduced: Sequence[int],
        width: int,
    ) -> np.ndarray:
        """The output values of a reduction ``acc = combine(acc, term)``: n-dimensional, extent
        1 along the reduced dimensions."""
        combine = body.local(yielded)
        if (
            combine is None
            or type(combine) not in COMBINERS
            or not acc.has_one_use()
            or acc not in combine.operands
            or combine.operands[0] is combine.operands[1]
        ):
            report_error(op, "the reference evaluator supports reductions whose body combines "
                             "the accumulator once with a value (addi, muli, maxsi, minsi, "
                             "maxui, minui, andi, ori, xori) and yields the result")
        term = combine.operands[1] if combine.operands[0] is acc else combine.operands[0]
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


def _factors(body: _Body, value: SSAValue, width: int) -> list[SSAValue]:
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
