"""The requantization with the multiplication first (``vta_mlir.quant.product_first``,
``docs/onnx.md`` §3 "The emitted operations"): the same codes as the clip, multiply and split
rounding wherever it is chosen, the accumulator's range that decides it, and the emitted
epilogue of a depthwise layer run on the simulator, bit-exact with numpy."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.quant.product_first import accumulator_bounds, product_first_bias
from vta_mlir.quant.requant import Requant, choose_requant, choose_requant_channels

from .test_onnx_depthwise import LAYERS
from .test_onnx_import import check, import_text, quantized


def reference(v: np.ndarray, rq: Requant, m: np.ndarray, clip: np.ndarray, zero_point: int,
              lo: int, hi: int) -> np.ndarray:
    """§3 as the split form computes it: clip to ``±C``, multiply, round ``>> s2`` half up,
    the zero point, the output clip (``s1 = 0``)."""
    t = np.clip(v, -clip, clip) * m
    r = t if rq.s2 == 0 else ((t >> (rq.s2 - 1)) + 1) >> 1
    return np.clip(r + zero_point, lo, hi)


def test_accumulator_bounds_are_the_extremes_of_the_sums() -> None:
    weight = np.array([[[2, -3]], [[-1, 0]]], np.int8)  # 2 channels × 1 × 2 taps
    lows, highs = accumulator_bounds(weight, 0, 6)
    sums = [[int(np.dot(weight[c].reshape(-1), x)) for x in itertools.product(range(7), repeat=2)]
            for c in range(2)]
    assert lows.tolist() == [min(s) for s in sums]
    assert highs.tolist() == [max(s) for s in sums]
    # Padding zeros count: an input range that excludes 0 still reaches it.
    assert accumulator_bounds(np.array([[1]], np.int8), 5, 9)[0].tolist() == [0]


@pytest.mark.parametrize("multiplier", [0.0123, 0.05, 0.37, 1.9])
@pytest.mark.parametrize("zero_point", [0, -7])
def test_the_product_first_gives_the_codes_of_the_split_form(multiplier: float,
                                                              zero_point: int) -> None:
    rq = choose_requant(multiplier)
    assert rq.s1 == 0
    bias = np.array([-5000, 0, 321], np.int32)
    lo, hi = zero_point, 127
    acc_lo, acc_hi = np.full(3, -20_000), np.full(3, 20_000)
    folded = product_first_bias(rq, bias, zero_point, acc_lo, acc_hi)
    assert folded is not None
    acc = np.arange(-20_000, 20_001, dtype=np.int64)[:, None]
    v = acc + bias
    got = np.clip(((acc * rq.m + folded) >> rq.s2), lo, hi)
    expected = reference(v, rq, np.int64(rq.m), np.int64(rq.clip), zero_point, lo, hi)
    np.testing.assert_array_equal(got, expected)


def test_per_channel_multipliers_fold_per_channel() -> None:
    rq = choose_requant_channels([0.004, 0.01, 0.0007])
    assert rq.s1 == 0
    bias = np.array([10, -10, 77], np.int32)
    acc = np.arange(-3000, 3001, dtype=np.int64)[:, None]
    folded = product_first_bias(rq, bias, 3, np.full(3, -3000), np.full(3, 3000))
    assert folded is not None
    m = np.array(rq.channel_m, np.int64)
    got = np.clip((acc * m + folded) >> rq.s2, -128, 127)
    expected = reference(acc + bias, rq, m, np.array(rq.channel_clip, np.int64), 3, -128, 127)
    np.testing.assert_array_equal(got, expected)


def test_the_split_form_stays_where_the_product_could_wrap_or_a_shift_comes_first() -> None:
    rq = Requant(0, 30_000, 21, 100)
    bias = np.zeros(1, np.int32)
    assert product_first_bias(rq, bias, 0, np.array([-1000]), np.array([1000])) is not None
    # 80,000 · 30,000 + 2^20 > 2^31 − 1: the sum would wrap.
    assert product_first_bias(rq, bias, 0, np.array([-1000]), np.array([80_000])) is None
    assert product_first_bias(Requant(2, 30_000, 21, 100), bias, 0, np.array([0]),
                              np.array([1])) is None
    # A bias per output element (padding meeting an input zero point) keeps the split form.
    assert product_first_bias(rq, np.zeros((1, 2, 2), np.int32), 0, np.array([0]),
                              np.array([1])) is None


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_a_depthwise_layer_multiplies_first_on_each_configuration(tmp_path: Path,
                                                                  config: str) -> None:
    """The emitted epilogue starts with the multiplication, and the compiled layer is
    bit-exact with the numpy integer model (and within §6 of onnxruntime)."""
    path = quantized(tmp_path, LAYERS["c24_k3_s1_p1_relu6"], True)
    text = import_text(path)
    body = text[text.index("^bb0(%a: i32, %b: i32"):]
    first = [line.strip() for line in body.splitlines()[1:3]]
    assert first[1].startswith("%v0 = arith.muli %a,"), first
    assert "arith.shrsi" in body and body.count("arith.addi") == 1
    check(path, config, worst=1.0)
