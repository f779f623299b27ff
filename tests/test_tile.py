"""``vta-tile``: the cost model's choices, the stage-2 IR it produces, and what that IR computes.

* the chosen tiles fit the SRAMs of every shipped configuration (doubled buffers twice), and
  explicit ``tile=`` / ``double-buffer=`` options are honoured or rejected with a diagnostic
  naming the SRAM;
* the cost model uses the timing model's instruction costs (``cfg.timing``);
* the stage-2 IR, run by a small numpy evaluator of the ops it contains, computes what the
  stage-1 region computes (and, for the dense layer, what numpy computes), for the examples on
  every shipped configuration, automatic and forced tilings, remainder tiles included;
* double buffering has the representation ``vta-coproc-sync`` expects;
* once the rest of ``vta-to-isa`` runs, ``matrix_multiply_opt`` meets its targets on the
  simulator (weights loaded once, 4096 GEMM micro-ops, at most TVM's 139,432 cycles).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import affine, arith, func, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, MemRefType, ModuleOp
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr

from vta_mlir.config import SHIPPED_CONFIGS, TimingParams, VTAConfig
from vta_mlir.dialects.vta import Sram, set_module_config, sram_space
from vta_mlir.ir.context import parse_module, print_module
from vta_mlir.ir.diagnostics import DiagnosticError, collect_diagnostics, verify_op
from vta_mlir.passes.pack import PackPass
from vta_mlir.passes.tile import DOUBLE_BUFFER_ATTR, TilePass
from vta_mlir.passes.tile.cost import (
    Budget,
    NoFit,
    RegionShape,
    Residency,
    estimate,
    footprint,
    replay,
)
from vta_mlir.passes.tile.search import candidates, choose_plan

from .numerics import operand_bounds, random_args, random_memref_args, shift_right

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
CONFIGS = {name: VTAConfig.shipped(name) for name in SHIPPED_CONFIGS}


# ---------------------------------------------------------------------------------------------
# A numpy evaluator of the ops of stages 1 and 2


def _dtype(t: MemRefType) -> type[np.integer[Any]]:
    width = t.element_type.width.data  # type: ignore[attr-defined]
    return {8: np.int8, 32: np.int32}[width]


def _wrap(a: np.ndarray, dtype: type[np.integer[Any]]) -> np.ndarray:
    return a.astype(np.int64).astype(dtype)


_BINARY: dict[type[Operation], Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.MaxSIOp: np.maximum,
    arith.MinSIOp: np.minimum,
    arith.ShRSIOp: shift_right,
    arith.ShLIOp: lambda a, b: a << b,
}


class Evaluator:
    """Runs a function of stage 1 or 2 on numpy arrays (memrefs are arrays, views alias)."""

    def __init__(self) -> None:
        self.env: dict[SSAValue, Any] = {}

    def run(self, f: func.FuncOp, args: Sequence[np.ndarray]) -> None:
        for a, v in zip(f.body.block.args, args, strict=True):
            self.env[a] = v
        self.block(f.body.block)

    def block(self, block: Block) -> None:
        for op in block.ops:
            self.op(op)

    def op(self, op: Operation) -> None:
        env = self.env
        if isinstance(op, arith.ConstantOp):
            assert isinstance(op.value, IntegerAttr)
            env[op.result] = op.value.value.data
        elif isinstance(op, memref.AllocOp):
            t = op.memref.type
            env[op.memref] = np.zeros(t.get_shape(), _dtype(t))
        elif isinstance(op, memref.SubviewOp):
            self.subview(op)
        elif isinstance(op, memref.CopyOp):
            dst = env[op.destination]
            dst[...] = env[op.source]
        elif isinstance(op, affine.ApplyOp):
            dims = [env[v] for v in op.mapOperands]
            env[op.result] = op.map.data.eval(dims, [])[0]
        elif isinstance(op, affine.ForOp):
            lo, hi = op.lowerBoundMap.data.eval([], []), op.upperBoundMap.data.eval([], [])
            for k in range(lo[0], hi[0], op.step.value.data):
                env[op.body.block.args[0]] = k
                self.block(op.body.block)
        elif isinstance(op, linalg.FillOp):
            env[op.outputs[0]][...] = env[op.inputs[0]]
        elif isinstance(op, linalg.GenericOp):
            self.generic(op)
        elif not isinstance(op, memref.DeallocOp | affine.YieldOp | func.ReturnOp):
            raise NotImplementedError(op.name)

    def subview(self, op: memref.SubviewOp) -> None:
        src = self.env[op.source]
        dynamic = iter(op.offsets)
        offsets = [self.env[next(dynamic)] if o == DYNAMIC_INDEX else o
                   for o in op.static_offsets.get_values()]
        sizes = op.static_sizes.get_values()
        view = src[tuple(slice(o, o + s) for o, s in zip(offsets, sizes, strict=True))]
        rank = len(op.result.type.get_shape())
        while view.ndim > rank:
            assert view.shape[0] == 1
            view = view[0]
        assert np.shares_memory(view, src)
        self.env[op.result] = view

    def generic(self, op: linalg.GenericOp) -> None:
        maps = [m.data for m in op.indexing_maps.data]
        ins = [self.env[v] for v in op.inputs]
        out = self.env[op.outputs[0]]
        if maps[0].num_dims == 6:
            x, w = (a.astype(np.int64) for a in ins)
            out[...] = _wrap(out + np.einsum("bipq,oirq->bopr", x, w), out.dtype)
            return
        grid = np.indices(out.shape)
        operands: list[np.ndarray] = []
        for a, m in zip(ins, maps, strict=False):
            index = []
            for e in m.results:
                if isinstance(e, AffineDimExpr):
                    index.append(grid[e.position])
                else:
                    assert isinstance(e, AffineConstantExpr)
                    index.append(np.full(out.shape, e.value))
            operands.append(a[tuple(index)].astype(np.int64))
        values: dict[SSAValue, Any] = dict(zip(op.body.block.args, operands, strict=False))
        for inner in op.body.block.ops:
            if isinstance(inner, arith.ConstantOp):
                assert isinstance(inner.value, IntegerAttr)
                values[inner.result] = inner.value.value.data
            elif isinstance(inner, arith.ExtSIOp):
                values[inner.result] = values[inner.input]
            elif isinstance(inner, arith.TruncIOp):
                values[inner.result] = _wrap(values[inner.input], np.int8)
            elif type(inner) in _BINARY:
                a, b = (values.get(v, self.env.get(v)) for v in inner.operands)
                values[inner.result] = _wrap(_BINARY[type(inner)](np.asarray(a),
                                                                  np.asarray(b)), np.int32)
            elif isinstance(inner, linalg.YieldOp):
                out[...] = _wrap(np.asarray(values[inner.operands[0]]), out.dtype)
            else:
                raise NotImplementedError(inner.name)


def run_function(module: ModuleOp, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Run the module's only function on copies of ``args``; returns the arrays after."""
    (f,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    copies = [a.copy() for a in args]
    Evaluator().run(f, copies)
    return copies


def module_args(module: ModuleOp, seed: int = 0) -> list[np.ndarray]:
    """Random arguments of the module's function."""
    (f,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    return random_memref_args(f, np.random.default_rng(seed))


# ---------------------------------------------------------------------------------------------
# Helpers


def packed(name: str, cfg: VTAConfig) -> ModuleOp:
    module = parse_module((EXAMPLES / f"{name}.mlir").read_text(), filename=f"{name}.mlir")
    set_module_config(module, cfg)
    PackPass().apply(None, module)  # type: ignore[arg-type]
    verify_op(module)
    return module


def tiled(module: ModuleOp, **options: Any) -> ModuleOp:
    out = module.clone()
    TilePass(**options).apply(None, out)  # type: ignore[arg-type]
    return out


def sram_allocs(module: ModuleOp) -> list[MemRefType]:
    return [op.memref.type for op in module.walk()
            if isinstance(op, memref.AllocOp) and sram_space(op.memref.type) is not None]


def depth(cfg: VTAConfig, space: Sram) -> int:
    return cfg.sram_depth(space.value)


def elements(t: MemRefType) -> int:
    return int(np.prod(t.get_shape()[:-2]))


MMO = RegionShape(b=1, o=64, i=64, inits=("fill",), alu_imm=3)


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


EXAMPLE_NAMES = ["matrix_multiply", "matrix_multiply_opt", "dense_bias_relu", "dense_kn",
                 "odd_shapes", "vector_add", "alu_ops"]


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


# ---------------------------------------------------------------------------------------------
# The whole pipeline (once its passes exist)


AFTER_TILE = ("vta-inject-dma", "vta-tensorize", "vta-fold-uop-loops", "vta-coproc-sync")


def on_simulator(stage1: ModuleOp, **options: Any) -> tuple[Any, Any]:
    """Tile with ``options``, lower the rest of the way and load on a simulated device."""
    from vta_mlir.api import compile as vta_compile
    from vta_mlir.ir.pipeline import run_pipeline

    module = stage1.clone()
    run_pipeline(module, [TilePass(**options)])
    try:
        run_pipeline(module, ",".join(AFTER_TILE))
    except DiagnosticError as exc:
        if "broadcast within" in str(exc.diagnostic.message):
            pytest.skip("a per-channel bias with BATCH > 1 repeats a DRAM row inside a tensor "
                        "element, which no DMA does (vta-inject-dma reports it)")
        raise
    return module, vta_compile(module)


def logical_inputs(mod: Any, seed: int) -> list[np.ndarray]:
    return list(random_args(mod.inputs, seed, lambda spec: operand_bounds(spec.dtype)).values())


def expected_outputs(stage1: ModuleOp, mod: Any, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The stage-1 program run by the evaluator on the packed inputs, unpacked."""
    given = iter(inputs)
    packed_args = []
    for spec in mod.args:
        if spec.is_input:
            data = spec.pack(next(given))
        else:
            data = bytes(spec.packed_nbytes)
        packed_args.append(np.frombuffer(data, dtype=spec.dtype).reshape(spec.packed_shape))
    after = run_function(stage1, packed_args)
    return [spec.unpack(a) for spec, a in zip(mod.args, after, strict=True) if spec.is_output]


@pytest.mark.parametrize("cfg_name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_examples_on_the_simulator(name: str, cfg_name: str) -> None:
    stage1 = packed(name, CONFIGS[cfg_name])
    _, mod = on_simulator(stage1)
    inputs = logical_inputs(mod, seed=len(name))
    got = mod(*inputs)
    assert not mod.last_run.warnings
    for g, w in zip(got, expected_outputs(stage1, mod, inputs), strict=True):
        np.testing.assert_array_equal(g, w)


def test_matrix_multiply_opt_on_the_simulator() -> None:
    cfg = CONFIGS["default"]
    stage1 = packed("matrix_multiply_opt", cfg)
    _, mod = on_simulator(stage1)
    x, w = logical_inputs(mod, seed=0)
    (y,) = mod(x, w)
    acc = (x.astype(np.int64) @ w.astype(np.int64)).astype(np.int32)
    np.testing.assert_array_equal(y, np.clip(acc >> 8, 0, 127).astype(np.int8))
    stats = mod.last_run
    print("matrix_multiply_opt:", stats.counters, "cycles", stats.cycles, "busy", stats.busy)
    assert stats.counters["wgt_load_nbytes"] == 1 << 20
    assert stats.counters["gemm_counter"] == 4096
    assert stats.counters["out_store_nbytes"] == 1024
    assert stats.counters["inp_load_nbytes"] <= 16 * 1024
    assert stats.cycles <= 139_432
    assert not stats.warnings


@pytest.mark.parametrize("options", [{}, {"double_buffer": False}, {"tile": (1, 16, 16)},
                                     {"tile": (1, 16, 16), "double_buffer": False},
                                     {"tile": (1, 32, 32)}, {"tile": (1, 7, 64)}])
def test_cost_model_matches_the_simulator(options: dict[str, Any]) -> None:
    """The estimate of the chosen plan is within 3 % of the simulated cycles, and double
    buffering pays as the model says."""
    cfg = CONFIGS["default"]
    stage1 = packed("matrix_multiply_opt", cfg)
    budget = Budget(cfg.inp_buff_depth, cfg.wgt_buff_depth, cfg.acc_buff_depth)
    tile = (*options.get("tile", ()), 0, 0, 0)[:3]
    _, est = choose_plan(MMO, cfg, budget, tile, options.get("double_buffer"))
    _, mod = on_simulator(stage1, **options)
    mod(*logical_inputs(mod, seed=1))
    cycles = mod.last_run.cycles
    assert abs(est.cycles - cycles) <= 0.03 * cycles
    assert est.wgt_bytes == mod.last_run.counters["wgt_load_nbytes"]
    assert est.inp_bytes == mod.last_run.counters["inp_load_nbytes"]


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


def test_every_schedule_computes_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
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
    for k in rng.choice(len(plans), size=min(len(plans), 150), replace=False):
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
