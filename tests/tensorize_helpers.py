"""Helpers of the ``vta-tensorize`` tests (``test_tensorize*.py``): compiling hand-written
stage-3 programs through ``vta-tensorize`` (and ``vta-fold-uop-loops``), running them on the
simulator, and the accumulator programs of the element-wise and fill tests.
"""

from __future__ import annotations

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import set_module_config
from vta_mlir.ir.context import make_context, parse_module
from vta_mlir.ir.diagnostics import verify_op
from vta_mlir.isa import AluInsn, GemmInsn
from vta_mlir.passes.fold_uop_loops import FoldUopLoopsPass
from vta_mlir.passes.tensorize import TensorizePass

__all__ = ["FILL", "alu_program", "compile_ir", "compute_insns", "elementwise", "ops_of",
           "run_on_device"]


def compile_ir(text: str, cfg: VTAConfig, *, fold: bool = True) -> ModuleOp:
    """Parse ``text`` for ``cfg`` and run vta-tensorize (and vta-fold-uop-loops)."""
    ctx: Context = make_context()
    module = parse_module(text, ctx=ctx, filename="test.mlir")
    set_module_config(module, cfg)
    verify_op(module)
    TensorizePass().apply(ctx, module)
    if fold:
        FoldUopLoopsPass().apply(ctx, module)
    return module


def run_on_device(module: ModuleOp, cfg: VTAConfig, *inputs: np.ndarray):
    """Lower ``module``, run it on a simulated device; the outputs and the binary."""
    from vta_mlir.host.lowering import lower_to_binary
    from vta_mlir.runtime import Device

    binary = lower_to_binary(module, cfg)
    device = Device(cfg)
    outputs = device.load_module(binary)(*inputs)
    return outputs, binary


def compute_insns(binary) -> tuple[int, int]:
    """(GEMM, ALU) instructions of every run."""
    insns = [i for run in binary.program.runs for i in run.insns]
    return (sum(isinstance(i, GemmInsn) for i in insns),
            sum(isinstance(i, AluInsn) for i in insns))


def ops_of(module: ModuleOp, kind: type) -> list:
    return [op for op in module.walk() if isinstance(op, kind)]


def alu_program(cfg: VTAConfig, body: str, *, n: int = 4) -> str:
    """``a`` and ``b`` (n × n elements, int32) loaded into two accumulator buffers, ``body``
    (linalg ops on ``%sa`` / ``%sb``, type ``!acc``), ``a`` stored as int8."""
    b, bl = cfg.batch, cfg.block_out
    dram = f"memref<1x{n * n}x{b}x{bl}xi32>"
    out = f"memref<1x{n * n}x{b}x{bl}xi8>"
    acc = f"memref<{n}x{n}x{b}x{bl}xi32, #vta.sram<acc>>"
    return f"""
#id = affine_map<(p, q, bb, oo) -> (p, q, bb, oo)>
#tr = affine_map<(p, q, bb, oo) -> (q, p, bb, oo)>
func.func @alu(%a: {dram}, %b: {dram}, %y: {out}) {{
  %sa = memref.alloc() : {acc}
  %sb = memref.alloc() : {acc}
  vta.stage compute {{
    vta.dma_copy %a[0] -> %sa[0] y 1 x {n * n} stride {n * n} : {dram} -> {acc}
    vta.dma_copy %b[0] -> %sb[0] y 1 x {n * n} stride {n * n} : {dram} -> {acc}
{body.replace("!acc", acc)}
    vta.dep_push compute -> store
  }}
  vta.stage store {{
    vta.dep_pop compute -> store
    vta.dma_copy %sa[0] -> %y[0] y 1 x {n * n} stride {n * n} : {acc} -> {out}
  }}
  return
}}
"""


def elementwise(op: str, lhs: str, rhs: str, *, ins: str = "%sb", in_map: str = "#id",
                const: str = "") -> str:
    """``sa = op(lhs, rhs)`` with ``%x`` the element of ``ins`` and ``%o`` that of ``%sa``."""
    par = '["parallel", "parallel", "parallel", "parallel"]'
    return f"""
    linalg.generic {{indexing_maps = [{in_map}, #id], iterator_types = {par}}}
        ins({ins} : !acc) outs(%sa : !acc) {{
    ^bb0(%x: i32, %o: i32):
      {const}
      %r = {op} {lhs}, {rhs} : i32
      linalg.yield %r : i32
    }}"""


FILL = """
    %cv = arith.constant {value} : i32
    linalg.fill ins(%cv : i32) outs(%sa : !acc)"""
