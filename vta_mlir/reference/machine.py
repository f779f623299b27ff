"""The interpreter of the reference evaluator (:mod:`vta_mlir.reference`): host values,
control flow, memref views and globals; structured ops are :mod:`.structured`'s."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from xdsl.dialects import affine, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    MemRefType,
    ModuleOp,
)
from xdsl.dialects.linalg import abstract_ops as linalg_abstract
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Operation, SSAValue

from vta_mlir.dialects.vta_host import HostOp
from vta_mlir.ir.dense import dense_int_array
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.index_arith import IndexArithError, is_index_op
from vta_mlir.ir.index_arith import evaluate as evaluate_index_op
from vta_mlir.ir.upstream_fixes.linalg_map import MapOp
from vta_mlir.reference.elementwise import apply_map, storage_type
from vta_mlir.reference.floats import dense_float_array, element_op
from vta_mlir.reference.structured import broadcast, reduce, run_structured

# --------------------------------------------------------------------------------------------
# The interpreter


class Machine:
    """Values of the host program: numpy arrays for memrefs (views share memory), 0-d int64
    arrays for integers and indices, 0-d arrays of their type for floats."""

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
            run_structured(
                self,
                op,
                [m.data for m in op.get_indexing_maps()],
                [it.data for it in op.get_iterator_types()],
                list(op.inputs),
                list(op.outputs),
                op.body.block,
            )
        elif isinstance(op, MapOp):
            run_structured(
                self,
                op,
                [m.data for m in op.get_indexing_maps()],
                [it.data for it in op.get_iterator_types()],
                list(op.inputs),
                [op.init],
                op.mapper.block,
            )
        elif isinstance(op, linalg.BroadcastOp):
            broadcast(self, op)
        elif isinstance(op, HostOp):
            # A host step: its body on its operands' arrays (the same buffers, in place).
            for arg, value in zip(op.entry.args, op.operand_values, strict=True):
                self.env[arg] = self.value(op, value)
            self.run_block(op.entry)
        elif isinstance(op, linalg.ReduceOp):
            reduce(self, op)
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
        elif op.dialect_name() in ("arith", "math") and not op.regions:
            values = element_op(op, [self.value(op, v) for v in op.operands])
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
                if np.issubdtype(dtype, np.floating):
                    values = dense_float_array(init, shape)
                    kind = "floats"
                else:
                    values = dense_int_array(init, shape)
                    kind = "integers"
            except ValueError as e:
                report_error(op, f"global @{name} {e} of {t}")
            if values is None:
                report_error(op, f"global @{name} does not hold {kind}")
            array = values.astype(dtype)
        else:
            array = np.zeros(shape, dtype=dtype)
        self.globals[name] = array
        return array
