"""torch-mlir's linalg-on-tensors output of the detector necks, the hard activations and whole
networks (``tests/data/torch_mlir``: ``detector_neck``, ``hard_activations``, ``detector``,
``vgg``), run as they are by ``vta-run`` (``vta-bufferize``, ``vta-integerize``, ``vta-to-isa``)
on the float input of their ONNX models:

- bit for bit as the integer semantics of the same ONNX model (``tests/onnx_semantics.py``,
  independent of the compiler): the nearest-resize gathers are the ONNX frontend's resizes,
  the concatenations its Concat, the float HardSwish / HardSigmoid / Mul chains its
  fixed-point layers, the Sigmoid and Softmax its host layers;
- every multiply-accumulate on VTA (``vta_mac_fraction`` ≥ 0.99) and the host computing
  exactly the float functions (the Sigmoid, the Softmax);
- against onnxruntime (``ORT_DISABLE_ALL``) as ``tests/test_onnx_networks.py`` does for the
  ONNX route: a model without a host function within one output step on ≥ 99 % of the
  elements, none beyond two (``docs/onnx.md`` §6); for a network ending in a Sigmoid or a
  Softmax, whose output is finer than its input, the codes the host step reads within that
  tolerance of onnxruntime's codes of that tensor, and the host step on onnxruntime's own
  input codes within one output step of its output codes (§4.9).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest

from tests.onnx_semantics import (
    expected_output,
    onnxruntime_output,
)
from tests.test_onnx_networks import (
    END_TO_END,
    HIDDEN_NOT_CHECKED,
    check_end_to_end,
    check_host_step_parts,
)
from vta_mlir import compile
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.errors import VTAError
from vta_mlir.frontend.onnx import import_program
from vta_mlir.tools import vta_run

DATA = Path(__file__).parent / "data" / "torch_mlir"

#: The models and the float function the host computes at the end of each (None: none).
MODELS: dict[str, str | None] = {
    "detector_neck": None, "hard_activations": None, "detector": "Sigmoid", "vgg": "Softmax"}


def _input(onnx_path: Path, seed: int = 1) -> np.ndarray:
    model = onnx.load(str(onnx_path))
    shape = tuple(d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim)
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _vta_run(tmp_path: Path, name: str, x: np.ndarray, config: str,
             capsys: pytest.CaptureFixture[str]) -> tuple[np.ndarray, dict[str, object]]:
    """``vta-run NAME.mlir --input X --output Y --stats -`` on torch-mlir's file as it is."""
    np.save(tmp_path / "x.npy", x)
    status = vta_run.main([str(DATA / f"{name}.mlir"), "--config", config, "--input",
                           str(tmp_path / "x.npy"), "--output", str(tmp_path / "y.npy"),
                           "--stats", "-"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return np.load(tmp_path / "y.npy"), json.loads(out)


def _agrees_with_onnxruntime(tmp_path: Path, name: str, onnx_path: Path, x: np.ndarray,
                             y: np.ndarray, host: str | None) -> None:
    if host is None:
        steps = np.abs(y - onnxruntime_output(onnx_path, x)) / import_program(
            onnx_path).output.scale
        assert np.mean(steps <= 1.001) >= 0.99, f"{np.mean(steps <= 1.001):.3f} within one step"
        assert steps.max() <= 2 + 1e-3
        return
    # The cut model is written beside the model: a copy in tmp_path.
    path = Path(shutil.copy(onnx_path, tmp_path / onnx_path.name))
    program = import_program(path)
    si, zi = program.input.scale, program.input.zero_point
    q = np.clip(np.rint(x / np.float32(si)) + zi, -128, 127).astype(np.int8)
    check_host_step_parts(path, host, x, q, name in HIDDEN_NOT_CHECKED)
    if name in END_TO_END:
        check_end_to_end(y, onnxruntime_output(onnx_path, x), program.output.scale)


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_torch_mlir_network(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
                            config: str) -> None:
    onnx_path = DATA / f"{name}.onnx"
    x = _input(onnx_path)
    y, stats = _vta_run(tmp_path, name, x, config, capsys)
    np.testing.assert_array_equal(y, expected_output(onnx_path, x))
    assert stats["vta_mac_fraction"] >= 0.99  # type: ignore[operator]
    on_host = [step["operation"] for step in stats["host_steps"]  # type: ignore[attr-defined]
               if step["step"] == "compute"]
    host = MODELS[name]
    assert on_host == ([f"{host.lower()}0"] if host else [])
    if config == "default":
        _agrees_with_onnxruntime(tmp_path, name, onnx_path, x, y, host)


@pytest.mark.parametrize(("name", "old", "new", "expected"), [
    # The resize's rows read clamp(2·o + 0.5 − 0.5 …), not o // 2.
    ("detector_neck", "%54 = arith.divf %53, %cst_13 : f32", "%54 = arith.divf %53, %cst_3 : f32",
     r"the gather reads index \[0, 2, 3, 3, 3, 3, 3, 3\] of dimension 2 \(size 4\)"),
    # HardSwish divided by 3 instead of 6: the clip reaches 2, not 1.
    ("hard_activations", "%36 = arith.divf %in, %cst_14 : f32",
     "%36 = arith.divf %in, %cst_13 : f32", "is none of HardSigmoid"),
], ids=["resize_rows", "hardswish_scale"])
def test_other_float_functions_refused(name: str, old: str, new: str, expected: str) -> None:
    """A gather that is no nearest upsampling and a chain that is no hard activation are each
    one error at the op."""
    text = (DATA / f"{name}.mlir").read_text()
    assert text.count(old) == 1
    with pytest.raises(VTAError, match=expected):
        compile(text.replace(old, new), requant="fixed-point")


@pytest.mark.parametrize(("name", "old", "new"), [
    # A sigmoid computing 1 / (1 − exp(−x)).
    ("detector", "%87 = arith.addf %86, %cst_4 : f32", "%87 = arith.subf %86, %cst_4 : f32"),
    # The softmax's exponential replaced by a square root.
    ("vgg", "%110 = math.exp %in : f32", "%110 = math.sqrt %in : f32"),
], ids=["sigmoid_body", "softmax_exp"])
def test_other_float_functions_on_the_host(name: str, old: str, new: str) -> None:
    """A float function that is no Sigmoid or Softmax is float code the host computes op for
    op as the file writes it (``passes/integerize/floats.py``): a float layer where the host
    layer was."""
    text = (DATA / f"{name}.mlir").read_text()
    assert text.count(old) == 1
    module = compile(text.replace(old, new), requant="fixed-point")
    module(_input(DATA / f"{name}.onnx"))
    assert [step["operation"] for step in module.last_run.host_steps
            if step["step"] == "compute"] == ["float0"]
