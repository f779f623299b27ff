"""What the body of an element-wise ``linalg.generic`` computes, for the forms MLIR frontends
write around quantized layers (torch-mlir's linalg-on-tensors output, ``docs/pipeline.md``,
"vta-integerize").

Each matcher takes the generic and returns a small description of its payload, or ``None``
when the body is something else. Scalars the payload reads are ``arith.constant`` ops, inside
the body or outside it, or an ``arith.truncf`` of one (a scale kept in ``f64`` and rounded to
``f32`` where it is used).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import BlockArgument, Operation, SSAValue

__all__ = ["Dequantize", "Quantize", "ScalarOf", "dequantize", "divide_by", "divide_by_position",
           "float_add", "index_formula",
           "quantize", "relu", "scalar"]


@dataclass(frozen=True)
class ScalarOf:
    """A constant scalar: its value as the program uses it (``float32`` for an ``f32``), and
    for a ``truncf`` of an ``f64`` constant the ``f64`` value too."""

    value: float | int
    wide: float | None = None


def scalar(value: SSAValue) -> ScalarOf | None:
    """The constant ``value`` is, if it is one."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp):
        attr = owner.value
        if isinstance(attr, IntegerAttr):
            return ScalarOf(int(attr.value.data))
        if isinstance(attr, FloatAttr):
            width = attr.type.bitwidth if hasattr(attr.type, "bitwidth") else 32
            v = float(attr.value.data)
            return ScalarOf(float(np.float32(v)) if width == 32 else v, v)
        return None
    if isinstance(owner, arith.TruncFOp):
        inner = scalar(owner.input)
        if inner is None:
            return None
        return ScalarOf(float(np.float32(inner.value)), float(inner.value))
    return None


def _yielded(op: linalg.GenericOp) -> SSAValue | None:
    term = op.body.block.last_op
    if isinstance(term, linalg.YieldOp) and len(term.operands) == 1:
        return term.operands[0]
    return None


def _input_index(value: SSAValue, op: linalg.GenericOp) -> int | None:
    """Which input ``value`` is (a block argument of the body), if it is one."""
    if isinstance(value, BlockArgument) and value.block is op.body.block \
            and value.index < len(op.inputs):
        return value.index
    return None


def _other(op: Operation, value: SSAValue) -> SSAValue:
    """The operand of the binary ``op`` that is not ``value``."""
    a, b = op.operands
    return b if a is value else a


@dataclass(frozen=True)
class Quantize:
    """``clamp(roundeven(x / scale) + zero_point, lo, hi)`` converted to an integer of
    ``width`` bits (``QuantizeLinear``); ``scale`` as the program divides by it (``f32``),
    ``wide`` the ``f64`` value it was rounded from, when it was."""

    scale: float
    wide: float | None
    zero_point: int
    lo: int
    hi: int
    width: int
    #: Converted by ``fptoui``: unsigned codes (uint8 quantization) in the integer type.
    unsigned: bool = False


def quantize(op: linalg.GenericOp) -> Quantize | None:
    """The quantization the one-input generic ``op`` computes, if it does."""
    result = _yielded(op)
    if len(op.inputs) != 1 or result is None or \
            not isinstance(result.owner, arith.FPToSIOp | arith.FPToUIOp):
        return None
    out_type = result.owner.result.type
    if not isinstance(out_type, IntegerType):
        return None
    value = result.owner.input
    bounds: list[float] = []
    while isinstance(value.owner, arith.MinimumfOp | arith.MaximumfOp):
        clamp = value.owner
        inner = next((v for v in clamp.operands if scalar(v) is None), None)
        bound = scalar(_other(clamp, inner)) if inner is not None else None
        if inner is None or bound is None:
            return None
        bounds.append(float(bound.value))
        value = inner
    zero_point = 0
    if isinstance(value.owner, arith.AddfOp):
        add = value.owner
        inner = next((v for v in add.operands if scalar(v) is None), None)
        zp = scalar(_other(add, inner)) if inner is not None else None
        if inner is None or zp is None or not _whole(float(zp.value)):
            return None
        zero_point = int(zp.value)
        value = inner
    if not isinstance(value.owner, math.RoundEvenOp):
        return None
    value = value.owner.operand
    if not isinstance(value.owner, arith.DivfOp) or _input_index(value.owner.lhs, op) != 0:
        return None
    scale = scalar(value.owner.rhs)
    if scale is None or not (float(scale.value) > 0 and np.isfinite(float(scale.value))) \
            or len(bounds) != 2:
        return None
    lo, hi = sorted(bounds)
    if not _whole(lo) or not _whole(hi):
        return None
    return Quantize(float(scale.value), scale.wide, zero_point, int(lo), int(hi),
                    out_type.width.data, isinstance(result.owner, arith.FPToUIOp))


def _whole(value: float) -> bool:
    """Whether ``value`` is a finite whole number (a NaN or infinite constant is none)."""
    return bool(np.isfinite(value)) and float(value).is_integer()


@dataclass(frozen=True)
class Dequantize:
    """``(x − zero_point) · scale`` of an integer ``x`` as a float (``DequantizeLinear``, or
    the scaling of an accumulator)."""

    scale: float
    wide: float | None
    zero_point: int
    #: ``x`` read unsigned (``uitofp``, ``extui``: uint8 codes).
    unsigned: bool = False


def dequantize(op: linalg.GenericOp) -> Dequantize | None:
    """The dequantization the one-input generic ``op`` computes, if it does."""
    result = _yielded(op)
    if len(op.inputs) != 1 or result is None or not isinstance(result.owner, arith.MulfOp):
        return None
    mul = result.owner
    converted = next((v for v in mul.operands
                      if isinstance(v.owner, arith.SIToFPOp | arith.UIToFPOp)), None)
    scale = scalar(_other(mul, converted)) if converted is not None else None
    if converted is None or scale is None:
        return None
    value = converted.owner.input
    unsigned = isinstance(converted.owner, arith.UIToFPOp)
    zero_point = 0
    if isinstance(value.owner, arith.SubiOp):
        zp = scalar(value.owner.rhs)
        if zp is None:
            return None
        zero_point = int(zp.value)
        value = value.owner.lhs
    if isinstance(value.owner, arith.ExtSIOp | arith.ExtUIOp):
        unsigned = unsigned or isinstance(value.owner, arith.ExtUIOp)
        value = value.owner.input
    if _input_index(value, op) != 0:
        return None
    return Dequantize(float(scale.value), scale.wide, zero_point, unsigned)


def relu(op: linalg.GenericOp) -> int | None:
    """The bound ``b`` of a one-input generic computing ``max(x, b)`` on integers."""
    result = _yielded(op)
    if len(op.inputs) != 1 or result is None or not isinstance(result.owner, arith.MaxSIOp):
        return None
    maxsi = result.owner
    arg = next((v for v in maxsi.operands if _input_index(v, op) == 0), None)
    bound = scalar(_other(maxsi, arg)) if arg is not None else None
    return int(bound.value) if bound is not None else None


def float_add(op: linalg.GenericOp) -> bool:
    """Whether the two-input generic ``op`` computes ``x + y`` on floats."""
    result = _yielded(op)
    if len(op.inputs) != 2 or result is None or not isinstance(result.owner, arith.AddfOp):
        return False
    return sorted(_input_index(v, op) or 0 for v in result.owner.operands) == [0, 1] and \
        all(_input_index(v, op) is not None for v in result.owner.operands)


def divide_by(op: linalg.GenericOp) -> float | None:
    """The constant ``d`` of a one-input generic computing ``x / d`` on floats."""
    result = _yielded(op)
    if len(op.inputs) != 1 or result is None or not isinstance(result.owner, arith.DivfOp):
        return None
    div = result.owner
    if _input_index(div.lhs, op) != 0:
        return None
    d = scalar(div.rhs)
    return float(d.value) if d is not None else None


def divide_by_position(op: linalg.GenericOp) -> SSAValue | None:
    """The divisor ``d`` of a one-input generic computing ``x / d`` on floats where ``d`` is
    computed in the body (from ``linalg.index``), not a constant."""
    result = _yielded(op)
    if len(op.inputs) != 1 or result is None or not isinstance(result.owner, arith.DivfOp):
        return None
    div = result.owner
    if _input_index(div.lhs, op) != 0 or scalar(div.rhs) is not None:
        return None
    return div.rhs


#: The integer ops an index formula may use, as numpy functions.
_INDEX_OPS = {arith.AddiOp: np.add, arith.SubiOp: np.subtract, arith.MuliOp: np.multiply,
              arith.MinSIOp: np.minimum, arith.MaxSIOp: np.maximum}


def index_formula(op: linalg.GenericOp, value: SSAValue,
                  shape: tuple[int, ...]) -> np.ndarray | None:
    """The values of ``value`` over the iteration space ``shape`` when the body computes it
    from ``linalg.index`` and integer constants alone (``index_cast``, ``addi``, ``subi``,
    ``muli``, ``minsi``, ``maxsi``, and a final ``sitofp``), exactly in int64; ``None`` for
    anything else."""
    owner = value.owner
    if isinstance(owner, arith.SIToFPOp | arith.IndexCastOp):
        return index_formula(op, owner.input, shape)
    if isinstance(owner, linalg.IndexOp):
        dim = owner.dim.value.data
        extent = [1] * len(shape)
        extent[dim] = shape[dim]
        return np.arange(shape[dim], dtype=np.int64).reshape(extent)
    constant = scalar(value)
    if constant is not None:
        return np.array(constant.value, np.int64) if isinstance(constant.value, int) else None
    if type(owner) in _INDEX_OPS and isinstance(owner, Operation):
        lhs = index_formula(op, owner.operands[0], shape)
        rhs = index_formula(op, owner.operands[1], shape)
        if lhs is None or rhs is None:
            return None
        return _INDEX_OPS[type(owner)](lhs, rhs)
    return None
