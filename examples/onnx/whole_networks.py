"""Whole float networks in the builder form of ``models.py`` (which lists them in its
``MODELS``): a detector with a stride-2 backbone, an FPN-like top-down neck and a sigmoid
head, and a VGG-style classifier ending in a softmax, built as trained classifiers are (its
batch norms measured and folded, ``trained_like.py``).  Sizes are modest (32×32 inputs, about
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
from trained_like import NormalisedNetwork, calibration_inputs

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


#: The standard deviation of the output layers' logits on the calibration inputs (a modest
#: spread, as a trained network's classifier has).
LOGIT_SPREAD = 1.0


class TrainedLikeGraph(NormalisedNetwork):
    """:class:`trained_like.NormalisedNetwork` with a classifier's max-pools and ``Gemm``s."""

    def pool2(self, x: str, name: str) -> str:
        self.nodes.append(helper.make_node("MaxPool", [x], [name], kernel_shape=[2, 2],
                                           strides=[2, 2], name=name))
        self.values[name] = sliding_window_view(self.values[x], (2, 2), axis=(2, 3))[
            :, :, ::2, ::2].max(axis=(4, 5))
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


def vgg(rng: np.random.Generator) -> Built:
    """A small VGG built as trained classifiers are: stacks of 3×3 convolutions with ReLU, each
    with the batch norm of its output measured on the calibration inputs and folded
    (``trained_like``), each stack closed by a 2×2 max-pool (32×32 to 16×16, 8×8 and 4×4);
    ``Flatten`` of the 32×4×4 features; ``fc1`` (He normal, zero bias, ReLU) and ``fc2``
    scaled to logits of standard deviation :data:`LOGIT_SPREAD` on the calibration inputs;
    a ``Softmax`` over the 10 classes (the host computes it)."""
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
