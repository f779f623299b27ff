"""Recognising the copies ``vta-inject-dma`` lowers: ``memref.copy``, ``linalg.copy`` and
copy-like ``linalg.generic`` ops between DRAM and SRAM, each read as a :class:`Copy`."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IntegerType, MemRefType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from vta_mlir.dialects.vta_positions import sram_space

from ..analysis.unsupported import Unsupported

__all__ = ["Copy", "as_copy", "element_type", "is_copy_target"]


@dataclass(frozen=True)
class Copy:
    """A copy as the pass sees it: source and destination, their indexing maps over the
    iteration dimensions of the given extents, and the conversion the body applies."""

    src: SSAValue
    dst: SSAValue
    maps: tuple[AffineMap, AffineMap]
    extents: tuple[int, ...]
    conversion: str  # "copy", "extsi" or "trunci"


def _shape(value: SSAValue) -> tuple[int, ...]:
    t = value.type
    assert isinstance(t, MemRefType)
    return tuple(t.get_shape())


def element_type(value: SSAValue) -> IntegerType | None:
    t = value.type
    assert isinstance(t, MemRefType)
    elem = t.element_type
    return elem if isinstance(elem, IntegerType) else None


def _identity_copy(src: SSAValue, dst: SSAValue) -> Copy:
    shape = _shape(dst)
    if _shape(src) != shape:
        raise Unsupported(f"the source shape {_shape(src)} differs from the destination's {shape}")
    s, d = element_type(src), element_type(dst)
    if s is None or d is None:
        raise Unsupported("VTA copies integer tensors")
    width_s, width_d = s.width.data, d.width.data
    conversion = "copy" if width_s == width_d else "extsi" if width_s < width_d else "trunci"
    identity = AffineMap.identity(len(shape))
    return Copy(src, dst, (identity, identity), shape, conversion)


_BODY = (
    "the body of a copy between DRAM and SRAM must yield its input, arith.extsi of it (i8 "
    "into the accumulator) or arith.trunci of it (the accumulator into i8 DRAM)"
)


def _generic_copy(op: linalg.GenericOp) -> Copy:
    if len(op.inputs) != 1 or len(op.outputs) != 1 or op.res:
        raise Unsupported(
            "a linalg.generic between DRAM and SRAM must be a copy: one input and one output "
            f"buffer, got {len(op.inputs)} input(s) and {len(op.outputs)} output(s)"
        )
    for it in op.iterator_types.data:
        if it.data != linalg.IteratorType.PARALLEL:
            raise Unsupported(f"a copy has only parallel iterators, got '{it.data.value}'")
    block = op.body.block
    arg = block.args[0]
    ops = list(block.ops)
    yielded = (
        ops[-1].operands[0]
        if isinstance(ops[-1], linalg.YieldOp) and len(ops[-1].operands) == 1
        else None
    )
    if len(ops) == 1 and yielded is arg:
        conversion = "copy"
    elif (
        len(ops) == 2
        and isinstance(ops[0], arith.ExtSIOp | arith.TruncIOp)
        and ops[0].input is arg
        and yielded is ops[0].result
    ):
        conversion = "extsi" if isinstance(ops[0], arith.ExtSIOp) else "trunci"
    else:
        names = ", ".join(o.name for o in ops[:-1]) or "nothing"
        raise Unsupported(f"{_BODY}; got {names}")
    maps = tuple(m.data for m in op.indexing_maps.data)
    values = (op.inputs[0], op.outputs[0])
    num_dims = maps[0].num_dims
    extents: list[int | None] = [None] * num_dims
    for m, v in zip(maps, values, strict=True):
        if m.num_symbols or len(m.results) != len(_shape(v)):
            raise Unsupported("an indexing map has symbols or does not match its buffer's rank")
        for r, size in zip(m.results, _shape(v), strict=True):
            if isinstance(r, AffineDimExpr):
                known = extents[r.position]
                if known is not None and known != size:
                    raise Unsupported(
                        f"iteration dimension d{r.position} indexes dimensions of different "
                        f"sizes ({known} and {size})"
                    )
                extents[r.position] = size
    # Every output element is written once: each iteration dimension is exactly one output
    # subscript (which also gives every dimension its extent).
    used = [r.position for r in maps[1].results if isinstance(r, AffineDimExpr)]
    if len(set(used)) != len(used) or set(used) != set(range(num_dims)):
        raise Unsupported(
            f"the output indexing map {maps[1]} must use every iteration dimension exactly once"
        )
    resolved = tuple(e for e in extents if e is not None)
    assert len(resolved) == num_dims
    return Copy(values[0], values[1], (maps[0], maps[1]), resolved, conversion)


def as_copy(op: Operation) -> Copy:
    if isinstance(op, memref.CopyOp):
        return _identity_copy(op.source, op.destination)
    if isinstance(op, linalg.CopyOp):
        if len(op.inputs) != 1 or len(op.outputs) != 1 or op.res:
            raise Unsupported("linalg.copy between DRAM and SRAM copies one buffer into one")
        return _identity_copy(op.inputs[0], op.outputs[0])
    if isinstance(op, linalg.GenericOp):
        return _generic_copy(op)
    raise Unsupported(
        "only memref.copy, linalg.copy and copy-like linalg.generic ops move data between "
        "DRAM and SRAM"
    )



def is_copy_target(op: Operation) -> bool:
    """A copy between memory spaces: memref.copy, or a linalg op with SRAM and DRAM
    memref operands."""
    if isinstance(op, memref.CopyOp):
        return True
    if not op.name.startswith("linalg.") or isinstance(op, linalg.YieldOp):
        return False
    buffers = [v for v in op.operands if isinstance(v.type, MemRefType)]
    spaces = {sram_space(v.type) is not None for v in buffers}
    return spaces == {True, False}

