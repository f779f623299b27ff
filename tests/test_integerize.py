"""``vta-integerize`` on torch-mlir's linalg-on-tensors output (``tests/data/torch_mlir``): each
file, as torch-mlir wrote it, compiles (``vta-bufferize``, then ``vta-integerize`` with
``requant=fixed-point``) and runs on every shipped configuration on the float input of its ONNX
model.

The output is compared (a) bit for bit with the documented integer semantics of the same ONNX
model (``tests/onnx_semantics.py``, independent of the compiler), and (b) with onnxruntime on
the same input, within one output quantization step as for the ONNX frontend
(``docs/onnx.md``). Without the option a float requantization is an error that names it;
anything the pass does not recognise is one error at the op.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from xdsl.dialects.builtin import Float32Type

from tests.onnx_semantics import expected_output, onnxruntime_output
from vta_mlir import compile, parse, print_ir, run_pipeline
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.errors import VTAError
from vta_mlir.frontend.onnx import import_program
from vta_mlir.tools import vta_run

DATA = Path(__file__).parent / "data" / "torch_mlir"

#: The models and the largest difference from onnxruntime, in output steps, each may show: one
#: step, as for the ONNX frontend; two for the residual blocks with asymmetric activations,
#: whose Add onnxruntime computes on the rounded convolution output (as the ONNX frontend's
#: test of the same model allows), and for the inverted residual blocks of mobilenet_block
#: (depthwise convolutions, ReLU6 clips, an Add).
MODELS: dict[str, float] = {
    "dense": 1, "dense_asym": 1, "conv_relu": 1, "conv_relu_asym": 1, "small_cnn": 1,
    "small_cnn_asym": 1, "gap_fc": 1, "gap_fc_asym": 1, "residual": 1, "residual_asym": 2,
    "mobilenet_block": 2, "mobilenet_block_asym": 2,
    "vgg_head": 1, "vgg_head_asym": 1, "avgpool_block": 1,
}


def _input(onnx_path: Path, seed: int = 1) -> np.ndarray:
    model = onnx.load(str(onnx_path))
    shape = tuple(d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim)
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _check(text: str, onnx_path: Path, config: str, worst: float) -> None:
    x = _input(onnx_path)
    (y,) = compile(text, config=config, requant="fixed-point")(x)
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y, expected_output(onnx_path, x))
    step = import_program(onnx_path).output.scale
    steps = np.abs(y - onnxruntime_output(onnx_path, x)) / step
    assert np.mean(steps <= 1.001) >= 0.99, f"{np.mean(steps <= 1.001):.3f} within one step"
    assert steps.max() <= worst + 1e-3, f"worst {steps.max():.2f} steps"


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_torch_mlir_files(name: str, config: str) -> None:
    _check((DATA / f"{name}.mlir").read_text(), DATA / f"{name}.onnx", config, MODELS[name])


@pytest.mark.parametrize("name", ["conv_relu", "small_cnn_asym"])
def test_dense_resource_files(name: str) -> None:
    """The same models with their constants as ``dense_resource`` blobs."""
    _check((DATA / f"{name}.resources.mlir").read_text(), DATA / f"{name}.onnx", "default",
           MODELS[name])


def test_parsed_module_with_resources() -> None:
    """A module parsed with its resource section keeps its blobs in the copies that
    compiling it makes (the API lowers a copy, vta-bufferize works on one)."""
    module = parse((DATA / "small_cnn_asym.resources.mlir").read_text())
    x = _input(DATA / "small_cnn_asym.onnx")
    (y,) = compile(module, requant="fixed-point")(x)
    np.testing.assert_array_equal(y, expected_output(DATA / "small_cnn_asym.onnx", x))


def test_bufferized_output_goes_through_vta_to_isa() -> None:
    """``vta-opt -p vta-bufferize``'s output compiles with ``vta-to-isa{requant=fixed-point}``."""
    module = parse((DATA / "small_cnn.mlir").read_text())
    run_pipeline(module, "vta-bufferize")
    x = _input(DATA / "small_cnn.onnx")
    (y,) = compile(module, pipeline="vta-to-isa{requant=fixed-point}")(x)
    np.testing.assert_array_equal(y, expected_output(DATA / "small_cnn.onnx", x))


def test_float_requantization_needs_the_option() -> None:
    with pytest.raises(VTAError, match=r"requantizes in float: rerun with requant=fixed-point"):
        compile((DATA / "dense.mlir").read_text())


def test_integer_layers_of_the_program() -> None:
    """The pass writes the layers of the ONNX frontend's program: the same kinds, the same
    requantization constants (so the same results), and records what it did."""
    module = parse((DATA / "small_cnn_asym.mlir").read_text())
    run_pipeline(module, "vta-bufferize,vta-integerize{requant=fixed-point}")
    names = [op.name for op in module.walk()]
    assert names.count("linalg.conv_2d_nchw_fchw") == 2
    assert "linalg.conv_2d_nchw_fchw_q" not in names
    assert names.count("linalg.pooling_nchw_max") == 1 and names.count("linalg.matmul") == 1
    assert not any(isinstance(getattr(v.type, "element_type", None), Float32Type)
                   for op in module.walk() for v in op.operands), "a float buffer is left"
    requant = module.attributes["vta.requant"]
    assert requant.data["layers"].value.data == len(
        import_program(DATA / "small_cnn_asym.onnx").layers)
    assert 0 < requant.data["max_error_steps"].value.data < 0.05


def test_vta_run_float_files_and_stats(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """``vta-run FILE.mlir --input X.npy --output Y.npy`` on torch-mlir's file as it is: the
    model's float tensors in and out, the fixed-point requantization on by default and its
    largest error in ``--stats``."""
    x = _input(DATA / "conv_relu.onnx")
    np.save(tmp_path / "x.npy", x)
    stats = tmp_path / "stats.json"
    status = vta_run.main([str(DATA / "conv_relu.mlir"), "--input", str(tmp_path / "x.npy"),
                           "--output", str(tmp_path / "y.npy"), "--stats", str(stats)])
    assert status == 0, capsys.readouterr().err
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"),
                                  expected_output(DATA / "conv_relu.onnx", x))
    requant = json.loads(stats.read_text())["requant"]
    assert requant["mode"] == "fixed-point" and requant["layers"] == 1
    assert 0 <= requant["max_error_steps"] < 0.05
    capsys.readouterr()
    status = vta_run.main([str(DATA / "conv_relu.mlir"), "--input", str(tmp_path / "x.npy"),
                           "--requant", "none"])
    err = capsys.readouterr().err
    assert status == 1 and "Traceback" not in err and "requant=fixed-point" in err


@pytest.mark.parametrize("name", ["mobilenet_block", "mobilenet_block_asym"])
def test_depthwise_layers_run_checked(name: str, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """torch-mlir's depthwise convolutions (NHWC, between transposes) and ReLU6 clips become
    the ONNX frontend's depthwise layers and clips; the integer program runs through
    ``vta-run --check`` (the reference evaluator takes the integer form, not the float one)."""
    module = parse((DATA / f"{name}.mlir").read_text())
    run_pipeline(module, "vta-bufferize,vta-integerize{requant=fixed-point}")
    names = [op.name for op in module.walk()]
    assert names.count("linalg.depthwise_conv_2d_nchw_chw") == 2
    assert "linalg.depthwise_conv_2d_nhwc_hwc_q" not in names
    assert "linalg.transpose" not in names
    path = tmp_path / "integer.mlir"
    path.write_text(print_ir(module))
    assert vta_run.main([str(path), "--random-inputs", "--check"]) == 0
    out, err = capsys.readouterr()
    assert "check: PASS" in out + err


@pytest.mark.parametrize(("old", "new", "expected"), [
    # The count of taps inside the image, made rows + columns.
    ("%56 = arith.muli %44, %55 : i64", "%56 = arith.addi %44, %55 : i64",
     "the sums of a pool are divided by other than the window size or the count of its taps "
     "inside the image"),
    # The count read from the input instead of linalg.index.
    ("%57 = arith.sitofp %56 : i64 to f32", "%57 = arith.addf %in, %cst_8 : f32",
     "divides the sums of a pool by other than a constant or a count computed from "
     "linalg.index"),
], ids=["rows_plus_columns", "count_of_the_input"])
def test_average_pool_divisors_refused(old: str, new: str, expected: str) -> None:
    """An average pool's sum divided by anything but its window size or its count of taps
    inside the image is one error at the op."""
    text = (DATA / "avgpool_block.mlir").read_text()
    assert text.count(old) == 1
    with pytest.raises(VTAError, match=expected):
        compile(text.replace(old, new), requant="fixed-point")
