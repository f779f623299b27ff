"""``vta-coproc-sync``: where the primes of nested loops go (``passes/coproc_sync/primes.py``)
and the command cycles that decide it (``cost.py``).

* a convolution whose output tiles each run a loop of input and weight loads: that loop's two
  compute -> load primes are pushed one output tile ahead, right after the step loop of the
  tile before (the first tile's before the tile loop), and the result stays bit-exact;
* a layer whose step loads take fewer cycles than the reset of the next tile keeps its primes
  in the tile's body: pushed ahead they would only cost NOPs;
* a row loop after a written-out first row tile: the loop's first iteration resets the other
  accumulator copy, so the first of its two store -> compute primes is pushed at the start,
  not after the written-out tile's store (``Req.first``); the second waits for that store;
* after that loop, the last row tile written out resets the accumulator copy the loop's
  second-to-last tile stored: the loop's first drain orders it, and the second (the last
  tile's store) is popped later (``Req.spared``);
* the cycles ``cost.command_cycles`` gives each command are those the cycle model charges its
  instruction (docs/timing-model.md).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.layer_programs import Network, conv_layer
from tests.mlir_programs import memref
from vta_mlir import lower, parse, print_ir, run_pipeline, trace
from vta_mlir.config import VTAConfig
from vta_mlir.passes.coproc_sync.cost import command_cycles
from vta_mlir.passes.coproc_sync.model import is_command
from vta_mlir.runtime.device import Device

from .numerics import run_and_compare

#: vta-to-isa's stages up to and including vta-coproc-sync.
TO_SYNC = ("vta-normalize,vta-outline-host-steps,vta-pack,vta-merge-alu-immediates,vta-tile,"
           "vta-bias-gemm,vta-residual-gemm,vta-inject-dma,vta-tensorize,vta-fold-uop-loops,"
           "vta-coproc-sync")
PUSH, DRAIN = "vta.dep_push compute -> load", "vta.dep_pop compute -> load"


def conv_program(cin: int, cout: int, size: int, k: int, stride: int, pad: int) -> str:
    net = Network()
    shape = (1, cin, size, size)
    out = (size + 2 * pad - k) // stride + 1
    net.conv("c", "x", shape, cout, k, stride, pad, 8, "y")
    return net.function("f", [f"%x: {memref(shape, 'i8')}"],
                        [f"%y: {memref((1, cout, out, out), 'i8')}"])


def run_against_numpy(text: str, cfg: VTAConfig, cin: int, cout: int, size: int,
                      seed: int) -> None:
    """Compile and run :func:`conv_program`'s 3×3, pad 1 convolution on random data and compare
    it bit for bit with ``conv_layer``'s numpy."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, (1, cin, size, size)).astype(np.int8)
    w = rng.integers(-128, 128, (cout, cin, 3, 3)).astype(np.int8)
    b = rng.integers(-5000, 5000, cout).astype(np.int32)
    binary = lower(text, config=cfg)
    run_and_compare(Device(cfg).load_module(binary), {"x": x, "c_w": w, "c_b": b},
                    conv_layer(x, w, b, 1, 1, 8))


def synced_lines(text: str, cfg: VTAConfig) -> list[str]:
    module = parse(text, config=cfg)
    run_pipeline(module, TO_SYNC)
    return [line.strip() for line in print_ir(module).splitlines()]


def tile_loop(lines: list[str]) -> tuple[int, int]:
    """The first and last line of the outermost host loop (its closing brace)."""
    start = next(i for i, line in enumerate(lines) if line.startswith("affine.for"))
    depth = 0
    for i in range(start, len(lines)):
        depth += lines[i].count("{") - lines[i].count("}")
        if depth == 0:
            return start, i
    raise AssertionError("unbalanced loop")


@pytest.mark.parametrize("config", ["default", "batch2"])
def test_step_loop_primed_one_tile_ahead(config: str) -> None:
    cfg = VTAConfig.shipped(config)
    text = conv_program(256, 256, 7, 3, 1, 1)
    lines = synced_lines(text, cfg)
    start, end = tile_loop(lines)
    inner = next(i for i in range(start + 1, end) if lines[i].startswith("affine.for"))
    # Before the tile loop: the first tile's two primes; none between the tile loop's start
    # and its step loop.
    assert lines[:start].count(PUSH) == 2
    assert PUSH not in lines[start:inner]
    # After the step loop: its two drains, then the next tile's two primes.
    body_after = lines[inner:end]
    drains = [i for i, line in enumerate(body_after) if line == DRAIN]
    primes = [i for i, line in enumerate(body_after) if line == PUSH]
    assert len(drains) >= 2 and len(primes) >= 2 and drains[-1] < primes[-2]
    # After the tile loop: the last iteration's primes drained.
    assert lines[end + 1:end + 3] == [DRAIN, DRAIN]
    run_against_numpy(text, cfg, 256, 256, 7, seed=5)


def test_cheap_step_loads_keep_their_primes(default_cfg: VTAConfig) -> None:
    """A 1×1 stride-2 convolution: its step loads take fewer cycles than the next tile's
    reset, so each step loop is primed in the tile's body."""
    lines = synced_lines(conv_program(64, 128, 14, 1, 2, 0), default_cfg)
    start, end = tile_loop(lines)
    inner = next(i for i in range(start + 1, end) if lines[i].startswith("affine.for"))
    assert PUSH not in lines[:start]
    assert lines[start:inner].count(PUSH) == 2


def test_a_loop_waits_only_for_the_iterations_it_needs(default_cfg: VTAConfig) -> None:
    text = conv_program(64, 64, 56, 3, 1, 1)
    lines = synced_lines(text, default_cfg)
    loop = next(i for i, line in enumerate(lines) if line.startswith("affine.for %r"))
    store = max(i for i in range(loop) if lines[i].startswith("vta.dma_copy %acc"))
    pushes = [i for i in range(loop) if lines[i] == "vta.dep_push store -> compute"]
    assert len(pushes) == 2 and pushes[0] < store < pushes[1]
    end = next(i for i in range(loop, len(lines)) if lines[i].endswith("{vta.double_buffer}"))
    reset = next(i for i in range(end, len(lines)) if lines[i].startswith("vta.gemm_reset"))
    drains = [i for i in range(end, len(lines)) if lines[i] == "vta.dep_pop store -> compute"]
    assert len(drains) == 2 and drains[0] < reset < drains[1]
    run_against_numpy(text, default_cfg, 64, 64, 56, seed=6)


@pytest.mark.parametrize("config", ["default", "block32"])
def test_command_cycles_are_the_cycle_models(config: str) -> None:
    """Every command of a padded convolution (input loads with padding, weight loads, bias
    load, reset, GEMM, ALU with an immediate, store): the cycles ``command_cycles`` gives are
    among those the timing model charges the program's instructions, and every kind of
    instruction's cycles are given by some command."""
    cfg = VTAConfig.shipped(config)
    text = conv_program(64, 64, 14, 3, 1, 1)
    module = parse(text, config=cfg)
    run_pipeline(module, TO_SYNC)
    ours = {command_cycles(op, cfg) for op in module.walk() if is_command(op)}
    data = trace(lower(text, config=cfg), config=cfg)
    theirs = {e["args"]["cycles"] for e in data["traceEvents"]
              if e.get("ph") == "X" and e["cat"] in ("load", "compute", "store")
              and e["name"] not in ("FINISH", "LOAD.UOP", "STORE.UOP")
              and not (e["name"].startswith(("LOAD", "STORE")) and e["args"]["x_size"] == 0)}
    assert ours == theirs
