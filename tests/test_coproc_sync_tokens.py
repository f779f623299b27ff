"""``vta-coproc-sync``: the tokens it chooses.

* double buffering (a ``vta.double_buffer`` loop whose buffers alternate with the parity)
  primes two tokens and takes fewer cycles than ``double-buffer=false``, with the same result;
* disjoint ranges need no token, the uses of one global are one buffer, primes stay below a
  loop using their queue and follow the last read before their loop that needs them;
* input that is already synchronised is left alone, the pass is idempotent, and the protocol
  check finds a missing token."""

from __future__ import annotations

import numpy as np
import pytest

from vta_mlir import lower, print_ir, run_pipeline
from vta_mlir import parse as parse_program
from vta_mlir.config import VTAConfig
from vta_mlir.host import lower_to_binary
from vta_mlir.ir.context import make_context, print_module
from vta_mlir.passes.coproc_sync import CoprocSyncPass, protocol
from vta_mlir.runtime.device import Device

from .coproc_sync_helpers import (
    EXAMPLES,
    WALKTHROUGH,
    blocked_matmul,
    check_blocked_matmul,
    parse,
    run,
    serial_reference,
    stage_ops,
    streamed_matmul,
    sync,
)
from .depthwise_programs import Depthwise, depthwise_program, depthwise_reference
from .numerics import random_args, run_and_compare, within

# ---------------------------------------------------------------------------------------------
# Double buffering


def test_double_buffering_primes_two_tokens_and_saves_cycles(cfg: VTAConfig) -> None:
    """A load-heavy GEMM whose input/weight tiles alternate between two copies: the load of
    tile k+1 overlaps the GEMM of tile k.  The step loop's two primes are pushed one
    iteration of the tile loop ahead: before it for the first tile, after the step loop of
    each tile for the next (its epilogue follows), and drained after the tile loop."""
    text = blocked_matmul(cfg, oc=2, ic=6, tile=2, double_buffer=True)
    deep = sync(text, cfg)
    shallow = sync(text, cfg, double_buffer=False)
    ops = stage_ops(deep)
    assert ops[:2] == ["push compute->load", "push compute->load"]
    inner = ops.index("for", ops.index("for") + 1)
    assert "push compute->load" not in ops[ops.index("for"):inner]
    after = ops.index("stage compute", inner + 5)
    assert ops[after:after + 4] == ["stage compute", "push compute->load",
                                    "push compute->load", "push compute->store"]
    assert ops.count("pop compute->load") == 5  # one in the loop, two drains of each loop
    assert ops[-3:] == ["pop compute->load", "pop compute->load", "pop store->compute"]
    assert stage_ops(shallow) == WALKTHROUGH
    fast = check_blocked_matmul(text, cfg, deep)
    slow = check_blocked_matmul(text, cfg, shallow)
    assert fast < slow


def test_double_buffering_needs_the_attribute(default_cfg: VTAConfig) -> None:
    text = blocked_matmul(default_cfg, double_buffer=True).replace(" {vta.double_buffer}", "")
    assert stage_ops(sync(text, default_cfg)) == WALKTHROUGH


def test_alternating_buffers_the_analysis_sees_through(default_cfg: VTAConfig) -> None:
    """Two separate buffers selected by the parity with arith.select: the analysis evaluates
    the selection per iteration, so the tokens run two deep."""
    cfg = default_cfg
    inp_t = "memref<2x1x16xi8, #vta.sram<inp>>"
    wgt_t = "memref<8x16x16xi8, #vta.sram<wgt>>"
    acc_t = "memref<2x1x16xi32, #vta.sram<acc>>"
    text = f"""
func.func @f(%x: memref<1x8x1x16xi8>, %w: memref<2x8x16x16xi8>, %y: memref<1x2x1x16xi8>) {{
  %i0 = memref.alloc() : {inp_t}
  %i1 = memref.alloc() : {inp_t}
  %wgt = memref.alloc() : {wgt_t}
  %acc = memref.alloc() : {acc_t}
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  vta.uop_loop 2 dst 1 {{ vta.gemm_reset %acc[0] : {acc_t} }}
  affine.for %k = 0 to 4 {{
    %par = arith.remui %k, %c2 : index
    %even = arith.cmpi eq, %par, %c0 : index
    %inp = arith.select %even, %i0, %i1 : {inp_t}
    %xo = affine.apply affine_map<(d0) -> (d0 * 2)> (%k)
    vta.dma_copy %x[%xo] -> %inp[0] y 1 x 2 stride 8 : memref<1x8x1x16xi8> -> {inp_t}
    vta.uop_loop 2 dst 1 wgt 2 {{
      vta.uop_loop 2 src 1 wgt 1 {{
        vta.gemm %acc[0] += %inp[0] * %wgt[0] : {acc_t}, {inp_t}, {wgt_t}
      }}
    }}
  }} {{vta.double_buffer}}
  vta.dma_copy %acc[0] -> %y[0] y 1 x 2 stride 2 : {acc_t} -> memref<1x2x1x16xi8>
  func.return
}}
"""
    ops = stage_ops(sync(text, cfg))
    assert ops[:3] == ["stage compute", "push compute->load", "push compute->load"]
    assert ops.count("pop compute->load") == 3


@pytest.mark.parametrize("copies", [3, 4])
def test_rotating_copies_run_as_deep(cfg: VTAConfig, copies: int) -> None:
    """Input and weight tiles rotating through three or four copies (the inner loop's
    variable modulo ``copies``): each is reused ``copies`` iterations later, so the loads run
    that many steps ahead (as many primes and drains), and the program computes what numpy
    does in the simulator's order and in random ones."""
    text = blocked_matmul(cfg, oc=2, ic=6, tile=2, double_buffer=True, copies=copies)
    module = sync(text, cfg)
    ops = stage_ops(module)
    # Primed before the tile loop, re-primed after each tile's step loop for the next one,
    # drained after both loops.
    primes = ["push compute->load"] * copies
    assert ops[:copies] == primes
    assert ops[ops.index("push compute->store") - copies:ops.index("push compute->store")] \
        == primes
    assert ops[-1 - copies:-1] == ["pop compute->load"] * copies
    assert ops.count("pop compute->load") == 1 + 2 * copies
    check_blocked_matmul(text, cfg, module)


def test_a_token_per_chain_beside_forward_tokens(cfg: VTAConfig,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Four input steps written out per output tile over two copies: steps 2 and 3 wait for
    the GEMMs of steps 0 and 1 (forward tokens), the next tile's steps 0 and 1 for those of
    steps 2 and 3 (carried).  The loads are the bottleneck, so each carried chain gets its
    own token: one FIFO stream, each load pops once and each GEMM pushes once, two primes and
    two drains; the next tile's first loads no longer wait for the tile's last GEMM, which
    saves cycles over one carried token (a GEMM of 16 × 16 blocks: more than
    ``MIN_CHAIN_SAVING``), and the results are numpy's."""
    text = streamed_matmul(cfg, oc=3, tile=16)
    ops = stage_ops(sync(text, cfg))
    body = ops[ops.index("for"):ops.index("push compute->store")]
    assert ops[:2] == ["push compute->load"] * 2
    assert body.count("pop compute->load") == body.count("push compute->load") == 4
    assert ops[-3:] == ["pop compute->load", "pop compute->load", "pop store->compute"]
    per_chain = check_blocked_matmul(text, cfg)
    # With 2 × 2 blocks a GEMM saves too few cycles to pay for a token per chain.
    assert stage_ops(sync(streamed_matmul(cfg), cfg))[:2] == ["push compute->load",
                                                              "push store->compute"]
    monkeypatch.setattr(protocol, "chains_pay", lambda *args: False)
    one = sync(text, cfg)
    assert stage_ops(one)[:2] == ["push compute->load", "push store->compute"]
    assert per_chain < check_blocked_matmul(text, cfg, one)


# ---------------------------------------------------------------------------------------------
# Precision, relays, idempotence


def test_disjoint_ranges_need_no_token(default_cfg: VTAConfig) -> None:
    """The store reads accumulator elements 0..1, the ALU then rewrites 2..3: no order is
    needed between them; a store -> DRAM -> load dependence is relayed by compute."""
    acc_t = "memref<4x1x16xi32, #vta.sram<acc>>"
    inp_t = "memref<4x1x16xi8, #vta.sram<inp>>"
    text = f"""
func.func @f(%a: memref<4x1x16xi32>, %t: memref<4x1x16xi8>) {{
  %acc = memref.alloc() : {acc_t}
  %inp = memref.alloc() : {inp_t}
  vta.dma_copy %a[0] -> %acc[0] y 1 x 4 stride 4 : memref<4x1x16xi32> -> {acc_t}
  vta.dma_copy %acc[0] -> %t[0] y 1 x 2 stride 2 : {acc_t} -> memref<4x1x16xi8>
  vta.alu add %acc[2], 1 : {acc_t}
  vta.alu add %acc[3], 1 : {acc_t}
  vta.dma_copy %t[0] -> %inp[0] y 1 x 2 stride 2 : memref<4x1x16xi8> -> {inp_t}
  func.return
}}
"""
    assert stage_ops(sync(text, default_cfg)) == [
        "stage compute", "push compute->store",
        "stage store", "pop compute->store", "push store->compute",
        "stage compute",  # the ALU ops: no wait for the store
        "pop store->compute", "push compute->load",  # compute relays store -> load
        "stage load", "pop compute->load",
    ]


def test_uses_of_one_global_are_one_buffer(default_cfg: VTAConfig) -> None:
    """Two memref.get_global of one global alias: the store into one orders the load from the
    other (relayed by compute)."""
    text = """
builtin.module {
  memref.global "private" @t : memref<4x1x16xi8> = uninitialized
  func.func @f(%a: memref<4x1x16xi32>) {
    %acc = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
    %inp = memref.alloc() : memref<4x1x16xi8, #vta.sram<inp>>
    vta.dma_copy %a[0] -> %acc[0] y 1 x 4 stride 4
        : memref<4x1x16xi32> -> memref<4x1x16xi32, #vta.sram<acc>>
    %t1 = memref.get_global @t : memref<4x1x16xi8>
    vta.dma_copy %acc[0] -> %t1[0] y 1 x 2 stride 2
        : memref<4x1x16xi32, #vta.sram<acc>> -> memref<4x1x16xi8>
    %t2 = memref.get_global @t : memref<4x1x16xi8>
    vta.dma_copy %t2[2] -> %inp[0] y 1 x 2 stride 2
        : memref<4x1x16xi8> -> memref<4x1x16xi8, #vta.sram<inp>>
    vta.dma_copy %t2[0] -> %inp[2] y 1 x 2 stride 2
        : memref<4x1x16xi8> -> memref<4x1x16xi8, #vta.sram<inp>>
    func.return
  }
}
"""
    ops = stage_ops(sync(text, default_cfg))
    # The first load reads bytes the store does not write; the second waits for the store.
    assert ops == [
        "stage compute", "push compute->store",
        "stage store", "pop compute->store", "push store->compute",
        "stage load",
        "pop store->compute", "push compute->load",
        "stage load", "pop compute->load",
    ]


def _tile_loops_then_remainder(cfg: VTAConfig, marked: bool) -> str:
    """What ``vta-tile`` makes of a GEMM whose output channels are not a multiple of the tile:
    a loop over the whole tiles around a loop over the batch rows (each row: reset the one
    accumulator tile, compute, store it), then the batch loop of the remainder tile.  The
    store of one row must precede the reset of the next (store -> compute, carried), in the
    inner loop of the first nest and in the second loop alike."""
    bo = cfg.block_out
    acc_t = f"memref<1x2x{cfg.batch}x{bo}xi32, #vta.sram<acc>>"
    y_t = f"memref<2x5x{cfg.batch}x{bo}xi8>"
    attr = " {vta.double_buffer}" if marked else ""
    return f"""
func.func @f(%y: {y_t}) {{
  %acc = memref.alloc() : {acc_t}
  affine.for %o = 0 to 2 {{
    affine.for %b = 0 to 2 {{
      vta.uop_loop 2 dst 1 {{ vta.gemm_reset %acc[0] : {acc_t} }}
      vta.uop_loop 2 dst 1 src 1 {{ vta.alu add %acc[0], 3 : {acc_t} }}
      %yo = affine.apply affine_map<(d0, d1) -> (d0 * 5 + d1 * 2)> (%b, %o)
      vta.dma_copy %acc[0] -> %y[%yo] y 1 x 2 stride 2 : {acc_t} -> {y_t}
    }}
  }}{attr}
  affine.for %b = 0 to 2 {{
    vta.gemm_reset %acc[0] : {acc_t}
    vta.alu add %acc[0], 5 : {acc_t}
    %yo = affine.apply affine_map<(d0) -> (d0 * 5 + 4)> (%b)
    vta.dma_copy %acc[0] -> %y[%yo] y 1 x 1 stride 1 : {acc_t} -> {y_t}
  }}{attr}
  func.return
}}
"""


@pytest.mark.parametrize("marked", [False, True])
def test_primes_stay_below_a_loop_using_their_queue(cfg: VTAConfig, marked: bool) -> None:
    """The primes of the second loop (store -> compute) may not move above the first nest,
    whose inner loop uses that queue: its pops would receive the moved prime instead of their
    own tokens, and the reset of a row would no longer wait for the store of the row before
    (this used to be an internal error of the protocol check)."""
    text = _tile_loops_then_remainder(cfg, marked)
    module = sync(text, cfg, double_buffer=True)
    ops = stage_ops(module)
    second = [i for i, op in enumerate(ops) if op == "for"][2]
    assert ops[second - 1] == "push store->compute"  # the prime, right before its loop
    binary = lower_to_binary(module)
    inputs = random_args(binary.args, 5, within(100))
    want = serial_reference(text, cfg, inputs)
    for seed in (None, 21, 22, 23):
        got, stats = run(binary, cfg, inputs, seed)
        assert not stats.warnings
        for name, value in want.items():
            np.testing.assert_array_equal(got[name], value)


def test_already_synchronised_input_is_left_alone() -> None:
    for name in ("matrix_multiply", "vector_add"):
        text = (EXAMPLES / f"{name}.mlir").read_text()
        module = parse(text)
        before = print_module(module)
        CoprocSyncPass().apply(make_context(), module)
        assert print_module(module) == before


def test_pass_is_idempotent(default_cfg: VTAConfig) -> None:
    once = sync(blocked_matmul(default_cfg, double_buffer=True), default_cfg)
    text = print_module(once)
    twice = parse(text)
    CoprocSyncPass().apply(make_context(), twice)
    assert print_module(twice) == text


def test_the_protocol_check_finds_a_missing_token(default_cfg: VTAConfig) -> None:
    from vta_mlir.dialects.vta import get_config
    from vta_mlir.passes.coproc_sync import deps as deps
    from vta_mlir.passes.coproc_sync import protocol as protocol
    from vta_mlir.passes.coproc_sync import synthesis as synthesis

    module = parse(blocked_matmul(default_cfg), default_cfg)
    f = next(op for op in module.walk() if op.name == "func.func")
    ev = deps.HostEval()
    root = deps.build_model(f.regions[0].block, ev)
    deps.DependenceAnalysis(root, get_config(f), ev).run()
    synthesis.synthesize(root, True, default_cfg)
    assert protocol.verify_protocol(root) is None
    inner = next(n for n in root.walk() if n.op is not None and n.op.parent_op() is not f)
    inner.forward.clear()  # drop load -> compute
    inner.events = protocol.slot_events(inner)
    missed = protocol.verify_protocol(root)
    assert missed is not None and (missed.x, missed.y) == (deps.LOAD, deps.COMPUTE)


def test_primes_follow_the_last_read_before_their_loop(default_cfg: VTAConfig) -> None:
    """A depthwise layer tiled into row runs whose first column tile is written out before the
    loop over the others: the second compute -> load prime of that loop comes right after the
    written-out tile's convolution, not after its epilogue and store, and the first no later,
    so the loop's first input loads overlap them; the result stays bit-exact."""
    cfg = default_cfg
    layer = Depthwise(6 * cfg.block_out, 112, stride=2, shift=8, lo=0, hi=127)
    rng = np.random.default_rng(3)
    w = rng.integers(-128, 128, layer.kernel_shape).astype(np.int8)
    bias = rng.integers(-1000, 1000, layer.channels).astype(np.int32)
    text = depthwise_program(layer, w, bias)
    module = parse_program(text, config=cfg)
    run_pipeline(module, "vta-normalize,vta-outline-host-steps,vta-pack,vta-merge-alu-immediates,"
                         "vta-tile,vta-bias-gemm,vta-inject-dma,vta-tensorize,vta-fold-uop-loops,"
                         "vta-coproc-sync")
    lines = [line.strip() for line in print_ir(module).splitlines()]
    inner = [i for i, line in enumerate(lines)
             if line.startswith("affine.for") and lines[i - 1].startswith("vta.dep_push store")]
    assert inner, "no loop primed after a written-out tile"
    for at in inner:
        before = lines[:at]
        primes = [i for i, line in enumerate(before) if line == "vta.dep_push compute -> load"][-2:]
        conv = max(i for i, line in enumerate(before) if line.startswith("vta.gemm %acc")
                   and "%inp[" in line and "bias" not in line)
        epilogue = min(i for i, line in enumerate(before) if i > conv and
                       line.startswith(("vta.alu", "vta.gemm %acc")))
        # The second prime waits for the convolution; the first, serving the loop's first
        # column tile, whose input buffer copy that convolution does not read, may come
        # earlier still.
        assert primes[0] < primes[1] and conv < primes[1] < epilogue
    x = rng.integers(-128, 128, (1, layer.channels, layer.size, layer.size)).astype(np.int8)
    binary = lower(text, config=cfg)
    run_and_compare(Device(cfg).load_module(binary), {binary.args[0].name: x},
                    depthwise_reference(layer, x, w, bias))
