"""The ONNX frontend (``docs/onnx.md``): QDQ models built with ``onnx.helper`` and quantized by
``onnxruntime.quantization.quantize_static`` on random calibration data, symmetric and
asymmetric activations, imported, compiled and run on the simulator of every shipped
configuration.

Each run is compared (a) bit for bit with :func:`integer_model`, a numpy model of the
documented integer semantics that walks the ONNX graph itself (only the requantization
constants the importer chose are read from its program), and (b) after dequantizing, with
onnxruntime on the same float input (CPU provider, ``ORT_DISABLE_ALL``: the QDQ graph's own
semantics). The compiled program takes the model's float input and returns its float output:
the host steps of ``vta.quant`` quantize and dequantize them (``docs/dialects.md``); the
integer model is given the same quantized input. Bad inputs go through the command line.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from tests.onnx_semantics import (
    conv_nchw,
    fixed_point_requant,
    integer_model,
    onnxruntime_output,
    quant_params,
)
from vta_mlir import compile
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.frontend.onnx import (
    choose_requant,
    choose_requant_channels,
    import_program,
    import_text,
)
from vta_mlir.frontend.onnx.qdq import ConvLayer, DenseLayer
from vta_mlir.quant.host_float import FloatLayer
from vta_mlir.quant.program import FloatTensor
from vta_mlir.tools import vta_import_onnx

# The model builders are examples/onnx/models.py (not a package: imported from its folder).
EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "onnx"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))
from models import (  # noqa: E402
    MODELS,
    Builder,
    Built,
    conv_relu,
    dense,
    float_model,
    init_tensor,
    quantize,
    resnet18,
    small_cnn,
)

logging.getLogger().setLevel(logging.ERROR)  # quantize_static's pre-processing advice


# ---------------------------------------------------------------------------------------------
# Models


def quantized(tmp: Path, builder: Builder, symmetric: bool, seed: int = 0,
              opset: int = 17, per_channel: bool = False) -> Path:
    rng = np.random.default_rng(seed)
    return quantize(float_model(builder, rng, opset), tmp / f"{builder.__name__}.onnx",
                    symmetric, rng, per_channel)


def check(path: Path, config: str, worst: float | None, seed: int = 1) -> None:
    """Run the model at ``path`` on ``config``: bit-exact with :func:`integer_model`, and
    unless ``worst`` is None, ≥ 99 % of the outputs within one output step of onnxruntime and
    none further than ``worst`` steps."""
    text = import_text(path)
    si, zi = quant_params(text, "input")
    so, zo = quant_params(text, "output")
    model = onnx.load(str(path))
    shape = tuple(d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim)
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    # The host steps of vta.quant, written out for the integer model: quantize the input,
    # dequantize the output.
    q = np.clip(np.rint(x.astype(np.float32) / np.float32(si)) + zi, -128, 127).astype(np.int8)
    program = compile(text, config=config)
    (y,) = program(x)
    assert y.dtype == np.float32
    expected = (integer_model(path, q).astype(np.float32) - zo) * np.float32(so)
    np.testing.assert_array_equal(y, expected)
    if worst is None:
        return
    steps = np.abs(y - onnxruntime_output(path, x)) / so
    assert np.mean(steps <= 1.001) >= 0.99, f"{np.mean(steps <= 1.001):.3f} within one step"
    assert steps.max() <= worst + 1e-3, f"worst {steps.max():.2f} steps"


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
@pytest.mark.parametrize("name", ["dense", "matmul_add", "conv_relu", "small_cnn", "gap_fc"])
def test_models(tmp_path: Path, name: str, symmetric: bool, config: str) -> None:
    check(quantized(tmp_path, MODELS[name], symmetric), config, worst=1.0)


@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
def test_shared_bias_through_identity(tmp_path: Path, symmetric: bool) -> None:
    """A bias used twice, through an Identity: quantized once, at the first layer's scale, and
    rescaled for the second (docs/onnx.md §4.6)."""
    path = quantized(tmp_path, MODELS["shared_bias"], symmetric)
    assert any(n.op_type == "Identity" for n in onnx.load(str(path)).graph.node)
    conv1, conv2 = import_program(path).layers
    assert isinstance(conv1, ConvLayer) and isinstance(conv2, ConvLayer)
    check(path, "default", worst=1.0)


def test_wide_clip_bound(tmp_path: Path) -> None:
    """A small multiplier takes no shift before the multiplication; its clip bound, beyond an
    immediate, is read from constant vectors, unless the layer multiplies first and needs no
    clip before the multiplication (docs/onnx.md §3)."""
    path = quantized(tmp_path, MODELS["small_cnn"], symmetric=True)
    wide = [layer for layer in import_program(path).layers
            if isinstance(layer, ConvLayer) and layer.rq.wide_clip]
    assert wide and any(layer.rq.s1 == 0 for layer in wide)
    text = import_text(path)
    unshifted = [layer for layer in wide if layer.rq.s1 == 0]
    assert all(f"{layer.name}_clip_hi" in text for layer in unshifted) or \
        "arith.muli %a," in text
    for config in SHIPPED_CONFIGS:
        check(path, config, worst=1.0)


def resnet18_224(rng: np.random.Generator) -> Built:
    return resnet18(rng, size=224, classes=1000)


def resnet18_32(rng: np.random.Generator) -> Built:
    return resnet18(rng, size=32, classes=10)


# The long form of the agreement the random networks check in the default run (and
# benchmarks/onnx_resnet18.py measures).
@pytest.mark.slow
@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
def test_resnet18(tmp_path: Path, symmetric: bool) -> None:
    """The ResNet-18-shaped model at 224×224 with 1000 classes: bit-exact with the integer
    semantics, and within the agreement with onnxruntime of docs/onnx.md §6 (≥ 99 % within
    one step, the worst ≤ 4: a one-code difference in a hidden layer, where the fixed-point
    requantization and onnxruntime's float arithmetic round a value near a half step apart,
    can travel to the output)."""
    check(quantized(tmp_path, resnet18_224, symmetric), "default", worst=4.0)


@pytest.mark.slow
@pytest.mark.parametrize("config", ["block32", "batch2"])
@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
def test_resnet18_other_configs(tmp_path: Path, symmetric: bool, config: str) -> None:
    check(quantized(tmp_path, resnet18_224, symmetric), config, worst=4.0)


@pytest.mark.slow  # the random networks of test_onnx_random and the benchmark's test are short
@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_resnet18_small_bit_exact(tmp_path: Path, config: str) -> None:
    """ResNet-18 at 32×32, bit-exact with the integer semantics (a long form: the random
    networks of ``tests/test_onnx_random.py`` are the short one). (Its
    agreement with onnxruntime is not checked: at 32×32 the last stage is 1×1, no average
    damps a hidden one-code difference, and even exact arithmetic leaves a third of the 10
    outputs more than one step from onnxruntime's float computation.)"""
    check(quantized(tmp_path, resnet18_32, symmetric=False), config, worst=None)


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("name", ["dense", "conv_relu", "small_cnn"])
def test_per_channel_weights(tmp_path: Path, name: str, config: str) -> None:
    """Per-channel weight scales: one shift pair, a multiplier per output channel."""
    path = quantized(tmp_path, MODELS[name], symmetric=False, per_channel=True)
    layer = import_program(path).layers[0]
    assert isinstance(layer, ConvLayer | DenseLayer) and len(layer.rq.channel_m) > 1
    check(path, config, worst=1.0)


@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
@pytest.mark.parametrize("name", ["residual", "downsample"])
def test_residual(tmp_path: Path, name: str, symmetric: bool) -> None:
    """An Add of a convolution's rounded output: ≥ 99 % within one step, the worst within two
    (the two roundings of ONNX's graph against one rescale each here, docs/onnx.md §6)."""
    check(quantized(tmp_path, MODELS[name], symmetric), "default", worst=2.0)


def test_opsets_and_unused_microsoft_domain(tmp_path: Path) -> None:
    """Opsets 13 and 21 import; a com.microsoft entry in opset_import that no node uses (as
    torch writes it) is no reason to refuse the model."""
    for opset in (13, 21):
        path = quantized(tmp_path, dense, symmetric=False, opset=opset)
        model = onnx.load(str(path))
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
        onnx.save(model, path)
        check(path, "default", worst=1.0)


def test_requant_choice() -> None:
    """The multiplier is a 16-bit immediate, no clipped value times it wraps in int32, the clip
    saturates exactly where the output does, and the fixed-point multiplier is far closer than
    a power of two. Small multipliers take a wide clip bound rather than a shift before the
    multiplication."""
    for multiplier in (1e-4, 0.0041, 0.3, 0.9, 1.7, 40.0):
        rq = choose_requant(multiplier)
        assert 0 < rq.m < 1 << 15 and 0 < rq.clip and rq.clip * rq.m < 1 << 31
        assert rq.wide_clip == (rq.clip >= 1 << 15)
        assert rq.clip * rq.m >= 256 << rq.s2
        assert abs(rq.multiplier / multiplier - 1) < 2e-4
        pow2 = choose_requant(multiplier, "pow2")
        assert pow2.m == 1 and pow2.clip < 1 << 15
    assert choose_requant(0.0041).s1 == 0 and choose_requant(0.0041).wide_clip
    with pytest.raises(ValueError):
        choose_requant(0.0)
    # Finite but beyond any shift: no fixed-point form (not an overflow in the search).
    with pytest.raises(ValueError, match="has no 16-bit fixed-point form"):
        choose_requant(1e308)
    with pytest.raises(ValueError, match="have no common 32-bit fixed-point form"):
        choose_requant_channels([1e308, 0.5])


def test_pow2_mode_runs(tmp_path: Path) -> None:
    """The power-of-two mode is bit-exact with its own integer semantics."""
    path = quantized(tmp_path, conv_relu, symmetric=True)
    text = import_text(path, requant="pow2")
    program = import_program(path, requant="pow2")
    layer = program.layers[0]
    assert isinstance(layer, ConvLayer) and layer.rq.m == 1
    assert "arith.muli" not in text
    x = np.random.default_rng(3).integers(-128, 128, (1, 3, 10, 10), dtype=np.int8)
    # Float values the input's host step quantizes back to exactly these codes.
    si, zi = program.input.scale, program.input.zero_point
    (y,) = compile(text)((x.astype(np.float32) - zi) * np.float32(si))
    so, zo = program.output.scale, program.output.zero_point
    model = onnx.load(str(path))
    w = numpy_helper.to_array(next(i for i in model.graph.initializer
                                   if i.name == "w_quantized")).astype(np.int64)
    acc = conv_nchw(np.pad(x.astype(np.int64) - program.input.zero_point,
                       ((0, 0), (0, 0), (1, 1), (1, 1))), w, (2, 2))
    rq = layer.rq
    acc += numpy_helper.to_array(next(i for i in model.graph.initializer
                                      if i.name == "b_quantized")).reshape(1, -1, 1, 1)
    expected = np.clip(fixed_point_requant(acc, rq.s1, rq.m, rq.s2, rq.clip) + layer.zero_point,
                       layer.lo, 127)
    np.testing.assert_array_equal(y, (expected.astype(np.float32) - zo) * np.float32(so))


# ---------------------------------------------------------------------------------------------
# Bad input, through the command line


def _cli_error(tmp_path: Path, model: Path, capsys: pytest.CaptureFixture[str]) -> str:
    out = tmp_path / "out.mlir"
    assert vta_import_onnx.main([str(model), "-o", str(out)]) == 1
    assert not out.exists()
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("vta-import-onnx: error: ")
    return lines[0]


def _save(tmp_path: Path, nodes: list[onnx.NodeProto], x_shape: list[int | str],
          inits: list[onnx.TensorProto] | None = None, name: str = "bad.onnx") -> Path:
    graph = helper.make_graph(nodes, "bad", [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)], [
        helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits or [])
    path = tmp_path / name
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                      helper.make_opsetid("com.microsoft", 1)]),
              path)
    return path


def test_core_does_not_import_onnx() -> None:
    """Importing vta_mlir, its API and the tool's module does not load onnx (the core install
    stays light: only ``vta_mlir.frontend.onnx`` needs it)."""
    code = ("import sys, vta_mlir, vta_mlir.api, vta_mlir.frontend, vta_mlir.tools.vta_run, "
            "vta_mlir.tools.vta_import_onnx; assert 'onnx' not in sys.modules, 'onnx loaded'")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_cli_writes_module(tmp_path: Path) -> None:
    path = quantized(tmp_path, small_cnn, symmetric=False)
    out = tmp_path / "cnn.mlir"
    assert vta_import_onnx.main([str(path), "-o", str(out)]) == 0
    assert out.read_text() == import_text(path)
    assert "vta.quant = {scale = " in out.read_text()


def test_corrupt_and_truncated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = quantized(tmp_path, dense, symmetric=True)
    data = good.read_bytes()
    for name, content in (("truncated.onnx", data[:len(data) // 3]),
                          ("garbage.onnx", b"\x08\x07garbage\xff\xff\xff\xff")):
        path = tmp_path / name
        path.write_bytes(content)
        line = _cli_error(tmp_path, path, capsys)
        assert "not a valid ONNX model" in line and name in line
    assert "cannot open" in _cli_error(tmp_path, tmp_path / "missing.onnx", capsys)


def test_unsupported_op(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _save(tmp_path, [helper.make_node("Sin", ["x"], ["y"], name="squash")], [1, 10])
    line = _cli_error(tmp_path, path, capsys)
    assert "node 'squash' (Sin)" in line and "unsupported op" in line


def channel_mean(rng: np.random.Generator) -> Built:
    """A convolution, then a mean over the channels: not a global average pool."""
    inits = [init_tensor(rng, "w", (8, 3, 3, 3), 0.3)]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("ReduceMean", ["c"], ["y"], axes=[1], keepdims=1, name="mean")]
    return nodes, inits, (1, 3, 6, 6), (1, 1, 6, 6)


def test_reduce_mean_over_channels(tmp_path: Path) -> None:
    """A ReduceMean is read as a global average pool only over H and W; over the channels,
    left in float by the quantizer, the host computes it (docs/onnx.md §4.15)."""
    program = import_program(quantized(tmp_path, channel_mean, symmetric=True))
    (host,) = [layer for layer in program.layers if isinstance(layer, FloatLayer)]
    assert [op.op for op in host.ops] == ["ReduceMean"]
    assert isinstance(program.output, FloatTensor) and program.output.shape == (1, 1, 6, 6)


def test_dynamic_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = quantized(tmp_path, dense, symmetric=True)
    model = onnx.load(str(path))
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "batch"
    onnx.save(model, path)
    line = _cli_error(tmp_path, path, capsys)
    assert "(QuantizeLinear)" in line and "dynamic" in line and "'x'" in line


def test_microsoft_domain_op(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An op of another domain than the QOperator ones the importer reads."""
    node = helper.make_node("QLinearSoftmax", ["x"] * 5, ["y"], name="qsoftmax",
                            domain="com.microsoft")
    line = _cli_error(tmp_path, _save(tmp_path, [node], [1, 10]), capsys)
    assert "node 'qsoftmax' (QLinearSoftmax)" in line and "com.microsoft" in line
    assert "QLinearConv" in line and "QDQ" in line


def test_float_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "float.onnx"
    onnx.save(float_model(conv_relu, np.random.default_rng(0)), path)
    line = _cli_error(tmp_path, path, capsys)
    assert "node 'conv' (Conv)" in line
    assert "onnxruntime.quantization.quantize_static" in line


def test_float_op_at_edge(tmp_path: Path) -> None:
    """A float operation between the graph's input and its QuantizeLinear: the host computes
    it on the float input (docs/onnx.md §4.15)."""
    path = quantized(tmp_path, dense, symmetric=True)
    model = onnx.load(str(path))
    q = next(n for n in model.graph.node if n.op_type == "QuantizeLinear" and n.input[0] == "x")
    q.input[0] = "xr"
    model.graph.node.insert(0, helper.make_node("Relu", ["x"], ["xr"], name="pre"))
    onnx.save(model, path)
    program = import_program(path)
    assert isinstance(program.input, FloatTensor)
    assert isinstance(program.layers[0], FloatLayer) and program.layers[0].reads == ["x"]
    x = np.random.default_rng(2).standard_normal((2, 40)).astype(np.float32)
    (y,) = compile(import_text(path))(x)
    np.testing.assert_allclose(y, onnxruntime_output(path, x), rtol=0,
                               atol=program.output.scale * 1.001)  # type: ignore[union-attr]


def relu_of_shared(rng: np.random.Generator) -> tuple:
    """A ReLU of a tensor another node also reads: it cannot fold into the convolution."""
    inits = [init_tensor(rng, "w", (16, 3, 3, 3), 0.3)]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("Add", ["c", "r"], ["y"], name="add")]
    return nodes, inits, (1, 3, 6, 6), (1, 16, 6, 6)


def test_relu_that_does_not_fold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = _cli_error(tmp_path, quantized(tmp_path, relu_of_shared, symmetric=True), capsys)
    assert "node 'relu' (Relu)" in line and "right after" in line
