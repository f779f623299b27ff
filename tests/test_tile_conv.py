"""``vta-tile`` on convolution regions (``passes/tile/conv.py``, ``passes/tile/conv_region.py``).

The tiled IR's structure (SRAM buffers, padded input DMAs, row runs), the plans chosen for the
ResNet-18 layers (every one fits; DRAM traffic close to compulsory), and the diagnostics for
convolution regions the tiler does not take.  End-to-end numerical checks of tiled
convolutions are in ``tests/test_conv.py``.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType

from vta_mlir import parse
from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import DmaCopyOp, Sram, sram_space
from vta_mlir.ir.context import make_context
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.passes.pack import PackPass
from vta_mlir.passes.tile import TilePass
from vta_mlir.passes.tile.conv_plan import ConvPlan, ConvTiles, choose_conv_plan, estimate_conv
from vta_mlir.passes.tile.conv_region import ConvRegion
from vta_mlir.passes.tile.cost import InsnCosts
from vta_mlir.passes.tile.region import find_regions
from vta_mlir.passes.tile.search import sram_budget, sram_in_use

from .mlir_programs import mac_region

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from resnet18_layers import LAYERS, Layer, compulsory, conv_mlir  # noqa: E402


def packed(layer: Layer, cfg: VTAConfig, **kwargs: bool) -> func.FuncOp:
    module = parse(conv_mlir(layer, **kwargs))
    PackPass().apply(make_context(), module)
    (f,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    return f


def tiled(layer: Layer, cfg: VTAConfig, **options: object) -> func.FuncOp:
    f = packed(layer, cfg)
    module = f.parent_op()
    assert module is not None
    TilePass(**options).apply(make_context(), module)  # type: ignore[arg-type]
    return f


def region_of(f: func.FuncOp) -> ConvRegion:
    (region,) = find_regions(f)
    assert isinstance(region, ConvRegion)
    return region


def test_padded_input_becomes_dma_padding(default_cfg: VTAConfig) -> None:
    layer = Layer("t", 1, 8, 8, 32, 48, 3, 3, 1, 1, 1, 1)
    f = tiled(layer, default_cfg)
    dmas = [op for op in f.walk() if isinstance(op, DmaCopyOp)
            and sram_space(op.dst.type) is Sram.INP]
    assert dmas and all(op.pads[2:] == (1, 1) for op in dmas)
    # The padded tensor is gone: no DRAM alloc is left.
    allocs = [op for op in f.walk() if op.name == "memref.alloc"]
    assert all(sram_space(op.results[0].type) is not None for op in allocs)


def test_row_tiles_split_into_runs_of_equal_padding(default_cfg: VTAConfig) -> None:
    layer = Layer("t", 1, 32, 32, 16, 16, 3, 3, 1, 1, 1, 1)
    f = packed(layer, default_cfg)
    geo = region_of(f).geo
    runs = ConvTiles(geo, ConvPlan(1, 4, 1, True, True)).row_runs()
    assert [(r.first, r.count, r.before, r.after, r.size) for r in runs] == [
        (0, 1, 1, 0, 5), (1, 6, 0, 0, 6), (7, 1, 0, 1, 5)]


def test_strided_1x1_loads_every_other_row(default_cfg: VTAConfig) -> None:
    layer = Layer("t", 1, 16, 16, 16, 32, 1, 1, 0, 0, 2, 2)
    geo = region_of(packed(layer, default_cfg)).geo
    tiles = ConvTiles(geo, ConvPlan(2, 8, 1, True, True, skip_rows=True))
    assert (tiles.ht, tiles.pitch, tiles.wt) == (8, 32, 15)


@pytest.mark.parametrize("layer", LAYERS, ids=lambda lay: lay.name)
def test_resnet_layer_plans_fit_and_stay_near_compulsory_traffic(
        layer: Layer, default_cfg: VTAConfig) -> None:
    """Every layer has a plan whose DRAM traffic is within 1.5x the compulsory bytes.  C1's
    3 channels are folded into a 1x1 convolution of its data's patches, whose packed image
    (not the original input) is then what any schedule has to read."""
    f = packed(layer, default_cfg)
    region = region_of(f)
    budget = sram_budget(default_cfg, sram_in_use(f))
    plan = choose_conv_plan(region, default_cfg, budget, (0, 0, 0), None)
    tiles = ConvTiles(region.geo, plan)
    accs = [region.inits[a][1] for a in region.accs]
    est = estimate_conv(tiles, default_cfg, InsnCosts(default_cfg), accs, [False] * 4)
    minimum = compulsory(layer, default_cfg)
    x = f.body.block.args[0]
    assert isinstance(x.type, MemRefType)
    if layer.name == "C1":
        minimum["inp"] = math.prod(x.type.get_shape())
    else:
        assert x.type.get_shape()[2:4] == (layer.height, layer.width)  # not folded
    assert est.dram <= 1.5 * sum(minimum.values())


def test_tile_option_fixes_channel_tiles(default_cfg: VTAConfig) -> None:
    layer = Layer("t", 1, 8, 8, 64, 64, 3, 3, 1, 1, 1, 1)
    f = tiled(layer, default_cfg, tile=(0, 2, 1))
    shapes = {str(op.results[0].type) for op in f.walk() if op.name == "memref.alloc"}
    assert any(re.search(r"memref<(2x)?2x1x3x3x16x16xi8, #vta.sram<wgt>>", s) for s in shapes)


def test_tile_option_must_divide(default_cfg: VTAConfig) -> None:
    layer = Layer("t", 1, 8, 8, 64, 64, 3, 3, 1, 1, 1, 1)
    with pytest.raises(DiagnosticError, match="does not divide"):
        tiled(layer, default_cfg, tile=(0, 3, 0))


_PADDED = """
func.func @c(%x: memref<1x1x8x8x1x16xi8>, %w: memref<1x1x3x3x16x16xi8>,
             %y: memref<1x1x8x8x1x16xi8>) {
  %z8 = arith.constant {FILL} : i8
  %c0 = arith.constant 0 : i32
  %xp = memref.alloc() : memref<1x1x10x10x1x16xi8>
  linalg.fill ins(%z8 : i8) outs(%xp : memref<1x1x10x10x1x16xi8>)
  %xi = memref.subview %xp[0, 0, 1, 1, 0, 0] [1, 1, 8, 8, 1, 16] [1, 1, 1, 1, 1, 1]
      : memref<1x1x10x10x1x16xi8>
      to memref<1x1x8x8x1x16xi8, strided<[1600, 1600, 160, 16, 16, 1], offset: 176>>
  memref.copy %x, %xi : memref<1x1x8x8x1x16xi8>
      to memref<1x1x8x8x1x16xi8, strided<[1600, 1600, 160, 16, 16, 1], offset: 176>>
  {EXTRA}
  %acc = memref.alloc() : memref<1x1x8x8x1x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x1x8x8x1x16xi32>)
  linalg.generic {indexing_maps = [
      affine_map<(b, o, oh, ow, i, kh, kw, bb, oo, ii) -> (b, i, oh + kh, ow + kw, bb, ii)>,
      affine_map<(b, o, oh, ow, i, kh, kw, bb, oo, ii) -> (o, i, kh, kw, oo, ii)>,
      affine_map<(b, o, oh, ow, i, kh, kw, bb, oo, ii) -> (b, o, oh, ow, bb, oo)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction",
                        "reduction", "reduction", "parallel", "parallel", "reduction"]}
      ins(%xp, %w : memref<1x1x10x10x1x16xi8>, memref<1x1x3x3x16x16xi8>)
      outs(%acc : memref<1x1x8x8x1x16xi32>) {
{MAC}
  }
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d, e, f) -> (a, b, c, d, e, f)>,
                                   affine_map<(a, b, c, d, e, f) -> (a, b, c, d, e, f)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel",
                                    "parallel"]}
      ins(%acc : memref<1x1x8x8x1x16xi32>) outs(%y : memref<1x1x8x8x1x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  return
}
"""


def _stage1(fill: int = 0, extra: str = "") -> str:
    return (_PADDED.replace("{FILL}", str(fill)).replace("{EXTRA}", extra)
            .replace("{MAC}", mac_region()))


def test_stage1_padded_form_tiles() -> None:
    module = parse(_stage1())
    TilePass().apply(make_context(), module)
    pads = {op.pads for op in module.walk() if isinstance(op, DmaCopyOp)
            and sram_space(op.dst.type) is Sram.INP}
    # Every input tile gets the column halo; the top and bottom rows only at the edges.
    assert all(pad[2:] == (1, 1) for pad in pads)
    assert any(pad[0] == 1 for pad in pads) and any(pad[1] == 1 for pad in pads)


_EXTRA_READER = ("%i0 = arith.constant 0 : index\n  %rd = memref.load %xp[%i0, %i0, %i0, %i0, "
                 "%i0, %i0] : memref<1x1x10x10x1x16xi8>")


@pytest.mark.parametrize(("fill", "extra", "message"), [
    (1, "", "padded with zeros"),
    (0, _EXTRA_READER, "read only by the convolution"),
])
def test_padded_input_diagnostics(fill: int, extra: str, message: str) -> None:
    module = parse(_stage1(fill, extra))
    with pytest.raises(DiagnosticError, match=message):
        TilePass().apply(make_context(), module)


def test_wide_images_get_column_tiles(default_cfg: VTAConfig) -> None:
    """When even one output row's input window does not fit, tiles narrow to column ranges;
    the left and right halos are padding only in the first and last column tiles."""
    layer = Layer("wide", 1, 4, 1000, 16, 16, 3, 3, 1, 1, 1, 1)
    f = tiled(layer, default_cfg)
    pads = {op.pads[2:] for op in f.walk() if isinstance(op, DmaCopyOp)
            and sram_space(op.dst.type) is Sram.INP}
    assert pads == {(1, 0), (0, 0), (0, 1)}
