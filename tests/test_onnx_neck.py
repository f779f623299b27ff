"""A detector-style neck through the ONNX frontend (``docs/onnx.md`` §4.8–§4.9): a stride-2
convolution, its nearest ``Resize`` ×2 and the ``Concat`` of the two levels (the second part
at channel 16: aligned on BLOCK 16, widened and selected on BLOCK 32), then a 3×3 head — on
every shipped configuration, bit-exact with the integer semantics of
``tests/onnx_semantics_cnn.py`` (whose ``Resize`` follows ONNX's coordinate formulas itself)
and within one output step of onnxruntime (§6); the ``Resize`` modes that repeat elements,
checked against onnxruntime, and the refused ones."""

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
from vta_mlir.quant.layers_cnn import ConcatLayer, RescaleLayer, ResizeLayer


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
def test_detector_neck(tmp_path: Path, symmetric: bool, config: str) -> None:
    path = quantized(tmp_path, MODELS["detector_neck"], symmetric)
    kinds = [type(layer) for layer in import_program(path).layers]
    assert ResizeLayer in kinds and ConcatLayer in kinds
    check(path, config, worst=1.0)


def _resize_model(transform: str, rounding: str, factors: tuple[int, int],
                  sizes: bool) -> object:
    def build(rng: np.random.Generator) -> Built:
        fh, fw = factors
        size = [1, 16, 4 * fh, 5 * fw]
        inits = [init_tensor(rng, "w", (16, 3, 3, 3), 0.3),
                 numpy_helper.from_array(np.array(size if sizes else [1, 1, fh, fw],
                                                  np.int64 if sizes else np.float32), "s")]
        inputs = ["r", "", "", "s"] if sizes else ["r", "", "s"]
        nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
                 helper.make_node("Relu", ["c"], ["r"], name="relu"),
                 helper.make_node("Resize", inputs, ["y"], mode="nearest", name="up",
                                  coordinate_transformation_mode=transform,
                                  nearest_mode=rounding)]
        return nodes, inits, (1, 3, 4, 5), tuple(size)

    build.__name__ = f"resize_{transform}_{rounding}"
    return build


@pytest.mark.parametrize(("transform", "rounding", "factors", "sizes"), [
    ("half_pixel", "round_prefer_floor", (2, 2), False),    # onnxruntime's defaults
    ("half_pixel", "round_prefer_ceil", (3, 2), True),
    ("asymmetric", "floor", (3, 3), False),                 # torch's nearest interpolation
    ("asymmetric", "round_prefer_floor", (2, 1), True),
    ("pytorch_half_pixel", "round_prefer_ceil", (1, 4), False),
])
def test_resize_modes(tmp_path: Path, transform: str, rounding: str,
                      factors: tuple[int, int], sizes: bool) -> None:
    """Every mode that repeats each element: bit-exact with the formulas, as onnxruntime."""
    path = quantized(tmp_path, _resize_model(transform, rounding, factors, sizes),  # type: ignore[arg-type]
                     symmetric=True)
    (layer,) = [x for x in import_program(path).layers if isinstance(x, ResizeLayer)]
    assert layer.factors == factors
    check(path, "default", worst=1.0)


@pytest.mark.parametrize(("transform", "rounding", "factors", "expected"), [
    ("asymmetric", "round_prefer_ceil", (2, 2), "does not read input element (h // 2, w // 2)"),
    ("asymmetric", "round_prefer_floor", (3, 3), "does not read input element (h // 3, w // 3)"),
    ("half_pixel", "floor", (2, 2), "does not read input element (h // 2, w // 2)"),
    ("align_corners", "floor", (2, 2), "does not read input element"),
])
def test_resize_modes_that_do_not_repeat(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         transform: str, rounding: str,
                                         factors: tuple[int, int], expected: str) -> None:
    path = quantized(tmp_path, _resize_model(transform, rounding, factors, False),  # type: ignore[arg-type]
                     symmetric=True)
    line = cli_error(tmp_path, path, capsys)
    assert "node 'up' (Resize)" in line and expected in line


def _qdq_op(tmp_path: Path, op: str, inputs: list[str], y_shape: tuple[int, ...],
            inits: dict[str, np.ndarray], **attrs: object) -> Path:
    qdq = QDQ((1, 3, 4, 4))
    first = qdq.conv("conv", 16, pads=[1, 1, 1, 1])
    qdq.inits += [numpy_helper.from_array(v, k) for k, v in inits.items()]
    qdq.op(op, [first if name == "X" else name for name in inputs], "node", **attrs)
    return qdq.save(tmp_path / "m.onnx", y_shape)


@pytest.mark.parametrize(("op", "inputs", "y_shape", "inits", "attrs", "expected"), [
    ("Resize", ["X", "", "sc"], (1, 16, 6, 6), {"sc": np.array([1, 1, 1.5, 1.5], np.float32)},
     {"mode": "nearest"}, "VTA upsamples H and W by integer factors"),
    ("Resize", ["X", "", "sc"], (1, 16, 8, 8), {"sc": np.array([1, 1, 2, 2], np.float32)},
     {"mode": "linear"}, "a Resize of mode nearest"),
    ("Concat", ["X", "X"], (1, 16, 8, 4), {}, {"axis": 2},
     "a Concat along the channels (axis 1)"),
])
def test_bad_neck_ops(tmp_path: Path, capsys: pytest.CaptureFixture[str], op: str,
                      inputs: list[str], y_shape: tuple[int, ...], inits: dict[str, np.ndarray],
                      attrs: dict[str, object], expected: str) -> None:
    line = cli_error(tmp_path, _qdq_op(tmp_path, op, inputs, y_shape, inits, **attrs), capsys)
    assert f"node 'node' ({op})" in line and expected in line


def test_concat_of_one_tensor_twice(tmp_path: Path) -> None:
    """A tensor concatenated with itself at the output's quantization: both parts copied from
    one buffer (placement layers on VTA), no rescale."""
    path = _qdq_op(tmp_path, "Concat", ["X", "X"], (1, 32, 4, 4), {}, axis=1)
    layers = import_program(path).layers
    assert not any(isinstance(layer, RescaleLayer) for layer in layers)
    check(path, "default", worst=1.0)
