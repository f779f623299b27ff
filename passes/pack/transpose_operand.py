"""Transposed right operands of matrix products, before ``vta-pack`` recognises anything.

A layer stores a right operand that the device computes in the weight layout only when the
product reads it as ``N × K``, through ``(m, n, k) -> (n, k)``
(``passes/pack/match_matmul_operands.py``).  :func:`rewrite_transposed_operands` puts the
function in that form:

* ``linalg.transpose ins(%k) outs(%kt) permutation = [1, 0]`` into an int8 buffer that only
  products read, as their ``K × N`` right operand (attention's ``Q · Kᵀ`` written with an
  explicit transpose): each product reads ``%k`` through ``(n, k)`` instead, and the transpose
  and ``%kt`` go;
* a product reading, as its ``K × N`` right operand, an int8 buffer a layer of the function
  computes (attention's ``P · V``): a store cannot transpose the layer's output vectors, so the
  product reads ``Vᵀ`` through ``(n, k)``, and ``Vᵀ`` is one more layer right before the first
  such product, a product with the identity::

      %v_t = memref.alloc() : memref<32x64xi8>                       // D × S
      %v_t_acc = memref.alloc() : memref<32x64xi32>
      linalg.fill ins(%c0 : i32) outs(%v_t_acc : memref<32x64xi32>)
      %v_eye = memref.get_global @identity_32 : memref<32x32xi8>       // I (D × D)
      linalg.generic {(m, n, k): I(m, k), V(n, k), Acc(m, n)}
          ins(%v_eye, %v) outs(%v_t_acc) { extsi, extsi, muli, addi }  // Σ_k I[d][k]·V[s][k]
      linalg.generic ins(%v_t_acc) outs(%v_t) { trunci }               // = V[s][d], exact
      linalg.matmul indexing_maps = [(m, k), (n, k), (m, n)] ins(%p, %v_t) outs(%acc)

  ``V``'s layer stores it in the weight layout (the identity product reads it as ``N × K``),
  and the identity layer stores ``Vᵀ`` in the weight layout of ``P · V``: no copy on the host.
  For a batch of products (``linalg.batch_matmul``, per-head ``P[h] · V[h]``) the identity
  layer is a batch of products too, ``Vᵀ[h] = I · V[h]ᵀ``, the identity one matrix for every
  batch.

A buffer only host steps write is left alone: the host packs whatever layout its reader asks
for.  The rewrite keeps the program's meaning (the reference evaluator computes the same
values), so ``vta-run --check`` compares with the program as written.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NameLoc,
    StringAttr,
    TensorType,
    UnitAttr,
    i8,
    i32,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.dialects.vta_host import HostOp
from vta_mlir.ir.upstream_fixes.linalg_batch_matmul import BatchMatmulOp
from vta_mlir.passes.pack.concat import channel_offset
from vta_mlir.passes.pack.normal_form import contraction_maps_2d, store_op

__all__ = ["rewrite_transposed_operands"]


def _dims(m: AffineMap) -> tuple[int, ...] | None:
    if not all(isinstance(e, type(AffineExpr.dimension(0))) for e in m.results):
        return None
    return tuple(e.position for e in m.results)  # type: ignore[attr-defined]


def _right_operand_kn(op: Operation) -> bool:
    """``op`` is a matrix product (``linalg.matmul``, ``linalg.batch_matmul`` or a contraction
    generic of three or four loops) whose second input is read as ``K × N``,
    ``(m, n, k) -> (k, n)`` (``(h, m, n, k) -> (h, k, n)`` for a batch of products)."""
    if not isinstance(op, linalg.MatmulOp | BatchMatmulOp | linalg.GenericOp) \
            or len(op.inputs) != 2 or len(op.outputs) != 1:
        return False
    maps = [m.data for m in op.indexing_maps.data]
    loops = maps[0].num_dims
    if loops not in (3, 4) or any(m.num_dims != loops or m.num_symbols for m in maps):
        return False
    out = _dims(maps[2])
    wgt = _dims(maps[1])
    if out is None or wgt is None or len(out) != loops - 1 or len(set(out)) != loops - 1:
        return False
    k = (set(range(loops)) - set(out)).pop()
    return wgt == (*out[:-2], k, out[-1])


def _read_as_nk(op: Operation, value: SSAValue) -> None:
    """``op`` (:func:`_right_operand_kn`) reads ``value`` through ``(.., n, k)``."""
    maps = [m.data for m in op.indexing_maps.data]  # type: ignore[attr-defined]
    *batch, k, n = _dims(maps[1]) or ()
    maps[1] = AffineMap(maps[1].num_dims, 0,
                        tuple(AffineExpr.dimension(d) for d in (*batch, n, k)))
    op.indexing_maps = ArrayAttr([AffineMapAttr(m) for m in maps])  # type: ignore[attr-defined]
    op.operands = [op.operands[0], value, *op.operands[2:]]


def _int8_matrix(value: SSAValue) -> bool:
    """An int8 matrix, or a batch of them."""
    t = value.type
    return isinstance(t, MemRefType) and t.get_num_dims() in (2, 3) \
        and t.element_type == IntegerType(8)


def _readers(value: SSAValue) -> list[Operation]:
    return [u.operation for u in value.uses if not isinstance(u.operation, memref.DeallocOp)]


def _fold_transposes(block_ops: list[Operation]) -> None:
    for op in block_ops:
        if not isinstance(op, linalg.TransposeOp) or op.permutation.get_values() != (1, 0):
            continue
        source, target = op.inputs[0], op.outputs[0]
        alloc = target.owner
        if not (_int8_matrix(target) and isinstance(alloc, memref.AllocOp)
                and target.type.get_num_dims() == 2):  # type: ignore[attr-defined]
            continue
        readers = [r for r in _readers(target) if r is not op]
        if not readers or any(not _right_operand_kn(r) or r.operands[1] is not target
                              or r.operands[0] is target for r in readers):
            continue
        for reader in readers:
            _read_as_nk(reader, source)
        for use in list(target.uses):
            if isinstance(use.operation, memref.DeallocOp):
                Rewriter.erase_op(use.operation)
        Rewriter.erase_op(op)
        Rewriter.erase_op(alloc)


def _computed(value: SSAValue) -> bool:
    """``value`` is an int8 matrix allocated in the function and written by a layer (not only
    by host steps, which pack any layout), or a column slice of one (a head's columns)."""
    if isinstance(value.owner, memref.SubviewOp) and channel_offset(value.owner) is not None:
        return _computed(value.owner.source)
    if not (_int8_matrix(value) and isinstance(value.owner, memref.AllocOp)):
        return False
    writers = [u.operation for u in value.uses if u.operation.name != "memref.dealloc"
               and value in getattr(u.operation, "outputs", ())]
    return any(not isinstance(w, HostOp) for w in writers)


def _identity_global(f: func.FuncOp, size: int) -> memref.GlobalOp:
    """The module's constant identity of ``size`` × ``size`` int8 (one for every transposing
    layer of that size), added when it has none."""
    module = f.get_toplevel_object()
    assert isinstance(module, ModuleOp)
    eye = np.eye(size, dtype=np.int8)
    globs = {op.sym_name.data: op for op in module.ops if isinstance(op, memref.GlobalOp)}
    name = f"identity_{size}"
    symbol, k = name, 1
    while symbol in globs:
        glob = globs[symbol]
        value = glob.initial_value
        if glob.type == MemRefType(i8, eye.shape) and glob.constant is not None \
                and isinstance(value, DenseIntOrFPElementsAttr) \
                and bytes(value.data.data) == eye.tobytes():
            return glob
        symbol, k = f"{name}_{k}", k + 1
    glob = memref.GlobalOp.get(StringAttr(symbol), MemRefType(i8, eye.shape),
                               DenseIntOrFPElementsAttr(TensorType(i8, eye.shape),
                                                        BytesAttr(eye.tobytes())),
                               constant=UnitAttr(), sym_visibility=StringAttr("private"))
    Rewriter.insert_op(glob, InsertPoint.before(f))
    return glob


def _transposer(f: func.FuncOp, value: SSAValue, before: Operation) -> tuple[SSAValue,
                                                                           memref.GlobalOp]:
    """``valueᵀ``, computed by a layer inserted before ``before`` (module doc)."""
    *batch, rows, cols = value.type.get_shape()  # type: ignore[attr-defined]
    name = value.name_hint or "operand"
    glob = _identity_global(f, cols)
    zero = arith.ConstantOp.from_int_and_width(0, 32)
    eye = memref.GetGlobalOp(glob.sym_name.data, glob.type)
    eye.memref.name_hint = f"{name}_eye"
    out = memref.AllocOp.get(i8, shape=[*batch, cols, rows])
    out.memref.name_hint = f"{name}_t"
    acc = memref.AllocOp.get(i32, shape=[*batch, cols, rows])
    acc.memref.name_hint = f"{name}_t_acc"
    fill = linalg.FillOp([zero.result], [acc.memref], res=())
    # One identity for every batch: out[h, d, s] = Σ_k I[d, k] · value[h, s, k].
    product = contraction_maps_2d(eye.memref, value, acc.memref, batched=bool(batch))
    ops = [zero, eye, out, acc, fill, product, store_op(acc.memref, out.memref)]
    # A layer of its own, named after the operand it transposes (``--stats``' layers).
    for op in ops:
        op.location = NameLoc(StringAttr(f"{name}_transpose"), before.location)
    Rewriter.insert_op(ops, InsertPoint.before(before))
    return out.memref, glob


def rewrite_transposed_operands(f: func.FuncOp) -> list[memref.GlobalOp]:
    """Put ``f``'s products on computed right operands in the ``N × K`` form (module doc);
    returns the identity constants it adds to the module."""
    block = f.body.block
    _fold_transposes(list(block.ops))
    added: list[memref.GlobalOp] = []
    transposed: dict[SSAValue, SSAValue] = {}
    for op in list(block.ops):
        if not _right_operand_kn(op) or not _computed(op.operands[1]):
            continue
        value = op.operands[1]
        if value not in transposed:
            transposed[value], glob = _transposer(f, value, op)
            added.append(glob)
        _read_as_nk(op, transposed[value])
    return added
