"""``vta-merge-alu-immediates``: each merge rule is exact on every 32-bit accumulator value
(checked against a numpy model of VTA's ALU written here), and an epilogue with mergeable runs
compiles to fewer ALU instructions and runs on the simulator bit for bit as numpy computes it,
on every shipped configuration."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vta_mlir import compile, lower
from vta_mlir.config import ALU_IMM_WIDTH, VTAConfig
from vta_mlir.isa import AluInsn, AluKind
from vta_mlir.passes.merge_alu_immediates import merged_immediate
from vta_mlir.passes.pipeline import VtaToIsaPass

M, K, N = 4, 64, 48
IMM = st.integers(-(1 << (ALU_IMM_WIDTH - 1)), (1 << (ALU_IMM_WIDTH - 1)) - 1)
KINDS = st.sampled_from(list(AluKind))


def alu(kind: AluKind, x: np.ndarray, imm: int) -> np.ndarray:
    """One ALU operation of VTA on int32 lanes with an immediate: min / max signed, add / mul
    modulo 2^32, shr arithmetic right by ``imm`` or left by ``-imm``."""
    wide = x.astype(np.int64)
    if kind == AluKind.MIN:
        r = np.minimum(wide, imm)
    elif kind == AluKind.MAX:
        r = np.maximum(wide, imm)
    elif kind == AluKind.ADD:
        r = wide + imm
    elif kind == AluKind.MUL:
        r = wide * imm
    elif imm >= 0:
        r = wide >> (imm & 31)
    else:
        r = wide << (-imm & 31)
    return ((r + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int32)


SAMPLES = np.concatenate([
    np.array([0, 1, -1, 2**31 - 1, -(2**31), 12345, -54321], dtype=np.int64),
    np.random.default_rng(0).integers(-(2**31), 2**31, size=512),
]).astype(np.int32)


@settings(max_examples=400, deadline=None)
@given(kind=KINDS, first=IMM, second=IMM)
def test_every_merge_is_exact(kind: AluKind, first: int, second: int) -> None:
    merged = merged_immediate(kind, first, second, 32)
    if merged is None:
        return
    assert -(1 << (ALU_IMM_WIDTH - 1)) <= merged < (1 << (ALU_IMM_WIDTH - 1))
    assert np.array_equal(alu(kind, alu(kind, SAMPLES, first), second),
                          alu(kind, SAMPLES, merged))


@pytest.mark.parametrize(
    ("kind", "first", "second", "merged"),
    [
        (AluKind.MAX, 0, -128, 0),
        (AluKind.MIN, 127, 90, 90),
        (AluKind.ADD, 5, -7, -2),
        (AluKind.MUL, -3, 5, -15),
        (AluKind.SHR, 3, 2, 5),
        (AluKind.SHR, -4, -6, -10),
        (AluKind.SHR, 0, 7, 7),
    ],
)
def test_merges_taken(kind: AluKind, first: int, second: int, merged: int) -> None:
    assert merged_immediate(kind, first, second, 32) == merged


@pytest.mark.parametrize(
    ("kind", "first", "second"),
    [
        (AluKind.SHR, 3, -3),  # a right then a left shift loses the low bits
        (AluKind.SHR, 20, 12),  # 32 bits: not a shift amount of the ALU
        (AluKind.ADD, 30000, 30000),  # outside the immediate field
        (AluKind.MUL, 300, 300),
    ],
)
def test_merges_refused(kind: AluKind, first: int, second: int) -> None:
    assert merged_immediate(kind, first, second, 32) is None


#: y = clip(max(((x @ w) >> 3) >> 2, 0), -128, 127) written one op at a time: two shifts and
#: two lower bounds in a row.
EPILOGUE = f"""\
func.func @dense(%x: memref<{M}x{K}xi8>, %w: memref<{K}x{N}xi8>, %y: memref<{M}x{N}xi8>) {{
  %acc = memref.alloc() : memref<{M}x{N}xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<{M}x{N}xi32>)
  linalg.matmul ins(%x, %w : memref<{M}x{K}xi8>, memref<{K}x{N}xi8>)
                outs(%acc : memref<{M}x{N}xi32>)
  linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}}
      ins(%acc : memref<{M}x{N}xi32>) outs(%y : memref<{M}x{N}xi8>) {{
  ^bb0(%a: i32, %out: i8):
    %c3 = arith.constant 3 : i32
    %c2 = arith.constant 2 : i32
    %zero = arith.constant 0 : i32
    %lo = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %s = arith.shrsi %a, %c3 : i32
    %s2 = arith.shrsi %s, %c2 : i32
    %r = arith.maxsi %s2, %zero : i32
    %m = arith.maxsi %r, %lo : i32
    %k = arith.minsi %m, %hi : i32
    %t = arith.trunci %k : i32 to i8
    linalg.yield %t : i8
  }}
  memref.dealloc %acc : memref<{M}x{N}xi32>
  return
}}
"""


def alu_instructions(pipeline: object | None) -> int:
    binary = lower(EPILOGUE, pipeline=pipeline)  # type: ignore[arg-type]
    return sum(isinstance(insn, AluInsn) for run in binary.program.runs for insn in run.insns)


def test_epilogue_runs_bit_exact_with_fewer_alu_instructions(cfg: VTAConfig) -> None:
    rng = np.random.default_rng(11)
    x = rng.integers(-128, 128, size=(M, K), dtype=np.int8)
    w = rng.integers(-128, 128, size=(K, N), dtype=np.int8)
    (y,) = compile(EPILOGUE, config=cfg)(x, w)
    acc = x.astype(np.int64) @ w.astype(np.int64)
    want = np.clip(np.maximum((acc >> 3) >> 2, 0), -128, 127).astype(np.int8)
    assert np.array_equal(y, want)
    assert (want == 0).any() and (want == 127).any() and ((want > 0) & (want < 127)).any()


def test_the_pipeline_merges() -> None:
    without = tuple(p for p in VtaToIsaPass().passes() if p.name != "vta-merge-alu-immediates")
    # shr 5, max 0, min 127 instead of shr 3, shr 2, max 0, max -128, min 127: each merge
    # removes one ALU instruction per tile.
    assert alu_instructions(None) < alu_instructions(without)
