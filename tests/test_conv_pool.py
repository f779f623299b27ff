"""A convolution whose int8 output only a max-pool reads, fused by ``vta-tile``
(``passes/tile/conv_pool.py``): compiled, run on the simulator and compared bit for bit with
numpy written here, on every shipped configuration; an epilogue that is not monotone (a
negative multiplier) keeps the two layers, with the same integers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from tests.mlir_programs import memref
from vta_mlir import compile as vta_compile
from vta_mlir.config import VTAConfig
from vta_mlir.frontend.mlir_text import padding_idiom
from vta_mlir.passes.tile import conv_pool as conv_pool_module
from vta_mlir.passes.tile.conv_pool import ConvPoolRegion, separable_columns
from vta_mlir.runtime.device import LoadedModule
from vta_mlir.sim.hazards import program_hazards


@dataclass(frozen=True)
class ConvPool:
    """``maxpool(clip(((conv(x, w) + b) * mul) >> shift, lo, 127))``: a ``k×k`` convolution of
    ``stride`` and ``pad`` (zeros), then a ``pk×pk`` max-pool of ``ps`` and ``pp`` (padding and
    initial value −128)."""

    cin: int
    h: int
    w: int
    cout: int
    k: int = 3
    stride: int = 1
    pad: int = 1
    pk: int = 3
    ps: int = 2
    pp: int = 1
    mul: int = 1
    shift: int = 6
    lo: int = 0

    @property
    def conv_hw(self) -> tuple[int, int]:
        return ((self.h + 2 * self.pad - self.k) // self.stride + 1,
                (self.w + 2 * self.pad - self.k) // self.stride + 1)

    @property
    def pool_hw(self) -> tuple[int, int]:
        oh, ow = self.conv_hw
        return ((oh + 2 * self.pp - self.pk) // self.ps + 1,
                (ow + 2 * self.pp - self.pk) // self.ps + 1)


def conv_pool_mlir(p: ConvPool, n: int) -> str:
    oh, ow = p.conv_hw
    ph, pw = p.pool_hw
    x_t, w_t = memref((n, p.cin, p.h, p.w), "i8"), memref((p.cout, p.cin, p.k, p.k), "i8")
    b_t, acc_t = memref((p.cout,), "i32"), memref((n, p.cout, oh, ow), "i32")
    mid_t, y_t = memref((n, p.cout, oh, ow), "i8"), memref((n, p.cout, ph, pw), "i8")
    lines = ["  %c0 = arith.constant 0 : i32", "  %z8 = arith.constant 0 : i8",
             "  %m128 = arith.constant -128 : i8", f"  %mid = memref.alloc() : {mid_t}"]
    pad_ops, data, data_t = padding_idiom("%conv", "%x", (n, p.cin, p.h, p.w), (p.pad,) * 4,
                                          "%z8")
    lines += pad_ops
    ident = "affine_map<(n, c, h, w) -> (n, c, h, w)>"
    lines += [
        f"  %acc = memref.alloc() : {acc_t}",
        f"  linalg.fill ins(%c0 : i32) outs(%acc : {acc_t})",
        f"  linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>, strides = "
        f"dense<{p.stride}> : tensor<2xi64>}} ins({data}, %w : {data_t}, {w_t}) "
        f"outs(%acc : {acc_t})",
        f"  linalg.generic {{indexing_maps = [{ident}, affine_map<(n, c, h, w) -> (c)>, "
        f"{ident}], iterator_types = [\"parallel\", \"parallel\", \"parallel\", \"parallel\"]}} "
        f"ins(%acc, %b : {acc_t}, {b_t}) outs(%mid : {mid_t}) {{",
        "  ^bb0(%v: i32, %bb: i32, %o: i8):",
        "    %s = arith.addi %v, %bb : i32",
        f"    %mc = arith.constant {p.mul} : i32",
        "    %m = arith.muli %s, %mc : i32",
        f"    %sh = arith.constant {p.shift} : i32",
        "    %r = arith.shrsi %m, %sh : i32",
        f"    %lo = arith.constant {p.lo} : i32",
        "    %hi = arith.constant 127 : i32",
        "    %a = arith.maxsi %r, %lo : i32",
        "    %c = arith.minsi %a, %hi : i32",
        "    %t = arith.trunci %c : i32 to i8",
        "    linalg.yield %t : i8",
        "  }"]
    pool_ops, pdata, pdata_t = padding_idiom("%pool", "%mid", (n, p.cout, oh, ow), (p.pp,) * 4,
                                             "%m128")
    lines += pool_ops
    lines += [f"  %win = memref.alloc() : memref<{p.pk}x{p.pk}xi8>",
              f"  linalg.fill ins(%m128 : i8) outs(%y : {y_t})",
              f"  linalg.pooling_nchw_max {{dilations = dense<1> : tensor<2xi64>, strides = "
              f"dense<{p.ps}> : tensor<2xi64>}} ins({pdata}, %win : {pdata_t}, "
              f"memref<{p.pk}x{p.pk}xi8>) outs(%y : {y_t})"]
    return (f"func.func @net(%x: {x_t}, %w: {w_t}, %b: {b_t}, %y: {y_t}) {{\n"
            + "\n".join(lines) + "\n  return\n}\n")


def conv_pool_reference(p: ConvPool, x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The same integers in numpy: int64 arithmetic, wrapped to int32 where the ALU would."""
    xp = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (p.pad, p.pad), (p.pad, p.pad)))
    oh, ow = p.conv_hw
    acc = np.zeros((x.shape[0], p.cout, oh, ow), np.int64)
    for i in range(p.k):
        for j in range(p.k):
            patch = xp[:, :, i:i + p.stride * (oh - 1) + 1:p.stride,
                       j:j + p.stride * (ow - 1) + 1:p.stride]
            acc += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j].astype(np.int64))
    v = ((acc + b.astype(np.int64)[None, :, None, None]) * p.mul) >> p.shift
    mid = np.clip(v, p.lo, 127)
    mp = np.pad(mid, ((0, 0), (0, 0), (p.pp, p.pp), (p.pp, p.pp)), constant_values=-128)
    ph, pw = p.pool_hw
    out = np.full((x.shape[0], p.cout, ph, pw), -128, np.int64)
    for i in range(p.pk):
        for j in range(p.pk):
            out = np.maximum(out, mp[:, :, i:i + p.ps * (ph - 1) + 1:p.ps,
                                     j:j + p.ps * (pw - 1) + 1:p.ps])
    return out.astype(np.int8)


CASES = {
    "3x3s2p1": ConvPool(8, 12, 12, 32),
    "2x2s2p0": ConvPool(16, 8, 10, 16, pk=2, ps=2, pp=0, lo=-128),
    "stride2-conv": ConvPool(3, 15, 13, 16, k=5, stride=2, pad=2, mul=3, shift=8),
    "negative-multiplier": ConvPool(8, 10, 10, 16, mul=-3, shift=7, lo=-128),
}


def run_case(p: ConvPool, cfg: VTAConfig, seed: int, pipeline: str | None = None,
             batches: int = 1) -> LoadedModule:
    """Compile and run ``p`` on ``cfg`` with random data; compare with numpy."""
    return run_outputs(p, cfg, seed, pipeline, batches)[0]


def run_outputs(p: ConvPool, cfg: VTAConfig, seed: int, pipeline: str | None = None,
                batches: int = 1, bias: int = 0) -> tuple[LoadedModule, np.ndarray]:
    """:func:`run_case` with biases around ``bias``, and the output it compared."""
    n = cfg.batch * batches
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, size=(n, p.cin, p.h, p.w), dtype=np.int8)
    w = rng.integers(-128, 128, size=(p.cout, p.cin, p.k, p.k), dtype=np.int8)
    b = rng.integers(bias - 3000, bias + 3000, size=(p.cout,), dtype=np.int32)
    module = vta_compile(conv_pool_mlir(p, n), config=cfg, pipeline=pipeline)
    (y,) = module(x, w, b)
    # Tokens balance (no deadlock, no token left) and no SRAM race between the modules.
    assert module.last_run.warnings == []
    assert program_hazards(module.module.program, cfg) == []
    np.testing.assert_array_equal(y, conv_pool_reference(p, x, w, b))
    return module, y


@pytest.mark.parametrize("case", CASES)
def test_conv_pool_matches_numpy(case: str, cfg: VTAConfig) -> None:
    module = run_case(CASES[case], cfg, len(case))
    # One layer when fused (named after the convolution), two when not.
    layers = [layer["name"] for layer in module.last_run.layers]
    assert layers == (["conv2d@12", "maxpool@33"] if case == "negative-multiplier"
                      else ["conv2d@12"])


@pytest.mark.parametrize("double_buffer", ["true", "false"])
def test_row_tiles_match_numpy(cfg: VTAConfig, double_buffer: str) -> None:
    """Every output channel in one tile (``tile=0,O/BO,1``): several row tiles (double
    buffered: six of three pooled rows, the first and last reading the padding, the four
    between them one host loop), two images (the batch loop)."""
    p = ConvPool(16, 36, 20, 64)
    tile = f"0,{p.cout // cfg.block_out},1"
    module = run_case(p, cfg, 7, f"vta-to-isa{{tile={tile} double-buffer={double_buffer}}}",
                      batches=2)
    assert [layer["name"] for layer in module.last_run.layers] == ["conv2d@12"]


CARRY_CASES = {
    # 3×3 stride-2 pools (ResNet's): one row carried into the next tile's first pooled row.
    "3x3s2p1": ConvPool(16, 64, 40, 64),
    # 5×5 stride-3 pools padded by 2: two rows carried into the next tile's first row.
    "5x5s3p2": ConvPool(16, 48, 40, 64, pk=5, ps=3, pp=2),
    # A strided convolution under the pool, and a pool window reaching the bottom padding.
    "stride2-conv": ConvPool(3, 121, 81, 64, k=5, stride=2, pad=2, mul=3, shift=8),
}


def recorded_fusions(monkeypatch: pytest.MonkeyPatch) -> list[ConvPoolRegion | None]:
    """The fused regions ``vta-tile`` plans (``None`` for a pair it leaves as two), in order,
    from now on."""
    chosen: list[ConvPoolRegion | None] = []
    match = conv_pool_module.match_conv_pool

    def recording(*args: Any, **kwargs: Any) -> ConvPoolRegion | None:
        found = match(*args, **kwargs)
        chosen.append(found)
        return found

    monkeypatch.setattr(conv_pool_module, "match_conv_pool", recording)
    return chosen


@pytest.mark.parametrize("case", CARRY_CASES)
def test_carried_rows_match_numpy(case: str, cfg: VTAConfig,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Row tiles that pool the rows they share with the next tile ahead into its pooled tile
    (``ConvPlan.carry_rows``), forced by ``carry-rows=true`` whatever the modelled saving: two
    images, several row tiles."""
    chosen = recorded_fusions(monkeypatch)
    p = CARRY_CASES[case]
    module = run_case(p, cfg, 11, "vta-to-isa{carry-rows=true}", batches=2)
    assert [layer["name"] for layer in module.last_run.layers] == ["conv2d@12"]
    (found,) = chosen
    assert found is not None
    assert found.plan.carry_rows == p.pk - p.ps
    # More than one row tile, so that rows are carried.
    assert p.pool_hw[0] // found.tp > 1


@pytest.mark.parametrize("carry", ["true", "false"])
def test_carry_rows_option(cfg: VTAConfig, carry: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``carry-rows=`` overrides the model's threshold both ways on the layer of
    ``tests/filecheck/passes/vta-tile-conv-pool-carry.mlir``: ``true`` carries rows where the
    threshold never would, ``false`` computes them in both tiles where it always would."""
    monkeypatch.setattr(conv_pool_module, "CARRY_MIN_SAVING",
                        1 << 62 if carry == "true" else -(1 << 62))
    chosen = recorded_fusions(monkeypatch)
    run_case(ConvPool(16, 8, 8, 16), cfg, 5, f"vta-to-isa{{carry-rows={carry}}}")
    (found,) = chosen
    assert found is not None
    assert found.plan.carry_rows == (1 if carry == "true" else 0)


def test_separable_columns() -> None:
    """Columns pool in place first when no other window column is an anchor column."""
    assert separable_columns(1, 3, 2)  # ResNet's 3×3 / 2, padded by 1
    assert separable_columns(0, 2, 2)
    assert separable_columns(2, 5, 3)
    assert not separable_columns(2, 5, 2)  # window column 0 is the anchor of the output before
    assert not separable_columns(1, 3, 1)  # stride 1: every column is an anchor
    assert not separable_columns(0, 1, 2)  # one column: nothing to pool first


#: Pools whose windows are clipped at every edge (odd widths and heights), and whether their
#: columns pool separably.
SEPARABLE_CASES = {
    "3x3s2p1": (ConvPool(8, 11, 13, 16, shift=10, lo=-128), True),
    "5x5s3p2": (ConvPool(8, 14, 13, 16, pk=5, ps=3, pp=2, shift=10, lo=-128), True),
    # Unpadded: every window column is in the image; the middle one is the anchor.
    "3x3s2p0": (ConvPool(8, 11, 13, 16, pk=3, ps=2, pp=0, shift=10, lo=-128), True),
    # Window column 0 of an output is the anchor column 2 of the output before: not separable.
    "5x5s2p2": (ConvPool(8, 11, 13, 16, pk=5, ps=2, pp=2, shift=10, lo=-128), False),
    "3x3s1p1": (ConvPool(8, 9, 11, 16, pk=3, ps=1, pp=1, shift=10, lo=-128), False),
}


@pytest.mark.parametrize("carry", ["true", "false"])
@pytest.mark.parametrize("case", SEPARABLE_CASES)
def test_separable_pool_matches_numpy(case: str, carry: str, cfg: VTAConfig,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The window columns pooled in place in the accumulator tile, then the rows at the
    anchor column (``ConvPoolRegion.separable``), or every window offset where no anchor
    column is free of the others' windows; rows carried or not (``carry-rows=``)."""
    chosen = recorded_fusions(monkeypatch)
    p, separable = SEPARABLE_CASES[case]
    # Accumulators mostly negative (biases around -100,000, no clip at 0, a shift that keeps
    # their spread): the maximum of each window is taken among negative values.
    module, y = run_outputs(p, cfg, 3, f"vta-to-isa{{carry-rows={carry}}}", bias=-100_000)
    assert [layer["name"] for layer in module.last_run.layers] == ["conv2d@12"]
    assert (y < 0).mean() > 0.5 and len(np.unique(y)) > 20
    (found,) = chosen
    assert found is not None
    assert found.separable == separable
    carried = p.pk - p.ps if carry == "true" and p.pk - p.ps <= p.pp else 0
    assert found.plan.carry_rows == carried


#: A ``conv1``-like layer: three input channels, a 7×7 stride-2 convolution, a 3×3 stride-2
#: max-pool.  Its input tiles are large next to its GEMMs.
CONV1_LIKE = ConvPool(3, 80, 80, 64, k=7, stride=2, pad=3)


def test_input_copies_cover_the_tail(cfg: VTAConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where an input step loads more slowly than its GEMMs use it (block32 here), the loads
    stall through each tile's pool and epilogue with two input copies; the plan rotates
    through more (``input_copies``, as many as the input SRAM holds), computes the same
    integers and takes fewer cycles."""
    chosen: list[int] = []
    real = conv_pool_module.input_copies

    def spy(*args: Any) -> int:
        chosen.append(real(*args))
        return chosen[-1]

    monkeypatch.setattr(conv_pool_module, "input_copies", spy)
    module, y = run_outputs(CONV1_LIKE, cfg, 3)
    (copies,) = chosen
    assert copies > 2 if cfg.block_in == 32 else copies >= 2
    if copies == 2:
        return
    monkeypatch.setattr(conv_pool_module, "input_copies", lambda *args: 2)
    two, y_two = run_outputs(CONV1_LIKE, cfg, 3)
    np.testing.assert_array_equal(y, y_two)
    assert module.last_run.cycles < two.last_run.cycles
