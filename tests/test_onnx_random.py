"""Random QDQ networks: chains of Conv, Relu, Add (residual, of the latest tensor and an earlier
one), MaxPool, GlobalAveragePool and Gemm with random shapes, strides and paddings, built with
``onnx.helper`` and quantized by ``quantize_static`` (QDQ, int8, symmetric or asymmetric
activations) on random calibration data.

Each network either runs on the simulator's default configuration bit-exact with the integer
semantics (``tests/onnx_semantics.py``) and within the agreement with onnxruntime of
``docs/onnx.md`` §6 (≥ 99 % of the outputs within one output step, none beyond
two, as after residual blocks), or is refused at import with one error naming the node.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper

from tests.onnx_semantics import expected_output, onnxruntime_output
from vta_mlir import compile
from vta_mlir.frontend.onnx import OnnxImportError, import_program, import_text

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "onnx"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))
from models import Built, float_model, init_tensor, quantize  # noqa: E402

SEEDS = range(50)
#: docs/onnx.md §6: within one output step on ≥ 99 % of the outputs, within two after
#: residual additions.
WITHIN_ONE = 0.99
WORST_STEPS = 2.0


class _Net:
    """The float graph being generated: its nodes, initializers and the NCHW shape of each
    tensor a later node may read."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.shapes: dict[str, tuple[int, ...]] = {}
        self.last = "x"

    def name(self, op: str) -> str:
        return f"{op.lower()}{len(self.nodes)}"

    def emit(self, op: str, inputs: list[str], shape: tuple[int, ...], **attrs: object) -> str:
        out = self.name(op)
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        self.last = out
        return out

    def keep(self, shape: tuple[int, ...]) -> None:
        """The latest tensor may be read again later (by an Add)."""
        self.shapes[self.last] = shape

    def relu(self, shape: tuple[int, ...]) -> None:
        # A Relu folds into the layer before it, which nothing else may then read.
        if self.rng.random() < 0.5:
            self.emit("Relu", [self.last], shape)

    def conv(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        rng = self.rng
        n, c, h, w = shape
        if rng.random() < 0.3:
            # Shape-preserving (3×3, pad 1, stride 1, as many channels): a residual Add may
            # then read this layer's input, the network's own input included.
            cout, kh, kw, pads, strides = c, 3, 3, [1, 1, 1, 1], [1, 1]
        else:
            cout = int(rng.integers(1, 33))
            kh, kw = (int(rng.choice([k for k in (1, 2, 3, 5) if k <= d + 2])) for d in (h, w))
            pads = [int(rng.integers(0, k)) for k in (kh, kw, kh, kw)]
            strides = [int(rng.integers(1, 4)) for _ in range(2)]
        oh = (h + pads[0] + pads[2] - kh) // strides[0] + 1
        ow = (w + pads[1] + pads[3] - kw) // strides[1] + 1
        if oh < 2 or ow < 2:
            # Maps of one row or column are left out: with no average to damp it, a hidden
            # one-code difference there reaches the output amplified (docs/onnx.md §6).
            return shape
        name = self.name("Conv")
        self.inits += [init_tensor(rng, f"{name}.w", (cout, c, kh, kw),
                                   float(np.sqrt(2.0 / (c * kh * kw)))),
                       init_tensor(rng, f"{name}.b", (cout,), 0.1)]
        out = (n, cout, oh, ow)
        self.emit("Conv", [self.last, f"{name}.w", f"{name}.b"], out, kernel_shape=[kh, kw],
                  strides=strides, pads=pads)
        self.relu(out)
        self.keep(out)
        return out

    def maxpool(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        n, c, h, w = shape
        k = int(self.rng.integers(1, min(h, w, 3) + 1))
        stride = int(self.rng.integers(1, 3))
        pads = [int(self.rng.integers(0, k)) for _ in range(4)]
        out = (n, c, (h + pads[0] + pads[2] - k) // stride + 1,
               (w + pads[1] + pads[3] - k) // stride + 1)
        if min(out[2:]) < 2:
            return shape
        self.emit("MaxPool", [self.last], out, kernel_shape=[k, k], strides=[stride] * 2,
                  pads=pads)
        self.keep(out)
        return out

    def add(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        # The other operand: an earlier tensor of the same shape, the network's input included
        # (read then both as convolution data and as a residual).
        others = [t for t, s in self.shapes.items() if s == shape and t != self.last]
        if not others:
            return self.conv(shape)
        other = others[int(self.rng.integers(len(others)))]
        operands = [self.last, other]
        if self.rng.random() < 0.5:
            operands.reverse()
        self.emit("Add", operands, shape)
        self.relu(shape)
        self.keep(shape)
        return shape

    def head(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        n, c = shape[:2]
        self.emit("GlobalAveragePool", [self.last], (n, c, 1, 1))
        self.emit("Flatten", [self.last], (n, c), axis=1)
        if self.rng.random() < 0.3:
            return (n, c)
        classes = int(self.rng.integers(4, 17))
        name = self.name("Gemm")
        self.inits += [init_tensor(self.rng, f"{name}.w", (classes, c), float(np.sqrt(1 / c))),
                       init_tensor(self.rng, f"{name}.b", (classes,), 0.1)]
        self.emit("Gemm", [self.last, f"{name}.w", f"{name}.b"], (n, classes), transB=1)
        return (n, classes)


def random_network(rng: np.random.Generator) -> Built:
    """A random chain (``examples/onnx/models.py``'s builder form), ≤ 16×16, ≤ 32 channels."""
    net = _Net(rng)
    shape = (1, int(rng.integers(1, 9)), int(rng.integers(4, 17)), int(rng.integers(4, 17)))
    x_shape = shape
    net.shapes["x"] = x_shape
    shape = net.conv(shape)
    while net.last == "x":  # the first layer reads the input: a convolution
        shape = net.conv(shape)
    for _ in range(int(rng.integers(1, 6))):
        op = rng.choice(["conv", "conv", "add", "add", "maxpool"])
        shape = getattr(net, str(op))(shape)
    if rng.random() < 0.6:
        shape = net.head(shape)
    # The graph's output is named y.
    net.nodes[-1].output[0] = "y"
    return net.nodes, net.inits, x_shape, shape


_BUILT: dict[int, Path] = {}


def network(folder: Path, seed: int) -> Path:
    """The quantized network of ``seed`` (built once per pytest run)."""
    if seed not in _BUILT:
        rng = np.random.default_rng(seed)
        model = float_model(random_network, rng, name=f"random{seed}")
        _BUILT[seed] = quantize(model, folder / f"random{seed}.onnx", bool(seed % 2), rng,
                                calibration_batches=4)
    return _BUILT[seed]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("random_networks")


@pytest.mark.parametrize("seed", SEEDS)
def test_random_network(folder: Path, seed: int) -> None:
    path = network(folder, seed)
    try:
        text = import_text(path)
    except OnnxImportError as exc:
        assert str(exc).startswith("node '") and "\n" not in str(exc), str(exc)
        return
    program = import_program(path)
    shape = tuple(d.dim_value for d in onnx.load(str(path)).graph.input[0].type.tensor_type
                  .shape.dim)
    x = np.random.default_rng(seed + 1000).standard_normal(shape).astype(np.float32)
    (y,) = compile(text, config="default")(x)
    np.testing.assert_array_equal(y, expected_output(path, x))  # the integer semantics
    expected = onnxruntime_output(path, x)
    assert y.shape == expected.shape
    steps = np.abs(y - expected) / program.output.scale
    assert np.mean(steps <= 1.001) >= WITHIN_ONE, f"{np.mean(steps <= 1.001):.3f} within one"
    assert steps.max() <= WORST_STEPS + 1e-3, f"worst {steps.max():.2f} steps"


def test_random_networks_mostly_import(folder: Path) -> None:
    """The generator makes networks the importer supports: a refusal is the exception."""
    refused = []
    for seed in SEEDS:
        try:
            import_program(network(folder, seed))
        except OnnxImportError as exc:
            refused.append(f"{seed}: {exc}")
    assert len(refused) <= len(SEEDS) // 10, refused


def test_random_networks_read_the_input_twice() -> None:
    """Some networks add the network's input to a convolution of it: the input is then packed
    both as convolution data and as a residual operand (``docs/pipeline.md``, vta-pack)."""
    twice = [seed for seed in SEEDS
             if any(node.op_type == "Add" and "x" in node.input
                    for node in random_network(np.random.default_rng(seed))[0])]
    assert len(twice) >= 3, twice
