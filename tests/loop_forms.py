"""The loop forms of input-level programs, as other tools write them, for ``vta-raise-loops``:

* :func:`scf_form`: xDSL's ``convert-linalg-to-loops`` (``scf.for``, ``memref.load`` /
  ``memref.store`` on ``arith`` / ``affine.apply`` index values);
* :func:`affine_form`: what upstream MLIR's ``convert-linalg-to-affine-loops`` emits, one
  ``affine.for`` per loop dimension in iteration order, ``affine.load`` through the indexing
  maps, the body ops, ``affine.store``, built here from the scf form (same loops, same order,
  the index arithmetic folded into the access maps); a ``memref.copy`` becomes its loop nest
  too (what ``linalg.copy`` lowers to).
"""

from __future__ import annotations

from xdsl.dialects import affine, memref, scf
from xdsl.dialects.builtin import AffineMapAttr, IndexType, MemRefType, ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.convert_linalg_to_loops import ConvertLinalgToLoopsPass

from vta_mlir.api import parse
from vta_mlir.ir.context import make_context


def scf_form(text: str) -> ModuleOp:
    module = parse(text)
    ConvertLinalgToLoopsPass().apply(make_context(), module)
    return module


def _access_map(indices: list[SSAValue]) -> tuple[AffineMap, list[SSAValue]]:
    """The map of an affine access whose operands are the loop variables the indices use."""
    operands: list[SSAValue] = []

    def dim(value: SSAValue) -> AffineExpr:
        if value not in operands:
            operands.append(value)
        return AffineExpr.dimension(operands.index(value))

    results: list[AffineExpr] = []
    for index in indices:
        owner = index.owner
        if isinstance(owner, affine.ApplyOp):
            amap = owner.map.data
            results.append(amap.results[0].replace_dims_and_symbols(
                [dim(v) for v in owner.operands], []))
        else:
            assert isinstance(index, BlockArgument), index
            results.append(dim(index))
    return AffineMap(len(operands), 0, tuple(results)), operands


def _to_affine(block: Block) -> None:
    for op in list(block.ops):
        if isinstance(op, scf.ForOp):
            lower, upper = (int(v.owner.value.value.data) for v in (op.lb, op.ub))
            body = op.detach_region(op.body)
            _to_affine(body.block)
            yield_op = body.block.last_op
            assert yield_op is not None
            Rewriter.replace_op(yield_op, affine.YieldOp.get())
            loop = affine.ForOp.from_region([], [], [], [], lower, upper, body)
            Rewriter.replace_op(op, loop)
        elif isinstance(op, memref.LoadOp):
            amap, operands = _access_map(list(op.indices))
            Rewriter.replace_op(op, affine.LoadOp(op.memref, operands, AffineMapAttr(amap),
                                                  op.res.type))
        elif isinstance(op, memref.StoreOp):
            amap, operands = _access_map(list(op.indices))
            Rewriter.replace_op(op, affine.StoreOp(op.value, op.memref, operands,
                                                   AffineMapAttr(amap)))
        elif isinstance(op, memref.CopyOp):
            _copy_nest(op)
    for op in list(block.ops):
        if isinstance(op, affine.ApplyOp) and not op.result.uses:
            Rewriter.erase_op(op)


def _copy_nest(op: memref.CopyOp) -> None:
    """``memref.copy`` as the affine nest of a ``linalg.copy``."""
    source_type = op.source.type
    assert isinstance(source_type, MemRefType)
    shape = source_type.get_shape()
    loops = [Block(arg_types=[IndexType()]) for _ in shape]
    ivs = [b.args[0] for b in loops]
    identity = AffineMapAttr(AffineMap.identity(len(shape)))
    load = affine.LoadOp(op.source, ivs, identity, source_type.element_type)
    loops[-1].add_ops([load, affine.StoreOp(load.result, op.destination, ivs, identity),
                       affine.YieldOp.get()])
    for depth in range(len(shape) - 1, 0, -1):
        nested = affine.ForOp.from_region([], [], [], [], 0, shape[depth], Region(loops[depth]))
        loops[depth - 1].add_ops([nested, affine.YieldOp.get()])
    outer = affine.ForOp.from_region([], [], [], [], 0, shape[0], Region(loops[0]))
    Rewriter.insert_op(outer, InsertPoint.before(op))
    Rewriter.erase_op(op)


def affine_form(text: str) -> ModuleOp:
    module = scf_form(text)
    for op in module.walk():
        if isinstance(op, Operation) and op.name == "func.func":
            _to_affine(op.regions[0].block)
    return module
