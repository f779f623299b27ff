"""The ``vta.quant`` argument attribute: an int8 argument at a float edge of the program.

::

    func.func @model(%x: memref<1x64xi8> {vta.quant = {scale = 0.0078125 : f64,
                                                       zero_point = -3 : i64}}, ...)

The caller passes (an argument the function reads) or receives (one it writes) float32 values;
the host quantizes and dequantizes them (:class:`vta_mlir.abi.Quantization`,
``docs/dialects.md``, "Argument attributes").  :func:`argument_quantization` reads and checks the
attribute wherever it is used: the host layout (``vta_mlir/host/layout.py``), which puts it in
the argument's :class:`~vta_mlir.abi.ArgSpec`, and the reference evaluator.  A malformed
attribute is one error at the function.
"""

from __future__ import annotations

import math

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    Signedness,
)

from vta_mlir.abi import QUANT_MAX, QUANT_MIN, Quantization
from vta_mlir.ir.diagnostics import report_error

__all__ = ["QUANT_ATTR_NAME", "argument_quantization"]

#: Name of the argument attribute.
QUANT_ATTR_NAME = "vta.quant"
_KEYS = ("scale", "zero_point")
_FORM = (f"{{scale = <positive finite float> : f64, zero_point = <integer in "
         f"[{QUANT_MIN}, {QUANT_MAX}]> : i64}}")


def argument_quantization(f: func.FuncOp, index: int) -> Quantization | None:
    """The quantization ``vta.quant`` gives argument ``index`` of ``f``, None without one.

    The argument must be a memref of 8-bit signless or signed integers (packed or not: the
    host layout also checks that its logical dtype is int8)."""
    attrs = f.arg_attrs.data[index] if f.arg_attrs is not None else None
    desc = attrs.data.get(QUANT_ATTR_NAME) if isinstance(attrs, DictionaryAttr) else None
    if desc is None:
        return None
    arg = f.body.block.args[index] if f.body.blocks else None
    name = f" (%{arg.name_hint})" if arg is not None and arg.name_hint else ""
    what = f"argument {index}{name}: {QUANT_ATTR_NAME}"
    if not isinstance(desc, DictionaryAttr):
        report_error(f, f"{what} must be a dictionary {_FORM}, got {desc}")
    unknown = sorted(set(desc.data) - set(_KEYS))
    missing = [k for k in _KEYS if k not in desc.data]
    if unknown or missing:
        problem = (f"unknown key(s) {', '.join(unknown)}" if unknown
                   else f"missing {' and '.join(missing)}")
        report_error(f, f"{what}: {problem} (expected {_FORM})")
    scale, zero_point = desc.data["scale"], desc.data["zero_point"]
    if not isinstance(scale, FloatAttr) or not math.isfinite(scale.value.data) \
            or scale.value.data <= 0:
        report_error(f, f"{what}: scale must be a positive finite float (e.g. 0.05 : f64), "
                        f"got {scale}")
    if not isinstance(zero_point, IntegerAttr) or not isinstance(zero_point.type, IntegerType) \
            or zero_point.type.width.data == 1 \
            or not QUANT_MIN <= zero_point.value.data <= QUANT_MAX:
        report_error(f, f"{what}: zero_point must be an integer in [{QUANT_MIN}, {QUANT_MAX}] "
                        f"(e.g. -3 : i64), got {zero_point}")
    t = f.function_type.inputs.data[index]
    element = t.element_type if isinstance(t, MemRefType) else None
    if not isinstance(element, IntegerType) or element.width.data != 8 \
            or element.signedness.data == Signedness.UNSIGNED:
        report_error(f, f"{what} is on an argument of type {t}; only int8 arguments (memrefs "
                        "of i8) are quantized")
    return Quantization(float(scale.value.data), int(zero_point.value.data))
