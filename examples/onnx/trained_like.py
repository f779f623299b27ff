"""MobileNetV2 and ResNet-50 built the way trained networks are: every convolution followed by a
batch norm whose running statistics are those of its own output, folded into it as
``torch.onnx`` exports it (``examples/onnx/models.py`` re-exports the builders).

Why. Two correct int8 computations of a network (onnxruntime's float QDQ arithmetic and the
integer semantics of ``docs/onnx.md`` §4) differ on a few hidden codes in ten thousand, each by
one code (a value within a few thousandths of a half step, rounded apart). Every such
difference is a perturbation of one step at that layer; the next layers round it into
further one-code differences, and what reaches the output is as large as the network lets
a perturbation of the size of its own quantization noise grow: the agreement of two int8
computations follows the agreement of the int8 model with its float model. A network with
random He-normal weights and no normalisation (the batch norms folded at their initial
values) lets it grow without bound: each layer's output scale drifts from the next one's,
ReLU6 saturates some channels and leaves others near 0; its int8 MobileNetV2 is 30 % within
one step of the float model, and onnxruntime and the integer semantics 56 %.

How. A trained network's batch norms hold every channel at a scale of its own: the running
mean and variance of the convolution's output over the training data, then ``γ`` and ``β``.
Here the statistics are those of each convolution's output on the calibration inputs through
the float network built so far (layer by layer, :class:`NormalisedNetwork`); ``γ`` and ``β``
are drawn uniformly in :data:`GAMMA` and :data:`BETA`, the same for every model family.
``β`` is positive, of the order of ``γ``: trained ReLU networks keep most units active, and
many channels nearly always so (``β − 3γ > 0``: the "bias absorption" of data-free
quantization rests on such channels of trained MobileNetV2). The float networks show the
difference: a random perturbation of 1 % of the input (relative to it) is 0.8 % (MobileNetV2)
and 0.7 % (ResNet-50) of the last convolution's output with ``β`` in [1, 2], but 45 % and
63 % with ``β`` centred at 0 (in [−0.25, 0.25]: half the units off, the regime of
batch-normalised networks at initialisation), whose int8 models are then further from their
float models than the unnormalised one (``docs/onnx.md`` §6 gives the figures).

The folded convolution computes ``γ·(conv(x) − mean)/√(var + ε) + β``: weight
``w·γ/√(var + ε)``, bias ``β − mean·γ/√(var + ε)`` (the convolution has no bias of its own,
as in torchvision).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx
from numpy.lib.stride_tricks import sliding_window_view
from onnx import TensorProto, helper, numpy_helper

Built = tuple[list[onnx.NodeProto], list[onnx.TensorProto], tuple[int, ...], tuple[int, ...]]

#: The ranges of the batch norms' scale and shift (uniform): ``β`` of the order of ``γ``, so
#: that most units are active, as in trained networks (module docstring).
GAMMA = (0.5, 1.5)
BETA = (1.0, 2.0)
#: ``torch.nn.BatchNorm2d``'s default epsilon.
EPSILON = 1e-5
#: Calibration batches drawn when the builder is given none (``models.quantize``'s default).
CALIBRATION_BATCHES = 8

__all__ = ["BETA", "GAMMA", "MOBILENET_V2_STAGES", "NormalisedNetwork", "RESNET50_STAGES",
           "calibration_inputs", "mobilenet_v2", "mobilenet_v2_channels", "resnet50"]


def calibration_inputs(shape: tuple[int, ...], rng: np.random.Generator,
                       batches: int = CALIBRATION_BATCHES) -> list[np.ndarray]:
    """``batches`` random normal inputs of ``shape`` (what ``models.quantize`` calibrates on
    when given none)."""
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(batches)]


def conv2d(x: np.ndarray, w: np.ndarray, stride: int, pad: int, group: int) -> np.ndarray:
    """The float convolution ``Conv`` computes (NCHW, ``group`` 1 or the channels)."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    k = w.shape[2]
    windows = sliding_window_view(xp, (k, k), axis=(2, 3))[:, :, ::stride, ::stride]
    if group == 1:  # N, C, OH, OW, KH, KW against O, C, KH, KW
        return np.einsum("nchwij,ocij->nohw", windows, w, optimize=True)
    return np.einsum("nchwij,cij->nchw", windows, w[:, 0], optimize=True)


class NormalisedNetwork:
    """A float ONNX graph built layer by layer beside its values on the calibration inputs:
    each convolution gets the batch norm of its own output statistics, folded into it."""

    def __init__(self, rng: np.random.Generator, calibration: Sequence[np.ndarray],
                 beta: tuple[float, float] = BETA) -> None:
        self.rng = rng
        self.beta = beta
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.values: dict[str, np.ndarray] = {"x": np.concatenate(list(calibration))}

    def conv(self, x: str, cout: int, k: int, stride: int, name: str, group: int = 1,
             activation: str | None = "Relu") -> str:
        """``Conv`` (He-normal weights, fan in; pads ``k // 2``) with its batch norm folded,
        then ``activation`` (``Relu``, ``Clip`` 0..6 for ReLU6, or None)."""
        value = self.values[x]
        cin = value.shape[1]
        fan_in = cin // group * k * k
        w = self.rng.standard_normal((cout, cin // group, k, k)) * np.sqrt(2.0 / fan_in)
        out = conv2d(value, w.astype(np.float32), stride, k // 2, group)
        mean, var = out.mean(axis=(0, 2, 3)), out.var(axis=(0, 2, 3))
        gamma = self.rng.uniform(*GAMMA, cout)
        beta = self.rng.uniform(*self.beta, cout)
        factor = gamma / np.sqrt(var + EPSILON)
        weight = (w * factor[:, None, None, None]).astype(np.float32)
        bias = (beta - mean * factor).astype(np.float32)
        self.inits += [numpy_helper.from_array(weight, name + ".weight"),
                       numpy_helper.from_array(bias, name + ".bias")]
        self.nodes.append(helper.make_node(
            "Conv", [x, name + ".weight", name + ".bias"], [name], kernel_shape=[k, k],
            strides=[stride, stride], pads=[k // 2] * 4, group=group, name=name))
        self.values[name] = (out * factor[None, :, None, None]
                             + (beta - mean * factor)[None, :, None, None]).astype(np.float32)
        return self.activation(name, activation)

    def activation(self, x: str, op: str | None) -> str:
        if op is None:
            return x
        value = self.values[x]
        if op == "Relu":
            self.nodes.append(helper.make_node("Relu", [x], [x + ".relu"], name=x + ".relu"))
            self.values[x + ".relu"] = np.maximum(value, 0)
            return x + ".relu"
        if not any(init.name == "relu6.min" for init in self.inits):
            self.inits += [helper.make_tensor("relu6.min", TensorProto.FLOAT, [], [0.0]),
                           helper.make_tensor("relu6.max", TensorProto.FLOAT, [], [6.0])]
        self.nodes.append(helper.make_node("Clip", [x, "relu6.min", "relu6.max"],
                                           [x + ".relu6"], name=x + ".relu6"))
        self.values[x + ".relu6"] = np.clip(value, 0, 6)
        return x + ".relu6"

    def add(self, a: str, b: str, name: str, activation: str | None = None) -> str:
        self.nodes.append(helper.make_node("Add", [a, b], [name], name=name))
        self.values[name] = self.values[a] + self.values[b]
        return self.activation(name, activation)

    def max_pool(self, x: str, name: str) -> str:
        """The 3×3 stride-2 max-pool padded by 1 of ResNet's stem."""
        self.nodes.append(helper.make_node("MaxPool", [x], [name], kernel_shape=[3, 3],
                                           strides=[2, 2], pads=[1, 1, 1, 1], name=name))
        padded = np.pad(self.values[x], ((0, 0), (0, 0), (1, 1), (1, 1)),
                        constant_values=-np.inf)
        self.values[name] = sliding_window_view(padded, (3, 3), axis=(2, 3))[
            :, :, ::2, ::2].max(axis=(4, 5))
        return name

    def classifier(self, x: str, classes: int, name: str) -> None:
        """Global average pool, Flatten and the fully connected layer writing ``y``: weights
        normal of variance 1 / fan in, biases of 0.1 (no batch norm follows it)."""
        features = self.values[x].shape[1]
        self.inits += [
            numpy_helper.from_array((self.rng.standard_normal((classes, features))
                                     * np.sqrt(1 / features)).astype(np.float32),
                                    name + ".weight"),
            numpy_helper.from_array((self.rng.standard_normal(classes) * 0.1)
                                    .astype(np.float32), name + ".bias")]
        self.nodes += [
            helper.make_node("GlobalAveragePool", [x], ["avgpool"], name="avgpool"),
            helper.make_node("Flatten", ["avgpool"], ["flatten"], axis=1, name="flatten"),
            helper.make_node("Gemm", ["flatten", name + ".weight", name + ".bias"], ["y"],
                             transB=1, name=name)]


def _calibration(rng: np.random.Generator, shape: tuple[int, ...],
                 calibration: Sequence[np.ndarray] | None) -> Sequence[np.ndarray]:
    return calibration_inputs(shape, rng) if calibration is None else calibration


#: MobileNetV2's inverted residual stages: expansion t, output channels c, blocks n, stride s
#: of the first block.
MOBILENET_V2_STAGES = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                       (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1))


def mobilenet_v2_channels(channels: float, divisor: int = 8) -> int:
    """``channels`` rounded to a multiple of ``divisor`` as torchvision's ``_make_divisible``
    (never below ``divisor``, never more than 10 % under ``channels``)."""
    rounded = max(divisor, int(channels + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * channels else rounded


def mobilenet_v2(rng: np.random.Generator, size: int = 224, classes: int = 1000,
                 width: float = 1.0, batch: int = 1,
                 calibration: Sequence[np.ndarray] | None = None,
                 beta: tuple[float, float] = BETA) -> Built:
    """MobileNetV2's graph: a 3×3 stride-2 stem to 32 channels, the inverted residual blocks of
    :data:`MOBILENET_V2_STAGES` (a 1×1 expansion to ``t`` times the channels where ``t`` > 1, a
    3×3 depthwise convolution, a 1×1 linear projection; the residual ``Add`` where the stride is
    1 and the channels stay), a 1×1 convolution to 1280 channels, the global average pool,
    Flatten and the fully connected layer; every convolution but the projections followed by
    ReLU6 (``Clip`` 0..6).  Channels are multiplied by ``width`` (rounded as torchvision);
    every convolution's batch norm is measured on ``calibration`` (the inputs ``quantize``
    calibrates on; drawn from ``rng`` when None) and folded (module docstring), ``β`` drawn in
    ``beta``."""
    shape = (batch, 3, size, size)
    net = NormalisedNetwork(rng, _calibration(rng, shape, calibration), beta)
    cin = mobilenet_v2_channels(32 * width)
    x = net.conv("x", cin, 3, 2, "features.0", activation="Clip")
    index = 1
    for t, c, n, s in MOBILENET_V2_STAGES:
        cout = mobilenet_v2_channels(c * width)
        for block in range(n):
            stride = s if block == 0 else 1
            name = f"features.{index}"
            hidden = cin * t
            h = x if t == 1 else net.conv(x, hidden, 1, 1, name + ".expand", activation="Clip")
            h = net.conv(h, hidden, 3, stride, name + ".dw", group=hidden, activation="Clip")
            h = net.conv(h, cout, 1, 1, name + ".project", activation=None)
            if stride == 1 and cin == cout:
                h = net.add(h, x, name + ".add")
            x, cin, index = h, cout, index + 1
    last = mobilenet_v2_channels(1280 * max(1.0, width))
    x = net.conv(x, last, 1, 1, f"features.{index}", activation="Clip")
    net.classifier(x, classes, "classifier")
    return net.nodes, net.inits, shape, (batch, classes)


#: ResNet-50's stages: bottleneck blocks and inner channels (the output is 4 times them).
RESNET50_STAGES = ((3, 64), (4, 128), (6, 256), (3, 512))


def resnet50(rng: np.random.Generator, size: int = 224, classes: int = 1000,
             width: float = 1.0, batch: int = 1,
             calibration: Sequence[np.ndarray] | None = None,
             beta: tuple[float, float] = BETA) -> Built:
    """ResNet-50's graph in torchvision's v1.5 layout: the 7×7 stride-2 stem to 64 channels,
    the padded 3×3 stride-2 max-pool, the bottleneck blocks of :data:`RESNET50_STAGES` (1×1 to
    the inner channels + ReLU, 3×3 with the block's stride + ReLU, 1×1 to four times them; a
    projection shortcut, 1×1 with the stride, where the shape changes; the residual ``Add``
    and a ReLU), the global average pool, Flatten and the fully connected layer.  Channels are
    multiplied by ``width`` (at least 8); batch norms measured on ``calibration`` and folded as
    :func:`mobilenet_v2`'s."""
    shape = (batch, 3, size, size)
    net = NormalisedNetwork(rng, _calibration(rng, shape, calibration), beta)
    stem = max(8, round(64 * width))
    x = net.max_pool(net.conv("x", stem, 7, 2, "conv1"), "maxpool")
    cin = stem
    for stage, (blocks, inner) in enumerate(RESNET50_STAGES, start=1):
        inner = max(8, round(inner * width))
        for block in range(blocks):
            stride = 2 if stage > 1 and block == 0 else 1
            name = f"layer{stage}.{block}"
            h = net.conv(x, inner, 1, 1, name + ".conv1")
            h = net.conv(h, inner, 3, stride, name + ".conv2")
            h = net.conv(h, 4 * inner, 1, 1, name + ".conv3", activation=None)
            shortcut = x if stride == 1 and cin == 4 * inner else \
                net.conv(x, 4 * inner, 1, stride, name + ".downsample", activation=None)
            x, cin = net.add(h, shortcut, name + ".add", activation="Relu"), 4 * inner
    net.classifier(x, classes, "fc")
    return net.nodes, net.inits, shape, (batch, classes)
