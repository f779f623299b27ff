"""``vta-tile``: every schedule the cost model may pick, on a small region with a bias, a second
accumulator and an epilogue, computes the same (evaluated and on the simulator), and two
regions of one function share the SRAMs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from vta_mlir.dialects.vta import Sram, set_module_config, sram_space
from vta_mlir.ir.context import parse_module
from vta_mlir.ir.diagnostics import verify_op
from vta_mlir.passes.pack import PackPass
from vta_mlir.passes.tile.cost import Budget, RegionShape, estimate, replay
from vta_mlir.passes.tile.search import candidates

from .tile_helpers import (
    CONFIGS,
    depth,
    elements,
    expected_outputs,
    logical_inputs,
    module_args,
    on_simulator,
    run_function,
    sram_allocs,
    tiled,
)

# ---------------------------------------------------------------------------------------------
# Every schedule the cost model may pick, on a small region with a bias, a second accumulator
# and an extending initialisation


SMALL = """
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, d3)>
func.func @small(%x: memref<5x6x1x16xi8>, %w: memref<7x6x16x16xi8>, %bias: memref<1x7x1x16xi32>,
                 %z: memref<5x7x1x16xi8>, %y: memref<5x7x1x16xi8>) {
  %acc = memref.alloc() : memref<5x7x1x16xi32>
  linalg.generic {indexing_maps = [#bias, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<1x7x1x16xi32>) outs(%acc : memref<5x7x1x16xi32>) {
  ^bb0(%b: i32, %o: i32):
    linalg.yield %b : i32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>],
                  iterator_types = ["parallel", "parallel", "reduction",
                                    "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<5x6x1x16xi8>, memref<7x6x16x16xi8>) outs(%acc : memref<5x7x1x16xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  %z_acc = memref.alloc() : memref<5x7x1x16xi32>
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%z : memref<5x7x1x16xi8>) outs(%z_acc : memref<5x7x1x16xi32>) {
  ^bb0(%v: i8, %o: i32):
    %e = arith.extsi %v : i8 to i32
    linalg.yield %e : i32
  }
  linalg.generic {indexing_maps = [#id, #id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %z_acc : memref<5x7x1x16xi32>, memref<5x7x1x16xi32>)
      outs(%acc : memref<5x7x1x16xi32>) {
  ^bb0(%l: i32, %r: i32, %o: i32):
    %s = arith.addi %l, %r : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<5x7x1x16xi32>) outs(%acc : memref<5x7x1x16xi32>) {
  ^bb0(%v: i32, %o: i32):
    %c6 = arith.constant 6 : i32
    %r = arith.shrsi %v, %c6 : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<5x7x1x16xi32>) outs(%y : memref<5x7x1x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %acc : memref<5x7x1x16xi32>
  return
}
"""


@pytest.mark.parametrize("sample", [50, pytest.param(150, marks=pytest.mark.slow)])
def test_every_schedule_computes_the_same(monkeypatch: pytest.MonkeyPatch, sample: int) -> None:
    """A random sample of the candidate plans of a small region computes what the untiled
    region does (150 of them in the long form)."""
    import vta_mlir.passes.tile as tile_pass

    stage1 = parse_module(SMALL, filename="small.mlir")
    verify_op(stage1)
    args = module_args(stage1, seed=11)
    want = run_function(stage1, args)
    shape = RegionShape(5, 7, 6, ("bcast", "load8"), 1, 1)
    plans = list(candidates(shape, Budget(1 << 16, 1 << 16, 1 << 16)))
    kinds = {(p.b_outer, p.inp, p.wgt, p.double_buffer, 5 % p.tb > 0, 7 % p.to > 0)
             for p in plans}
    assert len(kinds) > 40  # orders, residencies, buffering and remainders all occur
    rng = np.random.default_rng(5)
    for k in rng.choice(len(plans), size=min(len(plans), sample), replace=False):
        plan = plans[int(k)]
        monkeypatch.setattr(tile_pass, "choose_plan",
                            lambda *a, plan=plan, **kw: (plan, estimate(shape, plan,
                                                                        CONFIGS["default"])))
        stage2 = tiled(stage1)
        verify_op(stage2)
        for g, w in zip(run_function(stage2, args), want, strict=True):
            np.testing.assert_array_equal(g, w, err_msg=plan.describe())


def test_schedules_on_the_simulator(monkeypatch: pytest.MonkeyPatch) -> None:
    """A spread of schedules of the small region runs correctly through the rest of the
    pipeline, and the replayed cycles stay close to the simulator's."""
    import vta_mlir.passes.tile as tile_pass

    cfg = CONFIGS["default"]
    stage1 = parse_module(SMALL, filename="small.mlir")
    set_module_config(stage1, cfg)
    shape = RegionShape(5, 7, 6, ("bcast", "load8"), 1, 1)
    by_kind: dict[tuple[Any, ...], Any] = {}
    for plan in candidates(shape, Budget(cfg.inp_buff_depth, cfg.wgt_buff_depth,
                                         cfg.acc_buff_depth)):
        by_kind.setdefault((plan.b_outer, plan.inp, plan.wgt, plan.double_buffer), plan)
    errors = []
    for plan in by_kind.values():
        monkeypatch.setattr(tile_pass, "choose_plan",
                            lambda *a, plan=plan, **kw: (plan, estimate(shape, plan, cfg)))
        _, mod = on_simulator(stage1)
        inputs = logical_inputs(mod, seed=4)
        got = mod(*inputs)
        for g, w in zip(got, expected_outputs(stage1, mod, inputs), strict=True):
            np.testing.assert_array_equal(g, w, err_msg=plan.describe())
        predicted = replay(shape, plan, cfg)
        assert predicted is not None
        errors.append(abs(predicted - mod.last_run.cycles) / mod.last_run.cycles)
    assert len(errors) >= 20 and max(errors) < 0.3 and float(np.median(errors)) < 0.1


TWO_REGIONS = """
func.func @two(%x: memref<1x1024xi8>, %w: memref<1024x1024xi8>, %v: memref<1024x512xi8>,
               %x2: memref<1x1024xi8>, %y: memref<1x1024xi8>, %z: memref<1x512xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x1024xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x1024xi32>)
  linalg.matmul ins(%x, %w : memref<1x1024xi8>, memref<1024x1024xi8>)
      outs(%acc : memref<1x1024xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<1x1024xi32>) outs(%y : memref<1x1024xi8>) {
  ^bb0(%a: i32, %o: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  }
  %acc2 = memref.alloc() : memref<1x512xi32>
  linalg.fill ins(%c0 : i32) outs(%acc2 : memref<1x512xi32>)
  linalg.matmul ins(%x2, %v : memref<1x1024xi8>, memref<1024x512xi8>)
      outs(%acc2 : memref<1x512xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc2 : memref<1x512xi32>) outs(%z : memref<1x512xi8>) {
  ^bb0(%a: i32, %o: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  }
  return
}
"""


def test_regions_share_the_srams() -> None:
    """Two regions of one function, each of which could fill the WGT SRAM alone, get tiles
    that fit together (SRAM buffers are never reused within a function)."""
    cfg = CONFIGS["default"]
    stage1 = parse_module(TWO_REGIONS, filename="two.mlir")
    set_module_config(stage1, cfg)
    PackPass().apply(None, stage1)  # type: ignore[arg-type]
    stage2 = tiled(stage1)
    for space in (Sram.INP, Sram.WGT, Sram.ACC):
        used = sum(elements(t) for t in sram_allocs(stage2) if sram_space(t) == space)
        assert used <= depth(cfg, space)
    args = module_args(stage1, seed=9)
    for g, w in zip(run_function(stage2, args), run_function(stage1, args), strict=True):
        np.testing.assert_array_equal(g, w)
    _, mod = on_simulator(stage1)
    inputs = logical_inputs(mod, seed=2)
    got = mod(*inputs)
    for g, w in zip(got, expected_outputs(stage1, mod, inputs), strict=True):
        np.testing.assert_array_equal(g, w)
    assert mod.last_run.counters["wgt_load_nbytes"] == (1024 * 1024 + 1024 * 512)
