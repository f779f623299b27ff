"""The layer a quantize of a product's scaled accumulator closes, for ``lift.py``: a
convolution, a dense layer or a batched product of two activations (``batch.py``) with the
fixed-point requantization of ``docs/onnx.md`` §3 (fitted to the accumulator's range as the
ONNX frontend fits it), and what the host needs to requantize the product instead when only
float code reads its codes (``docs/onnx.md`` §4.19): the accumulator's scale, recorded for a
product the program scales exactly as ``float32(acc) · float32(scale)`` before quantizing it,
with no float bias in between (then the host's requantization is the program's, op for op).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from xdsl.ir import Operation

from vta_mlir.quant.batch_product import batch_product_layer
from vta_mlir.quant.depthwise import depthwise_conv_layer
from vta_mlir.quant.product_first import written_codes
from vta_mlir.quant.product_first_choice import fitted_requant
from vta_mlir.quant.program import ConvLayer, DenseLayer, Layer, QTensor, conv_layer, dense_layer
from vta_mlir.quant.requant import Requant, error_bound

from .meaning import ActivationProduct, ScaledAccumulator, Unsupported
from .values import requant as _requant

__all__ = ["Lifter", "accumulator_layer"]


class Lifter(Protocol):
    """What this module uses of the lifter."""

    aliases: dict[str, str]
    producer: dict[str, Layer]
    #: The accumulator's scale of each product the host may requantize, by output tensor.
    accumulator_scales: dict[str, np.ndarray]
    #: Each product's fixed-point error against its float requantization, by output tensor.
    product_bounds: dict[str, float]

    def name(self, kind: str) -> str: ...


def accumulator_layer(lifter: Lifter, op: Operation, src: ScaledAccumulator,
                      y: QTensor) -> Layer:
    """The layer of a quantize (``op``) of ``src`` into ``y``."""
    acc = src.acc
    if isinstance(acc, ActivationProduct):
        multiplier = float(np.ravel(src.scale)[0]) / y.scale
        try:
            product = batch_product_layer(lifter.name("product"), acc.a, acc.b, y,
                                          _requant(op, multiplier))
        except ValueError as exc:
            raise Unsupported(acc.op, str(exc)) from None
        lifter.product_bounds[y.name] = error_bound(multiplier, product.rq)
        if src.exact and src.bias is None:
            lifter.accumulator_scales[y.name] = np.ravel(src.scale)[:1].astype(np.float64)
        return product
    bias = acc.bias.astype(np.int64)
    if src.bias is not None:
        # A bias added as reals (dequantized on its own): back at the accumulator's scale.
        bias = bias + np.rint(src.bias.astype(np.float64) / src.scale).astype(np.int64)
    multipliers = src.scale / y.scale
    name = lifter.name("dense" if acc.stride is None else "conv")

    def build(rq: Requant) -> ConvLayer | DenseLayer:
        try:
            if acc.stride is None:
                return dense_layer(name, acc.x, acc.weight, bias, y, rq)
            make = depthwise_conv_layer if acc.depthwise else conv_layer
            return make(name, acc.x, acc.weight, bias, acc.stride, acc.pads, y, rq)
        except ValueError as exc:
            raise Unsupported(acc.op, str(exc)) from None
    layer = build(_requant(op, multipliers))  # then fitted as by the ONNX frontend
    codes = written_codes(lifter.producer.get(lifter.aliases.get(acc.x.name, acc.x.name)))
    weight = acc.weight.T if acc.stride is None else acc.weight
    fitted = fitted_requant(layer, weight, codes, np.ravel(multipliers), "fixed")
    layer = build(fitted) if fitted is not None else layer
    lifter.product_bounds[y.name] = error_bound(
        np.ravel(multipliers).tolist() if layer.rq.channel_m else float(np.max(multipliers)),
        layer.rq)
    if src.exact and src.bias is None and acc.stride is None and np.size(src.scale) == 1:
        lifter.accumulator_scales[y.name] = np.ravel(src.scale).astype(np.float64)
    return layer
