"""``vta-tile``: tile every VTA region so that its buffers fit the SRAMs (stage 1 → 2 of
``docs/pipeline.md``).

A region (the normal form of ``vta-pack``: accumulator allocs, their initialisation, at most
one contraction, element-wise ALU generics, a ``trunci`` output) is rewritten into host
``affine.for`` loops over tiles of its ``b`` (batch rows), ``o`` (output) and ``i`` (reduction)
elements, with SRAM buffers (``#vta.sram<inp|wgt|acc>``, shaped like the tile), DRAM → SRAM
``memref.copy`` s of ``memref.subview`` s, and the region's linalg ops on SRAM views: the
initialisation (``linalg.fill``, a copy, or a ``linalg.generic`` when it broadcasts or
sign-extends), the contraction, the ALU ops and the ``trunci`` output into a DRAM subview.  An
element-wise operand held in a second accumulator gets its own accumulator tile.  A
convolution region (rank-6 layouts) is tiled by :mod:`.conv` with the plan of
:mod:`.conv_plan`: output channel, row and input channel tiles, the padding done by the
input DMAs.  A pooling region (a max or sum pooling generic in place of the convolution) is
tiled by :mod:`.pool`: channel and row tiles, the data tile in the accumulator SRAM, one ALU
operation per window offset.
A convolution region followed by a max-pool region that alone reads its int8 output, with a
monotone epilogue, is tiled as one (:mod:`.conv_pool`, :mod:`.conv_pool_emit`): the pool on
the convolution's accumulator tiles (separably where that saves cycles: the window columns in
place first, then the rows), the epilogue on the pooled tile.  A contraction region is
emitted by :mod:`.emit`; one whose i32 result leaves as byte planes may have its plane stores
pipelined over its tiles instead (:mod:`.plane_pipeline`), so that they overlap the compute.

**Choice.**  :mod:`.search` enumerates tilings (tile sizes, order of the ``b``/``o``
loops, whether the input and weights are held per tile, per row of tiles or whole, double
buffering) that fit the SRAMs and takes the one with the fewest DRAM bytes, then the fewest
cycles under :mod:`.cost`, a pipeline model of the three modules built on the timing
model's instruction costs.  Weights used once are therefore loaded exactly once, and the input
is kept in SRAM across output tiles when it fits.  Tile sizes divide the dimensions where a
divisor is good; elsewhere a ``b`` or ``o`` tile may leave a smaller last tile, emitted as a
second copy of the loop body (a peeled remainder, not a clamped tile: every SRAM view keeps a
static shape and is a contiguous prefix of its buffer); the ``i`` tile always divides.  The
regions of one function (the layers of a network) run one after the other: each may use the
whole of every SRAM, and its buffers carry their element offsets (``vta.sram_offset``): after
the previous region's when they fit there, else from the start again, where
``vta-coproc-sync`` orders the two regions' accesses.

**Options.**  ``tile=b,o,i`` fixes the tile sizes in tensor elements (``0`` or a missing entry:
chosen; larger than the dimension: the whole dimension); a tile that does not fit is an error
naming the SRAM; for a convolution the ``o`` and ``i`` entries fix the output and input
channel tiles, in blocks, and must divide the channel blocks.  ``double-buffer=true|false``
forces the choice (default: the cost model's); for a convolution ``false`` keeps the tiles and
the alternating accumulator tiles the default would choose, with one copy of the input and
weight buffers (and ``vta-coproc-sync`` then keeps every token one deep); for an i32 result
stored as byte planes ``false`` also keeps one accumulator tile (no pipeline of planes).
``carry-rows=true|false`` forces whether a convolution with its max-pool fused carries the rows
two row tiles' windows share from one tile to the next (:mod:`.conv_pool`; default: when the
cost model says it saves :data:`.conv_pool.CARRY_MIN_SAVING` cycles); ``true`` takes it
wherever a plan carrying them fits.
``verbose=true`` reports the chosen tiling as a remark at each region's output.

**Double buffering.**  An input or weight buffer loaded more than once is one alloc with a
leading dimension of 2; the load in iteration ``k`` of its loop uses copy ``k mod 2``
(``affine.apply`` of ``d0 mod 2``; a peeled remainder tile uses the next parity), through a
rank-reducing ``memref.subview``.  The region's outermost tile loops carry the unit attribute
``vta.double_buffer`` for ``vta-coproc-sync``.

Before (``matrix_multiply_opt``, default configuration)::

    %acc = memref.alloc() : memref<1x64x1x16xi32>
    linalg.fill ins(%c0 : i32) outs(%acc : memref<1x64x1x16xi32>)
    linalg.generic {contraction} ins(%x, %w : memref<1x64x1x16xi8>, memref<64x64x16x16xi8>)
        outs(%acc : memref<1x64x1x16xi32>)
    linalg.generic ins(%acc) outs(%acc) { shrsi 8 }     // and maxsi 0, minsi 127
    linalg.generic ins(%acc) outs(%y) { trunci }

After::

    %inp = memref.alloc() : memref<1x64x1x16xi8, #vta.sram<inp>>
    %wgt = memref.alloc() : memref<2x4x64x16x16xi8, #vta.sram<wgt>>
    %acc = memref.alloc() : memref<1x4x1x16xi32, #vta.sram<acc>>
    %x_tile = memref.subview %x[0, 0, 0, 0] [1, 64, 1, 16] [1, 1, 1, 1] : ...
    memref.copy %x_tile, %inp : ...
    affine.for %o = 0 to 16 {
      %o0 = affine.apply affine_map<(d0) -> ((d0 * 4))> (%o)
      %w_tile = memref.subview %w[%o0, 0, 0, 0] [4, 64, 16, 16] [1, 1, 1, 1] : ...
      %copy = affine.apply affine_map<(d0) -> ((d0 mod 2))> (%o)
      %wgt_view = memref.subview %wgt[%copy, 0, 0, 0, 0] [1, 4, 64, 16, 16] [1, 1, 1, 1, 1]
          : memref<2x4x64x16x16xi8, #vta.sram<wgt>>
          to memref<4x64x16x16xi8, strided<[16384, 256, 16, 1], offset: ?>, #vta.sram<wgt>>
      memref.copy %w_tile, %wgt_view : ...
      linalg.fill ins(%c0 : i32) outs(%acc : ...)
      linalg.generic {contraction} ins(%inp, %wgt_view : ...) outs(%acc : ...)
      linalg.generic ins(%acc) outs(%acc) { shrsi 8 }   // and maxsi 0, minsi 127
      %y_tile = memref.subview %y[0, %o0, 0, 0] [1, 4, 1, 16] [1, 1, 1, 1] : ...
      linalg.generic ins(%acc) outs(%y_tile) { trunci }
    } {vta.double_buffer}
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import NoReturn

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta_config_attr import get_config
from vta_mlir.dialects.vta_positions import SRAM_OFFSET_ATTR, sram_space
from vta_mlir.ir.diagnostics import emit_remark, report_error, verify_op
from vta_mlir.ir.locations import given_layer_name

from .builder import DOUBLE_BUFFER_ATTR
from .conv import emit_conv
from .conv_plan import choose_conv_plan
from .conv_pool import ConvPoolRegion, fuse_conv_pools
from .conv_pool_emit import describe, emit_conv_pool
from .conv_region import ConvRegion
from .cost import Budget, NoFit
from .emit import RegionEmitter
from .plane_pipeline import PlanePipelineEmitter
from .pool import choose_pool_plan, emit_pool
from .pool_region import PoolRegion
from .region import find_regions
from .resize import ResizeRegion, tile_resize
from .search import (
    check_dram_sizes,
    choose_plan,
    place_region_buffers,
    sram_budget,
    sram_in_use,
)

__all__ = ["DOUBLE_BUFFER_ATTR", "TilePass"]


def _parse_tile(values: tuple[int, ...]) -> tuple[int, int, int] | str:
    if len(values) > 3 or any(v < 0 for v in values):
        return f"tile= takes up to three non-negative sizes (b, o, i), got {values}"
    padded = (*values, 0, 0, 0)
    return padded[0], padded[1], padded[2]


def cannot_tile(output: Operation, what: str, exc: NoFit) -> NoReturn:
    """The error of a region no tiling fits, at its output op, naming its layer (the
    ``NameLoc`` ``vta-pack`` gives the region's ops: the ONNX node or ``loc("...")`` of its
    principal op, else its kind and line, as ``vta-run --stats`` names it), so that the
    failing layer of a network is found."""
    layer = given_layer_name(output)
    named = f"layer '{layer}': " if layer is not None else ""
    report_error(output, f"vta-tile: {named}cannot tile this {what}: {exc}")


@dataclass(frozen=True)
class TilePass(ModulePass):
    """Tile the VTA regions onto SRAM buffers (module docstring)."""

    name = "vta-tile"

    tile: tuple[int, ...] = ()
    double_buffer: bool | None = None
    carry_rows: bool | None = None
    verbose: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        tile = _parse_tile(self.tile)
        if isinstance(tile, str):
            report_error(op, f"vta-tile: {tile}")
        for f in [o for o in op.walk() if isinstance(o, func.FuncOp)]:
            regions = find_regions(f)
            if not regions:
                continue
            check_dram_sizes(f)
            cfg = get_config(f)
            # The regions run one after the other: each may use what the function does not
            # already hold of every SRAM, and its buffers start there (vta.sram_offset), where
            # the previous region's did; vta-coproc-sync orders the two.
            held = sram_in_use(f)
            before = {o for o in f.walk() if isinstance(o, memref.AllocOp)}
            budget = sram_budget(cfg, held)
            after: dict[str, int] = {}
            for region in fuse_conv_pools(list(regions), cfg, budget, tile, self.double_buffer,
                                          self.carry_rows):
                if isinstance(region, ConvPoolRegion):
                    if self.verbose:
                        emit_remark(region.output, f"vta-tile: {describe(region)}")
                    place_region_buffers(emit_conv_pool(region, cfg), held, cfg, after)
                    continue
                if isinstance(region, ResizeRegion):
                    try:
                        buffers = tile_resize(region, cfg, budget, self.double_buffer,
                                              self.remark(region.output))
                    except NoFit as exc:
                        cannot_tile(region.output, "upsampling", exc)
                    place_region_buffers(buffers, held, cfg, after)
                    continue
                if isinstance(region, PoolRegion):
                    place_region_buffers(self.tile_pool(region, cfg, budget), held, cfg, after)
                    continue
                if isinstance(region, ConvRegion):
                    place_region_buffers(self.tile_conv(region, cfg, budget, tile), held, cfg,
                                         after)
                    continue
                try:
                    plan, est = choose_plan(region.shape, cfg, budget, tile, self.double_buffer)
                except NoFit as exc:
                    cannot_tile(region.output, "region", exc)
                if self.verbose:
                    emit_remark(region.output,
                                f"vta-tile: {plan.describe()}; estimated {est.cycles} cycles, "
                                f"DRAM bytes inp {est.inp_bytes}, wgt {est.wgt_bytes}, acc "
                                f"{est.acc_bytes}, out {est.out_bytes}")
                emitter = (PlanePipelineEmitter if plan.plane_pipeline else RegionEmitter)(
                    region, plan)
                emitter.emit()
                place_region_buffers([buf for buf, _ in emitter.bufs.values()], held, cfg,
                                     after)
                region.erase()
            _check_placed(f, before)
        verify_op(op)

    def remark(self, op: Operation) -> Callable[[str], None] | None:
        """Reports a tiling choice at ``op`` under ``verbose``."""
        return (lambda text: emit_remark(op, text)) if self.verbose else None

    def tile_pool(self, region: PoolRegion, cfg: VTAConfig, budget: Budget) -> list[SSAValue]:
        try:
            plan = choose_pool_plan(region, cfg, budget)
        except NoFit as exc:
            cannot_tile(region.output, "pooling", exc)
        if self.double_buffer is False:
            plan = replace(plan, double_buffer=False)
        if self.verbose:
            emit_remark(region.output, f"vta-tile: {plan.describe()}")
        buffers = list(emit_pool(region, plan, cfg))
        region.erase()
        return buffers

    def tile_conv(self, region: ConvRegion, cfg: VTAConfig, budget: Budget,
                  tile: tuple[int, int, int]) -> list[SSAValue]:
        try:
            # ``double-buffer=false`` keeps the tiles and accumulator tiles the default would
            # choose, with one copy of the input and weight buffers (so the two can be
            # compared); ``true`` insists on two copies.
            plan = choose_conv_plan(region, cfg, budget, tile, self.double_buffer or None)
            if self.double_buffer is False:
                plan = replace(plan, double_buffer=False, first_acc=False)
        except NoFit as exc:
            cannot_tile(region.output, "convolution", exc)
        if self.verbose:
            emit_remark(region.output, f"vta-tile: {plan.describe()}")
        buffers = list(emit_conv(region, plan, cfg))
        region.erase()
        return buffers


def _check_placed(f: func.FuncOp, before: set[Operation]) -> None:
    """Every SRAM buffer the regions of ``f`` were given has its element range: the host
    layout would put one without it at the start of its SRAM, over the regions' buffers."""
    for o in f.walk():
        if isinstance(o, memref.AllocOp) and o not in before \
                and sram_space(o.memref.type) is not None and SRAM_OFFSET_ATTR not in o.attributes:
            report_error(o, "vta-tile: internal error: an SRAM buffer of a tiled region has no "
                            "vta.sram_offset")
