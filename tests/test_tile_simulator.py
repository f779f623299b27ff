"""``vta-tile`` followed by the rest of ``vta-to-isa``: the examples on the simulator, and
``matrix_multiply_opt`` meets its targets (weights loaded once, 4096 GEMM micro-ops, at most
TVM's 139,432 cycles); the cost model's estimate follows the simulator's cycles."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.passes.tile.cost import Budget
from vta_mlir.passes.tile.search import choose_plan

from .tile_helpers import (
    CONFIGS,
    EXAMPLE_NAMES,
    MMO,
    expected_outputs,
    logical_inputs,
    on_simulator,
    packed,
)

# ---------------------------------------------------------------------------------------------
# The whole pipeline (once its passes exist)


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
