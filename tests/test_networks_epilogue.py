"""The networks of ``examples/networks/`` with the bias added after the shift
(``--epilogue shift-bias``: ``(acc >> s) + b``, a bias in output units, as hand-written models
often have it) beside the default ``(acc + b) >> s``:

* the numpy model's two orders against numpy written here, and its refusal of another order;
* the text: the epilogue generic's ``shrsi`` then ``addi`` for every convolution and the FC,
  the default form's text unchanged (the committed ``small_cnn*.mlir``);
* the calibration: biases in output units, activations in a useful range; the model is the
  reference evaluation of the generated text;
* the small CNN compiled and run on the simulator on every shipped configuration, bit for bit
  as the numpy model; the generator's and the benchmark's ``--epilogue``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vta_mlir import compile
from vta_mlir.config import VTAConfig
from vta_mlir.reference import evaluate

from .network_modules import NETWORKS, Builder, bench, nm, small_cnn

SHIFT_BIAS = small_cnn.generate(0, "args", epilogue="shift-bias")


def test_model_shifts_then_adds_the_bias() -> None:
    x = np.array([-7, -1, 0, 3, 100, 127], np.int8).reshape(1, 1, 1, 6)
    one = np.ones((1, 1, 1, 1), np.int8)
    bias = np.array([-1], np.int32)
    layers = {form: nm.Conv("c", nm.INPUT, one, bias, 1, 0, shift=1, relu=False, epilogue=form)
              for form in nm.EPILOGUES}
    got = {form: nm.run_layer(layer, {nm.INPUT: x}).ravel().tolist()
           for form, layer in layers.items()}
    # (x >> 1) - 1: -4 - 1, -1 - 1, 0 - 1, 1 - 1, 50 - 1, 63 - 1
    assert got["shift-bias"] == [-5, -2, -1, 0, 49, 62]
    assert got["bias-shift"] == [-4, -1, -1, 1, 49, 63]  # (x - 1) >> 1


def test_model_wraps_the_bias_addition() -> None:
    acc = np.array([[2**31 - 1, -(2**31)]], np.int32)
    bias = np.array([2**31 - 1, -(2**31)], np.int32)
    got = nm.requantize(acc, bias, 0, "shift-bias")
    assert got.dtype == np.int32 and got.tolist() == [[-2, 0]]
    with pytest.raises(ValueError, match="epilogue must be one of bias-shift, shift-bias"):
        nm.requantize(acc, bias, 0, "shift-only")


def test_dense_shifts_then_adds_the_bias() -> None:
    rng = np.random.default_rng(7)
    x = rng.integers(-128, 128, size=(1, 6, 1, 1), dtype=np.int8)
    w = rng.integers(-128, 128, size=(6, 3), dtype=np.int8)
    bias = np.array([40, -40, 7], np.int32)
    layer = nm.Dense("fc", nm.INPUT, w, bias, shift=3, epilogue="shift-bias")
    want = np.clip(((x.reshape(1, 6).astype(np.int64) @ w) >> 3) + bias, -128, 127)
    assert np.array_equal(nm.run_layer(layer, {nm.INPUT: x}), want)


def test_text_shifts_then_adds_the_bias() -> None:
    text = SHIFT_BIAS.text
    assert "--epilogue shift-bias" in text.splitlines()[1]
    weighted = len(list(SHIFT_BIAS.network.weighted()))
    assert weighted == 7  # six convolutions and fc
    assert text.count("%v0 = arith.shrsi %a, %s : i32\n    %v1 = arith.addi %v0, %b : i32") \
        == weighted
    assert "arith.addi %a, %b" not in text
    assert all(layer.epilogue == "shift-bias" for layer in SHIFT_BIAS.network.weighted())


def test_default_form_is_unchanged() -> None:
    for form, path in small_cnn.EXAMPLES.items():
        assert small_cnn.generate(0, form, epilogue="bias-shift").text == path.read_text()
    with pytest.raises(ValueError, match="epilogue must be one of bias-shift, shift-bias, not "
                                         "'bias'"):
        small_cnn.generate(0, "args", epilogue="bias")


def test_biases_are_in_output_units() -> None:
    """Each bias within half the standard deviation of ``acc >> s`` on the calibration input
    (and smaller than the default form's biases, which are in accumulator units)."""
    buffers = nm.evaluate(SHIFT_BIAS.network, SHIFT_BIAS.input)
    default = small_cnn.generate(0, "args").network
    for layer, before in zip(SHIFT_BIAS.network.weighted(), default.weighted(), strict=True):
        x = buffers[layer.src]
        acc = (nm.conv_accumulator(layer, x) if isinstance(layer, nm.Conv)
               else nm.dense_accumulator(layer, x))
        spread = max(1, int(np.std((acc >> layer.shift).astype(np.float64)) / 2))
        assert np.abs(layer.bias).max() <= spread, layer.name
        assert np.abs(before.bias).max() > spread, layer.name


def test_model_is_the_reference_evaluation_and_activations_stay_useful() -> None:
    (want,) = evaluate(SHIFT_BIAS.text, SHIFT_BIAS.arguments())
    assert np.array_equal(SHIFT_BIAS.expected(), want)
    assert len(np.unique(want)) > 5
    for name, values in nm.evaluate(SHIFT_BIAS.network, SHIFT_BIAS.input).items():
        saturated = np.mean(np.abs(values.astype(np.int64)) >= 127)
        assert np.mean(values == 0) < 0.75 and saturated < 0.05, name


def test_builder_refuses_another_epilogue() -> None:
    x = np.zeros((1, 1, 4, 4), np.int8)
    with pytest.raises(ValueError, match="not 'after'"):
        Builder("net", x, np.random.default_rng(0), "after")


def test_small_cnn_on_vta(cfg: VTAConfig) -> None:
    """The small CNN with every bias after the shift, one binary, bit for bit as the model."""
    (got,) = compile(SHIFT_BIAS.text, config=cfg)(*SHIFT_BIAS.arguments())
    assert np.array_equal(got, SHIFT_BIAS.expected())


def test_command_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "small.mlir"
    subprocess.run([sys.executable, str(NETWORKS / "small_cnn.py"), "--weights", "args",
                    "--epilogue", "shift-bias", "-o", str(out)], check=True)
    assert out.read_text() == SHIFT_BIAS.text
    figures = tmp_path / "figures.json"
    status = bench.main(["--network", "small_cnn", "--epilogue", "shift-bias", "--weights",
                         "args", "--no-progress", "--json", str(figures)])
    report = capsys.readouterr().out
    assert status == 0 and "epilogue shift-bias" in report.splitlines()[0], report
    assert "check: PASS" in report
    assert json.loads(figures.read_text())["epilogue"] == "shift-bias"
