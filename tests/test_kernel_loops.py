"""Micro-op list loops: ``affine.for`` nests inside a micro-kernel (docs/isa.md §4.4).

TVM's runtime records a kernel by running its closure, loops included: every iteration of a
list loop appends its micro-ops to the kernel's micro-op list.  Here

* a 2-D convolution written at stage 5 (``docs/pipeline.md``) with its whole kernel window
  and channel blocks as list loops around one ``vta.gemm`` runs through ``vta-coproc-sync`` and
  ``vta-lower-to-isa`` on the simulator and matches numpy bit for bit (stride 1 and 2, with and
  without double-buffer copy offsets computed by the host), with no SRAM race between modules;
* a kernel with too many micro-ops, a write hazard on the enumerated list and a position that
  is not linear in the list-loop variables are diagnostics at the op;
* ``vta-coproc-sync`` orders a kernel by the ranges all its enumerated micro-ops touch.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from vta_mlir import compile as vta_compile
from vta_mlir import run_pipeline
from vta_mlir.host import lower_to_binary
from vta_mlir.ir.context import parse_module
from vta_mlir.ir.diagnostics import DiagnosticError, verify_op
from vta_mlir.sim.hazards import program_hazards

BLOCK = 16  # the default configuration: BATCH 1, BLOCK_IN = BLOCK_OUT = 16
SHIFT = 6


def conv_program(*, stride: int, images: int, double_buffer: bool, cin: int = 2,
                 cout: int = 4, out: int = 8, k: int = 3, shift: int = SHIFT) -> str:
    """A stage-5 host program: for each image, reset the accumulator, load the input tile and
    the weights (into copy ``n mod 2`` of their buffers when double-buffered), run one conv
    micro-kernel whose list loops cover (input-channel block, kh, kw, output-channel block),
    shift right and store.  Packed layouts of docs/isa.md §1.6, BATCH 1."""
    side = (out - 1) * stride + k
    tile = cin * side * side
    wtile = cout * cin * k * k
    acc_n = cout * out * out
    copies = 2 if double_buffer else 1
    inp_t = f"memref<{copies * tile}x1x16xi8, #vta.sram<inp>>"
    wgt_t = f"memref<{copies * wtile}x16x16xi8, #vta.sram<wgt>>"
    acc_t = f"memref<{acc_n}x1x16xi32, #vta.sram<acc>>"
    x_t = f"memref<{images}x{cin}x{side}x{side}x1x16xi8>"
    w_t = f"memref<{cout}x{cin}x{k}x{k}x16x16xi8>"
    y_t = f"memref<{images}x{cout}x{out}x{out}x1x16xi8>"
    if double_buffer:
        offsets = (f"%p = affine.apply affine_map<(d0) -> ((d0 mod 2) * {tile})> (%n)\n"
                   f"      %q = affine.apply affine_map<(d0) -> ((d0 mod 2) * {wtile})> (%n)")
    else:
        offsets = "%p = arith.constant 0 : index\n      %q = arith.constant 0 : index"
    src_map = f"(d0, d1, d2)[s0] -> (d0 * {side * side} + d1 * {side} + d2 + s0)"
    wgt_map = f"(d0, d1, d2, d3)[s0] -> (d0 * {cin * k * k} + d1 * {k * k} + d2 * {k} + d3 + s0)"
    body = f"""
            affine.for %i = 0 to {cin} {{
              affine.for %kh = 0 to {k} {{
                affine.for %kw = 0 to {k} {{
                  affine.for %o = 0 to {cout} {{
                    %d = affine.apply affine_map<(d0) -> (d0 * {out * out})> (%o)
                    %s = affine.apply affine_map<{src_map}> (%i, %kh, %kw)[%p]
                    %w = affine.apply affine_map<{wgt_map}> (%o, %i, %kh, %kw)[%q]
                    vta.gemm %acc[%d] += %inp[%s] * %wgt[%w] : {acc_t}, {inp_t}, {wgt_t}
                  }}
                }}
              }}
            }}"""
    return f"""
builtin.module {{
  func.func @conv(%x: {x_t}, %wt: {w_t}, %y: {y_t}) {{
    %inp = memref.alloc() : {inp_t}
    %wgt = memref.alloc() : {wgt_t}
    %acc = memref.alloc() : {acc_t}
    affine.for %n = 0 to {images} {{
      {offsets}
      vta.uop_loop {acc_n} dst 1 {{
        vta.gemm_reset %acc[0] : {acc_t}
      }}
      %xo = affine.apply affine_map<(d0) -> (d0 * {tile})> (%n)
      vta.dma_copy %x[%xo] -> %inp[%p] y {cin * side} x {side} stride {side} : {x_t} -> {inp_t}
      vta.dma_copy %wt[0] -> %wgt[%q] y 1 x {wtile} stride {wtile} : {w_t} -> {wgt_t}
      vta.uop_loop {out} dst {out} src {side * stride} {{
        vta.uop_loop {out} dst 1 src {stride} {{{body}
        }}
      }}
      vta.uop_loop {acc_n} dst 1 src 1 {{
        vta.alu shr %acc[0], {shift} : {acc_t}
      }}
      %yo = affine.apply affine_map<(d0) -> (d0 * {acc_n})> (%n)
      vta.dma_copy %acc[0] -> %y[%yo] y 1 x {acc_n} stride {acc_n} : {acc_t} -> {y_t}
    }}
    func.return
  }}
}}
"""


def conv_reference(x: np.ndarray, w: np.ndarray, stride: int, shift: int) -> np.ndarray:
    """int8((conv2d(x, w) valid, ``stride``) >> shift), wrapping: x NCHW, w OIHW."""
    n, _, h, _ = x.shape
    o, _, k, _ = w.shape
    out = (h - k) // stride + 1
    acc = np.zeros((n, o, out, out), dtype=np.int64)
    for kh in range(k):
        for kw in range(k):
            patch = x[:, :, kh: kh + stride * (out - 1) + 1: stride,
                      kw: kw + stride * (out - 1) + 1: stride].astype(np.int64)
            acc += np.einsum("nchw,oc->nohw", patch, w[:, :, kh, kw].astype(np.int64))
    return (acc.astype(np.int32) >> shift).astype(np.int8)


def pack_input(x: np.ndarray) -> np.ndarray:
    """NCHW → (N, C/16, H, W, 1, 16)."""
    n, c, h, w = x.shape
    return np.ascontiguousarray(
        x.reshape(n, c // BLOCK, BLOCK, h, w).transpose(0, 1, 3, 4, 2)[:, :, :, :, None, :])


def pack_weights(w: np.ndarray) -> np.ndarray:
    """OIHW → (O/16, I/16, KH, KW, 16, 16)."""
    o, i, kh, kw = w.shape
    return np.ascontiguousarray(
        w.reshape(o // BLOCK, BLOCK, i // BLOCK, BLOCK, kh, kw).transpose(0, 2, 4, 5, 1, 3))


def unpack_output(y: np.ndarray) -> np.ndarray:
    """(N, O/16, OH, OW, 1, 16) → NCHW."""
    n, ob, oh, ow, _, bo = y.shape
    return y[:, :, :, :, 0, :].transpose(0, 1, 4, 2, 3).reshape(n, ob * bo, oh, ow)


def synchronised(text: str):
    return run_pipeline(parse_module(text), "vta-coproc-sync")


# ---------------------------------------------------------------------------------------------
# End to end


@pytest.mark.parametrize(("stride", "images", "double_buffer"),
                         [(1, 2, True), (2, 1, False), (2, 3, True)])
def test_conv_list_loops_bit_exact(stride: int, images: int, double_buffer: bool) -> None:
    cin, cout, out, k = 2, 4, 8, 3
    side = (out - 1) * stride + k
    text = conv_program(stride=stride, images=images, double_buffer=double_buffer)
    module = synchronised(text)
    verify_op(module)
    isa = run_pipeline(module, "vta-lower-to-isa")

    rng = np.random.default_rng(stride * 10 + images)
    x = rng.integers(-128, 128, size=(images, cin * BLOCK, side, side), dtype=np.int8)
    w = rng.integers(-128, 128, size=(cout * BLOCK, cin * BLOCK, k, k), dtype=np.int8)
    with vta_compile(isa) as mod:
        (y,) = mod(pack_input(x), pack_weights(w))
        stats = mod.last_run
    assert np.array_equal(unpack_output(y), conv_reference(x, w, stride, SHIFT))
    # One GEMM instruction per image, (out x out) iterations over 72 micro-ops (resets are not
    # counted).
    assert stats.counters["gemm_counter"] == images * out * out * cin * k * k * cout

    binary = lower_to_binary(synchronised(text))
    assert program_hazards(binary.program, binary.config) == []
    kernels = [insn for run in binary.program.runs for insn in run.insns
               if type(insn).__name__ == "GemmInsn" and not insn.reset_reg]
    assert {insn.uop_end - insn.uop_bgn for insn in kernels} == {cin * k * k * cout}


def test_double_buffered_kernels_memoised_per_copy() -> None:
    """The conv kernel depends on %p and %q: one micro-op list per copy, reused afterwards."""
    text = conv_program(stride=1, images=4, double_buffer=True)
    binary = lower_to_binary(synchronised(text))
    words = [run.uop_words.size for run in binary.program.runs]
    # reset (1) + shr (1) + two conv lists of 72 micro-ops
    assert sum(words) == 2 + 2 * 72


def test_enumeration_is_fast() -> None:
    """300 micro-ops (3 x 5 x 5 x 4) under 2 levels, 40 host iterations: coproc-sync computes
    the kernel's ranges from coefficients (a few ms per host iteration at most)."""
    text = conv_program(stride=1, images=40, double_buffer=True, cin=3, cout=4, out=2, k=5)
    module = parse_module(text)
    verify_op(module)
    start = time.perf_counter()
    module = run_pipeline(module, "vta-coproc-sync")
    elapsed = time.perf_counter() - start
    assert elapsed < 40 * 0.005 + 1.0
    binary = lower_to_binary(module)
    assert program_hazards(binary.program, binary.config) == []


# ---------------------------------------------------------------------------------------------
# Diagnostics


def diagnostic(text: str, op: str = "vta.uop_loop") -> str:
    """The message of the error lowering ``text`` reports, which must be at an ``op``."""
    with pytest.raises(DiagnosticError) as info:
        lower_to_binary(parse_module(text))
    message = info.value.diagnostic.message
    prefix = f"'{op}' op "
    assert message.startswith(prefix), message
    return message[len(prefix):]


def small_kernel(body: str, extra: str = "") -> str:
    return f"""
builtin.module {{
  func.func @k(%y: memref<1x4x1x16xi8>) {{
    %acc = memref.alloc() : memref<64x1x16xi32, #vta.sram<acc>>
    affine.for %n = 0 to 2 {{
      %p = affine.apply affine_map<(d0) -> ((d0 mod 2) * 4)> (%n)
      {extra}
      vta.uop_loop 1 {{{body}
      }}
      vta.dma_copy %acc[0] -> %y[0] y 1 x 4 stride 4
          : memref<64x1x16xi32, #vta.sram<acc>> -> memref<1x4x1x16xi8>
    }}
    func.return
  }}
}}
"""


ACC = "memref<64x1x16xi32, #vta.sram<acc>>"


def test_list_loop_kernel_lowers() -> None:
    text = small_kernel(f"""
        affine.for %j = 0 to 4 {{
          %d = affine.apply affine_map<(d0)[s0] -> (d0 * 3 + s0)> (%j)[%p]
          vta.alu add %acc[%d], 1 : {ACC}
        }}""")
    binary = lower_to_binary(synchronised(text))
    uops = [run.uop_words for run in binary.program.runs]
    assert sum(u.size for u in uops) == 8  # one list of 4 per value of %p (0 and 4)


def test_too_many_micro_ops() -> None:
    text = small_kernel(f"""
        affine.for %j = 0 to 100 {{
          affine.for %k = 0 to 100 {{
            vta.alu add %acc[%p], 1 : {ACC}
          }}
        }}""")
    assert diagnostic(text) == ("the micro-kernel has 10000 micro-ops, more than the UOP SRAM "
                                "depth 8192")


def test_write_hazard_on_enumerated_list() -> None:
    # Positions p + j for j = 0, 1, 0 (inner loop of 2 repeats): the list is p, p+1, p, p+1.
    text = small_kernel(f"""
        affine.for %j = 0 to 2 {{
          affine.for %k = 0 to 2 {{
            %d = affine.apply affine_map<(d0)[s0] -> (d0 + s0)> (%k)[%p]
            vta.alu add %acc[%d], 1 : {ACC}
          }}
        }}""")
    message = diagnostic(text)
    assert message.startswith("write hazard: micro-op 2 writes dst")


def test_non_linear_position() -> None:
    text = small_kernel(f"""
        affine.for %j = 0 to 4 {{
          %d = affine.apply affine_map<(d0)[s0] -> ((d0 mod 3) + s0)> (%j)[%p]
          vta.alu add %acc[%d], 1 : {ACC}
        }}""")
    assert diagnostic(text, "vta.alu").startswith(
        "the dst position is not linear in the induction variables of its micro-op list loops")


def test_non_linear_position_arith() -> None:
    text = small_kernel(f"""
        affine.for %j = 0 to 4 {{
          %d = arith.muli %j, %p : index
          vta.alu add %acc[%d], 1 : {ACC}
        }}""")
    assert diagnostic(text, "vta.alu").startswith("the dst position is not linear")


def test_list_loop_out_of_bounds_at_run_time() -> None:
    # p + 20 j reaches 4 + 60 = 64 for the second copy: out of the 64-element buffer.
    text = small_kernel(f"""
        affine.for %j = 0 to 4 {{
          %d = affine.apply affine_map<(d0)[s0] -> (d0 * 20 + s0)> (%j)[%p]
          vta.alu add %acc[%d], 1 : {ACC}
        }}""")
    assert diagnostic(text).startswith("micro-op 3 addresses elements [64, 64] of %acc")


def test_list_loop_with_non_constant_bound() -> None:
    text = small_kernel(f"""
        affine.for %j = 0 to %p {{
          vta.alu add %acc[%j], 1 : {ACC}
        }}""")
    assert diagnostic(text, "affine.for") == (
        "a micro-op list loop (affine.for in a vta.uop_loop) has constant bounds and step 1")


def test_command_inside_list_loop() -> None:
    text = small_kernel(f"""
        affine.for %j = 0 to 2 {{
          vta.alu add %acc[%j], 1 : {ACC}
          vta.dep_push compute -> load
        }}""")
    assert diagnostic(text, "vta.dep_push").startswith(
        "a vta.uop_loop body holds micro-ops, micro-op list loops")


# ---------------------------------------------------------------------------------------------
# vta-coproc-sync: ranges of a kernel with list loops


def reset_then_store(element: int) -> str:
    """A reset kernel writing acc elements {0, 16, 32, 48} + {0, 1} (list loop x level), then a
    store of acc element ``element``."""
    return f"""
builtin.module {{
  func.func @f(%y: memref<1x1x1x16xi8>) {{
    %acc = memref.alloc() : {ACC}
    vta.uop_loop 2 dst 1 {{
      affine.for %j = 0 to 4 {{
        %d = affine.apply affine_map<(d0) -> (d0 * 16)> (%j)
        vta.gemm_reset %acc[%d] : {ACC}
      }}
    }}
    vta.dma_copy %acc[{element}] -> %y[0] y 1 x 1 stride 1 : {ACC} -> memref<1x1x1x16xi8>
    func.return
  }}
}}
"""


@pytest.mark.parametrize(("element", "ordered"), [(0, True), (49, True), (50, False)])
def test_coproc_sync_orders_by_enumerated_range(element: int, ordered: bool) -> None:
    """The kernel's write range covers every enumerated micro-op and loop level ([0, 49]): a
    store of element 49 waits for it, one of element 50 does not."""
    module = synchronised(reset_then_store(element))
    printed = str(module)
    assert ("vta.dep_pop compute -> store" in printed) == ordered
    binary = lower_to_binary(module)
    assert program_hazards(binary.program, binary.config) == []
