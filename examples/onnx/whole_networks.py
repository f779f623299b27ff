"""Whole float networks in the builder form of ``models.py`` (which lists them in its
``MODELS``): a detector with a stride-2 backbone, an FPN-like top-down neck and a sigmoid
head, and a VGG-style classifier ending in a softmax, both built as trained networks are
(their batch norms measured and folded, ``trained_like.py``).  Sizes are modest (32×32 inputs, about
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


#: The standard deviation of the classifier's logits on the calibration inputs (a modest
#: spread, as a trained network's classifier has).
LOGIT_SPREAD = 1.0
#: The standard deviation of the detector's logits, around 0. One code of the sigmoid's input
#: moves its output by at most ``s_in / (4·s_out)`` output steps: 0.55 with symmetric
#: activations, 1.04 with asymmetric ones at this spread, so a hidden one-code difference stays
#: within about one output step (a spread of 1 left 1–4 % of the asymmetric outputs two steps
#: off; logits around the focal-loss prior of detection heads, whose largest sigmoid outputs
#: are small, make the ratio 13.8).
SIGMOID_LOGIT_SPREAD = 0.6


class TrainedLikeGraph(NormalisedNetwork):
    """:class:`trained_like.NormalisedNetwork` with a neck's resizes and concatenations, a
    detection head's logits, a classifier's max-pools and ``Gemm``s."""

    def resize(self, x: str, name: str) -> str:
        """A nearest ``Resize`` ×2 of the rows and columns."""
        if not any(init.name == "up_scales" for init in self.inits):
            self.inits.append(numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32),
                                                      "up_scales"))
        self.nodes.append(helper.make_node("Resize", [x, "", "up_scales"], [name],
                                           mode="nearest", name=name))
        self.values[name] = self.values[x].repeat(2, axis=2).repeat(2, axis=3)
        return name

    def concat(self, a: str, b: str, name: str) -> str:
        """``a`` and ``b`` concatenated along the channels."""
        self.nodes.append(helper.make_node("Concat", [a, b], [name], axis=1, name=name))
        self.values[name] = np.concatenate([self.values[a], self.values[b]], axis=1)
        return name

    def logits_conv(self, x: str, cout: int, name: str, spread: float) -> str:
        """A padded 3×3 convolution without batch norm and with a zero bias, its weights
        scaled so that its output has the standard deviation ``spread`` on the calibration
        inputs."""
        value = self.values[x]
        w = self.rng.standard_normal((cout, value.shape[1], 3, 3)).astype(np.float32)
        w *= np.float32(spread / conv2d(value, w, 1, 1, 1).std())
        b = np.zeros(cout, np.float32)
        self.inits += [numpy_helper.from_array(w, name + ".weight"),
                       numpy_helper.from_array(b, name + ".bias")]
        self.nodes.append(helper.make_node(
            "Conv", [x, name + ".weight", name + ".bias"], [name], kernel_shape=[3, 3],
            strides=[1, 1], pads=[1, 1, 1, 1], name=name))
        self.values[name] = conv2d(value, w, 1, 1, 1)
        return name

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


def detector(rng: np.random.Generator) -> Built:
    """A single-shot detector built as trained networks are (every convolution of the
    backbone, the neck and ``head.0`` with the batch norm of its output measured on the
    calibration inputs and folded, ``trained_like``): a backbone of stride-2 3×3 convolutions
    with ReLU (32×32 to 16×16, 8×8 and 4×4), a top-down neck (the coarser level upsampled by a
    nearest ``Resize`` ×2 and concatenated along the channels with the next finer one, then a
    3×3 convolution, twice), 3×3 convolution heads and a ``Sigmoid`` on the 8 outputs per
    position of the 16×16 level (the host computes it). The last head convolution (logits, no
    batch norm) is scaled to logits of standard deviation :data:`SIGMOID_LOGIT_SPREAD` around
    0, so that one code of its output moves a sigmoid output by at most one output step
    (``docs/onnx.md`` §6)."""
    shape = (1, 3, 32, 32)
    g = TrainedLikeGraph(rng, calibration_inputs(shape, rng))
    c2 = g.conv("x", 16, 3, 2, "backbone.0")                  # 16×16
    c3 = g.conv(c2, 16, 3, 2, "backbone.1")                   # 8×8
    c4 = g.conv(c3, 32, 3, 2, "backbone.2")                   # 4×4
    p3 = g.conv(g.concat(c3, g.resize(c4, "neck.up4"), "neck.cat3"), 16, 3, 1, "neck.p3")
    p2 = g.concat(c2, g.resize(p3, "neck.up3"), "neck.cat2")
    h = g.conv(p2, 16, 3, 1, "head.0")
    logits = g.logits_conv(h, 8, "head.1", SIGMOID_LOGIT_SPREAD)
    g.nodes.append(helper.make_node("Sigmoid", [logits], ["y"], name="sigmoid"))
    return g.nodes, g.inits, shape, (1, 8, 16, 16)


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
