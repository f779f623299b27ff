"""``vta-tile`` for nearest upsampling by integer factors ``(fh, fw)`` (the stage-1 op of
``passes/pack/match_resize.py``): the data tile loaded once, the columns replicated by the
ALU, the rows by the stores.

Each output element is one input element, so the work is data movement, and VTA's modules
can do it three ways: a DMA repeating rows (a DRAM stride of 0) or single elements (one DMA
per element: as many instructions as input elements), an ALU operation copying a tile to
every ``f``-th position of another, or a store writing one SRAM tile to several DRAM places.
Per tile of ``tc`` channel blocks × ``th`` input rows × the whole width:

1. the data tile ``(1, tc, th, W, B, BO)`` is loaded once into the accumulator SRAM (one
   ACC_8BIT DMA per channel block, one for all when the tile holds whole channel blocks): the
   input is read once from DRAM;
2. the output tile ``(1, tc, th, W·fw, B, BO)`` — the tile's rows, each already ``fw`` times
   wider — is reset, and for each replica ``r < fw`` one ALU ``add`` writes the data tile to
   its columns ``w·fw + r`` (an SRAM view of column step ``fw``): the ALU touches each element
   of a widened row once, ``1/fh`` of the output;
3. the epilogue of the region, if any (immediates), on the output tile;
4. for each replica ``s < fh``, one store of the output tile to the output rows
   ``h·fh + s`` (a DRAM view of row step ``fh``): the rows are replicated for free, as every
   output byte is stored anyway.

So the input is loaded once, the output stored once, and the ALU does ``out / fh`` element
operations plus the reset — against ``out`` operations for replicating rows by the ALU as
well, or ``f``-fold input loads for repeating rows by DMA.  The output tile has two copies
when double-buffered (the stores of one overlap the next tile).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, replace
from typing import NoReturn

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import AffineMapAttr, MemRefType, i32
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import DmaCopyOp
from vta_mlir.dialects.vta_positions import Sram
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.locations import copy_location
from vta_mlir.isa import AluKind
from vta_mlir.passes.analysis.alu_ops import ALU_KINDS
from vta_mlir.passes.pack.match_resize import resize_factors

from ..analysis.sram_views import LinearForm, affine_of_form
from .builder import Index, TileBuilder
from .conv_region import erase_region
from .cost import Budget, NoFit
from .padded import constant_of, is_dram, shape_of
from .search import divisors

__all__ = ["ResizeRegion", "is_resize_op", "resize_region", "tile_resize"]

_PREFIX = "vta-tile: "
_IDENTITY6 = AffineMap.identity(6)


def is_resize_op(op: Operation) -> bool:
    """``op`` is the nearest upsampling generic of a stage-1 region."""
    return (isinstance(op, linalg.GenericOp) and len(op.inputs) == 1
            and resize_factors([m.data for m in op.indexing_maps.data], 6) is not None)


@dataclass(eq=False)
class ResizeRegion:
    """One upsampling region: its accumulator (the one of ``accs``), its ops in program order
    (output last)."""

    accs: list[SSAValue]
    ops: list[Operation]
    output: linalg.GenericOp
    resize: linalg.GenericOp
    x: SSAValue
    factors: tuple[int, int]
    deallocs: list[Operation]

    @property
    def shape(self) -> tuple[int, ...]:
        """The packed data ``(N/B, C/BO, H, W, B, BO)``."""
        return shape_of(self.x)

    @property
    def acc(self) -> SSAValue:
        return self.accs[0]

    def erase(self) -> None:
        erase_region(self.ops, self.deallocs, self.accs)


def resize_region(accs: list[SSAValue], ops: list[Operation], output: linalg.GenericOp,
                  deallocs: list[Operation], cfg: VTAConfig) -> ResizeRegion:
    """The upsampling region of ``output`` (collected by :mod:`.region`), checked."""

    def fail(op: Operation, message: str) -> NoReturn:
        report_error(op, _PREFIX + message)

    resize = next(o for o in ops if is_resize_op(o))
    assert isinstance(resize, linalg.GenericOp)
    factors = resize_factors([m.data for m in resize.indexing_maps.data], 6)
    assert factors is not None
    if len(accs) != 1 or resize.outputs[0] is not accs[0]:
        fail(resize, "an upsampling region has one accumulator, which the upsampling writes")
    x = resize.inputs[0]
    xs, shape = shape_of(x), shape_of(accs[0])
    elem = (cfg.batch, cfg.block_out)
    fh, fw = factors
    if (not is_dram(x, cfg.inp_width) or len(xs) != 6 or xs[4:] != elem
            or shape != (*xs[:2], xs[2] * fh, xs[3] * fw, *elem)
            or shape_of(output.outputs[0]) != shape):
        fail(resize, f"the data {x.type} of the upsampling is an int8 DRAM tensor in the layout "
                     f"of its accumulator {accs[0].type}, which is {fh}x{fw} times larger")
    position = {op: k for k, op in enumerate(ops)}
    for op in ops:
        if op in (resize, output):
            continue
        body = [o for o in op.regions[0].block.ops if not isinstance(o, linalg.YieldOp)] \
            if isinstance(op, linalg.GenericOp) else []
        alu = body[-1] if body else None
        imm = next((constant_of(v) for v in alu.operands if constant_of(v) is not None), None) \
            if alu is not None else None
        if (not isinstance(op, linalg.GenericOp) or position[op] < position[resize]
                or any(v is not accs[0] for v in op.operands) or imm is None
                or any(m.data != _IDENTITY6 for m in op.indexing_maps.data)):
            fail(op, "the element-wise ops of an upsampling region are ALU operations with an "
                     "immediate, in place on the accumulator, after the upsampling")
    return ResizeRegion(accs, ops, output, resize, x, factors, deallocs)


@dataclass(frozen=True)
class ResizePlan:
    """``tc`` channel blocks × ``th`` input rows per tile."""

    tc: int
    th: int
    double_buffer: bool

    def describe(self) -> str:
        db = "double-buffered" if self.double_buffer else "single-buffered"
        return f"upsampling tile {self.tc} channel blocks x {self.th} input rows, {db}"


def _acc_elements(region: ResizeRegion, plan: ResizePlan) -> int:
    """The data tile and the output tile (two copies when double-buffered)."""
    w, fw = region.shape[3], region.factors[1]
    return plan.tc * plan.th * w * (1 + (2 if plan.double_buffer else 1) * fw)


def choose_resize_plan(region: ResizeRegion, cfg: VTAConfig, budget: Budget) -> ResizePlan:
    """The fewest tiles that fit the accumulator SRAM (each tile's instructions cost about the
    same; the element work does not depend on the tiling), double-buffered when there are
    several; among equals the most channel blocks per tile (the longest ALU loops)."""
    nb, cb, h, _, _, _ = region.shape
    best: tuple[tuple[int, int], ResizePlan] | None = None
    for tc in divisors(cb):
        for th in divisors(h):
            count = nb * (cb // tc) * (h // th)
            plan = ResizePlan(tc, th, count > 1)
            if _acc_elements(region, plan) > budget.acc:
                plan = replace(plan, double_buffer=False)
                if _acc_elements(region, plan) > budget.acc:
                    continue
            key = (count, -tc)
            if best is None or key < best[0]:
                best = (key, plan)
    if best is None:
        one = _acc_elements(region, ResizePlan(1, 1, False))
        raise NoFit(f"one input row of one channel block and its {region.factors[1]} output "
                    f"copies take {one} elements of the accumulator SRAM (#vta.sram<acc>), "
                    f"which has {budget.acc} available")
    return best[1]


class _ResizeEmitter(TileBuilder):
    """Builds the loop nest of one upsampling region before its output op."""

    def __init__(self, region: ResizeRegion, plan: ResizePlan, cfg: VTAConfig) -> None:
        super().__init__(region.output, plan.double_buffer)
        self.r, self.plan, self.cfg = region, plan, cfg
        acc_t = region.acc.type
        assert isinstance(acc_t, MemRefType)
        _, _, _, w, b, bo = region.shape
        self.win = self.alloc(Sram.ACC, [1, plan.tc, plan.th, w, b, bo], acc_t)
        self.win.name_hint = "win"
        lead = [2] if plan.double_buffer else []
        self.acc = self.alloc(Sram.ACC, [*lead, 1, plan.tc, plan.th, w * region.factors[1], b,
                                         bo], acc_t)

    def strided(self, src: SSAValue, offsets: Sequence[Index], sizes: Sequence[int],
                steps: Sequence[int], name: str) -> SSAValue:
        """A subview of ``src`` with ``steps`` between its elements."""
        t = src.type
        assert isinstance(t, MemRefType)
        rt = memref.SubviewOp.infer_result_type(t, list(offsets), list(sizes), list(steps))
        op = memref.SubviewOp.get(src, list(offsets), list(sizes), list(steps), rt)
        op.result.name_hint = name
        self.insert(op)
        return op.result

    def emit(self) -> None:
        nb, cb, h, _, _, _ = self.r.shape
        n_c, n_r = cb // self.plan.tc, h // self.plan.th
        with self.loop(nb, "b") if nb > 1 else nullcontext() as bv:
            b = LinearForm.of(bv) if bv is not None else LinearForm()
            with self.loop(n_c, "c") if n_c > 1 else nullcontext() as cv:
                ct = LinearForm.of(cv) if cv is not None else LinearForm()
                with self.loop(n_r, "r") if n_r > 1 else nullcontext() as rv:
                    rt = LinearForm.of(rv) if rv is not None else LinearForm()
                    self.tile(b, ct, rt, (b * n_c + ct) * n_r + rt)

    def tile(self, b: LinearForm, ct: LinearForm, rt: LinearForm, counter: LinearForm) -> None:
        p, r, cfg = self.plan, self.r, self.cfg
        _, cb, h, w, lanes, bo = r.shape
        fh, fw = r.factors
        acc = self.acc
        if p.double_buffer:
            copy: Index = counter.const % 2
            if not counter.is_constant:
                values = [v for v in counter.terms if isinstance(v, SSAValue)]
                expr = affine_of_form(LinearForm(counter.terms), values) + counter.const
                copy = self.apply_n(values, expr % 2, "copy")
            shape = shape_of(acc)
            acc = self.subview(acc, [copy, *[0] * (len(shape) - 1)], [1, *shape[1:]],
                               "acc_view", drop_first=True)
        # 1. The data tile: whole channel blocks in one DMA, else one per block.
        whole = p.th == h
        rows, blocks = (p.tc * h, 1) if whole and p.tc * h < 1 << cfg.mem_fields[
            "y_size"].width else (p.th, p.tc)
        with self.loop(blocks, "ci") if blocks > 1 else nullcontext() as ci:
            cl = LinearForm.of(ci) if ci is not None else LinearForm()
            dram = ((b * cb + ct * p.tc + cl) * h + rt * p.th) * w
            self.insert(DmaCopyOp(r.x, self.win, x_size=w, y_size=rows, x_stride=w,
                                  src_pos=self.position(dram, "x_pos"),
                                  dst_pos=self.position(cl * (p.th * w), "win_pos"),
                                  pad=(0, 0, 0, 0)))
        # 2. The columns: reset, then one ALU add per replica into every fw-th column.
        zero = arith.ConstantOp.from_int_and_width(0, 32)
        self.insert(zero)
        self.insert(linalg.FillOp([zero.result], [acc], res=()))
        for k in range(fw):
            dst = self.strided(acc, [0, 0, 0, k, 0, 0], [1, p.tc, p.th, w, lanes, bo],
                               [1, 1, 1, fw, 1, 1], "acc_replica") if fw > 1 else acc
            self.insert(_add(dst, self.win))
        # 3. The epilogue; 4. the rows: one store per replica, every fh-th output row.
        b0, c0 = self.value(b, "b0"), self.value(ct * p.tc, "c0")
        for op in r.ops:
            if op is r.resize:
                continue
            if op is not r.output:
                new = op.clone()
                new.operands = [acc if v is r.acc else v for v in op.operands]
                self.insert(new)
                copy_location(op, new)
                continue
            for s in range(fh):
                row = self.value(rt * (p.th * fh) + s, "row")
                out = self.strided(op.outputs[0], [b0, c0, row, 0, 0, 0],
                                   [1, p.tc, p.th, w * fw, lanes, bo], [1, 1, fh, 1, 1, 1],
                                   "out_rows")
                new = op.clone()
                new.operands = [acc, out]
                self.insert(new)
                copy_location(op, new)


def _add(dst: SSAValue, src: SSAValue) -> linalg.GenericOp:
    """``dst = dst + src`` element for element (identity maps)."""
    block = Block(arg_types=[i32, i32, i32])
    add = ALU_KINDS[AluKind.ADD](block.args[0], block.args[1])  # type: ignore[call-arg]
    block.add_ops([add, linalg.YieldOp(add.results[0])])
    ident = AffineMapAttr(_IDENTITY6)
    return linalg.GenericOp([dst, src], [dst], Region(block), [ident] * 3,
                            [IteratorTypeAttr.parallel()] * 6)


def tile_resize(region: ResizeRegion, cfg: VTAConfig, budget: Budget,
                double_buffer: bool | None,
                remark: Callable[[str], None] | None) -> list[SSAValue]:
    """Tile ``region`` (before its output op) and erase its stage-1 ops; the SRAM buffers."""
    plan = choose_resize_plan(region, cfg, budget)
    if double_buffer is False:
        plan = replace(plan, double_buffer=False)
    if remark is not None:
        remark(f"vta-tile: {plan.describe()}")
    emitter = _ResizeEmitter(region, plan, cfg)
    emitter.emit()
    region.erase()
    return [emitter.win, emitter.acc]
