"""``vta-tensorize`` on hand-written stage-3 programs (``docs/pipeline.md``), alone and followed by
``vta-fold-uop-loops``: the micro-ops and loops it makes for a dense layer, other contractions
and SRAM subviews, and bit-exact runs of the lowered programs on the simulator against numpy,
for every shipped configuration.  Element-wise ops and fills are in ``test_tensorize_alu.py``,
the diagnostics in ``test_tensorize_errors.py``, convolutions in ``test_tensorize_conv.py``.

The programs are written with their ``vta.stage`` / ``vta.dep_*`` ops around the linalg ops (the
token protocol of ``docs/pipeline.md`` §6), so after the two passes they are complete
stage-6 programs that ``vta_mlir.host.lowering.lower_to_binary`` turns into a binary.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import affine, memref
from xdsl.dialects.linalg import ops as linalg

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import AluOp, GemmOp, UopLoopOp
from vta_mlir.ir.context import make_context, print_module
from vta_mlir.ir.locations import location_of

from .tensorize_helpers import (
    compile_ir,
    compute_insns,
    ops_of,
    run_on_device,
)

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
