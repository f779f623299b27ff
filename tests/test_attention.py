"""Matrix products whose right operand the device computes (``passes/pack/
match_matmul_operands.py``, ``passes/pack/transpose_operand.py``, ``passes/tile/
weight_store.py``): attention's ``Q · Kᵀ`` in each spelling, ``P · V`` through a transposing
product with the identity, an operand a host step writes; compiled, run on the simulator and
compared bit for bit with numpy, on every shipped configuration; and the refusals."""

from __future__ import annotations

import numpy as np
import pytest

import vta_mlir
from tests.attention_programs import (
    NK_MAP,
    NK_MATMUL,
    TRANSPOSE,
    Program,
    attention,
    attention_reference,
    heads,
    heads_reference,
    layer,
    scores,
    scores_reference,
)
from vta_mlir.config import VTAConfig
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.sim.hazards import program_hazards

S, D, C = 32, 32, 64


def _inputs(seed: int, *shapes: tuple[int, int]) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(-128, 128, shape, dtype=np.int8) for shape in shapes]


def _run(text: str, cfg: VTAConfig, *inputs: np.ndarray) -> np.ndarray:
    binary = vta_mlir.lower(text, config=cfg)
    assert program_hazards(binary.program, cfg) == []
    (out,) = vta_mlir.Device(cfg).load_module(binary)(*inputs)
    return out


@pytest.mark.parametrize("form", [NK_MAP, NK_MATMUL, TRANSPOSE])
def test_scores(cfg: VTAConfig, form: str) -> None:
    """``q · kᵀ``: the layer computing ``k`` stores it in the weight layout."""
    x, wq, wk = _inputs(1, (S, C), (C, D), (C, D))
    expected = scores_reference(x, wq, wk)
    assert 0.3 < (expected != 0).mean() and (np.abs(expected) < 127).mean() > 0.5
    np.testing.assert_array_equal(_run(scores(S, D, C, form), cfg, x, wq, wk), expected)


def test_attention(cfg: VTAConfig) -> None:
    """``(q · kᵀ) · v``: ``v`` transposed on the device by a product with the identity."""
    x, wq, wk, wv = _inputs(2, (S, C), (C, D), (C, D), (C, D))
    expected = attention_reference(x, wq, wk, wv)
    assert (expected != 0).mean() > 0.3
    np.testing.assert_array_equal(_run(attention(S, D, C), cfg, x, wq, wk, wv), expected)


def _halve_on_host(src: str, dst: str) -> str:
    """``dst = int8(float(src) · 0.5)`` (rounded toward zero) in f32: float code, a host step."""
    f32, i8 = f"memref<{S}x{D}xf32>", f"memref<{S}x{D}xi8>"
    maps = ('indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], '
            'iterator_types = ["parallel", "parallel"]')
    return f"""  %{dst}_f = memref.alloc() : {f32}
  linalg.generic {{{maps}}} ins(%{src} : {i8}) outs(%{dst}_f : {f32}) {{
  ^bb0(%a: i8, %o: f32):
    %half = arith.constant 0.5 : f32
    %fv = arith.sitofp %a : i8 to f32
    %fh = arith.mulf %fv, %half : f32
    linalg.yield %fh : f32
  }}
  linalg.generic {{{maps}}} ins(%{dst}_f : {f32}) outs(%{dst} : {i8}) {{
  ^bb0(%a: f32, %o: i8):
    %fq = arith.fptosi %a : f32 to i8
    linalg.yield %fq : i8
  }}"""


def test_operands_written_by_host_steps(cfg: VTAConfig) -> None:
    """``k`` and ``v`` written by host steps: the host packs them in the weight layouts of
    ``q · kᵀ`` and ``p · v`` (``v`` read as K × N, no transposing layer)."""
    prog = Program()
    for name, shape in (("x", (S, C)), ("wq", (C, D)), ("wk", (C, D)), ("wv", (C, D)),
                        ("q", (S, D)), ("k0", (S, D)), ("v0", (S, D)), ("k", (S, D)),
                        ("v", (S, D)), ("p", (S, S)), ("y", (S, D))):
        prog.buffer(name, shape)
    for w, out in (("wq", "q"), ("wk", "k0"), ("wv", "v0")):
        prog.product("x", w, out, 9)
    prog.body += [_halve_on_host("k0", "k"), _halve_on_host("v0", "v")]
    prog.product("q", "k", "p", 9, NK_MAP)
    prog.product("p", "v", "y", 9)
    text = prog.function("host_operands", ["x", "wq", "wk", "wv", "y"])
    packed = vta_mlir.run_pipeline(vta_mlir.parse(text, config=cfg),
                                   "vta-outline-host-steps,vta-pack")
    assert "identity" not in vta_mlir.print_ir(packed)  # no transposing layer
    x, wq, wk, wv = _inputs(3, (S, C), (C, D), (C, D), (C, D))

    def halve(a: np.ndarray) -> np.ndarray:
        return (a.astype(np.float32) * np.float32(0.5)).astype(np.int8)

    k = halve(layer(x, wk, 9))
    v = halve(layer(x, wv, 9))
    expected = layer(layer(layer(x, wq, 9), k.T, 9), v, 9)
    assert (expected != 0).mean() > 0.3
    np.testing.assert_array_equal(_run(text, cfg, x, wq, wk, wv), expected)


def test_heads_as_column_slices(cfg: VTAConfig) -> None:
    """Two heads as column slices of S × 64 matrices: each head's product reads its columns of
    ``q``, ``k``, ``v`` in place (strided DMAs) and writes its columns of ``y``."""
    x, wq, wk, wv = _inputs(6, (S, C), (C, 2 * D), (C, 2 * D), (C, 2 * D))
    text = heads(S, D, 2, C)
    packed = vta_mlir.print_ir(vta_mlir.run_pipeline(vta_mlir.parse(text, config=cfg),
                                                     "vta-pack"))
    # Head 1 reads its columns of q and of k's weight tiles, and writes its columns of y, in
    # place: views at the column block D / BLOCK.
    block = D // cfg.block_out
    for view in (f"%q1 = memref.subview %q[0, {block}, 0, 0]",
                 f"%k1 = memref.subview %k[0, {block}, 0, 0]",
                 f"%y1 = memref.subview %y_cat[0, {block}, 0, 0]"):
        assert view in packed
    expected = heads_reference(x, wq, wk, wv, D)
    assert (expected != 0).mean() > 0.3
    np.testing.assert_array_equal(_run(text, cfg, x, wq, wk, wv), expected)


def test_heads_off_the_blocks_are_refused() -> None:
    """Heads of 24 columns: the keys of a head are not whole blocks of columns."""
    with pytest.raises(DiagnosticError, match=r"58:3: error: 'linalg.generic' op reads %k0 "
                                              r"\(memref<32x24xi8>\), which an earlier layer "
                                              r"computes, as its weights: its rows must be whole "
                                              r"blocks of BLOCK_OUT \(16\) and its columns"):
        vta_mlir.lower(heads(S, 24, 2, C))
