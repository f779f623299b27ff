"""``vta-tile``: the cost model's choices and the stage-2 IR it produces, and what that IR
computes.

* the chosen tiles fit the SRAMs of every shipped configuration (doubled buffers twice), and
  explicit ``tile=`` / ``double-buffer=`` options are honoured or rejected with a diagnostic
  naming the SRAM;
* the cost model uses the timing model's instruction costs (``cfg.timing``);
* the stage-2 IR, run by a small numpy evaluator of the ops it contains, computes what the
  stage-1 region computes (and, for the dense layer, what numpy computes), for the examples on
  every shipped configuration, automatic and forced tilings, remainder tiles included;
* double buffering has the representation ``vta-coproc-sync`` expects.

The rest of ``vta-to-isa`` after the tiler is in ``test_tile_simulator.py``, every schedule
the cost model may pick in ``test_tile_schedules.py``."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import affine

from vta_mlir.config import SHIPPED_CONFIGS, TimingParams, VTAConfig
from vta_mlir.dialects.vta import Sram, set_module_config, sram_space
from vta_mlir.ir.context import parse_module, print_module
from vta_mlir.ir.diagnostics import DiagnosticError, collect_diagnostics, verify_op
from vta_mlir.passes.pack import PackPass
from vta_mlir.passes.tile import DOUBLE_BUFFER_ATTR
from vta_mlir.passes.tile.cost import Budget, NoFit, RegionShape, Residency, estimate, footprint
from vta_mlir.passes.tile.search import choose_plan

from .tile_helpers import (
    CONFIGS,
    EXAMPLE_NAMES,
    MMO,
    depth,
    elements,
    module_args,
    packed,
    run_function,
    sram_allocs,
    tiled,
)

# ---------------------------------------------------------------------------------------------
# Cost model


@pytest.mark.parametrize("cfg_name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("shape", [
    MMO,
    RegionShape(b=32, o=48, i=96, inits=("bcast",), alu_imm=3),
    RegionShape(b=1, o=67, i=67, inits=("fill",), alu_imm=1),
    RegionShape(b=200, o=3, i=0, inits=("load", "load"), alu_tensor=1),
])
def test_chosen_tiles_fit(cfg_name: str, shape: RegionShape) -> None:
    cfg = CONFIGS[cfg_name]
    budget = Budget(cfg.inp_buff_depth, cfg.wgt_buff_depth, cfg.acc_buff_depth)
    plan, est = choose_plan(shape, cfg, budget)
    use = footprint(shape, plan)
    assert use["inp"] <= cfg.inp_buff_depth and use["wgt"] <= cfg.wgt_buff_depth
    assert use["acc"] <= cfg.acc_buff_depth
    # Every weight is loaded exactly once when the input has a single row of tiles.
    if shape.i and plan.tb >= shape.b:
        assert est.wgt_bytes == shape.o * shape.i * cfg.wgt_elem_bytes
    assert est.out_bytes == shape.b * shape.o * cfg.out_elem_bytes


def test_matrix_multiply_opt_plan() -> None:
    """Weights once, input once, double-buffered under TVM's cycles (in the model)."""
    cfg = CONFIGS["default"]
    budget = Budget(cfg.inp_buff_depth, cfg.wgt_buff_depth, cfg.acc_buff_depth)
    plan, est = choose_plan(MMO, cfg, budget)
    assert est.wgt_bytes == 1 << 20 and est.inp_bytes == 1024 and est.out_bytes == 1024
    assert plan.double_buffer and plan.inp is Residency.ALL
    assert est.cycles <= 139_432
    # The weight buffer, doubled, fits the WGT SRAM.
    assert footprint(MMO, plan)["wgt"] <= cfg.wgt_buff_depth


def test_cost_model_reads_the_timing_parameters() -> None:
    cfg = CONFIGS["default"]
    slow = VTAConfig(timing=TimingParams(dma_latency=500, dram_bytes_per_cycle=4))
    budget = Budget(cfg.inp_buff_depth, cfg.wgt_buff_depth, cfg.acc_buff_depth)
    plan, est = choose_plan(MMO, cfg, budget)
    est_slow = estimate(MMO, plan, slow)
    assert est_slow.cycles > 2 * est.cycles
    # A long DMA latency makes fewer, larger weight loads pay more.
    plan_slow, _ = choose_plan(MMO, slow, budget)
    assert plan_slow.to >= plan.to


def test_explicit_tile_that_does_not_fit() -> None:
    cfg = CONFIGS["default"]
    budget = Budget(cfg.inp_buff_depth, cfg.wgt_buff_depth, cfg.acc_buff_depth)
    with pytest.raises(NoFit, match=r"WGT SRAM \(#vta.sram<wgt>\), which has 1024"):
        choose_plan(MMO, cfg, budget, (1, 64, 64))
    with pytest.raises(NoFit, match="two copies"):
        choose_plan(MMO, cfg, budget, (1, 16, 64), True)
    plan, _ = choose_plan(MMO, cfg, budget, (1, 16, 64), None)
    assert not plan.double_buffer
    with pytest.raises(NoFit, match="does not divide"):
        choose_plan(MMO, cfg, budget, (1, 16, 24))


# ---------------------------------------------------------------------------------------------
# Stage-2 IR and what it computes


@pytest.mark.parametrize("cfg_name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_tiled_examples_compute_the_same(name: str, cfg_name: str) -> None:
    cfg = CONFIGS[cfg_name]
    stage1 = packed(name, cfg)
    args = module_args(stage1, seed=len(name))
    want = run_function(stage1, args)
    for options in ({}, {"double_buffer": False}, {"double_buffer": True},
                    {"tile": (1, 3, 1)}, {"tile": (3, 0, 1)}):
        stage2 = tiled(stage1, **options)
        verify_op(stage2)
        for t in sram_allocs(stage2):
            space = sram_space(t)
            assert space is not None
            assert elements(t) <= depth(cfg, space)
        got = run_function(stage2, args)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w, err_msg=f"{name} {cfg_name} {options}")


def test_dense_equals_numpy() -> None:
    cfg = CONFIGS["default"]
    stage2 = tiled(packed("matrix_multiply_opt", cfg))
    x, w, y = module_args(stage2, seed=3)
    _, _, got = run_function(stage2, [x, w, y])
    acc = np.einsum("bipq,oirq->bopr", x.astype(np.int64), w.astype(np.int64)).astype(np.int32)
    np.testing.assert_array_equal(got, np.clip(acc >> 8, 0, 127).astype(np.int8))


def test_double_buffer_representation() -> None:
    stage2 = tiled(packed("matrix_multiply_opt", CONFIGS["default"]))
    loops = [op for op in stage2.walk() if isinstance(op, affine.ForOp)]
    marked = [op for op in loops if DOUBLE_BUFFER_ATTR in op.attributes]
    assert marked and all(not isinstance(op.parent_op(), affine.ForOp) for op in marked)
    doubled = [t for t in sram_allocs(stage2) if sram_space(t) in (Sram.INP, Sram.WGT)
               and len(t.get_shape()) == 5]
    assert doubled and all(t.get_shape()[0] == 2 for t in doubled)
    text = print_module(stage2)
    assert "affine_map<(d0) -> ((d0 mod 2))>" in text
    single = tiled(packed("matrix_multiply_opt", CONFIGS["default"]), double_buffer=False)
    assert DOUBLE_BUFFER_ATTR not in print_module(single)
    assert all(len(t.get_shape()) == 4 for t in sram_allocs(single))


def test_remainder_tiles() -> None:
    """67 = 16·4 + 3 output elements in tiles of 4: a peeled last tile of 3."""
    text = """
    func.func @f(%x: memref<1x1072xi8>, %w: memref<1072x1072xi8>, %y: memref<1x1072xi8>) {
      %acc = memref.alloc() : memref<1x1072xi32>
      %c0 = arith.constant 0 : i32
      linalg.fill ins(%c0 : i32) outs(%acc : memref<1x1072xi32>)
      linalg.matmul ins(%x, %w : memref<1x1072xi8>, memref<1072x1072xi8>)
          outs(%acc : memref<1x1072xi32>)
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                       affine_map<(d0, d1) -> (d0, d1)>],
                      iterator_types = ["parallel", "parallel"]}
          ins(%acc : memref<1x1072xi32>) outs(%y : memref<1x1072xi8>) {
      ^bb0(%a: i32, %o: i8):
        %t = arith.trunci %a : i32 to i8
        linalg.yield %t : i8
      }
      return
    }
    """
    stage1 = parse_module(text)
    set_module_config(stage1, CONFIGS["default"])
    PackPass().apply(None, stage1)  # type: ignore[arg-type]
    args = module_args(stage1, seed=7)
    want = run_function(stage1, args)
    stage2 = tiled(stage1, tile=(1, 4, 67))
    loops = [op for op in stage2.walk() if isinstance(op, affine.ForOp)]
    assert [op.upperBoundMap.data.eval([], [])[0] for op in loops] == [16]
    for g, w in zip(run_function(stage2, args), want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_errors_are_diagnostics() -> None:
    stage1 = packed("matrix_multiply_opt", CONFIGS["default"])
    with pytest.raises(DiagnosticError, match=r"needs 4096 elements of the WGT SRAM"):
        tiled(stage1, tile=(1, 64, 64))
    with pytest.raises(DiagnosticError, match="up to three"):
        tiled(stage1, tile=(1, 2, 3, 4))


def test_verbose_remark() -> None:
    stage1 = packed("matrix_multiply_opt", CONFIGS["default"])
    with collect_diagnostics() as found:
        tiled(stage1, verbose=True)
    assert len(found) == 1 and "double-buffered" in found[0].message


def test_idempotent() -> None:
    once = tiled(packed("dense_bias_relu", CONFIGS["default"]))
    assert print_module(tiled(once)) == print_module(once)
