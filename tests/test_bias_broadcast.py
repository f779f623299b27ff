"""Per-column biases on every shipped configuration, through the whole pipeline.

An accumulator element is ``BATCH × BLOCK_OUT`` lanes and a DMA moves whole elements, so the
host replicates a bias over the BATCH lanes (the ``repeat`` of its argument) and the device
repeats that element over the row blocks with a stride-0 DMA.  Each program here is compiled
with ``vta_mlir.compile``, called with logical numpy arrays and compared with a numpy
evaluation written out independently; the examples' shift and clip constants are read from the
example files.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr

from vta_mlir import compile as vta_compile
from vta_mlir import lower, parse, print_ir, run_pipeline
from vta_mlir.binary import from_bytes, to_bytes
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.dialects.vta import set_module_config
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.runtime.device import Device

from .mlir_programs import (
    BIAS,
    bias_epilogue,
    clip,
    function,
    generic,
    matmul_nk,
    memref,
    requantize,
)
from .numerics import ArgLike, random_args, run_and_compare

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CONFIGS = {name: VTAConfig.shipped(name) for name in SHIPPED_CONFIGS}

Reference = Callable[[dict[str, np.ndarray]], np.ndarray]


# --------------------------------------------------------------------------------------------
# numpy references


def clip_i8(v: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """``v`` (int64) clipped to ``[lo, hi]`` as int8, after checking it stayed within int32
    (VTA's accumulator), so no wrap-around is being modelled."""
    assert v.min() >= -(1 << 31) and v.max() < 1 << 31
    return np.clip(v, lo, hi).astype(np.int8)


def wide(a: np.ndarray) -> np.ndarray:
    return a.astype(np.int64)


def epilogue_constants(path: Path) -> tuple[int, int, int]:
    """``(shift, lo, hi)`` of an example's ``shrsi`` / ``maxsi`` / ``minsi`` epilogue."""
    module = parse(path.read_text())
    found: dict[type, int] = {}
    for op in module.walk():
        if isinstance(op, arith.ShRSIOp | arith.MaxSIOp | arith.MinSIOp):
            const = op.rhs.owner
            assert isinstance(const, arith.ConstantOp) and isinstance(const.value, IntegerAttr)
            found[type(op)] = int(const.value.value.data)
    return found[arith.ShRSIOp], found[arith.MaxSIOp], found[arith.MinSIOp]


def dense_bias_relu_reference() -> Reference:
    shift, lo, hi = epilogue_constants(EXAMPLES / "dense_bias_relu.mlir")
    return lambda v: clip_i8((wide(v["x"]) @ wide(v["w"]).T + v["bias"]) >> shift, lo, hi)


def odd_shapes_reference() -> Reference:
    shift, lo, hi = epilogue_constants(EXAMPLES / "odd_shapes.mlir")
    return lambda v: clip_i8((wide(v["x"]) @ wide(v["w"]) + v["bias"]) >> shift, lo, hi)


# --------------------------------------------------------------------------------------------
# Small programs: each form of bias vta-pack recognises, on shapes that are not whole blocks


def dense_params(m: int, k: int, n: int, w: tuple[int, int],
                 bias: tuple[tuple[int, ...], str]) -> list[tuple[str, tuple[int, ...], str]]:
    return [("x", (m, k), "i8"), ("w", w, "i8"), ("bias", *bias), ("y", (m, n), "i8")]


def epilogue_bias(m: int, k: int, n: int) -> str:
    """``y = clip((x · wᵀ + bias) >> 4, 0, 127)``, the bias added by the epilogue."""
    acc_t = memref((m, n), "i32")
    ops = f"""
  %acc = memref.alloc() : {acc_t}
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : {acc_t}){matmul_nk(m, k, n)}"""
    ops += bias_epilogue((m, n), [("addi", BIAS), ("shrsi", 4), *clip(0, 127)])
    return function("epilogue", dense_params(m, k, n, (n, k), ((n,), "i32")), ops)


def broadcast_init(m: int, k: int, n: int) -> str:
    """``y = clip((bias + x @ w) >> 5, -128, 127)``: the bias broadcast into the accumulator
    by ``linalg.broadcast`` before the contraction accumulates onto it."""
    acc_t = memref((m, n), "i32")
    ops = f"""
  %acc = memref.alloc() : {acc_t}
  linalg.broadcast ins(%bias : memref<{n}xi32>) outs(%acc : {acc_t})
      dimensions = [0]
  linalg.matmul ins(%x, %w : memref<{m}x{k}xi8>, memref<{k}x{n}xi8>)
      outs(%acc : {acc_t})"""
    ops += generic(
        (m, n),
        [("acc", (m, n), "i32", (0, 1))],
        requantize([("shrsi", 5), *clip(-128, 127)]),
    )
    return function("init", dense_params(m, k, n, (k, n), ((n,), "i32")), ops)


def bias_after_shift(m: int, k: int, n: int) -> str:
    """``y = clip((x @ w >> 6) + bias, 0, 127)`` with an ``i8`` bias given as a ``1 × N``
    matrix: added by the ALU from a second accumulator loaded with the broadcast bias."""
    acc_t = memref((m, n), "i32")
    ops = f"""
  %acc = memref.alloc() : {acc_t}
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : {acc_t})
  linalg.matmul ins(%x, %w : memref<{m}x{k}xi8>, memref<{k}x{n}xi8>)
      outs(%acc : {acc_t})"""
    extend = "    %be = arith.extsi %in1 : i8 to i32\n"
    ops += generic(
        (m, n),
        [("acc", (m, n), "i32", (0, 1)), ("bias", (1, n), "i8", (None, 1))],
        extend + requantize([("shrsi", 6), ("addi", "%be"), *clip(0, 127)]),
    )
    return function("late", dense_params(m, k, n, (k, n), ((1, n), "i8")), ops)


PROGRAMS: dict[str, tuple[Callable[[int, int, int], str], Reference]] = {
    "epilogue": (epilogue_bias,
                 lambda v: clip_i8((wide(v["x"]) @ wide(v["w"]).T + v["bias"]) >> 4, 0, 127)),
    "init": (broadcast_init,
             lambda v: clip_i8((wide(v["x"]) @ wide(v["w"]) + v["bias"]) >> 5, -128, 127)),
    "late": (bias_after_shift,
             lambda v: clip_i8(((wide(v["x"]) @ wide(v["w"])) >> 6) + v["bias"], 0, 127)),
}
#: (rows, reduction, columns): whole blocks, and rows / columns that are not (an odd number
#: of rows leaves a batch lane of padding in the last row block on BATCH 2).
SHAPES = [(2, 16, 16), (3, 40, 24), (5, 20, 70), (8, 32, 48)]


def small_bounds(spec: ArgLike) -> tuple[int, int]:
    """Logical inputs small enough for the epilogues not to saturate everywhere."""
    if spec.name == "bias":
        return (-40, 39) if spec.dtype == "int8" else (-3000, 2999)
    return -16, 15


def check_bias_abi(mod, cfg: VTAConfig, columns: int) -> None:
    """The bias is an input replicated over the batch lanes: one accumulator element per
    column block."""
    (bias,) = [a for a in mod.inputs if a.name == "bias"]
    assert bias.direction == "in" and bias.repeat == (cfg.batch,)
    assert bias.packed_shape == (1, math.ceil(columns / cfg.block_out), cfg.batch,
                                 cfg.block_out)


def check(mod, reference: Reference, seed: int) -> np.ndarray:
    values = random_args(mod.inputs, seed, small_bounds)
    return run_and_compare(mod, values, reference(values))


# --------------------------------------------------------------------------------------------
# Tests


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("example", ["dense_bias_relu", "odd_shapes"])
def test_examples_match_numpy(example: str, name: str) -> None:
    cfg = CONFIGS[name]
    reference = {"dense_bias_relu": dense_bias_relu_reference,
                 "odd_shapes": odd_shapes_reference}[example]()
    mod = vta_compile((EXAMPLES / f"{example}.mlir").read_text(), config=cfg)
    (bias,) = [a for a in mod.inputs if a.name == "bias"]
    check_bias_abi(mod, cfg, bias.shape[0])
    for seed in (0, 1):
        check(mod, reference, seed)


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("form", sorted(PROGRAMS))
def test_bias_forms_match_numpy(form: str, shape: tuple[int, int, int], name: str) -> None:
    cfg = CONFIGS[name]
    build, reference = PROGRAMS[form]
    mod = vta_compile(build(*shape), config=cfg)
    check_bias_abi(mod, cfg, shape[2])
    y = check(mod, reference, seed=sum(shape))
    # The inputs keep the results off the clip bounds, so a bias lost in some lanes shows.
    assert len(np.unique(y)) > 8


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_every_row_gets_the_bias(name: str) -> None:
    """With zero activations the output is the (shifted, clipped) bias in every row: each
    batch lane of each row block reads the replicated bias, not only the first."""
    cfg = CONFIGS[name]
    m, k, n = 2 * cfg.batch + 1, cfg.block_in, cfg.block_out + 3
    mod = vta_compile(epilogue_bias(m, k, n), config=cfg)
    bias = (np.arange(n, dtype=np.int32) + 1) * 16
    (y,) = mod(x=np.zeros((m, k), np.int8), w=np.ones((n, k), np.int8), bias=bias)
    np.testing.assert_array_equal(y, np.broadcast_to(np.clip(bias >> 4, 0, 127), (m, n)))


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_repeated_bias_survives_the_binary_format(name: str) -> None:
    cfg = CONFIGS[name]
    binary = lower(epilogue_bias(3, 16, 40), config=cfg)
    data = to_bytes(binary)
    back = from_bytes(data, cfg)
    assert back.args == binary.args and to_bytes(back) == data
    reference = PROGRAMS["epilogue"][1]
    mod = Device(cfg).load_module(data)
    check(mod, reference, seed=5)


def test_bias_is_one_stride_0_dma_per_column_block_on_batch2() -> None:
    """The whole-element bias is read once per row block with DRAM stride 0."""
    cfg = CONFIGS["batch2"]
    module = parse(epilogue_bias(8, 32, 48))
    set_module_config(module, cfg)
    run_pipeline(module, "vta-pack,vta-tile,vta-inject-dma")
    loads = [line.strip() for line in print_ir(module).splitlines()
             if "vta.dma_copy %bias" in line]
    assert loads and all(" stride 0 " in line for line in loads), loads
    assert all("memref<1x3x2x16xi32>" in line for line in loads), loads


def test_a_repeated_argument_must_not_be_written() -> None:
    text = """
    func.func @f(%b: memref<1x1x2x16xi8> {vta.arg = {shape = array<i64: 16>, dtype = "int8",
        repeat = array<i64: 2>, split_shape = array<i64: 1, 2, 1, 16>,
        perm = array<i64: 0, 2, 1, 3>}}) {
      %a = memref.alloc() : memref<1x2x16xi32, #vta.sram<acc>>
      vta.dma_copy %b[0] -> %a[0] y 1 x 1 stride 1
          : memref<1x1x2x16xi8> -> memref<1x2x16xi32, #vta.sram<acc>>
      vta.dma_copy %a[0] -> %b[0] y 1 x 1 stride 1
          : memref<1x2x16xi32, #vta.sram<acc>> -> memref<1x1x2x16xi8>
      func.return
    }
    """
    with pytest.raises(DiagnosticError) as info:
        lower(text, config=CONFIGS["batch2"])
    message = str(info.value)
    assert "argument 0 (%b): argument 'b': repeat (2,) is only allowed for 'in' arguments, " \
           "not 'inout'" in message
    assert "\n" not in message.strip()
    read_only = text.replace("""      vta.dma_copy %a[0] -> %b[0] y 1 x 1 stride 1
          : memref<1x2x16xi32, #vta.sram<acc>> -> memref<1x1x2x16xi8>
""", "")
    (spec,) = lower(read_only, config=CONFIGS["batch2"]).args
    assert (spec.direction, spec.shape, spec.repeat, spec.padded_shape) == \
        ("in", (16,), (2,), (16,))
