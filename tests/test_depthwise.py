"""Depthwise convolutions on VTA: block-diagonal GEMMs, bit-exact with numpy.

Each layer of ``tests/depthwise_programs.py`` — the named ``linalg.depthwise_conv_2d_nchw_chw``
or the equivalent ``linalg.generic`` (loops in another order, a ``C×KH×KW`` or ONNX's
``C×1×KH×KW`` kernel), on memrefs or on tensors, or ``linalg.depthwise_conv_2d_nhwc_hwc`` in an
NHWC function (its arrays NHWC in and out) — is compiled for every shipped configuration,
run on the simulator and compared bit for bit with the numpy model written there; the channel
counts include ones that are not whole blocks (zero-padded).  The cost is one GEMM cycle per
tap per block of channels per output position: the compute module's GEMM micro-ops are counted.
What VTA cannot run is one error at the op.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vta_mlir import lower
from vta_mlir.config import VTAConfig
from vta_mlir.passes.pipeline import VtaToIsaPass
from vta_mlir.runtime.device import Device
from vta_mlir.tools import vta_run

from .depthwise_programs import Depthwise, depthwise_program, depthwise_reference
from .numerics import run_and_compare

#: (layer, on tensors): strides 1 and 2, padding 0 to 2, 3×3 and 5×5 windows, 8 to 40 channels.
LAYERS: dict[str, tuple[Depthwise, bool]] = {
    "c16_k3_s1_p1_named": (Depthwise(16, 8), False),
    "c8_k3_s2_p1_generic": (Depthwise(8, 9, 3, 2, 1, "generic"), False),
    "c24_k5_s1_p2_onnx_kernel": (Depthwise(24, 7, 5, 1, 2, "generic", onnx_kernel=True), False),
    "c40_k3_s2_p0_named": (Depthwise(40, 9, 3, 2, 0), False),
    "c24_k5_s2_p1_tensors": (Depthwise(24, 8, 5, 2, 1), True),
    "c40_k3_s1_p1_generic_tensors": (Depthwise(40, 6, 3, 1, 1, "generic", shift=7, lo=-128,
                                               hi=127), True),
    "n3_c24_k3_s2_p1_named": (Depthwise(24, 6, 3, 2, 1, batch=3), False),
    "c24_k3_s1_p1_nhwc": (Depthwise(24, 7, 3, 1, 1, "nhwc"), False),
    "n2_c40_k5_s2_p2_nhwc": (Depthwise(40, 9, 5, 2, 2, "nhwc", batch=2), False),
}


def random_layer(layer: Depthwise, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    w = rng.integers(-128, 128, layer.kernel_shape).astype(np.int8)
    bias = rng.integers(-4000, 4000, (layer.channels,)).astype(np.int32)
    return w, bias


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_depthwise_matches_numpy(name: str, cfg: VTAConfig) -> None:
    layer, tensors = LAYERS[name]
    w, bias = random_layer(layer, 7)
    binary = lower(depthwise_program(layer, w, bias, tensors), config=cfg)
    # The kernel and the bias are constants of the binary: x in, y out.
    assert [a.direction for a in binary.args] == ["in", "out"]
    mod = Device(cfg).load_module(binary)
    rng = np.random.default_rng(11)
    x = rng.integers(-128, 128, layer.nchw((layer.batch, layer.channels, layer.size,
                                            layer.size))).astype(np.int8)
    run_and_compare(mod, {binary.args[0].name: x}, depthwise_reference(layer, x, w, bias))


def gemm_uops(cfg: VTAConfig, layer: Depthwise) -> int:
    """The GEMM micro-ops the simulator runs for ``layer``'s convolution (its profiling
    counter; the bias is added by the ALU: vta-bias-gemm left out)."""
    w, bias = random_layer(layer, 3)
    stages = [p for p in VtaToIsaPass().passes() if p.name != "vta-bias-gemm"]
    binary = lower(depthwise_program(layer, w, bias), config=cfg, pipeline=stages)
    mod = Device(cfg).load_module(binary)
    x = np.zeros((1, layer.channels, layer.size, layer.size), np.int8)
    mod(x=x)
    assert mod.last_run is not None
    return int(mod.last_run.counters["gemm_counter"])


def test_depthwise_costs_one_gemm_per_tap_per_block(cfg: VTAConfig) -> None:
    """No GEMM on a zero block: one micro-op per tap, channel block and output position (the
    batch of one is one BATCH row block)."""
    layer = Depthwise(2 * cfg.block_out, 8, 3, 1, 1)
    assert gemm_uops(cfg, layer) == 2 * layer.out_size ** 2 * layer.kernel ** 2


@pytest.mark.parametrize("layer_name", ["c24_k5_s1_p2_onnx_kernel", "n2_c40_k5_s2_p2_nhwc"])
@pytest.mark.parametrize("name", ["default", "batch2"])
def test_vta_run_checks_depthwise(name: str, layer_name: str, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    layer, _ = LAYERS[layer_name]
    path = tmp_path / "dw.mlir"
    path.write_text(depthwise_program(layer, *random_layer(layer, 5)))
    status = vta_run.main([str(path), "--config", name, "--random-inputs", "--check"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "check: PASS" in out + err


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(30))
def test_random_depthwise_layers(seed: int) -> None:
    """Random layers (long form of :func:`test_depthwise_matches_numpy`): 1 to 72 channels, 1×1
    to 7×7 windows, strides 1 to 3, any padding smaller than the window, every form, on the
    three configurations in turn."""
    rng = np.random.default_rng(seed)
    cfg = VTAConfig.shipped(("default", "block32", "batch2")[seed % 3])
    kernel = int(rng.choice([1, 3, 5, 7]))
    pad = int(rng.integers(0, kernel))
    form = str(rng.choice(["named", "generic", "nhwc"]))
    layer = Depthwise(int(rng.choice([1, 3, 8, 17, 24, 40, 72])),
                      int(rng.integers(max(kernel - 2 * pad, 1), 20)), kernel,
                      int(rng.integers(1, 4)), pad, form,
                      onnx_kernel=form == "generic" and bool(rng.integers(0, 2)),
                      shift=int(rng.integers(0, 9)), lo=-128, hi=127,
                      batch=int(rng.integers(1, 3)))
    w, bias = random_layer(layer, seed)
    mod = Device(cfg).load_module(lower(depthwise_program(layer, w, bias), config=cfg))
    x = rng.integers(-128, 128, layer.nchw((layer.batch, layer.channels, layer.size,
                                            layer.size))).astype(np.int8)
    run_and_compare(mod, {"x": x}, depthwise_reference(layer, x, w, bias))
