"""``vta-residual-gemm``: a residual added by the GEMM from the input SRAM.

A convolution whose epilogue adds an int8 residual, ``y = clip((conv2d(x, w) >> SHIFT) + r,
lo, 127)`` (ResNet's block tail), is compiled on every shipped configuration, run on the
simulator and compared bit for bit with numpy written here, with residuals and accumulators at
the edges of their ranges.  The compiled program loads the residual into the input SRAM (no
LOAD ACC_8BIT is left) and takes fewer cycles than with the ALU add.
"""

from __future__ import annotations

import numpy as np
import pytest

from vta_mlir import lower, parse, print_ir, run_pipeline
from vta_mlir.config import VTAConfig
from vta_mlir.isa import MemInsn, MemType
from vta_mlir.runtime.device import Device

from .mlir_programs import memref
from .numerics import run_and_compare

SHIFT = 9
STAGES = "vta-pack,vta-merge-alu-immediates,vta-tile,vta-bias-gemm,vta-residual-gemm"
#: ``vta-to-isa`` without ``vta-residual-gemm``.
WITHOUT = ("vta-normalize,vta-outline-host-steps,vta-pack,vta-merge-alu-immediates,vta-tile,"
           "vta-bias-gemm,vta-inject-dma,vta-tensorize,vta-fold-uop-loops,vta-coproc-sync,"
           "vta-lower-to-isa")


def block_program(c: int, o: int, size: int, stride: int, epilogue: str) -> str:
    """A 3×3 convolution, zero padding 1, whose epilogue generic reads its accumulator ``%v``
    and the int8 residual ``%res`` and computes ``epilogue`` (body lines ending in ``%q``, the
    int8 output)."""
    p = size + 2
    out = (p - 3) // stride + 1
    x_t, p_t = memref((1, c, size, size), "i8"), memref((1, c, p, p), "i8")
    w_t, acc_t = memref((o, c, 3, 3), "i8"), memref((1, o, out, out), "i32")
    y_t = memref((1, o, out, out), "i8")
    view_t = (f"memref<1x{c}x{size}x{size}xi8, strided<[{c * p * p}, {p * p}, {p}, 1], "
              f"offset: {p + 1}>>")
    ident = "affine_map<(n, c, h, w) -> (n, c, h, w)>"
    return f"""func.func @block(%x: {x_t}, %w: {w_t}, %r: {y_t}, %y: {y_t}) {{
  %c0 = arith.constant 0 : i32
  %c0_i8 = arith.constant 0 : i8
  %xp = memref.alloc() : {p_t}
  linalg.fill ins(%c0_i8 : i8) outs(%xp : {p_t})
  %xi = memref.subview %xp[0, 0, 1, 1] [1, {c}, {size}, {size}] [1, 1, 1, 1] : {p_t} to {view_t}
  memref.copy %x, %xi : {x_t} to {view_t}
  %acc = memref.alloc() : {acc_t}
  linalg.fill ins(%c0 : i32) outs(%acc : {acc_t})
  linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>,
                            strides = dense<{stride}> : tensor<2xi64>}}
      ins(%xp, %w : {p_t}, {w_t}) outs(%acc : {acc_t})
  linalg.generic {{indexing_maps = [{ident}, {ident}, {ident}],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins(%acc, %r : {acc_t}, {y_t}) outs(%y : {y_t}) {{
  ^bb0(%v: i32, %res: i8, %out: i8):
{epilogue}
    linalg.yield %q : i8
  }}
  return
}}
"""


def residual_program(c: int, o: int, size: int, stride: int, lo: int) -> str:
    """``y = clip((conv2d(x, w) >> SHIFT) + r, lo, 127)``."""
    return block_program(c, o, size, stride, f"""    %s = arith.constant {SHIFT} : i32
    %lo = arith.constant {lo} : i32
    %hi = arith.constant 127 : i32
    %sh = arith.shrsi %v, %s : i32
    %re = arith.extsi %res : i8 to i32
    %sum = arith.addi %sh, %re : i32
    %a = arith.minsi %sum, %hi : i32
    %b = arith.maxsi %a, %lo : i32
    %q = arith.trunci %b : i32 to i8""")


def conv_acc(x: np.ndarray, w: np.ndarray, stride: int) -> np.ndarray:
    """The int64 accumulators of a 3×3 convolution with zero padding 1."""
    xp = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = (xp.shape[2] - 3) // stride + 1
    acc = np.zeros((1, w.shape[0], out, out), np.int64)
    for kh in range(3):
        for kw in range(3):
            patch = xp[:, :, kh: kh + stride * out: stride, kw: kw + stride * out: stride]
            acc += np.einsum("nchw,oc->nohw", patch, w[:, :, kh, kw].astype(np.int64))
    return acc


def reference(x: np.ndarray, w: np.ndarray, r: np.ndarray, stride: int, lo: int) -> np.ndarray:
    acc = conv_acc(x, w, stride)
    return np.clip((acc >> SHIFT) + r.astype(np.int64), lo, 127).astype(np.int8)


def rewritten(text: str, cfg: VTAConfig) -> bool:
    module = parse(text, config=cfg)
    run_pipeline(module, STAGES)
    return "residual_identity_weights" in print_ir(module)


def acc8_loads(binary: object) -> int:
    runs = binary.program.runs  # type: ignore[attr-defined]
    return sum(1 for run in runs for insn in run.insns
               if isinstance(insn, MemInsn) and not insn.is_store
               and insn.memory_type == MemType.ACC_8BIT)


@pytest.mark.parametrize(("stride", "size", "lo"), [(1, 16, 0), (2, 16, -128), (1, 9, -128)])
def test_residual_block(cfg: VTAConfig, stride: int, size: int, lo: int) -> None:
    c, o = 2 * cfg.block_in, 2 * cfg.block_out
    rng = np.random.default_rng(size + stride)
    w = rng.integers(-128, 128, (o, c, 3, 3)).astype(np.int8)
    x = rng.integers(-128, 128, (1, c, size, size)).astype(np.int8)
    out = (size - 1) // stride + 1
    r = rng.integers(-128, 128, (1, o, out, out)).astype(np.int8)
    # The extremes of the residual and of the shifted accumulator's sign.
    r.flat[:4] = [-128, 127, -128, 127]
    w[0] = 127
    x[0, :, 0, :2] = 127
    text = residual_program(c, o, size, stride, lo)
    assert rewritten(text, cfg)
    binary = lower(text, config=cfg)
    assert acc8_loads(binary) == 0
    mod = Device(cfg).load_module(binary)
    run_and_compare(mod, {"x": x, "w": w, "r": r}, reference(x, w, r, stride, lo))


def test_residual_gemm_saves_cycles(cfg: VTAConfig) -> None:
    """Against the same stages without ``vta-residual-gemm``: one GEMM cycle per output vector
    instead of a LOAD ACC_8BIT and a two-cycle ALU add on the compute module."""
    c, o, size = 2 * cfg.block_in, 2 * cfg.block_out, 16
    text = residual_program(c, o, size, 1, 0)
    rng = np.random.default_rng(1)
    values = {"x": rng.integers(-128, 128, (1, c, size, size)).astype(np.int8),
              "w": rng.integers(-128, 128, (o, c, 3, 3)).astype(np.int8),
              "r": rng.integers(-128, 128, (1, o, size, size)).astype(np.int8)}
    outputs, cycles = [], []
    for pipeline in (None, WITHOUT):
        binary = lower(text, config=cfg, pipeline=pipeline)
        mod = Device(cfg).load_module(binary)
        outputs.append(mod(**values)[0])
        cycles.append(mod.last_run.cycles)
    np.testing.assert_array_equal(outputs[0], outputs[1])
    vectors = o * size * size // (cfg.batch * cfg.block_out)
    assert cycles[0] < cycles[1] - vectors, cycles


def rescaled_program(c: int, o: int, size: int, factor: int, second: int) -> str:
    """``y = clip((((conv2d(x, w) >> SHIFT) · 3 + r · factor · second) >> 10), -128, 127)``:
    the ONNX route's residual Add, whose operand is rescaled by two multiplications before
    the add."""
    return block_program(c, o, size, 1, f"""    %s = arith.constant {SHIFT} : i32
    %k3 = arith.constant 3 : i32
    %kf = arith.constant {factor} : i32
    %ks = arith.constant {second} : i32
    %s10 = arith.constant 10 : i32
    %lo = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %sh = arith.shrsi %v, %s : i32
    %a = arith.muli %sh, %k3 : i32
    %re = arith.extsi %res : i8 to i32
    %r1 = arith.muli %re, %kf : i32
    %r2 = arith.muli %r1, %ks : i32
    %sum = arith.addi %a, %r2 : i32
    %t = arith.shrsi %sum, %s10 : i32
    %m = arith.minsi %t, %hi : i32
    %n = arith.maxsi %m, %lo : i32
    %q = arith.trunci %n : i32 to i8""")


def rescaled_reference(x: np.ndarray, w: np.ndarray, r: np.ndarray, factor: int,
                       second: int) -> np.ndarray:
    t = ((conv_acc(x, w, 1) >> SHIFT) * 3 + r.astype(np.int64) * factor * second) >> 10
    return np.clip(t, -128, 127).astype(np.int8)


@pytest.mark.parametrize(("factor", "rewritten_"), [(36, True), (-128, True), (127, True),
                                                    (300, False)])
def test_rescaled_residual(cfg: VTAConfig, factor: int, rewritten_: bool) -> None:
    """The first multiplication of the rescaled residual by an int8 immediate becomes the
    weight of its identity tile (``factor`` times the identity); one beyond int8 keeps the
    LOAD ACC_8BIT and the ALU multiplication."""
    c, o, size, second = 2 * cfg.block_in, 2 * cfg.block_out, 12, 1001
    rng = np.random.default_rng(factor % 97)
    w = rng.integers(-128, 128, (o, c, 3, 3)).astype(np.int8)
    x = rng.integers(-128, 128, (1, c, size, size)).astype(np.int8)
    r = rng.integers(-128, 128, (1, o, size, size)).astype(np.int8)
    r.flat[:2] = [-128, 127]
    text = rescaled_program(c, o, size, factor, second)
    module = parse(text, config=cfg)
    run_pipeline(module, STAGES)
    assert ("residual_identity_weights" in print_ir(module)) is rewritten_
    binary = lower(text, config=cfg)
    assert (acc8_loads(binary) == 0) is rewritten_
    mod = Device(cfg).load_module(binary)
    run_and_compare(mod, {"x": x, "w": w, "r": r}, rescaled_reference(x, w, r, factor, second))
