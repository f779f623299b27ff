"""``vta-tensorize`` on hand-written stage-3 programs (``docs/pipeline.md``), alone and followed by
``vta-fold-uop-loops``: the micro-ops and loops it makes, its diagnostics, and bit-exact runs of
the lowered programs on the simulator against numpy, for every shipped configuration.

The programs are written with their ``vta.stage`` / ``vta.dep_*`` ops around the linalg ops (the
token protocol of ``docs/pipeline.md`` §6), so after the two passes they are complete
stage-6 programs that ``vta_mlir.host.lowering.lower_to_binary`` turns into a binary.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import affine, memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.linalg import ops as linalg

from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.dialects.vta import AluOp, GemmOp, GemmResetOp, UopLoopOp, set_module_config
from vta_mlir.ir.context import make_context, parse_module, print_module
from vta_mlir.ir.diagnostics import DiagnosticError, verify_op
from vta_mlir.ir.locations import location_of
from vta_mlir.isa import AluInsn, GemmInsn
from vta_mlir.passes.fold_uop_loops import FoldUopLoopsPass
from vta_mlir.passes.tensorize import TensorizePass

# ---------------------------------------------------------------------------------------------
# Helpers


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


# ---------------------------------------------------------------------------------------------
# A tiled dense layer (matrix_multiply_opt): fill, contraction, shr / max / min, DMA copies


def dense_program(
    cfg: VTAConfig, *, rows: int = 1, ob: int = 4, kb: int = 4, n_oc: int = 2, n_ic: int = 2,
    shift: int = 8, lo: int = 0, hi: int = 127,
) -> str:
    """Stage-3 IR of ``y = clip(x · wᵀ >> shift, lo, hi)`` on packed layouts: ``rows`` rows of
    input elements, ``kb`` input and ``ob`` output blocks, tiled ``n_oc`` × ``n_ic``."""
    b, bl = cfg.batch, cfg.block_in
    to, ti = ob // n_oc, kb // n_ic
    x_t = f"memref<{rows}x{kb}x{b}x{bl}xi8>"
    w_t = f"memref<{ob}x{kb}x{bl}x{bl}xi8>"
    y_t = f"memref<{rows}x{ob}x{b}x{bl}xi8>"
    inp_t = f"memref<{rows}x{ti}x{b}x{bl}xi8, #vta.sram<inp>>"
    wgt_t = f"memref<{to}x{ti}x{bl}x{bl}xi8, #vta.sram<wgt>>"
    acc_t = f"memref<{rows}x{to}x{b}x{bl}xi32, #vta.sram<acc>>"
    par4 = '["parallel", "parallel", "parallel", "parallel"]'
    return f"""
#x = affine_map<(b, o, i, bb, oo, ii) -> (b, i, bb, ii)>
#w = affine_map<(b, o, i, bb, oo, ii) -> (o, i, oo, ii)>
#a = affine_map<(b, o, i, bb, oo, ii) -> (b, o, bb, oo)>
#id = affine_map<(b, o, bb, oo) -> (b, o, bb, oo)>
func.func @dense(%x: {x_t}, %w: {w_t}, %y: {y_t}) {{
  %c0 = arith.constant 0 : i32
  %cs = arith.constant {shift} : i32
  %chi = arith.constant {hi} : i32
  %inp = memref.alloc() : {inp_t}
  %wgt = memref.alloc() : {wgt_t}
  %acc = memref.alloc() : {acc_t}
  vta.stage store {{
    vta.dep_push store -> compute
  }}
  affine.for %oc = 0 to {n_oc} {{
    vta.stage compute {{
      vta.dep_pop store -> compute
      linalg.fill ins(%c0 : i32) outs(%acc : {acc_t})
      vta.dep_push compute -> load
    }}
    affine.for %ic = 0 to {n_ic} {{
      %xo = affine.apply affine_map<(d0) -> (d0 * {ti})>(%ic)
      %wo = affine.apply affine_map<(d0, d1) -> (d0 * {to * kb} + d1 * {ti})>(%oc, %ic)
      vta.stage load {{
        vta.dep_pop compute -> load
        vta.dma_copy %x[%xo] -> %inp[0] y {rows} x {ti} stride {kb} : {x_t} -> {inp_t}
        vta.dma_copy %w[%wo] -> %wgt[0] y {to} x {ti} stride {kb} : {w_t} -> {wgt_t}
        vta.dep_push load -> compute
      }}
      vta.stage compute {{
        vta.dep_pop load -> compute
        linalg.generic {{indexing_maps = [#x, #w, #a], iterator_types = ["parallel", "parallel",
                         "reduction", "parallel", "parallel", "reduction"]}}
            ins(%inp, %wgt : {inp_t}, {wgt_t}) outs(%acc : {acc_t}) {{
        ^bb0(%xv: i8, %wv: i8, %av: i32):
          %0 = arith.extsi %xv : i8 to i32
          %1 = arith.extsi %wv : i8 to i32
          %2 = arith.muli %0, %1 : i32
          %3 = arith.addi %av, %2 : i32
          linalg.yield %3 : i32
        }}
        vta.dep_push compute -> load
      }}
    }}
    vta.stage load {{
      vta.dep_pop compute -> load
    }}
    vta.stage compute {{
      linalg.generic {{indexing_maps = [#id, #id], iterator_types = {par4}}}
          ins(%acc : {acc_t}) outs(%acc : {acc_t}) {{
      ^bb0(%in: i32, %out: i32):
        %0 = arith.shrsi %in, %cs : i32
        linalg.yield %0 : i32
      }}
      linalg.generic {{indexing_maps = [#id], iterator_types = {par4}}} outs(%acc : {acc_t}) {{
      ^bb0(%out: i32):
        %lo = arith.constant {lo} : i32
        %0 = arith.maxsi %out, %lo : i32
        linalg.yield %0 : i32
      }}
      linalg.generic {{indexing_maps = [#id, #id], iterator_types = {par4}}}
          ins(%acc : {acc_t}) outs(%acc : {acc_t}) {{
      ^bb0(%in: i32, %out: i32):
        %0 = arith.minsi %chi, %in : i32
        linalg.yield %0 : i32
      }}
      vta.dep_push compute -> store
    }}
    %yo = affine.apply affine_map<(d0) -> (d0 * {to})>(%oc)
    vta.stage store {{
      vta.dep_pop compute -> store
      vta.dma_copy %acc[0] -> %y[%yo] y {rows} x {to} stride {ob} : {acc_t} -> {y_t}
      vta.dep_push store -> compute
    }}
  }}
  vta.stage compute {{
    vta.dep_pop store -> compute
  }}
  return
}}
"""


def dense_reference(x: np.ndarray, w: np.ndarray, shift: int, lo: int, hi: int) -> np.ndarray:
    acc = np.einsum("ribk,oijk->robj", x.astype(np.int64), w.astype(np.int64))
    acc = acc.astype(np.int32) >> shift
    return np.clip(acc, lo, hi).astype(np.int8)


def test_dense_structure_default() -> None:
    """The tile of docs/pipeline.md: one reset kernel, one 2-level GEMM kernel and three ALU
    kernels, with the factors of TVM's matrix_multiply_opt."""
    cfg = VTAConfig.shipped("default")
    module = compile_ir(dense_program(cfg, ob=64, kb=64, n_oc=4, n_ic=4), cfg)
    assert not ops_of(module, linalg.GenericOp) and not ops_of(module, linalg.FillOp)
    kernels = [k for k in ops_of(module, UopLoopOp) if k.is_kernel]
    shape = [[(lp.field("extent"), lp.field("dst_factor"), lp.field("src_factor"),
               lp.field("wgt_factor")) for lp in k.loops()] for k in kernels]
    assert shape == [
        [(16, 1, 0, 0)],                        # reset
        [(16, 1, 0, 16), (16, 0, 1, 1)],        # GEMM: o outer, i inner
        [(16, 1, 1, 0)], [(16, 1, 1, 0)], [(16, 1, 1, 0)],  # shr, max, min
    ]
    alus = ops_of(module, AluOp)
    assert [(a.kind.value, a.imm_value) for a in alus] == [("shr", 8), ("max", 0), ("min", 127)]
    for uop in [*ops_of(module, GemmOp), *alus]:
        assert all(index is None and offset == 0
                   for _, _, index, offset, _ in uop.operand_positions())


def test_tensorize_only_loops(cfg: VTAConfig) -> None:
    """Without folding: loops over the element dimensions (extent-1 dimensions dropped), the
    innermost the last one, around one micro-op each."""
    module = compile_ir(dense_program(cfg), cfg, fold=False)
    gemms = ops_of(module, GemmOp)
    assert len(gemms) == 1
    nest = []
    parent = gemms[0].parent_op()
    while isinstance(parent, affine.ForOp):
        nest.append(parent.upperBoundMap.data.results[0].value)  # type: ignore[attr-defined]
        parent = parent.parent_op()
    assert nest == [2, 2]  # i (innermost), o


def test_locations_kept() -> None:
    cfg = VTAConfig.shipped("default")
    text = dense_program(cfg)
    module = compile_ir(text, cfg)
    lines = text.splitlines()
    for uop in [*ops_of(module, GemmOp), *ops_of(module, AluOp)]:
        loc = location_of(uop)
        assert loc is not None and loc.file == "test.mlir"
        assert lines[loc.line - 1].lstrip().startswith("linalg.")


@pytest.mark.parametrize("rows", [1, 2])
def test_dense_runs_bit_exact(cfg: VTAConfig, rows: int) -> None:
    shift, lo, hi = 7, -5, 100
    module = compile_ir(dense_program(cfg, rows=rows, shift=shift, lo=lo, hi=hi), cfg)
    rng = np.random.default_rng(rows)
    b, bl = cfg.batch, cfg.block_in
    x = rng.integers(-128, 128, (rows, 4, b, bl), dtype=np.int8)
    w = rng.integers(-128, 128, (4, 4, bl, bl), dtype=np.int8)
    (y,), binary = run_on_device(module, cfg, x, w)
    np.testing.assert_array_equal(y, dense_reference(x, w, shift, lo, hi))
    gemm, alu = compute_insns(binary)
    # Per output tile: a reset and a GEMM per input tile (each one kernel per row of input
    # elements: the row loop stays on the host), then three ALU kernels.
    assert gemm == 2 * (1 + 2 * rows)
    assert alu == 2 * 3


def test_dense_fewer_instructions_than_unfolded() -> None:
    cfg = VTAConfig.shipped("default")
    rng = np.random.default_rng(1)
    x = rng.integers(-128, 128, (1, 4, 1, 16), dtype=np.int8)
    w = rng.integers(-128, 128, (4, 4, 16, 16), dtype=np.int8)
    text = dense_program(cfg)
    (y1,), folded = run_on_device(compile_ir(text, cfg), cfg, x, w)
    (y0,), unfolded = run_on_device(compile_ir(text, cfg, fold=False), cfg, x, w)
    np.testing.assert_array_equal(y0, y1)
    assert compute_insns(unfolded) == (2 * (2 + 2 * 4), 2 * 3 * 2)
    assert compute_insns(folded) == (2 * 3, 2 * 3)


# ---------------------------------------------------------------------------------------------
# Element-wise ALU operations and fills on accumulators loaded from DRAM


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


ALU_CASES = {
    # name: (linalg body, numpy of (a, b), ALU op and immediate of the kernel)
    "add_tensor": (elementwise("arith.addi", "%o", "%x"), lambda a, b: a + b, ("add", None)),
    "add_transposed": (
        elementwise("arith.addi", "%x", "%o", in_map="#tr"),
        lambda a, b: a + b.transpose(1, 0, 2, 3),
        ("add", None),
    ),
    "max_tensor": (elementwise("arith.maxsi", "%x", "%o"), np.maximum, ("max", None)),
    "min_imm": (
        elementwise("arith.minsi", "%c", "%o", const="%c = arith.constant -3 : i32"),
        lambda a, b: np.minimum(a, -3),
        ("min", -3),
    ),
    "sub_imm": (
        elementwise("arith.subi", "%o", "%c", const="%c = arith.constant 1000 : i32"),
        lambda a, b: a - 1000,
        ("add", -1000),
    ),
    "shl_imm": (
        elementwise("arith.shli", "%o", "%c", const="%c = arith.constant 3 : i32"),
        lambda a, b: a << 3,
        ("shr", -3),
    ),
    "shr_imm": (
        elementwise("arith.shrsi", "%x", "%c", ins="%sa", const="%c = arith.constant 2 : i32"),
        lambda a, b: a >> 2,
        ("shr", 2),
    ),
    "mul_imm": (
        elementwise("arith.muli", "%c", "%o", const="%c = arith.constant -7 : i32"),
        lambda a, b: a * -7,
        ("mul", -7),
    ),
    "add_self": (elementwise("arith.addi", "%o", "%x", ins="%sa"), lambda a, b: a + a,
                 ("add", None)),
}


@pytest.mark.parametrize("case", sorted(ALU_CASES))
def test_alu_micro_op(case: str) -> None:
    cfg = VTAConfig.shipped("default")
    body, _, (kind, imm) = ALU_CASES[case]
    module = compile_ir(alu_program(cfg, body), cfg)
    (alu,) = ops_of(module, AluOp)
    assert alu.kind.value == kind
    assert (alu.imm_value if alu.use_imm else None) == imm
    (kernel,) = ops_of(module, UopLoopOp)[:1]
    levels = kernel.loops()
    if case == "add_transposed":
        # dst walks p then q, the source q then p: two levels that cannot merge.
        assert [(lp.field("extent"), lp.field("dst_factor"), lp.field("src_factor"))
                for lp in levels] == [(4, 4, 1), (4, 1, 4)]
    else:
        # The two element loops are contiguous: one level of 16.
        assert [(lp.field("extent"), lp.field("dst_factor")) for lp in levels] == [(16, 1)]


@pytest.mark.parametrize("case", sorted(ALU_CASES))
def test_alu_runs_bit_exact(cfg: VTAConfig, case: str) -> None:
    body, reference, _ = ALU_CASES[case]
    module = compile_ir(alu_program(cfg, body), cfg)
    rng = np.random.default_rng(7)
    shape = (1, 16, cfg.batch, cfg.block_out)
    a = rng.integers(-(1 << 20), 1 << 20, shape, dtype=np.int32)
    b = rng.integers(-(1 << 20), 1 << 20, shape, dtype=np.int32)
    (y,), binary = run_on_device(module, cfg, a, b)
    grid = (4, 4, cfg.batch, cfg.block_out)
    with np.errstate(over="ignore"):
        expected = reference(a.reshape(grid), b.reshape(grid)).astype(np.int32)
    np.testing.assert_array_equal(y, expected.reshape(shape).astype(np.int8))
    assert compute_insns(binary) == (0, 1)


FILL = """
    %cv = arith.constant {value} : i32
    linalg.fill ins(%cv : i32) outs(%sa : !acc)"""


@pytest.mark.parametrize("value", [0, -7, 300])
def test_fill(value: int) -> None:
    cfg = VTAConfig.shipped("default")
    module = compile_ir(alu_program(cfg, FILL.format(value=value)), cfg)
    assert len(ops_of(module, GemmResetOp)) == 1
    assert not ops_of(module, GemmOp)
    alus = ops_of(module, AluOp)
    assert [(a.kind.value, a.imm_value) for a in alus] == ([("add", value)] if value else [])


@pytest.mark.parametrize("value", [0, -7, 300])
def test_fill_runs_bit_exact(cfg: VTAConfig, value: int) -> None:
    # Fill, then add b: the result is b + value (truncated to int8 by the store).
    body = FILL.format(value=value) + elementwise("arith.addi", "%o", "%x")
    module = compile_ir(alu_program(cfg, body), cfg)
    rng = np.random.default_rng(3)
    shape = (1, 16, cfg.batch, cfg.block_out)
    a = rng.integers(-1000, 1000, shape, dtype=np.int32)
    b = rng.integers(-1000, 1000, shape, dtype=np.int32)
    (y,), binary = run_on_device(module, cfg, a, b)
    np.testing.assert_array_equal(y, (b + value).astype(np.int8))
    assert compute_insns(binary) == (1, 1 + (value != 0))


# ---------------------------------------------------------------------------------------------
# More contraction shapes


def test_contraction_general_subscripts() -> None:
    """A conv-like contraction: the input row is ``h + kh``; positions are affine.apply of the
    loop variables, linearised over each buffer's leading dimensions."""
    text = """
#x = affine_map<(h, o, kh, bb, oo, ii) -> (h + kh, bb, ii)>
#w = affine_map<(h, o, kh, bb, oo, ii) -> (o, kh, oo, ii)>
#a = affine_map<(h, o, kh, bb, oo, ii) -> (h, o, bb, oo)>
func.func @conv(%inp: memref<6x1x16xi8, #vta.sram<inp>>, %wgt: memref<2x3x16x16xi8, #vta.sram<wgt>>,
                %acc: memref<4x2x1x16xi32, #vta.sram<acc>>) {
  linalg.generic {indexing_maps = [#x, #w, #a], iterator_types = ["parallel", "parallel",
                   "reduction", "parallel", "parallel", "reduction"]}
      ins(%inp, %wgt : memref<6x1x16xi8, #vta.sram<inp>>, memref<2x3x16x16xi8, #vta.sram<wgt>>)
      outs(%acc : memref<4x2x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%xv: i8, %wv: i8, %av: i32):
    %0 = arith.extsi %xv : i8 to i32
    %1 = arith.extsi %wv : i8 to i32
    %2 = arith.muli %1, %0 : i32
    %3 = arith.addi %2, %av : i32
    linalg.yield %3 : i32
  }
  return
}
"""
    cfg = VTAConfig.shipped("default")
    module = compile_ir(text, cfg, fold=False)
    printed = print_module(module)
    assert "affine.for %0 = 0 to 4" in printed
    assert "affine.for %1 = 0 to 2" in printed
    assert "affine.for %2 = 0 to 3" in printed
    assert "affine.apply affine_map<(d0, d1) -> (((d0 * 2) + d1))> (%0, %1)" in printed
    assert "affine.apply affine_map<(d0, d1) -> ((d0 + d1))> (%0, %2)" in printed
    assert "affine.apply affine_map<(d0, d1) -> (((d0 * 3) + d1))> (%1, %2)" in printed
    folded = compile_ir(text, cfg)
    (kernel,) = [k for k in ops_of(folded, UopLoopOp) if k.is_kernel]
    assert [(lp.field("extent"), lp.field("dst_factor"), lp.field("src_factor"),
             lp.field("wgt_factor")) for lp in kernel.loops()] == [(2, 1, 0, 3), (3, 0, 1, 1)]


# ---------------------------------------------------------------------------------------------
# What stays and what is reported


def test_untouched_ops() -> None:
    """DMA copies, host loops and linalg on DRAM are not the pass's business."""
    text = """
func.func @host(%x: memref<4x1x16xi32>, %y: memref<4x1x16xi32>) {
  %c1 = arith.constant 1 : i32
  linalg.fill ins(%c1 : i32) outs(%x : memref<4x1x16xi32>)
  affine.for %i = 0 to 4 {
    %acc = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
    vta.dma_copy %x[0] -> %acc[0] y 1 x 4 stride 4
        : memref<4x1x16xi32> -> memref<4x1x16xi32, #vta.sram<acc>>
  }
  return
}
"""
    ctx = make_context()
    module = parse_module(text, ctx=ctx)
    before = print_module(module)
    TensorizePass().apply(ctx, module)
    assert print_module(module) == before


ERRORS = {
    "fill of an input buffer": (
        """
func.func @f(%inp: memref<4x1x16xi8, #vta.sram<inp>>) {
  %c0 = arith.constant 0 : i8
  linalg.fill ins(%c0 : i8) outs(%inp : memref<4x1x16xi8, #vta.sram<inp>>)
  return
}""",
        4,
        "fills a #vta.sram<inp> buffer",
    ),
    "division": (
        """
#m = affine_map<(a, b, c) -> (a, b, c)>
func.func @f(%acc: memref<4x1x16xi32, #vta.sram<acc>>) {
  %c = arith.constant 3 : i32
  linalg.generic {indexing_maps = [#m], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%acc : memref<4x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%o: i32):
    %0 = arith.divsi %o, %c : i32
    linalg.yield %0 : i32
  }
  return
}""",
        5,
        "'arith.divsi' is not an ALU operation",
    ),
    "wrong element shape": (
        """
#m = affine_map<(a, b, c) -> (a, b, c)>
func.func @f(%acc: memref<4x1x8xi32, #vta.sram<acc>>) {
  %c = arith.constant 3 : i32
  linalg.generic {indexing_maps = [#m], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%acc : memref<4x1x8xi32, #vta.sram<acc>>) {
  ^bb0(%o: i32):
    %0 = arith.addi %o, %c : i32
    linalg.yield %0 : i32
  }
  return
}""",
        5,
        "must be shaped [elements...]x1x16",
    ),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_at_the_op(case: str) -> None:
    text, line, message = ERRORS[case]
    cfg = VTAConfig.shipped("default")
    with pytest.raises(DiagnosticError) as info:
        compile_ir(text, cfg)
    diagnostic = info.value.diagnostic
    assert message in diagnostic.message
    assert diagnostic.message.startswith("'linalg.")
    assert diagnostic.location is not None and diagnostic.location.line == line


def test_error_leaves_module_unchanged() -> None:
    """Everything is matched before anything is rewritten."""
    cfg = VTAConfig.shipped("default")
    text = alu_program(cfg, FILL.format(value=1) + elementwise("arith.divsi", "%o", "%x"))
    ctx = make_context()
    module = parse_module(text, ctx=ctx)
    before = print_module(module)
    with pytest.raises(DiagnosticError):
        TensorizePass().apply(ctx, module)
    assert print_module(module) == before


def test_shipped_configurations_listed() -> None:
    assert set(SHIPPED_CONFIGS) == {"default", "block32", "batch2"}


# ---------------------------------------------------------------------------------------------
# SRAM subviews: micro-ops on windows of a buffer (double-buffer copies, host offsets)


def windows_program(cfg: VTAConfig, *, n: int = 4, t: int = 2, permuted: bool = False) -> str:
    """Stage-3 IR of ``y = int8(max(a[0] + a[1], 0) >> 1)`` on the two row halves of an
    accumulator buffer, ``t`` elements at a time through subviews at host offsets; with
    ``permuted`` the second operand's window is the other one (offset ``((j + 1) mod 2) * t``,
    a non-linear base position)."""
    b, bo = cfg.batch, cfg.block_out
    a_t = f"memref<2x{n}x{b}x{bo}xi32>"
    y_t = f"memref<1x{n}x{b}x{bo}xi8>"
    acc_t = f"memref<2x{n}x{b}x{bo}xi32, #vta.sram<acc>>"
    win_t = (f"memref<1x{t}x{b}x{bo}xi32, strided<[{n * b * bo}, {b * bo}, {bo}, 1], "
             f"offset: ?>, #vta.sram<acc>>")
    other = "(d0 + 1) mod 2" if permuted else "d0"
    idm = "affine_map<(p, q, bb, oo) -> (p, q, bb, oo)>"
    par4 = '["parallel", "parallel", "parallel", "parallel"]'
    return f"""
func.func @windows(%a: {a_t}, %y: {y_t}) {{
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = memref.alloc() : {acc_t}
  vta.dma_copy %a[0] -> %acc[0] y 1 x {2 * n} stride {2 * n} : {a_t} -> {acc_t}
  affine.for %j = 0 to {n // t} {{
    %k = affine.apply affine_map<(d0) -> (d0 * {t})>(%j)
    %m = affine.apply affine_map<(d0) -> (({other}) * {t})>(%j)
    %lo = memref.subview %acc[0, %k, 0, 0] [1, {t}, {b}, {bo}] [1, 1, 1, 1] : {acc_t} to {win_t}
    %hi = memref.subview %acc[1, %m, 0, 0] [1, {t}, {b}, {bo}] [1, 1, 1, 1] : {acc_t} to {win_t}
    linalg.generic {{indexing_maps = [{idm}, {idm}], iterator_types = {par4}}}
        ins(%hi : {win_t}) outs(%lo : {win_t}) {{
    ^bb0(%in: i32, %out: i32):
      %r = arith.addi %out, %in : i32
      linalg.yield %r : i32
    }}
    linalg.generic {{indexing_maps = [{idm}], iterator_types = {par4}}} outs(%lo : {win_t}) {{
    ^bb0(%out: i32):
      %r = arith.maxsi %out, %c0 : i32
      linalg.yield %r : i32
    }}
    linalg.generic {{indexing_maps = [{idm}], iterator_types = {par4}}} outs(%lo : {win_t}) {{
    ^bb0(%out: i32):
      %r = arith.shrsi %out, %c1 : i32
      linalg.yield %r : i32
    }}
  }}
  vta.dma_copy %acc[0] -> %y[0] y 1 x {n} stride {n} : {acc_t} -> {y_t}
  return
}}
"""


def windows_reference(a: np.ndarray, t: int, permuted: bool) -> np.ndarray:
    lo, hi = a[0].astype(np.int64), a[1].astype(np.int64)
    if permuted:
        n = lo.shape[0]
        hi = np.concatenate([hi[((j // t + 1) % (n // t)) * t:][:t] for j in range(0, n, t)])
    return (np.maximum(lo + hi, 0) >> 1).astype(np.int8)[None]


def test_subview_positions_use_the_buffer() -> None:
    """Micro-ops address the buffer a view is of; the view's offset is one value computed
    before the loops (loop-invariant), and the subviews are erased."""
    cfg = VTAConfig.shipped("default")
    module = compile_ir(windows_program(cfg, permuted=True), cfg, fold=False)
    assert not ops_of(module, memref.SubviewOp)
    add = next(a for a in ops_of(module, AluOp) if not a.use_imm)
    (_, dst, dst_index, _, _), (_, src, src_index, src_off, _) = add.operand_positions()
    acc = next(op for op in ops_of(module, memref.AllocOp)).memref
    assert dst is acc and src is acc
    loop = add.parent_op()
    assert isinstance(loop, affine.ForOp)
    # The source window's base, (j + 1) mod 2 windows in the second half: outside the loop.
    base = src_index.owner.operands[-1]
    assert not loop.is_ancestor(base.owner)
    assert str(base.owner.map.data) == "(d0) -> ((((d0 + 1) mod 2) * 2))"
    assert src_off == 4 and dst_index is not None


@pytest.mark.parametrize("permuted", [False, True])
def test_subviews_fold_and_run_bit_exact(cfg: VTAConfig, permuted: bool) -> None:
    """The loops over each window fold into a micro-kernel whose base position is the
    window's offset, and the program computes numpy's result."""
    from vta_mlir.passes.coproc_sync import CoprocSyncPass

    n, t = 4, 2
    module = compile_ir(windows_program(cfg, n=n, t=t, permuted=permuted), cfg)
    kernels = [k for k in ops_of(module, UopLoopOp) if k.is_kernel]
    assert len(kernels) == 3
    # The host loop over the windows holds three kernels: it stays.
    assert len(ops_of(module, affine.ForOp)) == 1
    CoprocSyncPass().apply(make_context(), module)
    rng = np.random.default_rng(3)
    a = rng.integers(-1000, 1000, (2, n, cfg.batch, cfg.block_out)).astype(np.int32)
    (y,), _ = run_on_device(module, cfg, a)
    np.testing.assert_array_equal(y, windows_reference(a, t, permuted))
