"""Building the structured op of a recognised computation, before the nest it replaces.

The ``linalg.generic`` keeps the statement's own body ops (cloned, loads replaced by block
arguments), its maps are the accesses over the generic's dimensions, and the padded copy is the
padding idiom of ``docs/pipeline.md``: a ``memref.subview`` of the interior and a ``memref.copy``.
"""

from __future__ import annotations

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import AffineMapAttr, MemRefType
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import FillOp, GenericOp, YieldOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.ir.index_arith import affine_of_form

from .nest import Access, shape_of
from .recognize import Computation, Fill, Generic, PaddedCopy


def _map(access: Access, dims: list[SSAValue]) -> AffineMapAttr:
    results: list[AffineExpr] = []
    for form in access.indices:
        expr = affine_of_form(form, dims)
        if form.const:
            expr = expr + form.const if form.terms else AffineExpr.constant(form.const)
        results.append(expr)
    return AffineMapAttr(AffineMap(len(dims), 0, tuple(results)))


def _element_type(buffer: SSAValue) -> object:
    assert isinstance(buffer.type, MemRefType)
    return buffer.type.element_type


def _generic(computation: Generic) -> list[Operation]:
    statement = computation.statement
    dims = [loop.iv for loop in computation.dims]
    store = statement.store
    block = Block(arg_types=[_element_type(a.memref) for a in computation.inputs]
                  + [_element_type(store.memref)])
    mapping: dict[SSAValue, SSAValue] = {}
    for load in statement.loads:
        if load.same_element(store):
            mapping[load.op.results[0]] = block.args[-1]
            continue
        index = next(i for i, a in enumerate(computation.inputs) if a.same_element(load))
        mapping[load.op.results[0]] = block.args[index]
    for op in statement.compute:
        clone = op.clone(value_mapper=mapping)
        block.add_op(clone)
        for old, new in zip(op.results, clone.results, strict=True):
            mapping[old] = new
    value = statement.value
    block.add_op(YieldOp(mapping.get(value, value)))
    iterators = [IteratorTypeAttr.reduction() if iv in computation.reductions
                 else IteratorTypeAttr.parallel() for iv in dims]
    return [GenericOp(
        [a.memref for a in computation.inputs], [store.memref], Region(block),
        [_map(a, dims) for a in computation.inputs] + [_map(store, dims)], iterators)]


def _fill(computation: Fill) -> list[Operation]:
    ops: list[Operation] = []
    value = computation.value
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and computation.statement.loops[0].op.is_ancestor(
            owner):
        constant = owner.clone()
        ops.append(constant)
        value = constant.result
    ops.append(FillOp((value,), (computation.statement.store.memref,), res=()))
    return ops


def _padded_copy(computation: PaddedCopy) -> list[Operation]:
    target = computation.statement.store.memref
    assert isinstance(target.type, MemRefType)
    sizes = shape_of(computation.source)
    if not any(computation.offsets) and sizes == shape_of(target):
        return [memref.CopyOp(computation.source, target)]
    view = memref.SubviewOp.from_static_parameters(
        target, target.type, computation.offsets, sizes, [1] * len(sizes))
    return [view, memref.CopyOp(computation.source, view.result)]


def emit(computations: list[Computation], nest: Operation) -> None:
    """Insert the ops of ``computations`` in order before ``nest``, then erase it."""
    ops: list[Operation] = []
    for computation in computations:
        match computation:
            case Fill():
                ops += _fill(computation)
            case Generic():
                ops += _generic(computation)
            case PaddedCopy():
                ops += _padded_copy(computation)
    Rewriter.insert_op(ops, InsertPoint.before(nest))
    # The loop bounds' constants are dead with the nest (unless something else uses them).
    bounds = {v.owner for op in nest.walk() for v in op.operands
              if isinstance(v.owner, arith.ConstantOp) and not nest.is_ancestor(v.owner)}
    nest.detach()
    nest.erase()
    for constant in bounds:
        if isinstance(constant, Operation) and not constant.results[0].uses:
            constant.detach()
            constant.erase()
