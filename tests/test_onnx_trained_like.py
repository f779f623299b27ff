"""MobileNetV2 and ResNet-50 built like trained networks (``examples/onnx/trained_like.py``:
every batch norm measured on the calibration inputs and folded) on the ONNX route
(``docs/onnx.md`` §6, "MobileNetV2 and ResNet-50").

The small forms (reduced width and input): every layer, fed onnxruntime's own input codes,
gives onnxruntime's codes but for values rounded apart — at most one code off, on at most
0.1 % of the codes (§6) —, the imported program gives the integer semantics written
independently (``tests/onnx_semantics.py``) by the reference evaluator, and (long) on the
simulator. Their output is not compared with onnxruntime's: at a few pixels and channels
no average damps a hidden one-code difference (§6, as ResNet-18 at 32×32). The 224×224 forms
(long) are: ≥ 99 % of the 1000 outputs within one step of onnxruntime, none beyond two, and
≥ 99 % of the multiply-accumulates on VTA.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper

ROOT = Path(__file__).resolve().parent.parent
for folder in (ROOT / "benchmarks", ROOT / "examples" / "onnx"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

import mobilenet_v2 as mobilenet_bench  # noqa: E402
import onnx_resnet18 as resnet_bench  # noqa: E402
from models import Built, calibration_inputs, float_model, quantize  # noqa: E402
from onnx_layer_agreement import evaluate_layer, onnxruntime_codes  # noqa: E402
from trained_like import BETA, GAMMA, mobilenet_v2, resnet50  # noqa: E402

from tests.onnx_semantics import integer_model  # noqa: E402
from tests.test_onnx_import import check  # noqa: E402
from vta_mlir.frontend.onnx import import_program  # noqa: E402
from vta_mlir.quant.emit import emit_program  # noqa: E402
from vta_mlir.reference import evaluate  # noqa: E402

#: The small forms: builder, input size, width.
SMALL: dict[str, tuple[Callable[..., Built], int, float]] = {
    "mobilenet_v2": (mobilenet_v2, 64, 0.25), "resnet50": (resnet50, 64, 0.125)}


def small_model(tmp: Path, name: str, per_channel: bool) -> Path:
    build, size, width = SMALL[name]
    rng = np.random.default_rng(0)
    calibration = calibration_inputs((1, 3, size, size), rng)

    def builder(rng: np.random.Generator) -> Built:
        return build(rng, size=size, classes=10, width=width, calibration=calibration)

    return quantize(float_model(builder, rng, name=name), tmp / f"{name}.onnx", True, rng,
                    per_channel, calibration=calibration)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_batch_norms_measured_on_the_calibration(name: str) -> None:
    """Each folded convolution's output, on the calibration inputs through the float network,
    has per channel the mean β and the standard deviation γ its batch norm was drawn with."""
    build, size, width = SMALL[name]
    rng = np.random.default_rng(0)
    calibration = calibration_inputs((1, 3, size, size), rng)
    model = float_model(lambda r: build(r, size=size, classes=10, width=width,
                                        calibration=calibration), rng)
    convs = [n.output[0] for n in model.graph.node if n.op_type == "Conv"]
    model.graph.output.extend(helper.make_empty_tensor_value_info(c) for c in convs)
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    outputs = [session.run(convs, {"x": x}) for x in calibration]
    assert len(convs) == {"mobilenet_v2": 52, "resnet50": 53}[name]
    for index, conv in enumerate(convs):
        values = np.concatenate([o[index] for o in outputs])
        mean, std = values.mean(axis=(0, 2, 3)), values.std(axis=(0, 2, 3))
        # float32 sums of up to 10^5 values: a thousandth of the ranges.
        assert np.all((mean > BETA[0] - 1e-3) & (mean < BETA[1] + 1e-3)), conv
        assert np.all((std > GAMMA[0] - 1e-3) & (std < GAMMA[1] + 1e-3)), conv


@pytest.mark.parametrize("per_channel", [
    False, pytest.param(True, marks=pytest.mark.slow)],  # tests/test_onnx_per_channel.py
    ids=["per_tensor", "per_channel"])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_small_layers_agree(tmp_path: Path, name: str, per_channel: bool) -> None:
    """Every layer of the imported program, evaluated by the reference on onnxruntime's own
    input codes, within one code of onnxruntime on all but 0.1 % of the codes; the whole
    program, on its own codes, gives the integer semantics written independently."""
    path = small_model(tmp_path, name, per_channel)
    program = import_program(path)
    x = np.random.default_rng(1).standard_normal(program.input.shape).astype(np.float32)
    codes, _ = onnxruntime_codes(path, x)
    differ = total = 0
    for layer in program.layers:
        expected = codes[layer.dst].reshape(program.tensors[layer.dst].shape)
        diff = np.abs(evaluate_layer(program, layer, codes) - expected)
        assert diff.max() <= 1, layer.name
        differ, total = differ + int(np.count_nonzero(diff)), total + diff.size
    assert differ <= 0.001 * total, f"{differ} of {total} codes differ"
    q = codes[program.input.name].astype(np.int8)
    (y,) = evaluate(emit_program(program), [x])
    expected = (integer_model(path, q).astype(np.float32) - program.output.zero_point) \
        * np.float32(program.output.scale)
    np.testing.assert_array_equal(y, expected)


@pytest.mark.slow  # 64 and 72 layers to compile: the reference runs them in the short form
@pytest.mark.parametrize("per_channel", [False, True], ids=["per_tensor", "per_channel"])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_small_runs_bit_exact(tmp_path: Path, name: str, per_channel: bool) -> None:
    check(small_model(tmp_path, name, per_channel), "default", worst=None)


def full_size(tmp: Path, name: str, per_channel: bool) -> resnet_bench.Model:
    args = argparse.Namespace(seed=0, size=224, classes=1000, width=1.0, asymmetric=False,
                              per_channel=per_channel, requant="fixed", model=name,
                              torch_model=None)
    bench = mobilenet_bench if name == "mobilenet_v2" else resnet_bench
    return bench.build(args, tmp)


@pytest.mark.slow  # about a minute each: the small forms are the short run
@pytest.mark.parametrize("per_channel", [False, True], ids=["per_tensor", "per_channel"])
@pytest.mark.parametrize("name", ["mobilenet_v2", "resnet50"])
def test_224(tmp_path: Path, name: str, per_channel: bool) -> None:
    model = full_size(tmp_path, name, per_channel)
    assert onnx.load(str(model.path)).graph.input[0].name == "x"
    reference = resnet_bench.onnxruntime_output(model.path, model.input)
    m = resnet_bench.measure(model, "default", reference)
    assert m.error is None, m.error
    assert m.within_one_step is not None and m.within_one_step >= 0.99, m.within_one_step
    assert m.worst_steps is not None and m.worst_steps <= 2 + 1e-3, m.worst_steps
    assert m.vta_mac_fraction is not None and m.vta_mac_fraction >= 0.99


def test_layer_agreement_prints_every_layer(capsys: pytest.CaptureFixture[str]) -> None:
    """``benchmarks/onnx_layer_agreement.py``: one row per layer, the totals, the output."""
    import onnx_layer_agreement

    assert onnx_layer_agreement.main(["--model", "resnet50", "--size", "32", "--width",
                                      "0.125", "--classes", "10", "--all-layers"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [line for line in out if re.match(r"layer\d\.\d\.conv\d ", line)]
    assert len(rows) == 48, out
    assert re.fullmatch(r"conv1\s+conv\s+2048\s+[\d.]+% \( ?[01]\) +[\d.]+% \( ?\d+\)", out[1])
    assert re.match(r"all layers: [\d,]+ codes, isolated [\d.]+ % differ, propagated", out[-3])
    assert re.fullmatch(r"output vs onnxruntime: [\d.]+ % within one step, worst \d+",
                        out[-2])
    assert out[-1].startswith("onnxruntime's int8 model vs the float model: ")
