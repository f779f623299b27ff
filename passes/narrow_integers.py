"""``vta-narrow-integers``: integer programs written with wide types, as torch-mlir's FX importer
writes integer PyTorch code, to the i8 / i32 buffers VTA holds.

Such a program sign-extends its int8 operands in generics of their own and accumulates its
contractions in ``i64``. VTA's buffers hold i8 or i32 (``docs/pipeline.md``, stage 0), so the
pass, on the memref form (after ``vta-bufferize``):

1. **fuses the sign extensions**: a generic that only sign-extends a buffer (``arith.extsi``,
   identity maps) is dropped, and the contractions reading its result read the narrow buffer
   (``linalg.matmul`` and the convolutions extend their operands themselves; a generic gets the
   ``extsi`` in its body);
2. **narrows the accumulators**: a ``linalg.matmul`` or ``linalg.conv_2d_nchw_fchw`` on 8-bit
   operands into an ``i64`` buffer filled with a constant accumulates in ``i32`` instead when
   that is provably exact: ``|init| + K · 128 · 128 < 2^31`` for a reduction of ``K`` products
   (an i8 product is at most 2^14);
3. **narrows the epilogues**: a generic reading such an accumulator computes in ``i32`` when
   every value of its body provably fits: the ranges of ``extsi``, ``shrsi``/``shli``,
   ``addi``/``subi``/``muli`` by constants, ``maxsi``/``minsi`` and ``trunci`` are followed
   from the accumulator's bound.

Each step changes only what it proves exact; anything else stays as it is, and an ``i64``
buffer left at the end is ``vta-pack``'s error as before. ``vta-to-isa`` runs the pass after
``vta-bufferize`` when the input has integer buffers wider than 32 bits.

Before::

    linalg.generic ... ins(%a : memref<4x64xi8>) outs(%e0 : memref<4x64xi64>) { extsi }
    linalg.generic ... ins(%b : memref<64x32xi8>) outs(%e1 : memref<64x32xi64>) { extsi }
    linalg.fill ins(%c0 : i64) outs(%e2 : memref<4x32xi64>)
    linalg.matmul ins(%e0, %e1 : ...) outs(%e2 : memref<4x32xi64>)
    linalg.generic ... ins(%e2 : memref<4x32xi64>) outs(%y : memref<4x32xi8>) {
      shrsi, maxsi, minsi : i64, trunci i64 to i8 }

After::

    linalg.fill ins(%c0 : i32) outs(%e2 : memref<4x32xi32>)
    linalg.matmul ins(%a, %b : memref<4x64xi8>, memref<64x32xi8>) outs(%e2 : memref<4x32xi32>)
    linalg.generic ... ins(%e2 : memref<4x32xi32>) outs(%y : memref<4x32xi8>) {
      shrsi, maxsi, minsi : i32, trunci i32 to i8 }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IntegerAttr, IntegerType, MemRefType, ModuleOp, i32
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

__all__ = ["NarrowIntegersPass", "has_wide_integers"]

#: The ops whose payload is ``acc + extend(a) · extend(b)`` over a reduction.
_CONTRACTIONS = (linalg.MatmulOp, linalg.Conv2DNchwFchwOp)


def _width(t: object) -> int | None:
    element = t.element_type if isinstance(t, MemRefType) else t
    return element.width.data if isinstance(element, IntegerType) else None


def has_wide_integers(module: ModuleOp) -> bool:
    """Whether a buffer of ``module`` holds integers wider than 32 bits."""
    return any(isinstance(op, memref.AllocOp) and (_width(op.memref.type) or 0) > 32
               for op in module.walk())


def _extension_source(op: Operation) -> SSAValue | None:
    """The buffer a generic only sign-extends into its output, if ``op`` is one."""
    if not isinstance(op, linalg.GenericOp) or len(op.inputs) != 1 or len(op.outputs) != 1:
        return None
    maps = [m.data for m in op.indexing_maps.data]
    if any(m.num_dims != len(m.results) or any(str(r) != f"d{i}" for i, r in
                                                 enumerate(m.results)) for m in maps):
        return None
    ops = list(op.body.block.ops)
    if len(ops) != 2 or not isinstance(ops[0], arith.ExtSIOp) or \
            not isinstance(ops[1], linalg.YieldOp) or ops[0].input is not op.body.block.args[0] \
            or ops[1].operands[0] is not ops[0].result:
        return None
    return op.inputs[0]


def _writers(buffer: SSAValue) -> list[Operation]:
    """The ops writing ``buffer``, in program order (one block: the function's)."""
    found = {u.operation for u in buffer.uses
             if isinstance(u.operation, (linalg.GenericOp, linalg.FillOp, *_CONTRACTIONS))
             and buffer in u.operation.outputs}
    block = next(iter(found)).parent_block() if found else None
    return [op for op in block.ops if op in found] if block is not None else []


@dataclass(frozen=True)
class NarrowIntegersPass(ModulePass):
    """The pass; see the module docstring."""

    name = "vta-narrow-integers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.ops:
            if isinstance(f, func.FuncOp) and not f.is_declaration:
                _fuse_extensions(f)
                for contraction in [o for o in f.walk() if isinstance(o, _CONTRACTIONS)]:
                    _narrow_accumulator(contraction)


# ---------------------------------------------------------------------------------------------
# 1. Sign extensions


def _fuse_extensions(f: func.FuncOp) -> None:
    for ext in [o for o in f.walk() if _extension_source(o) is not None]:
        source = _extension_source(ext)
        wide = ext.outputs[0]
        assert source is not None
        readers = [u.operation for u in wide.uses if u.operation is not ext]
        padding = [_padding_of(r, wide, source) for r in readers
                   if isinstance(r, memref.CopyOp)]
        if _writers(wide) != [ext] or None in padding or not all(
                isinstance(r, _CONTRACTIONS) and wide in r.inputs
                or isinstance(r, memref.DeallocOp | memref.CopyOp) for r in readers):
            continue
        for reader in readers:
            if isinstance(reader, memref.DeallocOp):
                Rewriter.erase_op(reader)
            elif isinstance(reader, memref.CopyOp):
                _narrow_padding(reader, source)
            else:
                _rebuild(reader, [source if v is wide else v for v in reader.inputs],
                         list(reader.outputs))
        Rewriter.erase_op(ext)
        if isinstance(wide.owner, memref.AllocOp) and not wide.uses:
            Rewriter.erase_op(wide.owner)


def _padding_of(copy: memref.CopyOp, wide: SSAValue, source: SSAValue) -> bool | None:
    """Whether ``copy`` puts the extended ``wide`` into the interior of a padded buffer (the
    padding idiom) that only contractions read and whose fill value fits ``source``'s type;
    None if not."""
    view = copy.destination.owner
    if copy.source is not wide or not isinstance(view, memref.SubviewOp):
        return None
    padded = view.source
    writers = [u.operation for u in padded.uses if u.operation is not view]
    fills = [w for w in writers if isinstance(w, linalg.FillOp)]
    width = _width(source.type) or 0
    if len(fills) != 1 or not isinstance(fills[0].inputs[0].owner, arith.ConstantOp):
        return None
    value = fills[0].inputs[0].owner.value
    if not isinstance(value, IntegerAttr) or not -(1 << (width - 1)) <= value.value.data < (
            1 << (width - 1)):
        return None
    if not all(isinstance(w, linalg.FillOp | memref.DeallocOp) or isinstance(w, _CONTRACTIONS)
               and padded in w.inputs for w in writers):
        return None
    return True


def _narrow_padding(copy: memref.CopyOp, source: SSAValue) -> None:
    """The padding idiom of :func:`_padding_of` again on ``source``'s narrow type."""
    view = copy.destination.owner
    assert isinstance(view, memref.SubviewOp)
    padded = view.source
    t = padded.type
    element = source.type.element_type
    assert isinstance(t, MemRefType) and isinstance(element, IntegerType)
    alloc = padded.owner
    assert isinstance(alloc, memref.AllocOp)
    narrow = memref.AllocOp.get(element, shape=t.get_shape())
    narrow.memref.name_hint = padded.name_hint
    Rewriter.insert_op(narrow, InsertPoint.before(alloc))
    for user in [u.operation for u in padded.uses]:
        if isinstance(user, linalg.FillOp):
            old = user.inputs[0].owner
            assert isinstance(old, arith.ConstantOp) and isinstance(old.value, IntegerAttr)
            value = arith.ConstantOp(IntegerAttr(old.value.value.data, element))
            Rewriter.insert_op(value, InsertPoint.before(user))
            Rewriter.replace_op(user, linalg.FillOp((value.result,), (narrow.memref,), res=()),
                                new_results=[])
        elif isinstance(user, memref.DeallocOp):
            Rewriter.replace_op(user, memref.DeallocOp.get(narrow.memref))
        elif user is view:
            interior = memref.SubviewOp.get(
                narrow.memref, list(view.static_offsets.get_values()),
                list(view.static_sizes.get_values()), list(view.static_strides.get_values()),
                MemRefType(element, view.result.type.get_shape(), view.result.type.layout))
            interior.result.name_hint = view.result.name_hint
            Rewriter.insert_op(interior, InsertPoint.before(copy))
            Rewriter.replace_op(copy, memref.CopyOp(source, interior.result), new_results=[])
            Rewriter.erase_op(view)
        else:
            _rebuild(user, [narrow.memref if v is padded else v for v in user.inputs],
                     list(user.outputs))
    if not padded.uses:
        Rewriter.erase_op(alloc)


def _rebuild(op: Operation, inputs: list[SSAValue], outputs: list[SSAValue]) -> Operation:
    """``op`` again on other operands (its payload follows their element types)."""
    new = type(op).build(
        operands=[inputs, outputs], result_types=[[]], properties=dict(op.properties),
        attributes=dict(op.attributes),
        regions=[type(op).get_hidden_region(inputs, outputs)])
    Rewriter.replace_op(op, new, new_results=[])
    return new


# ---------------------------------------------------------------------------------------------
# 2. Accumulators


def _reduction_size(op: Operation) -> int:
    if isinstance(op, linalg.MatmulOp):
        return op.inputs[0].type.get_shape()[-1]
    _, c, kh, kw = op.inputs[1].type.get_shape()
    return c * kh * kw


def _narrow_accumulator(op: Operation) -> None:
    acc = op.outputs[0]
    if (_width(acc.type) or 0) <= 32 or any((_width(v.type) or 99) > 8 for v in op.inputs):
        return
    writers = _writers(acc)
    fill = writers[0] if writers else None
    if len(writers) != 2 or writers[1] is not op or not isinstance(fill, linalg.FillOp):
        return
    init = fill.inputs[0].owner
    if not isinstance(init, arith.ConstantOp) or not isinstance(init.value, IntegerAttr):
        return
    bound = abs(init.value.value.data) + _reduction_size(op) * 128 * 128
    if bound >= 1 << 31:
        return
    readers = [u.operation for u in acc.uses if u.operation not in (fill, op)]
    plans: list[tuple[linalg.GenericOp, _Narrowed]] = []
    for reader in readers:
        if isinstance(reader, memref.DeallocOp):
            continue
        narrowed = _narrow_body(reader, acc, bound) if isinstance(reader, linalg.GenericOp) \
            and acc in reader.inputs and acc not in reader.outputs else None
        if narrowed is None:
            return
        plans.append((reader, narrowed))
    alloc = acc.owner
    if not isinstance(alloc, memref.AllocOp):
        return
    t = acc.type
    assert isinstance(t, MemRefType)
    new_alloc = memref.AllocOp.get(i32, shape=t.get_shape())
    new_alloc.memref.name_hint = acc.name_hint
    value = arith.ConstantOp(IntegerAttr(init.value.value.data, i32))
    value.result.name_hint = init.result.name_hint
    Rewriter.insert_op([new_alloc, value], InsertPoint.before(alloc))
    narrow = new_alloc.memref
    Rewriter.replace_op(fill, linalg.FillOp((value.result,), (narrow,), res=()), new_results=[])
    _rebuild(op, list(op.inputs), [narrow])
    for reader, narrowed in plans:
        narrowed.apply(reader, acc, narrow)
    for use in list(acc.uses):
        if isinstance(use.operation, memref.DeallocOp):
            Rewriter.replace_op(use.operation, memref.DeallocOp.get(narrow))
    if not acc.uses:
        Rewriter.erase_op(alloc)
    if not init.result.uses:
        Rewriter.erase_op(init)


# ---------------------------------------------------------------------------------------------
# 3. Epilogues


@dataclass
class _Narrowed:
    """A generic's body computing in i32: the ops proven to fit (``ops``) and the wide
    constants they read (``constants``)."""

    ops: list[Operation]
    constants: set[SSAValue]

    def apply(self, generic: linalg.GenericOp, wide: SSAValue, narrow: SSAValue) -> None:
        block = generic.body.block
        old_arg = block.args[list(generic.operands).index(wide)]
        new_block = Block(arg_types=[i32 if a is old_arg else a.type for a in block.args])
        values: dict[SSAValue, SSAValue] = dict(zip(block.args, new_block.args, strict=True))
        for old, new_arg in values.items():
            new_arg.name_hint = old.name_hint
        narrow_constants: dict[SSAValue, SSAValue] = {}
        for inner in block.ops:
            if isinstance(inner, arith.ConstantOp) and inner.result in self.constants:
                narrowed = arith.ConstantOp(IntegerAttr(inner.value.value.data, i32))
                narrowed.result.name_hint = inner.result.name_hint
                new_block.add_op(narrowed)
                narrow_constants[inner.result] = narrowed.result
                if all(u.operation in self.ops for u in inner.result.uses):
                    continue
            if inner in self.ops:
                operands = [narrow_constants.get(v) or values[v] for v in inner.operands]
                new = arith.TruncIOp(operands[0], inner.result.type) \
                    if isinstance(inner, arith.TruncIOp) else type(inner)(*operands)
            else:
                new = inner.clone(value_mapper=values)
            new_block.add_op(new)
            for old, res in zip(inner.results, new.results, strict=True):
                res.name_hint = old.name_hint
                values[old] = res
        new = linalg.GenericOp(
            [narrow if v is wide else v for v in generic.inputs], list(generic.outputs),
            Region(new_block), generic.indexing_maps, generic.iterator_types)
        Rewriter.replace_op(generic, new, new_results=[])


def _narrow_body(generic: linalg.GenericOp, acc: SSAValue, bound: int) -> _Narrowed | None:
    """Whether ``generic``'s body, reading the accumulator (within ``±bound``), computes in
    i32 exactly: every op on it is integer arithmetic by constants whose values fit i32,
    ending in a ``trunci`` to at most 32 bits before it is yielded."""
    block = generic.body.block
    arg = block.args[list(generic.operands).index(acc)]
    ranges: dict[SSAValue, tuple[int, int]] = {arg: (-bound, bound)}
    constants: dict[SSAValue, tuple[int, int]] = {}
    ops: list[Operation] = []
    used: set[SSAValue] = set()
    for op in block.ops:
        if isinstance(op, arith.ConstantOp):
            if isinstance(op.value, IntegerAttr) and (_width(op.result.type) or 0) == 64:
                value = op.value.value.data
                constants[op.result] = (value, value)
            continue
        tracked = [ranges.get(v) or constants.get(v) for v in op.operands]
        if not any(v in ranges for v in op.operands):
            continue
        if isinstance(op, linalg.YieldOp) or any(t is None for t in tracked):
            return None  # a wide value yielded, or mixed with one not followed
        result = _range(op, tracked)  # type: ignore[arg-type]
        if result is None or not (-(1 << 31) <= result[0] and result[1] < 1 << 31):
            return None
        used.update(v for v in op.operands if v in constants)
        ops.append(op)
        if isinstance(op, arith.TruncIOp):
            if (_width(op.result.type) or 99) > 32:
                return None
            continue
        ranges[op.result] = result
    return _Narrowed(ops, used)


def _range(op: Operation, inputs: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The range of ``op``'s result from its operands' (a constant's is a point)."""
    if isinstance(op, arith.TruncIOp):
        return inputs[0]
    if len(inputs) != 2:
        return None
    (a0, a1), (b0, b1) = inputs
    if isinstance(op, arith.AddiOp):
        return a0 + b0, a1 + b1
    if isinstance(op, arith.SubiOp):
        return a0 - b1, a1 - b0
    if isinstance(op, arith.MuliOp):
        products = (a0 * b0, a0 * b1, a1 * b0, a1 * b1)
        return min(products), max(products)
    if isinstance(op, arith.MaxSIOp):
        return max(a0, b0), max(a1, b1)
    if isinstance(op, arith.MinSIOp):
        return min(a0, b0), min(a1, b1)
    if isinstance(op, arith.ShRSIOp) and b0 == b1 and 0 <= b0 < 32:
        return a0 >> b0, a1 >> b0
    if isinstance(op, arith.ShLIOp) and b0 == b1 and 0 <= b0 < 32:
        return a0 << b0, a1 << b0
    return None
