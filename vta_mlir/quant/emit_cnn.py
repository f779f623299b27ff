"""The input IR of the layers of :mod:`vta_mlir.quant.layers_cnn` (``docs/onnx.md``
§4.10–§4.14), for :mod:`vta_mlir.quant.emit`'s emitter: the same building blocks (padding
idiom, accumulator, requantization steps, epilogue) as the layers of
:mod:`vta_mlir.quant.program`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vta_mlir.frontend.mlir_text import memref_type
from vta_mlir.ir.locations import mlir_string

from .activations import HardLayer, MulConstLayer
from .layers_cnn import AveragePoolLayer, ConcatLayer, RescaleLayer, ResizeLayer
from .requant import IMM_MAX

if TYPE_CHECKING:
    from .emit import Emitter

__all__ = ["CNN_LAYERS", "emit_cnn_layer", "immediate_parts", "last_value"]

#: The layer classes this module emits.
CNN_LAYERS = (AveragePoolLayer, ConcatLayer, RescaleLayer, ResizeLayer, HardLayer,
              MulConstLayer)
CnnLayer = (AveragePoolLayer | ConcatLayer | RescaleLayer | ResizeLayer | HardLayer
            | MulConstLayer)

Operand = tuple[str, str, str, str]


def immediate_parts(value: int) -> list[int]:
    """``value`` as a sum of 16-bit immediates (one unless it is large)."""
    parts: list[int] = []
    while value > IMM_MAX or value < -IMM_MAX:
        step = IMM_MAX if value > 0 else -IMM_MAX
        parts.append(step)
        value -= step
    return [*parts, value] if value else parts


def last_value(steps: list[str]) -> str:
    """The last ``%v<k>`` of ``steps`` (``%a``, the accumulator, when there is none)."""
    k = sum(1 for line in steps if line.startswith("%v")) - 1
    return f"%v{k}" if k >= 0 else "%a"


def emit_cnn_layer(em: Emitter, layer: CnnLayer, prefix: str, out: str) -> None:
    """Append the IR of ``layer`` (one of :data:`CNN_LAYERS`) writing ``out``."""
    if isinstance(layer, AveragePoolLayer):
        average_pool(em, layer, prefix, out)
    elif isinstance(layer, ConcatLayer):
        concat(em, layer, out)
    elif isinstance(layer, ResizeLayer):
        resize(em, layer, out)
    elif isinstance(layer, RescaleLayer):
        rescale(em, layer, prefix, out)
    else:
        activation(em, layer, prefix, out)


def resize(em: Emitter, layer: ResizeLayer, out: str) -> None:
    """The nearest upsampling as torch-mlir writes it: a copy through the input map
    ``(n, c, h, w) -> (n, c, h floordiv fh, w floordiv fw)``."""
    fh, fw = layer.factors
    rows = f"d2 floordiv {fh}" if fh > 1 else "d2"
    cols = f"d3 floordiv {fw}" if fw > 1 else "d3"
    src_t = memref_type(em.shape(layer.src), "i8")
    out_t = memref_type(em.program.tensors[layer.dst].shape, "i8")
    em.lines += [
        f"  linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, {rows}, "
        f"{cols})>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],",
        '                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}',
        f"      ins({em.buffer(layer.src)} : {src_t}) outs({out} : {out_t}) {{",
        "  ^bb0(%a: i8, %o: i8):",
        "    linalg.yield %a : i8",
        f"  }} loc({mlir_string(layer.name)})"]


def concat(em: Emitter, layer: ConcatLayer, out: str) -> None:
    """Each part copied into its channel slice of ``out`` (a ``memref.subview``); ``vta-pack``
    makes the layer writing a part write the slice itself (``passes/pack/concat.py``)."""
    n, total, h, w = em.program.tensors[layer.dst].shape
    out_t = memref_type((n, total, h, w), "i8")
    first = 0
    for k, src in enumerate(layer.srcs):
        shape = em.shape(src)
        view = "%" + em.unique(f"{layer.name}_slice{k}")
        view_t = (f"memref<{n}x{shape[1]}x{h}x{w}xi8, strided<[{total * h * w}, {h * w}, "
                  f"{w}, 1], offset: {first * h * w}>>")
        em.lines += [
            f"  {view} = memref.subview {out}[0, {first}, 0, 0] [{n}, {shape[1]}, {h}, {w}] "
            f"[1, 1, 1, 1] : {out_t} to {view_t}",
            f"  memref.copy {em.buffer(src)}, {view} : {memref_type(shape, 'i8')} to "
            f"{view_t}"]
        first += shape[1]


def element_read(em: Emitter, src: str, prefix: str, name: str,
                 shape: tuple[int, ...]) -> str:
    """The accumulator of an element-wise layer in the tensor layout: a 1×1 sum pool of
    ``src``, which reads each code once (on VTA a pooling region, whose epilogue may read
    per-channel operands and copy the accumulator). Returns its type."""
    acc_t = em.accumulator(prefix, shape)
    em.lines += [
        f"  {prefix}_win = memref.alloc() : memref<1x1xi8>",
        "  linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, "
        "strides = dense<1> : tensor<2xi64>}",
        f"      ins({em.buffer(src)}, {prefix}_win : {memref_type(em.shape(src), 'i8')}"
        f", memref<1x1xi8>) outs({prefix}_acc : {acc_t}) loc({mlir_string(name)})",
        f"  memref.dealloc {prefix}_win : memref<1x1xi8>",
    ]
    return acc_t


def activation(em: Emitter, layer: HardLayer | MulConstLayer, prefix: str, out: str) -> None:
    """``Mul`` by a constant, ``HardSigmoid`` or ``HardSwish`` (§4.13–§4.14) in the epilogue of
    :func:`element_read`, then the requantization (its rounding constant first)."""
    shape = em.program.tensors[layer.dst].shape
    acc_t = element_read(em, layer.src, prefix, layer.name, shape)
    steps: list[str] = []
    operands: list[Operand] = []
    if isinstance(layer, MulConstLayer):
        value = em.step(steps, "addi", -layer.x_zero_point) if layer.x_zero_point else "%a"
        if layer.factor.size == 1:
            em.step(steps, "muli", int(layer.factor.reshape(-1)[0]), value)
        else:
            c = em.constant(f"{layer.name}_c", layer.factor)
            operands.append((c, memref_type(layer.factor.shape, "i32"), "d1", "%c: i32"))
            steps.append(f"%v{_count(steps)} = arith.muli {value}, %c : i32")
    else:
        # v = q − zx, and H = clip(m·(q + ci − zx) + cf, 0, D) from the same q: on VTA two
        # accumulators (a copy of q), combined by a tensor mul for HardSwish.
        v = em.step(steps, "addi", -layer.x_zero_point) if layer.x_zero_point else "%a"
        h = em.step(steps, "addi", layer.offset, "%a") if layer.offset else "%a"
        h = em.step(steps, "muli", layer.slope, h)
        if layer.fraction:
            h = em.step(steps, "addi", layer.fraction, h)
        h = em.step(steps, "maxsi", 0, h)
        h = em.step(steps, "minsi", layer.top, h)
        if layer.swish:
            steps.append(f"%v{_count(steps)} = arith.muli {v}, {h} : i32")
    if layer.rq.rounding:
        em.step(steps, "addi", layer.rq.rounding)
    in_range = em.requant_steps(steps, layer.rq, layer.zero_point, -128, 127, operands,
                                layer.name, layer.dst)
    em.epilogue(prefix, shape, out, steps, operands, -128, 127, in_range)
    em.lines.append(f"  memref.dealloc {prefix}_acc : {acc_t}")


def _count(steps: list[str]) -> int:
    """The index of the next ``%v<k>``."""
    return sum(1 for line in steps if line.startswith("%v"))


def rescale(em: Emitter, layer: RescaleLayer, prefix: str, out: str) -> None:
    """A 1×1 sum pool of the source (a layer in the tensor layout that reads each code once)
    and the rescale in its epilogue: ``− zx``, the factors, the rounding shift with ``+ zy``
    (as an ``Add``'s operand, §4.5), the clip."""
    shape = em.program.tensors[layer.dst].shape
    acc_t = element_read(em, layer.src, prefix, layer.name, shape)
    steps: list[str] = []
    if layer.x_zero_point:
        em.step(steps, "addi", -layer.x_zero_point)
    for factor in layer.factors:
        if factor != 1:
            em.step(steps, "muli", factor)
    em.rounding_shift(steps, layer.shift, layer.zero_point, half_first=True)
    em.epilogue(prefix, shape, out, steps, [], -128, 127)
    em.lines.append(f"  memref.dealloc {prefix}_acc : {acc_t}")


def average_pool(em: Emitter, layer: AveragePoolLayer, prefix: str, out: str) -> None:
    """The padding idiom filled with the input's zero point, ``linalg.pooling_nchw_sum``, and
    the epilogue: the constant, then the requantization — one multiplier (§3), or one per
    output position read as an ``OH × OW`` operand ``(d0, d1, d2, d3) -> (d2, d3)``, after a
    clip to ``±C`` and before the output clip."""
    shape = em.program.tensors[layer.dst].shape
    fill = f"{prefix}_pad"
    em.lines.append(f"  {fill} = arith.constant {layer.pad_value} : i8")
    data, data_t = em.padded(prefix, layer.src, layer.pads, fill)
    acc_t = em.accumulator(prefix, shape)
    win_t = memref_type(layer.kernel, "i8")
    sh, sw = layer.stride
    em.lines += [
        f"  {prefix}_win = memref.alloc() : {win_t}",
        "  linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, "
        f"strides = dense<[{sh}, {sw}]> : tensor<2xi64>}}",
        f"      ins({data}, {prefix}_win : {data_t}, {win_t}) outs({prefix}_acc : {acc_t})"
        f" loc({mlir_string(layer.name)})",
        f"  memref.dealloc {prefix}_win : {win_t}",
    ]
    steps: list[str] = []
    for part in immediate_parts(layer.bias):
        em.step(steps, "addi", part)
    operands: list[Operand] = []
    rq = layer.rq
    if layer.multipliers is None:
        in_range = em.requant_steps(steps, rq, layer.zero_point, -128, 127, operands,
                                    layer.name, layer.dst)
    else:
        in_range = False
        if rq.s1:
            em.step(steps, "shrsi", rq.s1)
        em.clip_steps(steps, [-rq.clip], [rq.clip], operands, layer.name, layer.dst)
        m = em.constant(f"{layer.name}_m", layer.multipliers)
        operands.append((m, memref_type(layer.multipliers.shape, "i32"), "d2, d3", "%mp: i32"))
        value = last_value(steps)
        steps.append(f"%v{sum(1 for s in steps if s.startswith('%v'))} = arith.muli "
                     f"{value}, %mp : i32")
        em.rounding_shift(steps, rq.s2, layer.zero_point)
    em.epilogue(prefix, shape, out, steps, operands, -128, 127, in_range)
    em.lines.append(f"  memref.dealloc {prefix}_acc : {acc_t}")
    if any(layer.pads):
        em.lines.append(f"  memref.dealloc {data} : {data_t}")
