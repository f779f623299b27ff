"""``vta-bias-gemm``: a constant per-channel bias accumulated by the GEMM.

Each layer has a constant bias (a ``memref.global``) added to the accumulator first, with
values at the edges of what the encoding takes (``±MAX_ELEMENTS · element_range``, ``±range``,
``range + 1``), is compiled on every shipped configuration, run on the simulator and compared
bit for bit with numpy written here.  A bias one beyond the range keeps the ALU add, and so
does a bias passed as an argument.
"""

from __future__ import annotations

import numpy as np
import pytest

from vta_mlir import lower, parse, print_ir, run_pipeline
from vta_mlir.config import VTAConfig
from vta_mlir.passes.bias_gemm.encoding import MAX_ELEMENTS, element_range, encode_bias
from vta_mlir.runtime.device import Device

from .depthwise_programs import Depthwise, depthwise_program, depthwise_reference
from .mlir_programs import bias_epilogue, clip, matmul_nk, memref
from .numerics import run_and_compare

SHIFT = 16
STAGES = "vta-pack,vta-merge-alu-immediates,vta-tile,vta-bias-gemm"


def edge_biases(channels: int, cfg: VTAConfig, beyond: bool, seed: int) -> np.ndarray:
    """Random biases in range with the encodable extremes in the first channels (and one beyond
    them when ``beyond``)."""
    r = element_range(cfg)
    top = MAX_ELEMENTS * r
    rng = np.random.default_rng(seed)
    bias = rng.integers(-top, top + 1, channels)
    edges = [top, -top, r, -r, r + 1, -r - 1, 0, 1, -1]
    bias[: len(edges)] = edges
    if beyond:
        bias[len(edges)] = top + 1
    return bias.astype(np.int32)


def hexed(values: np.ndarray) -> str:
    return f'dense<"0x{values.astype(values.dtype.newbyteorder("<")).tobytes().hex().upper()}">'


def conv_program(c: int, o: int, size: int, stride: int, pad: int, w: np.ndarray,
                 bias: np.ndarray) -> str:
    """``y = clip((conv2d(x, w) + bias) >> SHIFT)``, 3×3, zero padding ``pad``."""
    p = size + 2 * pad
    out = (p - 3) // stride + 1
    x_t, p_t = memref((1, c, size, size), "i8"), memref((1, c, p, p), "i8")
    w_t, acc_t = memref((o, c, 3, 3), "i8"), memref((1, o, out, out), "i32")
    view_t = (f"memref<1x{c}x{size}x{size}xi8, strided<[{c * p * p}, {p * p}, {p}, 1], "
              f"offset: {pad * p + pad}>>")
    epilogue = bias_epilogue((1, o, out, out), [("addi", "%in1"), ("shrsi", SHIFT),
                                                *clip(-128, 127)], acc="acc", bias="b")
    return f"""memref.global "private" constant @w : {w_t} = {hexed(w)}
memref.global "private" constant @b : {memref((o,), "i32")} = {hexed(bias)}
func.func @conv(%x: {x_t}, %y: {memref((1, o, out, out), "i8")}) {{
  %w = memref.get_global @w : {w_t}
  %b = memref.get_global @b : {memref((o,), "i32")}
  %c0 = arith.constant 0 : i32
  %c0_i8 = arith.constant 0 : i8
  %xp = memref.alloc() : {p_t}
  linalg.fill ins(%c0_i8 : i8) outs(%xp : {p_t})
  %xi = memref.subview %xp[0, 0, {pad}, {pad}] [1, {c}, {size}, {size}] [1, 1, 1, 1]
      : {p_t} to {view_t}
  memref.copy %x, %xi : {x_t} to {view_t}
  %acc = memref.alloc() : {acc_t}
  linalg.fill ins(%c0 : i32) outs(%acc : {acc_t})
  linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>,
                            strides = dense<{stride}> : tensor<2xi64>}}
      ins(%xp, %w : {p_t}, {w_t}) outs(%acc : {acc_t})
{epilogue}
  return
}}
"""


def conv_reference(x: np.ndarray, w: np.ndarray, bias: np.ndarray, stride: int,
                   pad: int) -> np.ndarray:
    xp = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out = (xp.shape[2] - 3) // stride + 1
    acc = np.zeros((1, w.shape[0], out, out), np.int64)
    for kh in range(3):
        for kw in range(3):
            patch = xp[:, :, kh: kh + stride * out: stride, kw: kw + stride * out: stride]
            acc += np.einsum("nchw,oc->nohw", patch, w[:, :, kh, kw].astype(np.int64))
    acc += bias.astype(np.int64)[None, :, None, None]
    return np.clip(acc >> SHIFT, -128, 127).astype(np.int8)


def dense_program(m: int, k: int, n: int, w: np.ndarray, bias: np.ndarray) -> str:
    """``y = clip((x · wᵀ + bias) >> SHIFT)``, weights N×K."""
    acc_t = memref((m, n), "i32")
    epilogue = bias_epilogue((m, n), [("addi", "%in1"), ("shrsi", SHIFT), *clip(-128, 127)])
    return f"""memref.global "private" constant @w : {memref((n, k), "i8")} = {hexed(w)}
memref.global "private" constant @bias : {memref((n,), "i32")} = {hexed(bias)}
func.func @dense(%x: {memref((m, k), "i8")}, %y: {memref((m, n), "i8")}) {{
  %w = memref.get_global @w : {memref((n, k), "i8")}
  %bias = memref.get_global @bias : {memref((n,), "i32")}
  %acc = memref.alloc() : {acc_t}
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : {acc_t}){matmul_nk(m, k, n)}
{epilogue}
  return
}}
"""


def rewritten(text: str, cfg: VTAConfig) -> bool:
    """Whether vta-bias-gemm turns the program's bias into bias weights."""
    module = parse(text, config=cfg)
    run_pipeline(module, STAGES)
    return "_gemm_weights" in print_ir(module)


def run(text: str, cfg: VTAConfig, x: np.ndarray, want: np.ndarray) -> None:
    binary = lower(text, config=cfg)
    mod = Device(cfg).load_module(binary)
    run_and_compare(mod, {binary.args[0].name: x}, want)


@pytest.mark.parametrize("stride", [1, 2])
@pytest.mark.parametrize("beyond", [False, True])
def test_conv_bias(cfg: VTAConfig, stride: int, beyond: bool) -> None:
    c, o, size = 2 * cfg.block_in, cfg.block_out, cfg.block_out * stride
    rng = np.random.default_rng(stride)
    w = rng.integers(-128, 128, (o, c, 3, 3)).astype(np.int8)
    bias = edge_biases(o, cfg, beyond, 3)
    text = conv_program(c, o, size, stride, 1, w, bias)
    assert rewritten(text, cfg) is not beyond
    x = rng.integers(-128, 128, (1, c, size, size)).astype(np.int8)
    run(text, cfg, x, conv_reference(x, w, bias, stride, 1))


@pytest.mark.parametrize("beyond", [False, True])
def test_depthwise_bias(cfg: VTAConfig, beyond: bool) -> None:
    layer = Depthwise(cfg.block_out, cfg.block_out, shift=SHIFT, lo=-128, hi=127)
    rng = np.random.default_rng(5)
    w = rng.integers(-128, 128, layer.kernel_shape).astype(np.int8)
    bias = edge_biases(layer.channels, cfg, beyond, 4)
    text = depthwise_program(layer, w, bias)
    assert rewritten(text, cfg) is not beyond
    x = rng.integers(-128, 128, (1, layer.channels, layer.size, layer.size)).astype(np.int8)
    run(text, cfg, x, depthwise_reference(layer, x, w, bias))


@pytest.mark.parametrize("beyond", [False, True])
def test_dense_bias(cfg: VTAConfig, beyond: bool) -> None:
    m, k, n = 64 * cfg.batch, 2 * cfg.block_in, 2 * cfg.block_out
    rng = np.random.default_rng(6)
    w = rng.integers(-128, 128, (n, k)).astype(np.int8)
    bias = edge_biases(n, cfg, beyond, 5)
    text = dense_program(m, k, n, w, bias)
    assert rewritten(text, cfg) is not beyond
    x = rng.integers(-128, 128, (m, k)).astype(np.int8)
    acc = x.astype(np.int64) @ w.astype(np.int64).T + bias
    run(text, cfg, x, np.clip(acc >> SHIFT, -128, 127).astype(np.int8))


def test_small_program_keeps_the_alu_add(cfg: VTAConfig) -> None:
    """Two output vectors save fewer cycles than the two new loads cost."""
    n = cfg.block_out
    w = np.ones((n, cfg.block_in), np.int8)
    assert not rewritten(dense_program(cfg.batch, cfg.block_in, n, w, np.arange(n,
                                                                             dtype=np.int32)),
                         cfg)


def test_argument_bias_keeps_the_alu_add(cfg: VTAConfig) -> None:
    m, k, n = 32 * cfg.batch, cfg.block_in, 2 * cfg.block_out
    acc_t = memref((m, n), "i32")
    epilogue = bias_epilogue((m, n), [("addi", "%in1"), ("shrsi", 4)])
    text = f"""func.func @dense(%x: {memref((m, k), "i8")}, %w: {memref((n, k), "i8")},
    %bias: {memref((n,), "i32")}, %y: {memref((m, n), "i8")}) {{
  %acc = memref.alloc() : {acc_t}
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : {acc_t}){matmul_nk(m, k, n)}
{epilogue}
  return
}}
"""
    assert not rewritten(text, cfg)


@pytest.mark.parametrize("config", ["default", "block32", "batch2"])
def test_encoding_is_exact_at_the_edges(config: str) -> None:
    cfg = VTAConfig.shipped(config)
    r = element_range(cfg)
    for k in range(1, MAX_ELEMENTS + 1):
        values = np.array([k * r, -k * r, k * r - 1, 0, 127, -128, 128 * 127], np.int64)
        enc = encode_bias(values, cfg)
        assert enc is not None and enc.elements == k
        assert enc.weights.min() >= -128 and enc.weights.max() <= 127
        assert np.array_equal(enc.weights.sum(axis=1) @ enc.x, values)
    assert encode_bias(np.array([MAX_ELEMENTS * r + 1]), cfg) is None
