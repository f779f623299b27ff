"""``vta-tile``'s pipeline of byte planes (``passes/tile/plane_pipeline.py``, ``plane_cost.py``):
the i32 result of a product whose plan pipelines its planes is numpy's bit for bit on every
shipped configuration, its stores overlapping the compute; every pipelined plan of small
regions (a contraction, an element-wise program with a second accumulator; all steps written
out or a loop, either loop order, each residency, ``i`` steps, single buffers) computes what
the region does, and on the simulator as the replayed cycles say; ``double-buffer=false``
keeps one accumulator tile."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from vta_mlir import compile
from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import Sram, set_module_config, sram_space
from vta_mlir.ir.context import parse_module
from vta_mlir.ir.diagnostics import verify_op
from vta_mlir.passes.pack import PackPass
from vta_mlir.passes.tile.cost import Budget, Plan, RegionShape, Residency
from vta_mlir.passes.tile.plane_cost import plane_estimate, plane_replay
from vta_mlir.passes.tile.search import candidates

from .mlir_programs import i32_product
from .tile_helpers import (
    CONFIGS,
    logical_inputs,
    module_args,
    on_simulator,
    run_function,
    sram_allocs,
    tiled,
)

#: An element-wise program with an i32 result: a second accumulator (``b``) and a bias row.
ELEMENTWISE = """func.func @ew(%a: memref<6x64xi32>, %b: memref<6x64xi32>, %c: memref<64xi32>,
               %y: memref<6x64xi32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %c : memref<6x64xi32>, memref<6x64xi32>, memref<64xi32>)
      outs(%y : memref<6x64xi32>) {
  ^bb0(%u: i32, %v: i32, %s: i32, %o: i32):
    %k = arith.constant 30001 : i32
    %m = arith.muli %u, %k : i32
    %p = arith.addi %m, %v : i32
    %r = arith.addi %p, %s : i32
    linalg.yield %r : i32
  }
  return
}
"""


def _stage1(text: str, cfg: VTAConfig) -> ModuleOp:
    module = parse_module(text, filename="planes.mlir")
    set_module_config(module, cfg)
    PackPass().apply(None, module)  # type: ignore[arg-type]
    verify_op(module)
    return module


def _pipelined(module: ModuleOp, planes: int) -> bool:
    """Whether the tiled module holds an accumulator in one more copy than there are
    ``planes``."""
    return any(sram_space(t) == Sram.ACC and len(t.get_shape()) == 5
               and t.get_shape()[0] == planes + 1 for t in sram_allocs(module))


def test_a_product_pipelines_its_planes(cfg: VTAConfig) -> None:
    """32x32 . 32x96: six (default, batch2) or three (block32) tiles of one column block, the
    stores overlapping the compute; every byte of the result exact."""
    text = i32_product(32, 32, 96)
    assert _pipelined(tiled(_stage1(text, cfg)), 3)  # depth 32: 21 bits with the sign
    rng = np.random.default_rng(7)
    x = rng.integers(-128, 128, size=(32, 32), dtype=np.int8)
    w = rng.integers(-128, 128, size=(32, 96), dtype=np.int8)
    x[0, :] = -128
    w[:, 0] = -128  # the largest sum, 32 · 2^14: three bytes and the sign
    module = compile(text, config=cfg)
    (y,) = module(x, w)
    assert np.array_equal(y, x.astype(np.int32) @ w.astype(np.int32))
    stats = module.last_run
    assert stats is not None and not stats.warnings
    assert stats.cycles < stats.busy["compute"] + stats.busy["store"]


BIASED = """func.func @mm(%x: memref<32x32xi8>, %w: memref<32x96xi8>, %b: memref<96xi32>,
               %y: memref<32x96xi32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<96xi32>) outs(%y : memref<32x96xi32>) {
  ^bb0(%v: i32, %o: i32):
    linalg.yield %v : i32
  }
  linalg.matmul ins(%x, %w : memref<32x32xi8>, memref<32x96xi8>) outs(%y : memref<32x96xi32>)
  return
}
"""


def test_a_biased_product_pipelines_its_planes(cfg: VTAConfig) -> None:
    """The same product accumulating onto a per-column bias (which vta-bias-gemm may give the
    GEMM): each tile's initialisation is its bias columns."""
    assert _pipelined(tiled(_stage1(BIASED, cfg)), 4)  # the bias: any int32
    rng = np.random.default_rng(8)
    x = rng.integers(-128, 128, size=(32, 32), dtype=np.int8)
    w = rng.integers(-128, 128, size=(32, 96), dtype=np.int8)
    b = rng.integers(-2**30, 2**30, size=(96,), dtype=np.int32)
    (y,) = compile(BIASED, config=cfg)(x, w, b)
    assert np.array_equal(y, x.astype(np.int32) @ w.astype(np.int32) + b)


def test_double_buffer_false_keeps_one_accumulator_tile() -> None:
    cfg = CONFIGS["default"]
    stage1 = _stage1(i32_product(32, 32, 96), cfg)
    assert _pipelined(tiled(stage1), 3)
    assert not _pipelined(tiled(stage1, double_buffer=False), 3)


#: The regions of the sample: the shape vta-pack gives them on the default configuration.
REGIONS = {
    "product": (i32_product(6, 48, 64), RegionShape(6, 4, 3, ("fill",), 2, 0, 3)),
    "elementwise": (ELEMENTWISE, RegionShape(6, 4, 0, ("load", "load", "bcast"), 4, 2, 4)),
}
#: The same regions with every result stored as all its planes (the product's four).
ALL_PLANES = {**REGIONS, "product": (REGIONS["product"][0],
                                     RegionShape(6, 4, 3, ("fill",), 3, 0, 4))}


def _plans(shape: RegionShape) -> list[Plan]:
    return [p for p in candidates(shape, Budget(1 << 16, 1 << 16, 1 << 16)) if p.plane_pipeline]


@pytest.mark.parametrize("sample", [30, pytest.param(None, marks=pytest.mark.slow)])
@pytest.mark.parametrize("name", sorted(REGIONS))
def test_every_pipelined_plan_computes_the_same(monkeypatch: pytest.MonkeyPatch, name: str,
                                                 sample: int | None) -> None:
    """Every pipelined plan of the small regions (a random sample of 30 of a region's in the
    short form) computes what the untiled region does."""
    import vta_mlir.passes.tile as tile_pass

    cfg = CONFIGS["default"]
    text, shape = REGIONS[name]
    stage1 = _stage1(text, cfg)
    args = module_args(stage1, seed=3)
    want = run_function(stage1, args)
    plans = _plans(shape)
    kinds = {(p.b_outer, p.inp, p.wgt, p.double_buffer, p.ti < max(shape.i, 1),
              (shape.b // p.tb) * (shape.o // p.to) > shape.stores) for p in plans}
    assert len(kinds) >= (12 if shape.i else 2)
    if sample is not None and len(plans) > sample:
        rng = np.random.default_rng(5)
        plans = [plans[int(k)] for k in rng.choice(len(plans), size=sample, replace=False)]
    for plan in plans:
        monkeypatch.setattr(tile_pass, "choose_plan",
                            lambda *a, plan=plan, **kw: (plan, plane_estimate(shape, plan, cfg)))
        stage2 = tiled(stage1)
        verify_op(stage2)
        assert _pipelined(stage2, shape.stores)
        for got, expected in zip(run_function(stage2, args), want, strict=True):
            np.testing.assert_array_equal(got, expected, err_msg=plan.describe())


def _numpy(name: str, inputs: list[np.ndarray]) -> np.ndarray:
    """What the region ``name`` computes, in int64 wrapped to int32."""
    if name == "product":
        x, w = inputs
        wide = x.astype(np.int64) @ w.astype(np.int64)
    else:
        a, b, c = (v.astype(np.int64) for v in inputs)
        wide = a * 30001 + b + c
    return ((wide + 2**31) % 2**32 - 2**31).astype(np.int32)


def _spread(shape: RegionShape) -> list[Plan]:
    """The largest tiles of each kind: all steps written out or a loop, residencies, ``i``
    steps; and of the double-buffered ones, one in the other loop order and one single-buffered
    (the same tiles)."""
    by_kind: dict[tuple[Any, ...], Plan] = {}
    for p in sorted(_plans(shape), key=lambda p: -p.tb * p.to * p.ti):
        tiles = (shape.b // p.tb) * (shape.o // p.to)
        if p.b_outer and (p.double_buffer or shape.i == 0):
            by_kind.setdefault((tiles > shape.stores, p.inp, p.wgt, p.ti < shape.i), p)
    spread = list(by_kind.values())
    doubled = [p for p in spread if p.double_buffer and shape.b > p.tb and shape.o > p.to]
    if doubled:
        spread += [replace(doubled[0], b_outer=False), replace(doubled[0], double_buffer=False)]
    return spread


def test_pipelined_plans_on_the_simulator(monkeypatch: pytest.MonkeyPatch) -> None:
    """A spread of pipelined plans through the rest of the pipeline and the simulator: the
    results exact, no warning (every token balanced), the replayed cycles near the simulated
    ones; every result stored as all four planes."""
    import vta_mlir.passes.pack.plane_range as plane_range
    import vta_mlir.passes.tile as tile_pass

    cfg = CONFIGS["default"]
    monkeypatch.setattr(plane_range, "planes_for_bound",
                        lambda bound, cfg: plane_range.max_planes(cfg))
    errors = []
    for name, (text, shape) in ALL_PLANES.items():
        stage1 = _stage1(text, cfg)
        for plan in _spread(shape):
            monkeypatch.setattr(tile_pass, "choose_plan",
                                lambda *a, plan=plan, shape=shape, **kw:
                                (plan, plane_estimate(shape, plan, cfg)))
            _, module = on_simulator(stage1)
            inputs = logical_inputs(module, seed=5)
            (got,) = module(*inputs)
            np.testing.assert_array_equal(got, _numpy(name, inputs),
                                          err_msg=f"{name}: {plan.describe()}")
            assert not module.last_run.warnings
            predicted = plane_replay(shape, plan, cfg)
            assert predicted is not None
            errors.append(abs(predicted - module.last_run.cycles) / module.last_run.cycles)
    assert len(errors) >= 10 and max(errors) < 0.2 and float(np.median(errors)) < 0.1


def test_the_cost_model_follows_the_pipeline() -> None:
    """On a product of 32 column blocks (ffn_up of the encoder), the closed form and the replay
    agree within 5 % and both find the pipeline well under the serial schedule's compute plus
    stores."""
    cfg = CONFIGS["default"]
    shape = RegionShape(64, 32, 8, ("fill",), 3, 0, 4)
    plan = Plan(64, 1, 8, True, Residency.ALL, Residency.TILE, True, True)
    est = plane_estimate(shape, plan, cfg)
    replayed = plane_replay(shape, plan, cfg)
    assert replayed is not None and abs(est.cycles - replayed) <= 0.05 * replayed
    assert est.cycles < 0.8 * (est.compute + est.store)
