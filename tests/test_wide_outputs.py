"""int32 results from VTA (``passes/pack/wide_outputs.py``): an i32 function output, or an i32
buffer a host step reads, leaves the device as its byte planes and is reassembled by the
host (``vta_mlir.abi.ArgSpec.parts``), bit for bit as numpy computes it here, on every shipped
configuration; the ``.vtab`` keeps the layout (argument table version 6)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from vta_mlir import compile, lower
from vta_mlir.abi import ArgSpec
from vta_mlir.binary import from_bytes
from vta_mlir.config import VTAConfig
from vta_mlir.errors import BinaryFormatError
from vta_mlir.tools import vta_run

from .binary_helpers import patch, rejects, section
from .mlir_programs import i32_product

M, K, N = 3, 40, 20

MATMUL = i32_product(M, K, N)

#: Every byte of the result matters: a product wrapping over the whole int32 range.
SCALE = 30001
ELEMENTWISE = f"""func.func @ew(%a: memref<5x40xi32>, %b: memref<40xi32>, %y: memref<5x40xi32>) {{
  linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                                   affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}}
      ins(%a, %b : memref<5x40xi32>, memref<40xi32>) outs(%y : memref<5x40xi32>) {{
  ^bb0(%v: i32, %c: i32, %o: i32):
    %k = arith.constant {SCALE} : i32
    %m = arith.muli %v, %k : i32
    %s = arith.addi %m, %c : i32
    linalg.yield %s : i32
  }}
  return
}}
"""

#: The i32 accumulators of a contraction read by a host step, which scales them in float.
HOST_READS = f"""func.func @scaled(%x: memref<{M}x{K}xi8>, %w: memref<{K}x{N}xi8>,
                   %y: memref<{M}x{N}xf32>) {{
  %acc = memref.alloc() : memref<{M}x{N}xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<{M}x{N}xi32>)
  linalg.matmul ins(%x, %w : memref<{M}x{K}xi8>, memref<{K}x{N}xi8>)
      outs(%acc : memref<{M}x{N}xi32>)
  linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}}
      ins(%acc : memref<{M}x{N}xi32>) outs(%y : memref<{M}x{N}xf32>) {{
  ^bb0(%v: i32, %o: f32):
    %s = arith.constant 0.25 : f32
    %f = arith.sitofp %v : i32 to f32
    %r = arith.mulf %f, %s : f32
    linalg.yield %r : f32
  }}
  return
}}
"""


def _operands(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.integers(-128, 128, size=(M, K), dtype=np.int8),
            rng.integers(-128, 128, size=(K, N), dtype=np.int8))


def test_an_i32_matmul_output_leaves_vta_as_byte_planes(cfg: VTAConfig) -> None:
    x, w = _operands(1)
    x[0, :] = -128
    w[:, 0] = -128  # the largest product sum: 40 · 2^14, three bytes and the sign
    (y,) = compile(MATMUL, config=cfg)(x, w)
    assert y.dtype == np.int32
    assert np.array_equal(y, x.astype(np.int32) @ w.astype(np.int32))


def test_every_byte_of_an_i32_elementwise_output(cfg: VTAConfig) -> None:
    rng = np.random.default_rng(2)
    a = rng.integers(-2**31, 2**31, size=(5, 40), dtype=np.int64).astype(np.int32)
    b = rng.integers(-2**31, 2**31, size=(40,), dtype=np.int64).astype(np.int32)
    (y,) = compile(ELEMENTWISE, config=cfg)(a, b)
    expected = ((a.astype(np.int64) * SCALE + b) + 2**31) % 2**32 - 2**31
    assert np.array_equal(y, expected.astype(np.int32))
    assert {int(v) >> 24 for v in y.reshape(-1)} != {0, -1}  # the top byte varies


def test_a_host_step_reads_the_int32_results(cfg: VTAConfig) -> None:
    x, w = _operands(3)
    module = compile(HOST_READS, config=cfg)
    (y,) = module(x, w)
    acc = x.astype(np.int32) @ w.astype(np.int32)
    assert np.array_equal(y, acc.astype(np.float32) * np.float32(0.25))
    assert module.last_run.runs == 1  # type: ignore[union-attr]


def test_the_planes_cost_two_shifts_and_three_stores() -> None:
    from vta_mlir.isa import Opcode

    insns = [i for run in lower(MATMUL).program.runs for i in run.insns]
    # Two output tiles (N = 20: two column blocks), each three plane stores (depth 40: 21
    # bits with the sign) and two shifts by 8 (the empty stores are the run's
    # synchronisation).
    stores = [i for i in insns if i.opcode == Opcode.STORE and i.y_size]
    shifts = [i for i in insns if i.opcode == Opcode.ALU]
    assert (len(stores), len(shifts)) == (6, 4)
    assert all((i.alu_opcode, i.use_imm, i.imm) == (3, 1, 8) for i in shifts)


def test_the_vtab_keeps_the_planes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = lower(MATMUL).to_bytes()
    module = from_bytes(data)
    (y_spec,) = [a for a in module.args if a.name == "y"]
    assert (y_spec.dtype, y_spec.packed_dtype, y_spec.parts) == ("int32", "int8", 3)
    _, table, _, _ = section(data, b"ARGS")
    assert struct.unpack_from("<H", data, table) == (6,)
    # An older table cannot hold the parts.
    rejects(patch(data, table, "<H", 5), "split into 3 parts per element, which needs table "
                                         "version 6, not 5")
    path = tmp_path / "mm.vtab"
    path.write_bytes(data)
    capsys.readouterr()
    assert vta_run.main([str(path), "--random-inputs"]) == 0
    assert f"y: {M}x{N}xint32" in capsys.readouterr().out


def test_argspec_splits_and_joins_the_parts() -> None:
    spec = ArgSpec("y", "out", "int32", (3, 20), (4, 32), (2, 2, 2, 16, 4), (4, 0, 2, 1, 3),
                   "int8")
    assert spec.parts == 4 and spec.packed_shape == (4, 2, 2, 2, 16)
    values = np.array([[-2**31, 2**31 - 1, -1, 0, 0x01020304] * 4] * 3, dtype=np.int32)
    image = np.frombuffer(spec.pack_values(values), np.int8).reshape(spec.packed_shape)
    # Element (0, 4) = 0x01020304: plane p holds byte p.
    assert [int(image[p, 0, 0, 0, 4]) for p in range(4)] == [4, 3, 2, 1]
    assert np.array_equal(spec.unpack_values(spec.pack_values(values)), values)


@pytest.mark.parametrize(("fields", "message"), [
    (dict(split_shape=(2, 2, 2, 16, 5), perm=(4, 0, 2, 1, 3)), "or 2 to 4 parts per element"),
    (dict(direction="in", repeat=(1,), split_shape=(1, 2, 2, 2, 16, 4),
          perm=(5, 0, 1, 3, 2, 4)), "split into parts has no repeat"),
])
def test_malformed_parts_are_refused(fields: dict[str, object], message: str) -> None:
    base: dict[str, object] = dict(name="y", direction="out", dtype="int32", shape=(3, 20),
                                   padded_shape=(4, 32), split_shape=(2, 2, 2, 16, 4),
                                   perm=(4, 0, 2, 1, 3), packed_dtype="int8")
    with pytest.raises(BinaryFormatError, match=message):
        ArgSpec(**{**base, **fields})  # type: ignore[arg-type]


CONV = """func.func @conv(%x: memref<2x16x9x9xi8>, %w: memref<32x16x3x3xi8>,
                 %y: memref<2x32x5x5xi32>) {
  %c0_i8 = arith.constant 0 : i8
  %xp = memref.alloc() : memref<2x16x11x11xi8>
  linalg.fill ins(%c0_i8 : i8) outs(%xp : memref<2x16x11x11xi8>)
  %xi = memref.subview %xp[0, 0, 1, 1] [2, 16, 9, 9] [1, 1, 1, 1]
      : memref<2x16x11x11xi8> to memref<2x16x9x9xi8, strided<[1936, 121, 11, 1], offset: 12>>
  memref.copy %x, %xi
      : memref<2x16x9x9xi8> to memref<2x16x9x9xi8, strided<[1936, 121, 11, 1], offset: 12>>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%y : memref<2x32x5x5xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>,
                            strides = dense<2> : tensor<2xi64>}
      ins(%xp, %w : memref<2x16x11x11xi8>, memref<32x16x3x3xi8>) outs(%y : memref<2x32x5x5xi32>)
  memref.dealloc %xp : memref<2x16x11x11xi8>
  return
}
"""


def test_an_i32_convolution_output_in_the_tensor_layout(cfg: VTAConfig) -> None:
    rng = np.random.default_rng(4)
    x = rng.integers(-128, 128, size=(2, 16, 9, 9), dtype=np.int8)
    w = rng.integers(-128, 128, size=(32, 16, 3, 3), dtype=np.int8)
    module = compile(CONV, config=cfg)
    (y,) = module(x, w)
    padded = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(2, 3))
    expected = np.einsum("nchwij,ocij->nohw", windows[:, :, ::2, ::2], w.astype(np.int64))
    assert np.array_equal(y, expected.astype(np.int32))
    assert module.args[2].parts == 4 and module.args[2].packed_shape[0] == 4


RETURNED = f"""func.func @tmm(%x: tensor<{M}x{K}xi8>, %w: tensor<{K}x{N}xi8>)
    -> tensor<{M}x{N}xi32> {{
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<{M}x{N}xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<{M}x{N}xi32>) -> tensor<{M}x{N}xi32>
  %r = linalg.matmul ins(%x, %w : tensor<{M}x{K}xi8>, tensor<{K}x{N}xi8>)
      outs(%f : tensor<{M}x{N}xi32>) -> tensor<{M}x{N}xi32>
  return %r : tensor<{M}x{N}xi32>
}}
"""


def test_a_returned_i32_tensor(cfg: VTAConfig) -> None:
    # vta-bufferize makes the result an out-parameter (vta.result), stored as byte planes.
    x, w = _operands(5)
    (y,) = compile(RETURNED, config=cfg)(x, w)
    assert np.array_equal(y, x.astype(np.int32) @ w.astype(np.int32))


@pytest.mark.parametrize("shape", [(37,), (2, 5, 40), (1, 16, 4, 4)])
def test_i32_elementwise_outputs_of_any_rank(cfg: VTAConfig, shape: tuple[int, ...]) -> None:
    # Flattened into the matrix layout (passes/pack/flatten.py), then stored as planes.
    dims = ", ".join(f"d{k}" for k in range(len(shape)))
    t = f"memref<{'x'.join(map(str, shape))}xi32>"
    program = f"""func.func @scale(%a: {t}, %y: {t}) {{
  linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>,
                                   affine_map<({dims}) -> ({dims})>],
                  iterator_types = [{", ".join(['"parallel"'] * len(shape))}]}}
      ins(%a : {t}) outs(%y : {t}) {{
  ^bb0(%v: i32, %o: i32):
    %k = arith.constant {SCALE} : i32
    %m = arith.muli %v, %k : i32
    linalg.yield %m : i32
  }}
  return
}}
"""
    a = np.random.default_rng(6).integers(-2**31, 2**31, size=shape, dtype=np.int64)
    (y,) = compile(program, config=cfg)(a.astype(np.int32))
    expected = (a * SCALE + 2**31) % 2**32 - 2**31
    assert np.array_equal(y, expected.astype(np.int32))


#: The result's first write (the fill) comes before a host step, its last (the product of the
#: host step's codes) after: the region runs after the step.
AFTER_HOST = """func.func @order(%x: memref<4x32xf32>, %w: memref<32x16xi8>,
                 %y: memref<4x16xi32>) attributes {vta.host_float} {
  %q = memref.alloc() : memref<4x32xi8>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%y : memref<4x16xi32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x32xf32>) outs(%q : memref<4x32xi8>) {
  ^bb0(%a: f32, %o: i8):
    %r = math.roundeven %a : f32
    %c = arith.fptosi %r : f32 to i8
    linalg.yield %c : i8
  }
  linalg.matmul ins(%q, %w : memref<4x32xi8>, memref<32x16xi8>)
      outs(%y : memref<4x16xi32>)
  return
}
"""


def test_the_region_of_an_i32_result_runs_at_its_last_write(cfg: VTAConfig) -> None:
    rng = np.random.default_rng(7)
    x = rng.uniform(-100, 100, size=(4, 32)).astype(np.float32)
    w = rng.integers(-128, 128, size=(32, 16), dtype=np.int8)
    (y,) = compile(AFTER_HOST, config=cfg)(x, w)
    q = np.rint(x).astype(np.int32)
    assert np.array_equal(y, q @ w.astype(np.int32))
