"""Float ONNX models built with ``onnx.helper`` and quantized by onnxruntime's
``quantize_static`` in the QDQ format (``docs/onnx.md``): the models of the ONNX tests, the
benchmarks ``benchmarks/onnx_resnet18.py`` and ``benchmarks/mobilenet_v2.py`` and the
``tests/data/torch_mlir`` files.

Every builder takes a ``numpy`` generator and returns ``(nodes, initializers, input shape,
output shape)``; :func:`float_model` makes the graph (input ``x``, output ``y``) and
:func:`quantize` writes its QDQ form, calibrated on random normal inputs. ``mobilenet_v2`` and
``resnet50`` (``trained_like.py``) also take the calibration inputs, on which they measure
their batch norms: give ``quantize`` the same ones.

    python examples/onnx/models.py resnet18 out.onnx [--asymmetric] [--size 224]
        [--per-channel] [--uint8] [--qoperator]

writes one of them, quantized.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from trained_like import (  # noqa: F401 (re-exported: the builders of every model)
    MOBILENET_V2_STAGES,
    calibration_inputs,
    mobilenet_v2,
    mobilenet_v2_channels,
    resnet50,
)
from whole_networks import detector, vgg

Built = tuple[list[onnx.NodeProto], list[onnx.TensorProto], tuple[int, ...], tuple[int, ...]]
Builder = Callable[[np.random.Generator], Built]


def init_tensor(rng: np.random.Generator, name: str, shape: tuple[int, ...],
                scale: float) -> onnx.TensorProto:
    """A float initializer of normal values times ``scale``."""
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


def dense(rng: np.random.Generator) -> Built:
    """Gemm with transB=1 and a bias."""
    inits = [init_tensor(rng, "w", (24, 40), 0.2), init_tensor(rng, "b", (24,), 1.0)]
    return [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1, name="fc")], inits, \
        (2, 40), (2, 24)


def matmul_add(rng: np.random.Generator) -> Built:
    """MatMul, then the Add of a constant bias (quantized to int8 by the quantizer)."""
    inits = [init_tensor(rng, "w", (40, 20), 0.2), init_tensor(rng, "b", (20,), 1.0)]
    nodes = [helper.make_node("MatMul", ["x", "w"], ["mm"], name="mm"),
             helper.make_node("Add", ["mm", "b"], ["y"], name="bias")]
    return nodes, inits, (3, 40), (3, 20)


def conv_relu(rng: np.random.Generator) -> Built:
    """A padded, strided 3×3 convolution with bias, then ReLU."""
    inits = [init_tensor(rng, "w", (16, 3, 3, 3), 0.3), init_tensor(rng, "b", (16,), 0.5)]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1],
                              strides=[2, 2], kernel_shape=[3, 3], name="conv"),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    return nodes, inits, (1, 3, 10, 10), (1, 16, 5, 5)

def small_cnn(rng: np.random.Generator) -> Built:
    """conv + ReLU, a padded max-pool, conv + ReLU, global average pool, Flatten, Gemm."""
    inits = [init_tensor(rng, "w1", (16, 3, 3, 3), 0.3), init_tensor(rng, "b1", (16,), 0.3),
             init_tensor(rng, "w2", (32, 16, 3, 3), 0.1), init_tensor(rng, "b2", (32,), 0.3),
             init_tensor(rng, "w3", (10, 32), 0.3), init_tensor(rng, "b3", (10,), 0.3)]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1], name="pool"),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], name="conv2"),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], axis=1, name="flatten"),
        helper.make_node("Gemm", ["f", "w3", "b3"], ["y"], transB=1, name="fc"),
    ]
    return nodes, inits, (1, 3, 12, 12), (1, 10)


def residual(rng: np.random.Generator) -> Built:
    """Two convolutions and the Add of the second's output to the first's (a ResNet block)."""
    inits = [init_tensor(rng, "w1", (16, 3, 3, 3), 0.3), init_tensor(rng, "b1", (16,), 0.3),
             init_tensor(rng, "w2", (16, 16, 3, 3), 0.1), init_tensor(rng, "b2", (16,), 0.3)]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], name="conv2"),
        helper.make_node("Add", ["c2", "r1"], ["s"], name="add"),
        helper.make_node("Relu", ["s"], ["y"], name="relu2"),
    ]
    return nodes, inits, (1, 3, 8, 8), (1, 16, 8, 8)


def downsample(rng: np.random.Generator) -> Built:
    """A ResNet downsampling block: a strided 3×3 path and a strided 1×1 shortcut, both
    reading the stem's output, added."""
    inits = [init_tensor(rng, "w0", (16, 3, 3, 3), 0.3), init_tensor(rng, "b0", (16,), 0.3),
             init_tensor(rng, "w1", (32, 16, 3, 3), 0.1), init_tensor(rng, "b1", (32,), 0.3),
             init_tensor(rng, "ws", (32, 16, 1, 1), 0.2), init_tensor(rng, "bs", (32,), 0.3)]
    nodes = [
        helper.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1], name="stem"),
        helper.make_node("Relu", ["c0"], ["r0"], name="relu0"),
        helper.make_node("Conv", ["r0", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1],
                         strides=[2, 2], name="conv"),
        helper.make_node("Conv", ["r0", "ws", "bs"], ["sc"], strides=[2, 2], name="shortcut"),
        helper.make_node("Add", ["c1", "sc"], ["s"], name="add"),
        helper.make_node("Relu", ["s"], ["y"], name="relu1"),
    ]
    return nodes, inits, (1, 3, 8, 8), (1, 32, 4, 4)


def gap_fc(rng: np.random.Generator) -> Built:
    """Global average pool, Flatten and a fully connected layer."""
    inits = [init_tensor(rng, "w", (10, 32), 0.3), init_tensor(rng, "b", (10,), 0.3)]
    nodes = [helper.make_node("GlobalAveragePool", ["x"], ["g"], name="gap"),
             helper.make_node("Flatten", ["g"], ["f"], axis=1, name="flatten"),
             helper.make_node("Gemm", ["f", "w", "b"], ["y"], transB=1, name="fc")]
    return nodes, inits, (2, 32, 4, 4), (2, 10)


def shared_bias(rng: np.random.Generator) -> Built:
    """Two convolutions with one bias, the second use through an ``Identity``: ``torch.onnx``
    deduplicates equal constants this way (the zero biases of batch norms folded at their
    initial values, say)."""
    inits = [init_tensor(rng, "w1", (16, 3, 3, 3), 0.3),
             init_tensor(rng, "w2", (16, 16, 3, 3), 0.1), init_tensor(rng, "b", (16,), 0.3)]
    nodes = [
        helper.make_node("Identity", ["b"], ["b_again"], name="identity"),
        helper.make_node("Conv", ["x", "w1", "b"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2", "b_again"], ["y"], pads=[1, 1, 1, 1],
                         name="conv2"),
    ]
    return nodes, inits, (1, 3, 8, 8), (1, 16, 8, 8)


def mobilenet_block(rng: np.random.Generator) -> Built:
    """Two MobileNetV2 inverted residual blocks: a 1×1 expansion conv + ReLU6 (``Clip`` 0..6),
    a 3×3 depthwise conv (``group`` = channels) + ReLU6, a 1×1 projection conv; the first with
    stride 1 and the residual ``Add`` of its input, the second with stride 2."""
    consts = [helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0]),
              helper.make_tensor("six", TensorProto.FLOAT, [], [6.0])]
    nodes: list[onnx.NodeProto] = []

    def conv(x: str, cin: int, cout: int, k: int, stride: int, name: str, group: int = 1,
             relu6: bool = True) -> str:
        consts.extend([init_tensor(rng, name + ".w", (cout, cin // group, k, k),
                                   float(np.sqrt(2.0 / (cin // group * k * k)))),
                       init_tensor(rng, name + ".b", (cout,), 0.1)])
        nodes.append(helper.make_node("Conv", [x, name + ".w", name + ".b"], [name],
                                      kernel_shape=[k, k], strides=[stride, stride],
                                      pads=[k // 2] * 4, group=group, name=name))
        if not relu6:
            return name
        nodes.append(helper.make_node("Clip", [name, "zero", "six"], [name + ".relu6"],
                                      name=name + ".relu6"))
        return name + ".relu6"

    h = conv("x", 8, 24, 1, 1, "b1.expand")
    h = conv(h, 24, 24, 3, 1, "b1.dw", group=24)
    h = conv(h, 24, 8, 1, 1, "b1.project", relu6=False)
    nodes.append(helper.make_node("Add", [h, "x"], ["b1"], name="b1.add"))
    h = conv("b1", 8, 24, 1, 1, "b2.expand")
    h = conv(h, 24, 24, 3, 2, "b2.dw", group=24)
    conv(h, 24, 16, 1, 1, "b2.project", relu6=False)
    nodes[-1].output[0] = "y"
    return nodes, consts, (1, 8, 8, 8), (1, 16, 4, 4)


def dense_softmax(rng: np.random.Generator) -> Built:
    """Gemm with a bias, then Softmax over the classes (computed by the host)."""
    inits = [init_tensor(rng, "w", (10, 40), 0.2), init_tensor(rng, "b", (10,), 1.0)]
    return [helper.make_node("Gemm", ["x", "w", "b"], ["h"], transB=1, name="fc"),
            helper.make_node("Softmax", ["h"], ["y"], axis=-1, name="softmax")], inits, \
        (2, 40), (2, 10)


def conv_sigmoid(rng: np.random.Generator) -> Built:
    """A padded 3×3 convolution, then Sigmoid (computed by the host), as a detector's head."""
    inits = [init_tensor(rng, "w", (8, 4, 3, 3), 0.3), init_tensor(rng, "b", (8,), 0.5)]
    return [helper.make_node("Conv", ["x", "w", "b"], ["h"], kernel_shape=[3, 3],
                             pads=[1, 1, 1, 1], name="conv"),
            helper.make_node("Sigmoid", ["h"], ["y"], name="sigmoid")], inits, \
        (1, 4, 6, 6), (1, 8, 6, 6)


def bottleneck(rng: np.random.Generator, channels: int = 64, size: int = 8) -> Built:
    """A ResNet-50 bottleneck block: 1×1 (``channels`` to a quarter of them) + ReLU, 3×3 +
    ReLU, 1×1 back to ``channels``, each with its batch norm folded, the residual Add of the
    block's input and a ReLU; weights drawn like torchvision's initialisation (He normal)."""
    inner = channels // 4
    inits: list[onnx.TensorProto] = []
    nodes: list[onnx.NodeProto] = []

    def conv(x: str, cin: int, cout: int, k: int, name: str, relu: bool = True) -> str:
        inits.append(init_tensor(rng, name + ".weight", (cout, cin, k, k),
                                 float(np.sqrt(2.0 / (cout * k * k)))))
        inits.append(init_tensor(rng, name + ".bias", (cout,), 0.1))
        nodes.append(helper.make_node("Conv", [x, name + ".weight", name + ".bias"], [name],
                                      kernel_shape=[k, k], pads=[k // 2] * 4, name=name))
        if not relu:
            return name
        nodes.append(helper.make_node("Relu", [name], [name + ".relu"], name=name + ".relu"))
        return name + ".relu"

    h = conv("x", channels, inner, 1, "conv1")
    h = conv(h, inner, inner, 3, "conv2")
    h = conv(h, inner, channels, 1, "conv3", relu=False)
    nodes += [helper.make_node("Add", [h, "x"], ["add"], name="add"),
              helper.make_node("Relu", ["add"], ["y"], name="relu")]
    return nodes, inits, (1, channels, size, size), (1, channels, size, size)


def resnet18(rng: np.random.Generator, size: int = 32, classes: int = 10,
             batch: int = 1) -> Built:
    """ResNet-18's graph (the 7×7 stem, the padded max-pool, eight basic blocks with 1×1
    downsampling shortcuts, the global average pool and the fully connected layer), with the
    batch norms folded into the convolutions as ``torch.onnx`` exports them, and random weights
    drawn like torchvision's initialisation (He normal)."""
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = []

    def conv(x: str, cin: int, cout: int, k: int, stride: int, pad: int, name: str,
             relu: bool = True) -> str:
        inits.append(init_tensor(rng, name + ".weight", (cout, cin, k, k),
                           float(np.sqrt(2.0 / (cout * k * k)))))
        inits.append(init_tensor(rng, name + ".bias", (cout,), 0.1))
        nodes.append(helper.make_node("Conv", [x, name + ".weight", name + ".bias"], [name],
                                      kernel_shape=[k, k], strides=[stride, stride],
                                      pads=[pad] * 4, name=name))
        if not relu:
            return name
        nodes.append(helper.make_node("Relu", [name], [name + ".relu"], name=name + ".relu"))
        return name + ".relu"

    x = conv("x", 3, 64, 7, 2, 3, "conv1")
    nodes.append(helper.make_node("MaxPool", [x], ["maxpool"], kernel_shape=[3, 3],
                                  strides=[2, 2], pads=[1, 1, 1, 1], name="maxpool"))
    x, cin = "maxpool", 64
    for stage, cout in enumerate([64, 128, 256, 512], start=1):
        for block in range(2):
            stride = 2 if stage > 1 and block == 0 else 1
            name = f"layer{stage}.{block}"
            h = conv(x, cin, cout, 3, stride, 1, name + ".conv1")
            h = conv(h, cout, cout, 3, 1, 1, name + ".conv2", relu=False)
            shortcut = x if stride == 1 and cin == cout else \
                conv(x, cin, cout, 1, stride, 0, name + ".downsample", relu=False)
            nodes.append(helper.make_node("Add", [h, shortcut], [name + ".add"],
                                          name=name + ".add"))
            nodes.append(helper.make_node("Relu", [name + ".add"], [name],
                                          name=name + ".relu"))
            x, cin = name, cout
    inits += [init_tensor(rng, "fc.weight", (classes, 512), float(np.sqrt(1 / 512))),
              init_tensor(rng, "fc.bias", (classes,), 0.1)]
    nodes += [helper.make_node("GlobalAveragePool", [x], ["avgpool"], name="avgpool"),
              helper.make_node("Flatten", ["avgpool"], ["flatten"], axis=1, name="flatten"),
              helper.make_node("Gemm", ["flatten", "fc.weight", "fc.bias"], ["y"], transB=1,
                               name="fc")]
    return nodes, inits, (batch, 3, size, size), (batch, classes)


def vgg_head(rng: np.random.Generator) -> Built:
    """A VGG-style head: two 3×3 convolutions with ReLU, a 2×2 max-pool, Flatten of the
    16×3×3 features (H, W > 1) and a fully connected layer."""
    inits = [init_tensor(rng, "w1", (16, 3, 3, 3), 0.3), init_tensor(rng, "b1", (16,), 0.3),
             init_tensor(rng, "w2", (24, 16, 3, 3), 0.1), init_tensor(rng, "b2", (24,), 0.3),
             init_tensor(rng, "w3", (10, 24 * 3 * 3), 0.1), init_tensor(rng, "b3", (10,), 0.3)]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], name="conv2"),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("MaxPool", ["r2"], ["p"], kernel_shape=[2, 2], strides=[2, 2],
                         name="pool"),
        helper.make_node("Flatten", ["p"], ["f"], axis=1, name="flatten"),
        helper.make_node("Gemm", ["f", "w3", "b3"], ["y"], transB=1, name="fc"),
    ]
    return nodes, inits, (1, 3, 6, 6), (1, 10)


def avgpool_block(rng: np.random.Generator) -> Built:
    """A convolution with ReLU, then 3×3 average pools of stride 1 padded by 1 that count the
    padding (``count_include_pad=1``) and that do not, and a 2×2 one of stride 2."""
    inits = [init_tensor(rng, "w1", (16, 3, 3, 3), 0.3), init_tensor(rng, "b1", (16,), 0.3)]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("AveragePool", ["r1"], ["a1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         count_include_pad=1, name="avg_pad"),
        helper.make_node("AveragePool", ["a1"], ["a2"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         count_include_pad=0, name="avg_valid"),
        helper.make_node("AveragePool", ["a2"], ["y"], kernel_shape=[2, 2], strides=[2, 2],
                         name="avg_down"),
    ]
    return nodes, inits, (1, 3, 8, 8), (1, 16, 4, 4)


def detector_neck(rng: np.random.Generator) -> Built:
    """A detector-style neck: a 3×3 convolution, a stride-2 3×3 convolution (the backbone's
    coarser level), its nearest ``Resize`` ×2, the ``Concat`` of the two levels along the
    channels (16 + 32: the second part starts at channel 16) and a 3×3 head convolution."""
    inits = [init_tensor(rng, "w1", (16, 3, 3, 3), 0.3), init_tensor(rng, "b1", (16,), 0.3),
             init_tensor(rng, "w2", (32, 16, 3, 3), 0.1), init_tensor(rng, "b2", (32,), 0.3),
             init_tensor(rng, "w3", (8, 48, 3, 3), 0.05), init_tensor(rng, "b3", (8,), 0.3),
             numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "up_scales")]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2],
                         name="conv2"),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("Resize", ["r2", "", "up_scales"], ["up"], mode="nearest",
                         name="upsample"),
        helper.make_node("Concat", ["r1", "up"], ["cat"], axis=1, name="concat"),
        helper.make_node("Conv", ["cat", "w3", "b3"], ["y"], pads=[1, 1, 1, 1], name="head"),
    ]
    return nodes, inits, (1, 3, 8, 8), (1, 8, 8, 8)


def hard_activations(rng: np.random.Generator) -> Built:
    """A convolution, ``HardSwish``, a ``Mul`` by a scalar, ``HardSigmoid`` and a ``Mul`` by a
    per-channel constant (as a squeeze-and-excitation scale with fixed weights)."""
    inits = [init_tensor(rng, "w1", (16, 3, 3, 3), 0.3), init_tensor(rng, "b1", (16,), 0.3),
             numpy_helper.from_array(np.array(1.7, np.float32), "k"),
             numpy_helper.from_array((rng.standard_normal((1, 16, 1, 1)) * 0.5 + 1)
                                     .astype(np.float32), "kc")]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("HardSwish", ["c1"], ["hs"], name="hswish"),
        helper.make_node("Mul", ["hs", "k"], ["m1"], name="scale"),
        helper.make_node("HardSigmoid", ["m1"], ["hg"], alpha=0.25, beta=0.4, name="hsigmoid"),
        helper.make_node("Mul", ["hg", "kc"], ["y"], name="channel_scale"),
    ]
    return nodes, inits, (1, 3, 6, 6), (1, 16, 6, 6)


MODELS: dict[str, Builder] = {
    "dense": dense, "matmul_add": matmul_add, "conv_relu": conv_relu, "small_cnn": small_cnn,
    "residual": residual, "downsample": downsample, "gap_fc": gap_fc,
    "shared_bias": shared_bias, "resnet18": resnet18, "mobilenet_block": mobilenet_block,
    "bottleneck": bottleneck, "mobilenet_v2": mobilenet_v2, "resnet50": resnet50,
    "dense_softmax": dense_softmax, "conv_sigmoid": conv_sigmoid, "vgg_head": vgg_head,
    "avgpool_block": avgpool_block, "detector_neck": detector_neck,
    "hard_activations": hard_activations, "detector": detector, "vgg": vgg}


class RandomCalibration:
    """Calibration batches for ``quantize_static`` (an
    ``onnxruntime.quantization.CalibrationDataReader``): the given inputs, or random normal
    ones drawn from ``rng``."""

    def __init__(self, shape: tuple[int, ...], rng: np.random.Generator,
                 batches: int = 8, name: str = "x",
                 inputs: Sequence[np.ndarray] | None = None) -> None:
        chosen = calibration_inputs(shape, rng, batches) if inputs is None else inputs
        self.batches: Iterator[dict[str, np.ndarray]] = iter([{name: x} for x in chosen])

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self.batches, None)


def float_model(builder: Builder, rng: np.random.Generator, opset: int = 17,
                name: str | None = None) -> onnx.ModelProto:
    """The float graph of ``builder``: input ``x``, output ``y``."""
    nodes, inits, in_shape, out_shape = builder(rng)
    graph = helper.make_graph(nodes, name or getattr(builder, "__name__", "model"), [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)], [
        helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def quantize(model: onnx.ModelProto, path: Path, symmetric: bool, rng: np.random.Generator,
             per_channel: bool = False, calibration_batches: int = 8, *,
             activations: str = "QInt8", weights: str = "QInt8",
             quant_format: str = "QDQ", weight_symmetric: bool | None = None,
             calibration: Sequence[np.ndarray] | None = None) -> Path:
    """Write ``model`` quantized (``quantize_static``; by default int8 activations and weights
    in the QDQ format, else the ``QuantType`` names ``activations`` and ``weights`` and the
    ``QuantFormat`` name ``quant_format``; ``weight_symmetric`` sets ``WeightSymmetric``) at
    ``path``; the float model is kept beside it as
    ``*.f.onnx``.  The calibration feeds the graph's first input by its name (``x`` for the
    builders here; models exported elsewhere name it themselves) with ``calibration``, or with
    ``calibration_batches`` random normal inputs drawn from ``rng``."""
    # Imported here: onnxruntime is only needed to quantize, not to build the graphs.
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static

    logging.getLogger().setLevel(logging.ERROR)  # quantize_static's pre-processing advice
    float_path = path.with_suffix(".f.onnx")
    onnx.save(model, float_path)
    first = model.graph.input[0]
    shape = tuple(d.dim_value for d in first.type.tensor_type.shape.dim)
    quantize_static(str(float_path), str(path),
                    RandomCalibration(shape, rng, calibration_batches, first.name,
                                      calibration),
                    quant_format=QuantFormat[quant_format],
                    activation_type=QuantType[activations], weight_type=QuantType[weights],
                    per_channel=per_channel,
                    extra_options={"ActivationSymmetric": symmetric} | (
                        {} if weight_symmetric is None else
                        {"WeightSymmetric": weight_symmetric}))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", choices=sorted(MODELS))
    parser.add_argument("output", type=Path)
    parser.add_argument("--asymmetric", action="store_true",
                        help="asymmetric activations (the ReLUs fold into zero points)")
    parser.add_argument("--per-channel", action="store_true", help="per-channel weight scales")
    parser.add_argument("--size", type=int, default=32,
                        help="input size of resnet18, resnet50 and mobilenet_v2")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--uint8", action="store_true",
                        help="uint8 activations (QuantType.QUInt8), int8 weights")
    parser.add_argument("--qoperator", action="store_true",
                        help="the QOperator format (QLinearConv, QGemm, ...) instead of QDQ")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    builder = MODELS[args.model]
    calibration = None
    if args.model in ("resnet18", "mobilenet_v2", "resnet50"):
        size, build = args.size, MODELS[args.model]
        # The batch norms of mobilenet_v2 and resnet50 are measured on the calibration inputs.
        if args.model != "resnet18":
            calibration = calibration_inputs((1, 3, size, size), rng)
        extra = {} if calibration is None else {"calibration": calibration}

        def builder(rng: np.random.Generator) -> Built:
            return build(rng, size=size, **extra)  # type: ignore[call-arg]
    quantize(float_model(builder, rng, name=args.model), args.output, not args.asymmetric, rng,
             args.per_channel, activations="QUInt8" if args.uint8 else "QInt8",
             quant_format="QOperator" if args.qoperator else "QDQ", calibration=calibration)

if __name__ == "__main__":
    main()
