"""One enumeration of VTA's ALU operations, ``vta_mlir.isa.AluKind``: the ``vta`` dialect's
``AluKind`` and the ISA's ``AluOp`` are the same class, its values are the keywords of the
textual IR and its opcodes the ``alu_opcode`` encodings of docs/isa.md §2.5; every operation,
compiled from ``vta`` IR on every shipped configuration, computes on the simulator what numpy
computes."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import arith

from vta_mlir import compile, isa
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.dialects import vta, vtaisa
from vta_mlir.isa import AluInsn, AluKind, decode_insn, encode_insn, format_insn
from vta_mlir.passes.analysis.alu_ops import ALU_KINDS, ARITH_ALU_OPS, COMMUTATIVE

#: The keywords and ``alu_opcode`` values of docs/isa.md §2.5, in the order the ISA lists them.
SPEC = {"min": 0, "max": 1, "add": 2, "shr": 3, "mul": 4}


def test_one_enumeration_under_every_name() -> None:
    assert isa.AluOp is AluKind
    assert vta.AluKind is AluKind
    assert [(k.value, k.opcode) for k in AluKind] == list(SPEC.items())


@pytest.mark.parametrize(("keyword", "opcode"), SPEC.items())
def test_lookups(keyword: str, opcode: int) -> None:
    kind = AluKind(keyword)
    assert AluKind(opcode) is kind and AluKind.from_opcode(opcode) is kind
    assert AluKind[keyword.upper()] is kind and str(kind) == keyword and int(kind) == opcode


def test_no_such_operation() -> None:
    assert AluKind.from_opcode(5) is None
    for value in (5, "sub", True):
        with pytest.raises(ValueError):
            AluKind(value)


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("kind", list(AluKind))
def test_encoding_and_text(name: str, kind: AluKind) -> None:
    cfg = VTAConfig.shipped(name)
    insn = AluInsn(alu_opcode=kind.opcode, uop_end=1, iter_out=1, iter_in=1, use_imm=1, imm=-3)
    word = encode_insn(insn, cfg)
    field = cfg.alu_fields["alu_opcode"]
    assert (word >> field.lsb) & field.mask == SPEC[kind.value]
    assert decode_insn(word, cfg) == insn
    assert format_insn(insn).startswith(f"ALU {kind.value.upper()} ")
    assert str(vtaisa.insn_to_op(insn)).startswith(f"vtaisa.alu {kind.value} uop 0 to 1")
    assert str(vta.AluKindAttr(kind)) == f"#vta<alu_op {kind.value}>"


def test_pack_names_operations_by_the_enumeration() -> None:
    assert set(ALU_KINDS) == set(AluKind)
    assert ARITH_ALU_OPS[arith.SubiOp] == (AluKind.ADD, True)
    assert ARITH_ALU_OPS[arith.ShLIOp] == (AluKind.SHR, True)
    assert {ALU_KINDS[kind] for kind, negated in ARITH_ALU_OPS.values() if not negated} == \
        set(ALU_KINDS.values())
    assert COMMUTATIVE == set(AluKind) - {AluKind.SHR}


def _program(kind: AluKind, imm: int, cfg: VTAConfig, n: int) -> str:
    """``C = op(A, B)`` (tensor operand) and ``D = op(B, imm)`` in the accumulator, stored as
    int8."""
    elem = f"{cfg.batch}x{cfg.block_out}"
    acc = f"memref<{n}x{elem}xi32, #vta.sram<acc>>"
    wide, narrow = f"memref<1x{n}x{elem}xi32>", f"memref<1x{n}x{elem}xi8>"
    copy = f"y 1 x {n} stride {n}"
    return f"""
func.func @f(%A: {wide}, %B: {wide}, %C: {narrow}, %D: {narrow}) {{
  %a = memref.alloc() : {acc}
  %b = memref.alloc() : {acc}
  vta.stage compute {{
    vta.dma_copy %A[0] -> %a[0] {copy} : {wide} -> {acc}
    vta.dma_copy %B[0] -> %b[0] {copy} : {wide} -> {acc}
    vta.uop_loop {n} dst 1 src 1 {{
      vta.alu {kind.value} %a[0], %b[0] : {acc}, {acc}
    }}
    vta.uop_loop {n} dst 1 {{
      vta.alu {kind.value} %b[0], {imm} : {acc}
    }}
    vta.dep_push compute -> store
  }}
  vta.stage store {{
    vta.dep_pop compute -> store
    vta.dma_copy %a[0] -> %C[0] {copy} : {acc} -> {narrow}
    vta.dma_copy %b[0] -> %D[0] {copy} : {acc} -> {narrow}
  }}
  func.return
}}
"""


def _numpy(kind: AluKind, x: np.ndarray, y: np.ndarray | int) -> np.ndarray:
    """The operation on int32 with wrap-around (shift amounts here are 0..31)."""
    x64, y64 = x.astype(np.int64), np.asarray(y, dtype=np.int64)
    full = {
        AluKind.MIN: np.minimum(x64, y64),
        AluKind.MAX: np.maximum(x64, y64),
        AluKind.ADD: x64 + y64,
        AluKind.MUL: x64 * y64,
        AluKind.SHR: x64 >> y64,
    }[kind]
    return (full & 0xFF).astype(np.uint8).view(np.int8)


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("kind", list(AluKind))
def test_every_operation_on_the_simulator(name: str, kind: AluKind) -> None:
    cfg = VTAConfig.shipped(name)
    n, imm = 4, 3 if kind == AluKind.SHR else -7
    rng = np.random.default_rng(SPEC[kind.value])
    shape = (1, n, cfg.batch, cfg.block_out)
    a = rng.integers(-100_000, 100_000, size=shape, dtype=np.int32)
    high = 32 if kind == AluKind.SHR else 100_000
    b = rng.integers(0 if kind == AluKind.SHR else -high, high, size=shape, dtype=np.int32)
    with compile(_program(kind, imm, cfg, n), config=cfg) as module:
        c, d = module(A=a, B=b)
    assert np.array_equal(c, _numpy(kind, a, b))
    assert np.array_equal(d, _numpy(kind, b, imm))
