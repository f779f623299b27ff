"""``Mul`` by a constant, ``HardSigmoid`` and ``HardSwish`` through the ONNX frontend
(``docs/onnx.md`` §4.10–§4.11), quantized by ``quantize_static`` (which leaves the two hard
functions in float between a DequantizeLinear and a QuantizeLinear), on every shipped
configuration: bit-exact with the integer semantics of ``tests/onnx_semantics_cnn.py`` and
within the agreement of §6; the fixed-point hard functions against onnxruntime's float32
arithmetic on all 256 input codes, and the refused forms."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import helper, numpy_helper

from tests.onnx_qdq_builder import QDQ
from tests.test_onnx_checks import cli_error
from tests.test_onnx_import import MODELS, Built, check, init_tensor, quantized
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.frontend.onnx import import_program
from vta_mlir.quant.activations import HardLayer, MulConstLayer, hard_codes, hard_layer


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
def test_hard_activations(tmp_path: Path, symmetric: bool, config: str) -> None:
    """≥ 99 % within one step of onnxruntime, none beyond two: a one-step difference of the
    convolution's output goes through HardSwish and a Mul by 1.7 (§6)."""
    path = quantized(tmp_path, MODELS["hard_activations"], symmetric)
    layers = import_program(path).layers
    hard = [layer for layer in layers if isinstance(layer, HardLayer)]
    assert [layer.swish for layer in hard] == [True, False] and all(h.steps <= 1 for h in hard)
    muls = [layer for layer in layers if isinstance(layer, MulConstLayer)]
    assert [m.factor.size for m in muls] == [1, 16]
    check(path, config, worst=2.0)


def _float32_codes(swish: bool, alpha: float, beta: float, sx: float, zx: int, sy: float,
                   zy: int) -> np.ndarray:
    """onnxruntime's arithmetic (float32) for every input code, written here."""
    x = (np.arange(-128, 128, dtype=np.float32) - np.float32(zx)) * np.float32(sx)
    h = np.clip(np.float32(alpha) * x + np.float32(beta), np.float32(0), np.float32(1))
    y = (x * h if swish else h) / np.float32(sy)
    return np.clip(np.rint(y) + zy, -128, 127)


@pytest.mark.parametrize("swish", [True, False], ids=["hardswish", "hardsigmoid"])
def test_hard_functions_on_every_code(swish: bool) -> None:
    """Over 100 random quantizations, the fixed point agrees with float32 on every one of the
    256 codes: the constants the importer keeps make ``steps``, the distance it records, 0."""
    rng = np.random.default_rng(7 + swish)
    codes = np.arange(-128, 128)
    worst, mismatched = 0, 0
    for _ in range(100):
        sx, sy = float(rng.uniform(0.005, 0.2)), float(rng.uniform(0.003, 0.1))
        zx, zy = int(rng.integers(-128, 128)), int(rng.integers(-128, 0))
        alpha, beta = (1 / 6, 0.5) if swish else (float(rng.uniform(0.1, 0.5)),
                                                   float(rng.uniform(0.2, 0.8)))
        layer = hard_layer("h", "x", swish, alpha, beta, sx, zx, sy, zy, "y")
        diff = np.abs(hard_codes(layer, codes) - _float32_codes(swish, alpha, beta, sx, zx, sy,
                                                                 zy))
        assert diff.max() == layer.steps <= 1
        worst = max(worst, layer.steps)
        mismatched += int(np.count_nonzero(diff))
    assert (worst, mismatched) == (0, 0)


def _chain(rng: np.random.Generator) -> Built:
    inits = [init_tensor(rng, "w", (8, 3, 3, 3), 0.3)]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("HardSwish", ["c"], ["hs"], name="hswish"),
             helper.make_node("HardSigmoid", ["hs"], ["y"], name="hsigmoid")]
    return nodes, inits, (1, 3, 4, 4), (1, 8, 4, 4)


def test_float_chain_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two float functions in a row (no QuantizeLinear between them): one error, at the
    first."""
    line = cli_error(tmp_path, quantized(tmp_path, _chain, symmetric=True), capsys)
    assert "node 'hswish' (HardSwish)" in line and "is not quantized by a QuantizeLinear" in line


def _mul(tmp_path: Path, constant: np.ndarray | None) -> Path:
    qdq = QDQ((1, 3, 4, 4))
    first = qdq.conv("conv", 4, pads=[1, 1, 1, 1])
    if constant is None:
        qdq.op("Mul", [first, first], "mul")
    else:
        qdq.inits.append(numpy_helper.from_array(constant, "k_q"))
        qdq.nodes.append(helper.make_node("DequantizeLinear", ["k_q", "ws"], ["k_dq"],
                                          name="k_dq"))
        qdq.op("Mul", [first, "k_dq"], "mul")
    return qdq.save(tmp_path / "m.onnx", (1, 4, 4, 4))


@pytest.mark.parametrize(("constant", "expected"), [
    (None, "a Mul of a tensor and a quantized constant is supported (not of two tensors)"),
    (np.ones((1, 1, 4, 1), np.int8), "by a constant scalar or per-channel vector"),
])
def test_bad_mul(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                 constant: np.ndarray | None, expected: str) -> None:
    line = cli_error(tmp_path, _mul(tmp_path, constant), capsys)
    assert "node 'mul' (Mul)" in line and expected in line


def test_mul_by_a_negative_scalar(tmp_path: Path) -> None:
    """A negative factor: bit-exact with the integer semantics, within one step."""
    check(_mul(tmp_path, np.array(-77, np.int8)), "default", worst=1.0)
