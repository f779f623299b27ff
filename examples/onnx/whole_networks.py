"""Whole float networks in the builder form of ``models.py`` (which lists them in its
``MODELS``): a detector with a stride-2 backbone, an FPN-like top-down neck and a sigmoid
head, and a VGG-style classifier ending in a softmax.  Sizes are modest (32×32 inputs, about
two million multiply-accumulates) so that a test runs each in about a second.

Kept beside ``models.py`` rather than in it so that neither module grows past the project's
module size; this module imports nothing from it (``models.py`` is also loaded from its path,
under another name, by ``tests/data/torch_mlir/regenerate.py``).
"""

from __future__ import annotations

import numpy as np
import onnx
from numpy.lib.stride_tricks import sliding_window_view
from onnx import helper, numpy_helper
from trained_like import NormalisedNetwork, calibration_inputs, conv2d

#: ``(nodes, initializers, input shape, output shape)``, as ``models.Built``.
Built = tuple[list[onnx.NodeProto], list[onnx.TensorProto], tuple[int, ...], tuple[int, ...]]


class Graph:
    """Nodes and initializers of a builder, with He-normal convolution weights."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []

    def weights(self, name: str, shape: tuple[int, ...], scale: float) -> str:
        values = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.inits.append(numpy_helper.from_array(values, name))
        return name

    def conv(self, x: str, cin: int, cout: int, name: str, stride: int = 1,
             relu: bool = True) -> str:
        """A padded 3×3 convolution with bias, then ReLU unless ``relu`` is false."""
        w = self.weights(name + ".weight", (cout, cin, 3, 3), float(np.sqrt(2.0 / (cin * 9))))
        b = self.weights(name + ".bias", (cout,), 0.1)
        self.nodes.append(helper.make_node("Conv", [x, w, b], [name], kernel_shape=[3, 3],
                                           strides=[stride, stride], pads=[1, 1, 1, 1],
                                           name=name))
        return self.op("Relu", [name], name + ".relu") if relu else name

    def op(self, op_type: str, inputs: list[str], name: str, output: str | None = None,
           **attrs: object) -> str:
        """A node named ``name`` whose output is ``output`` (``name`` unless given)."""
        output = output or name
        self.nodes.append(helper.make_node(op_type, inputs, [output], name=name, **attrs))
        return output


def detector(rng: np.random.Generator) -> Built:
    """A single-shot detector: a backbone of stride-2 3×3 convolutions with ReLU (32×32 to
    16×16, 8×8 and 4×4), a top-down neck (the coarser level upsampled by a nearest ``Resize``
    ×2 and concatenated along the channels with the next finer one, then a 3×3 convolution,
    twice), 3×3 convolution heads and a ``Sigmoid`` on the 8 outputs per position of the
    16×16 level (the host computes it)."""
    g = Graph(rng)
    g.inits.append(numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "up_scales"))
    c2 = g.conv("x", 3, 16, "backbone.0", stride=2)          # 16×16
    c3 = g.conv(c2, 16, 16, "backbone.1", stride=2)          # 8×8
    c4 = g.conv(c3, 16, 32, "backbone.2", stride=2)          # 4×4
    up4 = g.op("Resize", [c4, "", "up_scales"], "neck.up4", mode="nearest")
    p3 = g.conv(g.op("Concat", [c3, up4], "neck.cat3", axis=1), 48, 16, "neck.p3")
    up3 = g.op("Resize", [p3, "", "up_scales"], "neck.up3", mode="nearest")
    p2 = g.op("Concat", [c2, up3], "neck.cat2", axis=1)
    h = g.conv(p2, 32, 16, "head.0")
    logits = g.conv(h, 16, 8, "head.1", relu=False)
    g.op("Sigmoid", [logits], "sigmoid", output="y")
    return g.nodes, g.inits, (1, 3, 32, 32), (1, 8, 16, 16)


def vgg(rng: np.random.Generator) -> Built:
    """A small VGG: stacks of 3×3 convolutions with ReLU, each closed by a 2×2 max-pool
    (32×32 to 16×16, 8×8 and 4×4), ``Flatten`` of the 32×4×4 features, two ``Gemm`` layers
    (the first with ReLU) and a ``Softmax`` over the 10 classes (the host computes it)."""
    g = Graph(rng)
    x, cin = "x", 3
    for stage, (cout, convs) in enumerate([(8, 2), (16, 1), (32, 1)]):
        for index in range(convs):
            x, cin = g.conv(x, cin, cout, f"features.{stage}.{index}"), cout
        x = g.op("MaxPool", [x], f"features.{stage}.pool", kernel_shape=[2, 2], strides=[2, 2])
    flat = g.op("Flatten", [x], "flatten", axis=1)
    w1 = g.weights("fc1.weight", (64, cin * 16), float(np.sqrt(2.0 / (cin * 16))))
    b1 = g.weights("fc1.bias", (64,), 0.1)
    hidden = g.op("Relu", [g.op("Gemm", [flat, w1, b1], "fc1", transB=1)], "fc1.relu")
    w2 = g.weights("fc2.weight", (10, 64), float(np.sqrt(1.0 / 64)))
    b2 = g.weights("fc2.bias", (10,), 0.1)
    g.op("Softmax", [g.op("Gemm", [hidden, w2, b2], "fc2", transB=1)], "softmax", output="y",
         axis=-1)
    return g.nodes, g.inits, (1, 3, 32, 32), (1, 10)


#: The prior probability of the detection head's bias (RetinaNet's focal-loss prior: the
#: classifier starts by predicting background), ``b = −log((1 − π)/π)``.
DETECTION_PRIOR = 0.01
#: The standard deviation of the output layers' logits on the calibration inputs (a modest
#: spread, as a trained network's classifier has).
LOGIT_SPREAD = 1.0


class TrainedLikeGraph(NormalisedNetwork):
    """:class:`trained_like.NormalisedNetwork` with the neck's and classifier's nodes."""

    def resize(self, x: str, name: str) -> str:
        if not any(init.name == "up_scales" for init in self.inits):
            self.inits.append(numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32),
                                                      "up_scales"))
        self.nodes.append(helper.make_node("Resize", [x, "", "up_scales"], [name],
                                           mode="nearest", name=name))
        self.values[name] = self.values[x].repeat(2, axis=2).repeat(2, axis=3)
        return name

    def concat(self, a: str, b: str, name: str) -> str:
        self.nodes.append(helper.make_node("Concat", [a, b], [name], axis=1, name=name))
        self.values[name] = np.concatenate([self.values[a], self.values[b]], axis=1)
        return name

    def pool2(self, x: str, name: str) -> str:
        self.nodes.append(helper.make_node("MaxPool", [x], [name], kernel_shape=[2, 2],
                                           strides=[2, 2], name=name))
        self.values[name] = sliding_window_view(self.values[x], (2, 2), axis=(2, 3))[
            :, :, ::2, ::2].max(axis=(4, 5))
        return name

    def logits_conv(self, x: str, cout: int, name: str, bias: float) -> str:
        """A 3×3 convolution without batch norm, its weights scaled so that its output has
        the standard deviation :data:`LOGIT_SPREAD` on the calibration inputs, bias ``bias``."""
        value = self.values[x]
        w = self.rng.standard_normal((cout, value.shape[1], 3, 3)).astype(np.float32)
        w *= np.float32(LOGIT_SPREAD / conv2d(value, w, 1, 1, 1).std())
        b = np.full(cout, bias, np.float32)
        self.inits += [numpy_helper.from_array(w, name + ".weight"),
                       numpy_helper.from_array(b, name + ".bias")]
        self.nodes.append(helper.make_node(
            "Conv", [x, name + ".weight", name + ".bias"], [name], kernel_shape=[3, 3],
            strides=[1, 1], pads=[1, 1, 1, 1], name=name))
        self.values[name] = conv2d(value, w, 1, 1, 1) + b[None, :, None, None]
        return name

    def gemm(self, x: str, cout: int, name: str, spread: float | None = None) -> str:
        """``Gemm`` with ``transB``: He-normal weights and a zero bias (no batch norm, as in
        torchvision's VGG classifier: its statistics over a few calibration samples would
        not be those of other inputs), or, with ``spread``, weights scaled to logits of that
        standard deviation (the last layer)."""
        value = self.values[x]
        w = self.rng.standard_normal((cout, value.shape[1])) * np.sqrt(2.0 / value.shape[1])
        out = value @ w.T
        if spread is None:  # torchvision's VGG classifier: no batch norm, zero biases
            factor, bias = np.ones(cout), np.zeros(cout)
        else:
            factor, bias = np.full(cout, spread / out.std()), np.zeros(cout)
        weight, bias = (w * factor[:, None]).astype(np.float32), bias.astype(np.float32)
        self.inits += [numpy_helper.from_array(weight, name + ".weight"),
                       numpy_helper.from_array(bias, name + ".bias")]
        self.nodes.append(helper.make_node("Gemm", [x, name + ".weight", name + ".bias"],
                                           [name], transB=1, name=name))
        self.values[name] = value @ weight.T + bias
        return name


def detector_trained_like(rng: np.random.Generator) -> Built:
    """:func:`detector` built as trained detectors are: every convolution of the backbone,
    the neck and ``head.0`` with its batch norm measured on the calibration inputs and folded
    (``trained_like``); the last head convolution (logits, no batch norm) scaled to logits of
    standard deviation :data:`LOGIT_SPREAD` with the bias ``−log((1 − π)/π)``, ``π`` =
    :data:`DETECTION_PRIOR`, so that the sigmoid works in its flat tail."""
    shape = (1, 3, 32, 32)
    g = TrainedLikeGraph(rng, calibration_inputs(shape, rng))
    c2 = g.conv("x", 16, 3, 2, "backbone.0")
    c3 = g.conv(c2, 16, 3, 2, "backbone.1")
    c4 = g.conv(c3, 32, 3, 2, "backbone.2")
    p3 = g.conv(g.concat(c3, g.resize(c4, "neck.up4"), "neck.cat3"), 16, 3, 1, "neck.p3")
    p2 = g.concat(c2, g.resize(p3, "neck.up3"), "neck.cat2")
    h = g.conv(p2, 16, 3, 1, "head.0")
    prior = -float(np.log((1 - DETECTION_PRIOR) / DETECTION_PRIOR))
    logits = g.logits_conv(h, 8, "head.1", prior)
    g.nodes.append(helper.make_node("Sigmoid", [logits], ["y"], name="sigmoid"))
    return g.nodes, g.inits, shape, (1, 8, 16, 16)


def vgg_trained_like(rng: np.random.Generator) -> Built:
    """:func:`vgg` built as trained classifiers are: every convolution with its measured batch
    norm folded, ``fc1`` He-normal, ``fc2`` scaled to logits of standard deviation
    :data:`LOGIT_SPREAD`."""
    shape = (1, 3, 32, 32)
    g = TrainedLikeGraph(rng, calibration_inputs(shape, rng))
    x = "x"
    for stage, (cout, convs) in enumerate([(8, 2), (16, 1), (32, 1)]):
        for index in range(convs):
            x = g.conv(x, cout, 3, 1, f"features.{stage}.{index}")
        x = g.pool2(x, f"features.{stage}.pool")
    g.nodes.append(helper.make_node("Flatten", [x], ["flatten"], axis=1, name="flatten"))
    g.values["flatten"] = g.values[x].reshape(len(g.values[x]), -1)
    hidden = g.activation(g.gemm("flatten", 64, "fc1"), "Relu")
    logits = g.gemm(hidden, 10, "fc2", spread=LOGIT_SPREAD)
    g.nodes.append(helper.make_node("Softmax", [logits], ["y"], axis=-1, name="softmax"))
    return g.nodes, g.inits, shape, (1, 10)
