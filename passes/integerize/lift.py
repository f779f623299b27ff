"""Reading a function of quantized layers written with float requantization (torch-mlir's
linalg-on-tensors output, bufferized by ``vta-bufferize``) as a
:class:`~vta_mlir.quant.program.Program`: int8 tensors with their scales and zero points and
integer layers (``docs/onnx.md`` §3–§4).

The function is read op by op, in order, keeping for each buffer what it holds
(:data:`~.meaning.Meaning`): int8 codes of a program tensor, their dequantized reals, an int32
accumulator, the reals of a scaled accumulator, a constant, ... A ``QuantizeLinear``-like
generic then closes a layer: what the buffer it reads holds says which one (a convolution or a
matrix product, a max-pool, a global average pool, the sum of two tensors). A dequantize then
quantize with the same parameters is the identity, a ``max(q, zero point)`` on codes the ReLU
folded into the layer before it, and generics on constants are evaluated. Anything else is an
error at the op (:class:`Unsupported`).  What a buffer can hold is :mod:`.meaning`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue

from vta_mlir.ir.upstream_fixes.linalg_pooling import PoolingNchwSumOp
from vta_mlir.ir.upstream_fixes.linalg_quantized_conv import Conv2DNchwFchwQOp
from vta_mlir.quant.fuse import layer_sources
from vta_mlir.quant.host_requant import host_requantized
from vta_mlir.quant.program import (
    AddLayer,
    ConvLayer,
    DenseLayer,
    FloatTensor,
    Layer,
    MaxPoolLayer,
    Program,
    QTensor,
    add_layer,
    global_avgpool_layer,
)
from vta_mlir.quant.requant import error_bound

from . import batch, bodies, channels, depthwise, edges, gather, hard, host, neck, pools, unsigned
from .floats import FloatValue, HostCode
from .fold import fold_generic
from .meaning import (
    Accumulator,
    ActivationProduct,
    Added,
    Codes,
    Const,
    DequantizedWeight,
    Filled,
    FloatInput,
    Meaning,
    Padded,
    PooledMax,
    Real,
    ScaledAccumulator,
    Sum,
    Unsupported,
    WindowSum,
    channel_bias,
    global_array,
)
from .products import accumulator_layer
from .values import is_result as _is_result
from .values import reads_channel as _reads_channel
from .values import requant as _requant
from .values import shape as _shape
from .values import writes as _writes

__all__ = ["Unsupported", "lift_function"]


# ---------------------------------------------------------------------------------------------
# The reading


@dataclass
class _Lifter:
    module: ModuleOp
    function: func.FuncOp
    held: dict[SSAValue, Meaning] = field(default_factory=dict)
    tensors: dict[str, QTensor] = field(default_factory=dict)
    layers: list[Layer] = field(default_factory=list)
    producer: dict[str, Layer] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    input: QTensor | FloatTensor | None = None
    output: QTensor | FloatTensor | None = None
    counts: dict[str, int] = field(default_factory=dict)
    #: The bound of each layer's fixed-point error against its float requantization, in
    #: output steps (the products' by output tensor, ``products.py``).
    error_bounds: list[float] = field(default_factory=list)
    product_bounds: dict[str, float] = field(default_factory=dict)
    accumulator_scales: dict[str, np.ndarray] = field(default_factory=dict)
    #: The float code the host computes (floats.py).
    host: HostCode = field(init=False)

    def __post_init__(self) -> None:
        self.host = HostCode(self)

    # -- helpers ---------------------------------------------------------------------------
    def meaning(self, op: Operation, value: SSAValue) -> Meaning:
        found = self.held.get(value)
        if found is None:
            raise Unsupported(op, "reads a buffer that holds nothing this pass recognises")
        return found

    def name(self, kind: str) -> str:
        index = self.counts.get(kind, 0)
        self.counts[kind] = index + 1
        return f"{kind}{index}"

    def new_tensor(self, shape: tuple[int, ...], scale: float, zero_point: int) -> QTensor:
        tensor = QTensor(f"t{len(self.tensors)}", shape, scale, zero_point)
        self.tensors[tensor.name] = tensor
        return tensor

    def add(self, layer: Layer) -> None:
        self.host.before_layer(layer)
        self.layers.append(layer)
        self.producer[layer.dst] = layer

    def store(self, op: Operation, tensor: QTensor, shape: tuple[int, ...]) -> None:
        self.host.store(op, tensor, shape)

    def const_int(self, op: Operation, value: SSAValue) -> int:
        found = bodies.scalar(value)
        if found is None or float(found.value) != int(found.value):
            raise Unsupported(op, "an operand that should be an integer constant is not one")
        return int(found.value)

    # -- the walk --------------------------------------------------------------------------
    def run(self) -> Program:
        args = self.function.body.block.args
        results = [a for i, a in enumerate(args) if _is_result(self.function, i)]
        floats = [a for i, a in enumerate(args) if not _is_result(self.function, i)]
        if len(floats) != 1 or len(results) != 1:
            raise Unsupported(self.function, "a quantized network is read from a function of "
                                             "one float input and one result")
        self.held[floats[0]] = FloatInput(floats[0])
        self.result_arg = results[0]
        for op in self.function.body.block.ops:
            self.host.before(op)
            self.visit(op)
            self.host.after(op)
        self.host.finish(self.function, self.result_arg)
        if self.input is None or self.output is None:
            raise Unsupported(self.function, "the function does not quantize its input and "
                                             "dequantize its result")
        if isinstance(self.output, QTensor) and \
                self.aliases.get(self.output.name, self.output.name) not in self.producer:
            raise Unsupported(self.function, "the result is computed by no layer")
        # The views a layer reads (a view only float layers read is their own shape).
        read = {s for layer in self.layers for s in layer_sources(layer)} | {self.output.name}
        program = Program(self.function.sym_name.data, self.input, self.output, self.tensors,
                          self.layers, {k: v for k, v in self.aliases.items() if k in read})
        host_requantized(program, self.accumulator_scales)
        return program

    def visit(self, op: Operation) -> None:
        if isinstance(op, arith.ConstantOp | memref.DeallocOp | func.ReturnOp | arith.TruncFOp
                      | memref.AllocOp):
            return
        if isinstance(op, memref.GetGlobalOp):
            self.held[op.memref] = Const(global_array(self.module, op))
            return
        if isinstance(op, linalg.FillOp):
            value = bodies.scalar(op.inputs[0])
            if value is None:
                raise Unsupported(op, "fills with a value that is not a constant")
            self.held[op.outputs[0]] = Filled(float(value.value))
            return
        if isinstance(op, memref.SubviewOp):
            return  # read by the copy into it (the padding idiom)
        if isinstance(op, memref.CopyOp):
            neck.copy(self, op)
            return
        if isinstance(op, memref.CollapseShapeOp | memref.ExpandShapeOp):
            self.reshape(op)
            return
        if isinstance(op, linalg.BroadcastOp | linalg.TransposeOp):
            self.constant_layout(op)
            return
        if isinstance(op, linalg.GenericOp):
            self.generic(op)
            return
        if isinstance(op, Conv2DNchwFchwQOp | linalg.Conv2DNchwFchwOp):
            self.conv(op)
            return
        if isinstance(op, depthwise.DEPTHWISE_OPS):
            depthwise.conv(self, op)
            return
        if isinstance(op, linalg.QuantizedMatmulOp | linalg.MatmulOp | batch.BATCH_OPS):
            self.matmul(op)
            return
        if isinstance(op, linalg.PoolingNchwMaxOp):
            pools.max_pool(self, op)
            return
        if isinstance(op, PoolingNchwSumOp):
            self.sum_pool(op)
            return
        raise Unsupported(op, "is not part of a quantized layer this pass recognises")

    # -- buffers ---------------------------------------------------------------------------
    def reshape(self, op: memref.CollapseShapeOp | memref.ExpandShapeOp) -> None:
        src = self.meaning(op, op.src)
        shape = _shape(op.result)
        if isinstance(src, Codes | Real):
            root = self.aliases.get(src.tensor.name, src.tensor.name)
            view = self.new_tensor(shape, src.tensor.scale, src.tensor.zero_point)
            self.aliases[view.name] = root
            self.held[op.result] = type(src)(view)
        elif isinstance(src, Const):
            self.held[op.result] = Const(src.array.reshape(shape))
        elif isinstance(src, DequantizedWeight):
            self.held[op.result] = channels.weight_reshape(op, src, shape)
        elif isinstance(src, host.HostFloat | ActivationProduct):
            # A softmax's maximum, broadcast along its axis; an accumulator's batches.
            self.held[op.result] = src
        elif not self.host.layout(op):
            raise Unsupported(op, "reshapes something other than codes, reals or a constant")

    def constant_layout(self, op: linalg.BroadcastOp | linalg.TransposeOp) -> None:
        # Both ops read their operand 0 and write operand 1.
        src = self.meaning(op, op.operands[0])
        out = op.operands[1]
        if not isinstance(src, Const | DequantizedWeight) and self.host.layout(op):
            return  # float values (floats.py)
        if isinstance(op, linalg.TransposeOp) and not isinstance(src, Const) \
                and not isinstance(src, DequantizedWeight):
            depthwise.transpose(self, op, src)
            return
        if isinstance(src, DequantizedWeight):
            self.held[out] = channels.weight_layout(op, src, _shape(out))
            return
        if not isinstance(src, Const):
            raise Unsupported(op, "broadcasts or transposes something other than a constant")
        shape = _shape(out)
        if isinstance(op, linalg.TransposeOp):
            array = np.transpose(src.array, tuple(op.permutation.get_values()))
        else:
            dims = tuple(op.dimensions.get_values())
            kept = [d for d in range(len(shape)) if d not in dims]
            array = np.broadcast_to(np.expand_dims(src.array, dims), shape)
            if [shape[d] for d in kept] != list(src.array.shape):
                raise Unsupported(op, "broadcast dimensions do not match the shapes")
        self.held[out] = Const(np.ascontiguousarray(array))

    # -- linalg.generic ----------------------------------------------------------------------
    def generic(self, op: linalg.GenericOp) -> None:
        ins = [self.meaning(op, v) for v in op.inputs]
        out = op.outputs[0]
        if (weight := channels.dequantized_weight(op, ins)) is not None:
            self.held[out] = weight
            return
        if ins and all(isinstance(m, Const) for m in ins):
            folded = fold_generic(op, [m.array for m in ins if isinstance(m, Const)])
            if folded is None:
                raise Unsupported(op, "computes on constants with ops this pass cannot "
                                      "evaluate")
            self.held[out] = Const(folded, _dequantized_source(op, ins))
            return
        if any(isinstance(m, FloatValue) for m in ins) and bodies.quantize(op) is None:
            if not self.host.compute(op):
                raise Unsupported(op, "computes on values of float code with operands or "
                                      "results other than f32")
            return
        if gather.gather(self, op) or host.step(self, op, ins):
            return
        if (q := bodies.quantize(op)) is not None:
            self.quantize(op, ins[0], q)
            return
        if (dq := bodies.dequantize(op)) is not None:
            self.dequantize(op, ins[0], dq)
            return
        if (bound := bodies.relu(op)) is not None:
            self.relu(op, ins[0], bound)
            return
        if (bound := unsigned.unsigned_max(op)) is not None:
            self.relu(op, ins[0], bound - unsigned.SHIFT, unsigned=True)
            return
        if unsigned.signed_shift(op) and isinstance(ins[0], Codes) and ins[0].unsigned:
            self.held[out] = Codes(ins[0].tensor)
            return
        if bodies.float_add(op):
            self.float_add(op, ins)
            return
        if pools.divide(self, op, ins[0]):
            return
        if depthwise.clip(self, op, ins) or hard.step(self, op, ins) or self.host.compute(op):
            return
        raise Unsupported(op, "is not a quantize, dequantize, ReLU, add or average of a "
                              "quantized layer, nor a resize, hard activation or host "
                              "function (sigmoid, softmax)")

    def quantize(self, op: linalg.GenericOp, src: Meaning, q: bodies.Quantize) -> None:
        out = op.outputs[0]
        shape = _shape(out)
        # uint8 codes are held as those of a tensor with the zero point minus 128.
        zero_point = q.zero_point - (unsigned.SHIFT if q.unsigned else 0)
        if q.width != 8 or (q.lo, q.hi) != ((0, 255) if q.unsigned else (-128, 127)):
            raise Unsupported(op, "quantizes to other than int8 codes in [-128, 127] or uint8 "
                                  "codes in [0, 255]")
        if isinstance(src, depthwise.Clipped):
            depthwise.fold_clip(self, op, src, q.scale, zero_point)
            return
        if isinstance(src, FloatValue):  # computed by float code (floats.py)
            self.held[out] = self.host.quantize(op, q.scale, zero_point, q.unsigned)
            return
        if isinstance(src, FloatInput):
            if self.input is not None:
                raise Unsupported(op, "quantizes the input a second time")
            if len(shape) == edges.SEQUENCE_RANK and not q.unsigned:
                self.held[out] = Codes(edges.float_input(self, shape, q.scale, zero_point))
                return
            self.input = self.new_tensor(shape, q.scale, zero_point)
            self.held[out] = Codes(self.input, q.unsigned)
            return
        if isinstance(src, Real):
            if (src.tensor.scale, src.tensor.zero_point) != (q.scale, zero_point):
                raise Unsupported(op, "requantizes int8 codes to another scale")
            # dequantize, then quantize alike: the codes
            self.held[out] = Codes(src.tensor, q.unsigned)
            return
        y = self.new_tensor(batch.stored_shape(src, shape), q.scale, zero_point)
        if isinstance(src, ScaledAccumulator):
            layer = accumulator_layer(self, op, src, y)
        elif isinstance(src, PooledMax):
            if (src.x.scale, src.x.zero_point) != (y.scale, y.zero_point):
                raise Unsupported(op, "a max-pool keeps its input's quantization")
            layer = MaxPoolLayer(self.name("maxpool"), src.x.name, src.kernel, src.stride,
                                 src.pads, y.name)
        elif isinstance(src, Sum):
            x = src.x
            count = x.shape[2] * x.shape[3]
            if src.divisor != count:
                raise Unsupported(op, "the sum of a pool is divided by other than its size")
            rq = _requant(op, x.scale / (y.scale * count))
            self.error_bounds.append(error_bound(x.scale / (y.scale * count), rq))
            layer = global_avgpool_layer(self.name("avgpool"), x, y, rq)
        elif isinstance(src, WindowSum):
            layer = pools.average_pool(self, op, src, y, self.error_bounds)
        elif (found := neck.close(self, op, src, y)) is not None:
            layer = found
        elif isinstance(src, Added):
            if src.a.shape != src.b.shape or src.a.shape != shape:
                raise Unsupported(op, "adds tensors of different shapes")
            layer = add_layer(self.name("add"), src.a, src.b, y)
            assert isinstance(layer, AddLayer)
            # Each term's multiplier error over codes 255 apart.
            self.error_bounds.append(255 * sum(
                abs(m / 2.0 ** layer.shift - t.scale / y.scale)
                for m, t in ((layer.ma, src.a), (layer.mb, src.b))))
        else:
            raise Unsupported(op, "quantizes a value this pass does not recognise")
        self.add(layer)
        self.held[out] = Codes(batch.view(self, y, shape), q.unsigned)

    def dequantize(self, op: linalg.GenericOp, src: Meaning, dq: bodies.Dequantize) -> None:
        out = op.outputs[0]
        if isinstance(src, Codes):
            zero_point = dq.zero_point - (unsigned.SHIFT if dq.unsigned else 0)
            if (src.tensor.scale, src.tensor.zero_point, src.unsigned) != (
                    dq.scale, zero_point, dq.unsigned):
                raise Unsupported(op, "dequantizes codes with other parameters than they "
                                      "were quantized with")
            if out is self.result_arg and isinstance(self.input, FloatTensor):
                self.host.before_reading([src.tensor.name])
                edges.float_output(self, src.tensor)
            elif out is self.result_arg:
                self.output = src.tensor
            self.held[out] = Real(src.tensor)
            return
        if isinstance(src, Accumulator | ActivationProduct) and dq.zero_point == 0:
            # The scale of an accumulator: its f64 value when the program rounds it to f32.
            self.held[out] = ScaledAccumulator(src, dq.wide if dq.wide is not None
                                               else dq.scale, exact=True)
            return
        raise Unsupported(op, "dequantizes a value this pass does not recognise")

    def relu(self, op: linalg.GenericOp, src: Meaning, bound: int,
             unsigned: bool = False) -> None:
        if not isinstance(src, Codes) or src.unsigned != unsigned:
            raise Unsupported(op, "a ReLU is read on int8 codes")
        tensor = src.tensor
        layer = self.producer.get(tensor.name)
        readers = [use.operation for use in op.inputs[0].uses]
        if bound < tensor.zero_point or not isinstance(layer, DenseLayer | ConvLayer | AddLayer) \
                or any(r is not op and not _writes(r, op.inputs[0]) for r in readers):
            raise Unsupported(op, "a ReLU is supported right after a convolution, matrix "
                                  "product or add, as the only reader of its output")
        # max(q, zero point) at an unchanged scale: the clip of the layer writing q.
        layer.lo = max(layer.lo, bound)
        self.held[op.outputs[0]] = src

    def float_add(self, op: linalg.GenericOp, ins: list[Meaning]) -> None:
        a, b = ins
        out = op.outputs[0]
        if isinstance(a, Real) and isinstance(b, Real):
            self.held[out] = Added(op, a.tensor, b.tensor)
            return
        if isinstance(b, ScaledAccumulator):
            a, b = b, a
        if isinstance(a, ScaledAccumulator) and isinstance(b, Const) and a.bias is None:
            channels = _shape(out)[1] if len(_shape(out)) == 4 else _shape(out)[-1]
            vector = b.array.reshape(-1)
            if vector.size != channels or not _reads_channel(op, 1, len(_shape(out))):
                raise Unsupported(op, "adds a constant that is not a vector along the output "
                                      "channels")
            self.held[out] = replace(a, bias=vector)
            return
        if self.host.compute(op):
            return  # float code (floats.py)
        raise Unsupported(op, "adds values this pass does not recognise (the reals of two "
                              "tensors, or a bias vector to an accumulator)")

    # -- named ops -------------------------------------------------------------------------
    def conv(self, op: Operation) -> None:
        data, weight = op.operands[0], op.operands[1]
        if isinstance(op, Conv2DNchwFchwQOp):
            zx = self.const_int(op, op.operands[2])
            zw = self.const_int(op, op.operands[3])
            out = op.operands[4]
        else:
            zx, zw, out = 0, 0, op.operands[2]
        w = self.meaning(op, weight)
        strides = tuple(op.strides.get_values())
        if tuple(op.dilations.get_values()) != (1, 1):
            raise Unsupported(op, "dilated convolutions are not supported")
        if isinstance(w, DequantizedWeight):
            self.held[out] = channels.float_contraction(
                op, self.meaning(op, data), w, self.meaning(op, out), 0, strides)
            return
        if not isinstance(w, Const) or w.array.dtype != np.int8 or zw != 0:
            raise Unsupported(op, "convolution weights are an int8 constant with zero point 0")
        src = self.meaning(op, data)
        pads = (0, 0, 0, 0)
        if isinstance(src, Padded):
            if src.value != zx:
                raise Unsupported(op, f"the convolution's data is padded with {src.value:g}, "
                                      f"not its zero point {zx}")
            pads, src = src.pads, src.source
        if not isinstance(src, Codes) or src.unsigned or src.tensor.zero_point != zx:
            raise Unsupported(op, "the convolution reads int8 codes with their zero point")
        bias = channel_bias(op, self.meaning(op, out), w.array.shape[0], 1)
        self.held[out] = Accumulator(op, src.tensor, w.array, bias, strides, pads)

    def matmul(self, op: Operation) -> None:
        if isinstance(op, batch.BATCH_OPS):
            batch.matmul(self, op)
            return
        if isinstance(op, linalg.QuantizedMatmulOp):
            zx = self.const_int(op, op.operands[2])
            zw = self.const_int(op, op.operands[3])
            out = op.operands[4]
        else:
            zx, zw, out = 0, 0, op.operands[2]
        src = self.meaning(op, op.operands[0])
        w = self.meaning(op, op.operands[1])
        if isinstance(w, DequantizedWeight):
            self.held[out] = channels.float_contraction(op, src, w, self.meaning(op, out), 1,
                                                        None)
            return
        if not isinstance(w, Const) or w.array.dtype != np.int8 or zw != 0:
            raise Unsupported(op, "the matrix product's weights are an int8 constant with zero "
                                  "point 0")
        if not isinstance(src, Codes) or src.unsigned or src.tensor.zero_point != zx:
            raise Unsupported(op, "the matrix product reads int8 codes with their zero point")
        bias = channel_bias(op, self.meaning(op, out), w.array.shape[1], 1)
        self.held[out] = Accumulator(op, src.tensor, w.array, bias)

    def sum_pool(self, op: PoolingNchwSumOp) -> None:
        pools.sum_pool(self, op)


def _dequantized_source(op: linalg.GenericOp, ins: list[Meaning]) -> tuple[
        np.ndarray, np.ndarray, np.ndarray] | None:
    """The codes, scale and zero point of an int8 constant that ``op`` dequantizes."""
    dq = bodies.dequantize(op)
    codes = ins[0].array if len(ins) == 1 and isinstance(ins[0], Const) else None
    if dq is None or codes is None or codes.dtype != np.int8 or dq.unsigned:
        return None
    return codes, np.array(dq.scale), np.array(dq.zero_point)


def lift_function(module: ModuleOp, function: func.FuncOp) -> tuple[Program, float]:
    """The integer program ``function`` computes, and the largest error its fixed-point
    requantizations can make against the float ones (output steps, before rounding);
    :class:`Unsupported` at the first op it cannot read."""
    lifter = _Lifter(module, function)
    program = lifter.run()
    # A product the host requantizes computes as the program does: no error.
    products = [bound for dst, bound in lifter.product_bounds.items()
                if dst not in program.host_requant]
    return program, max([*lifter.error_bounds, *products], default=0.0)
