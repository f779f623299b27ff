"""The requantization fitted to the accumulator's range (``vta_mlir.quant.product_first_choice``,
``docs/onnx.md`` §3 "A multiplier fitted to the accumulator's range"): ``s1 = 0`` and the
largest ``s2`` whose product stays within int32, the codes of §3's formula with those
constants, the error bound that limits it, and a convolution imported with it and run on the
simulator, bit-exact with the numpy integer model on each configuration."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.frontend.onnx import choose_requant, import_program, qdq
from vta_mlir.quant.product_first import product_first_bias
from vta_mlir.quant.product_first_choice import (
    MAX_ERROR,
    MAX_ERROR_CHANNELS,
    product_first_requant,
)
from vta_mlir.quant.program import ConvLayer
from vta_mlir.quant.requant import Requant, choose_requant_channels, error_bound

from .test_onnx_import import check, import_text, quantized

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "onnx"))
from models import conv_relu  # noqa: E402


def split_form(v: np.ndarray, rq: Requant, m: np.ndarray, zero_point: int) -> np.ndarray:
    """§3 written out (``s1 = 0``): clip to the saturating ``±C``, multiply, round ``>> s2``
    half up, the zero point and the int8 clip — in int64, where nothing wraps."""
    t = np.clip(v, -rq.clip, rq.clip) * m
    return np.clip((((t >> (rq.s2 - 1)) + 1) >> 1) + zero_point, -128, 127)


def test_the_largest_shift_whose_product_fits() -> None:
    multiplier, zero_point = 0.0046, 5
    current = choose_requant(multiplier)
    bias = np.array([-700, 40], np.int64)
    acc_lo, acc_hi = np.array([-300_000, -250_000]), np.array([290_000, 310_000])
    # The multiplier-only choice would wrap: 310,000 · m > 2^31.
    assert product_first_bias(current, bias + current.rounding, zero_point, acc_lo,
                              acc_hi) is None
    rq = product_first_requant(current, [multiplier], bias, zero_point, acc_lo, acc_hi)
    assert rq is not None and rq.s1 == 0 and not rq.channel_m
    assert rq.m == round(multiplier * 2.0 ** rq.s2)
    assert product_first_bias(rq, bias, zero_point, acc_lo, acc_hi) is not None
    wider = Requant(0, round(multiplier * 2.0 ** (rq.s2 + 1)), rq.s2 + 1, rq.clip)
    assert product_first_bias(wider, bias, zero_point, acc_lo, acc_hi) is None
    assert error_bound(multiplier, rq) <= MAX_ERROR
    # The emitted form, (acc·m + bias·m + K) >> s2 clipped, gives §3's codes.
    folded = product_first_bias(rq, bias, zero_point, acc_lo, acc_hi)
    assert folded is not None
    acc = np.arange(-300_000, 310_001, 7, dtype=np.int64)[:, None]
    got = np.clip((acc * rq.m + folded) >> rq.s2, -128, 127)
    np.testing.assert_array_equal(got, split_form(acc + bias, rq, np.int64(rq.m), zero_point))


def test_per_channel_multipliers_share_the_fitted_shift() -> None:
    multipliers = [0.004, 0.011, 0.006]
    current = choose_requant_channels(multipliers)
    bias = np.array([3, -90, 1200], np.int64)
    acc_lo, acc_hi = np.full(3, -100_000), np.full(3, 100_000)
    rq = product_first_requant(current, multipliers, bias, 0, acc_lo, acc_hi)
    assert rq is not None and rq.s2 < current.s2
    assert list(rq.channel_m) == [round(v * 2.0 ** rq.s2) for v in multipliers]
    assert error_bound(multipliers, rq) <= MAX_ERROR_CHANNELS
    folded = product_first_bias(rq, bias, 0, acc_lo, acc_hi)
    assert folded is not None
    acc = np.arange(-100_000, 100_001, 3, dtype=np.int64)[:, None]
    m = np.array(rq.channel_m, np.int64)
    got = np.clip((acc * m + folded) >> rq.s2, -128, 127)
    np.testing.assert_array_equal(got, split_form(acc + bias, rq, m, 0))


def test_a_requantization_that_already_multiplies_first_or_too_coarse_a_fit_stays() -> None:
    current = choose_requant(0.02)
    small = (np.array([-1000]), np.array([1000]))
    assert product_first_requant(current, [0.02], np.zeros(1, np.int64), 0, *small) is None
    # Accumulators of ±2^27 leave m a few units: far beyond the error bound allowed.
    huge = (np.array([-(1 << 27)]), np.array([1 << 27]))
    assert product_first_requant(current, [0.02], np.zeros(1, np.int64), 0, *huge) is None


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_a_fitted_convolution_runs_bit_exact(tmp_path: Path, config: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A convolution whose multiplier-only requantization would not multiply first: imported
    with the fitted one, its epilogue starts with the multiplication, and the compiled layer
    is bit-exact with the numpy integer model (and within §6 of onnxruntime)."""
    path = quantized(tmp_path, conv_relu, True)
    (layer,) = import_program(path).layers
    with monkeypatch.context() as patch:
        patch.setattr(qdq, "fitted_requant", lambda *args: None)
        (plain,) = import_program(path).layers
    assert isinstance(layer, ConvLayer) and isinstance(plain, ConvLayer)
    assert layer.rq.s1 == 0 and layer.rq != plain.rq
    body = import_text(path)
    body = body[body.index("^bb0(%a: i32, %b: i32"):]
    assert body.splitlines()[2].strip().startswith("%v0 = arith.muli %a,")
    check(path, config, worst=1.0)
