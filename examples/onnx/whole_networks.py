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
from onnx import helper, numpy_helper

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
