"""The VTA regions of a function at stage 1 (``docs/pipeline.md``), as ``vta-tile`` sees them.

A region is found from its output, a ``linalg.generic`` whose body is ``arith.trunci`` from an
``i32`` DRAM accumulator (a ``memref.alloc``) into an ``i8`` DRAM buffer.  Its accumulators are
that alloc and every other ``i32`` alloc an element-wise op of the region reads; its ops are
every user of those accumulators: their initialisation (``linalg.fill``, or a ``linalg.generic``
copying, sign-extending or broadcasting a DRAM operand), at most one contraction over
``(b, o, i, bb, oo, ii)``, the element-wise generics (identity maps, in place) and the output
— the last of the stores of its accumulator when an i32 result is stored as byte planes
(``byte_planes.py``: the stores before it are ops of the region).  Anything else that
touches an accumulator, a layout that does not match the configuration, or a region op in
another block or after the output is reported at the op.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IntegerAttr, IntegerType, MemRefType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta_config_attr import get_config
from vta_mlir.dialects.vta_positions import sram_space
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.passes.pack.match_matmul_operands import weight_store_map, weight_store_rows

from .byte_planes import final_store
from .conv_region import ConvRegion, conv_region, erase_region
from .cost import RegionShape
from .pool_region import PoolRegion, is_pool_op, pool_region
from .resize import ResizeRegion, is_resize_op, resize_region

__all__ = ["VtaRegion", "find_regions"]

_D = [AffineExpr.dimension(k) for k in range(6)]
_ZERO = AffineExpr.constant(0)
IDENTITY4 = AffineMap.identity(4)
CONTRACTION_MAPS = (
    AffineMap(6, 0, (_D[0], _D[2], _D[3], _D[5])),
    AffineMap(6, 0, (_D[1], _D[2], _D[4], _D[5])),
    AffineMap(6, 0, (_D[0], _D[1], _D[3], _D[4])),
)
_CONTRACTION_ITERATORS = ("parallel", "parallel", "reduction", "parallel", "parallel",
                          "reduction")
_NORMAL_FORM = ("the normal form of vta-pack (docs/pipeline.md, stage 1): an accumulator "
                "alloc, its initialisation, at most one contraction, one-op element-wise "
                "generics in place on accumulators, a trunci output")


@dataclass(eq=False)
class VtaRegion:
    """One region: accumulators (the output's first), ops in program order (output last)."""

    accs: list[SSAValue]
    ops: list[Operation]
    output: linalg.GenericOp
    contraction: linalg.GenericOp | None
    shape: RegionShape
    deallocs: list[Operation] = field(default_factory=list[Operation])
    #: Initialisations that copy i32 elements one to one (they become ``memref.copy``).
    plain_copies: set[Operation] = field(default_factory=set[Operation])
    #: The output is stored in the weight layout of a later product, ``R`` row blocks per
    #: weight tile (``passes/pack/match_matmul_operands.py``); 0 for the accumulator's layout.
    weight_rows: int = 0

    def erase(self) -> None:
        """Remove the region's original ops and its DRAM accumulators."""
        erase_region(self.ops, self.deallocs, self.accs)


def _is_dram(value: SSAValue, width: int | None = None) -> bool:
    t = value.type
    return (isinstance(t, MemRefType) and sram_space(t) is None
            and (width is None or t.element_type == IntegerType(width)))


def _is_output(op: Operation) -> bool:
    if not isinstance(op, linalg.GenericOp) or len(op.inputs) != 1 or len(op.outputs) != 1:
        return False
    body = list(op.body.block.ops)
    return (len(body) == 2 and isinstance(body[0], arith.TruncIOp)
            and _is_dram(op.inputs[0], 32) and _is_dram(op.outputs[0]))


def _maps(op: linalg.GenericOp) -> list[AffineMap]:
    return [m.data for m in op.indexing_maps.data]


def _iterators(op: linalg.GenericOp) -> tuple[str, ...]:
    return tuple(str(it.data.value) for it in op.iterator_types.data)


def _shape(value: SSAValue) -> tuple[int, ...]:
    t = value.type
    assert isinstance(t, MemRefType)
    return tuple(t.get_shape())


def _check_layout(op: Operation, value: SSAValue, what: str, lead: tuple[int | None, ...],
                  elem: tuple[int, int]) -> tuple[int, ...]:
    """``value``'s shape, checked to be ``lead`` (``None``: any) × ``elem``."""
    shape = _shape(value)
    ok = (len(shape) == 4 and shape[2:] == elem and all(d > 0 for d in shape)
          and all(want is None or want == have for want, have in zip(lead, shape, strict=False)))
    if not ok:
        want = "x".join("?" if d is None else str(d) for d in lead)
        report_error(op, f"vta-tile: the {what} has type {value.type}, expected the packed "
                         f"shape {want}x{elem[0]}x{elem[1]} (the trailing dimensions one tensor "
                         "element of this configuration)")
    return shape


class _Collector:
    """Gathers and checks the region of one output op."""

    def __init__(self, output: linalg.GenericOp, cfg: VTAConfig, claimed: set[SSAValue]) -> None:
        self.output, self.cfg, self.claimed = output, cfg, claimed
        self.block = output.parent_block()
        assert self.block is not None
        self.position = {op: k for k, op in enumerate(self.block.ops)}
        self.accs: list[SSAValue] = []
        self.ops: set[Operation] = {output}
        self.deallocs: list[Operation] = []
        self.plain_copies: set[Operation] = set()

    def add_acc(self, value: SSAValue, user: Operation) -> None:
        if value in self.accs:
            return
        owner = value.owner
        if not isinstance(owner, memref.AllocOp) or not _is_dram(value, 32):
            report_error(user, "vta-tile: an accumulator of a VTA region must be an i32 "
                               f"memref.alloc in DRAM, got {value.type} ({_NORMAL_FORM})")
        if value in self.claimed:
            report_error(user, "vta-tile: this accumulator is used by two VTA regions")
        if owner.parent_block() is not self.block:
            report_error(owner, "vta-tile: the accumulator must be allocated in the block of "
                                "its region's output")
        self.accs.append(value)
        for use in list(value.uses):
            self.add_user(use.operation, value)

    def add_user(self, user: Operation, acc: SSAValue) -> None:
        if isinstance(user, memref.DeallocOp):
            self.deallocs.append(user)
            return
        if user is self.output:
            return
        if _is_output(user) and self.position.get(user, -1) < self.position[self.output]:
            # A byte plane of an i32 result stored before the last (byte_planes.py).
            self.ops.add(user)
            return
        if user.parent_block() is not self.block or self.position[user] > self.position[
                self.output]:
            report_error(user, "vta-tile: an op on the accumulator of a VTA region must come "
                               "before the region's output, in its block")
        if isinstance(user, linalg.FillOp) and acc in user.outputs:
            self.ops.add(user)
            return
        if not isinstance(user, linalg.GenericOp) or user.res or len(user.outputs) != 1:
            report_error(user, f"vta-tile: this op uses a VTA accumulator but is not part of "
                               f"{_NORMAL_FORM}")
        out = user.outputs[0]
        if out is not acc and out not in user.inputs:
            report_error(user, f"vta-tile: this op reads a VTA accumulator but writes "
                               f"{out.type} ({_NORMAL_FORM})")
        self.ops.add(user)
        if out in user.inputs:
            for v in (out, *user.inputs):
                self.add_acc(v, user)

    def region(self) -> VtaRegion | ConvRegion | PoolRegion | ResizeRegion:
        self.add_acc(self.output.inputs[0], self.output)
        ops = sorted(self.ops, key=lambda o: self.position[o])
        contractions = [o for o in ops if isinstance(o, linalg.GenericOp)
                        and len(o.inputs) == 2 and o.outputs[0] not in o.inputs]
        if len(_shape(self.accs[0])) == 6:
            # The rank-6 tensor layout is a convolution's; element-wise programs of every rank
            # are packed as matrices.
            if any(is_resize_op(o) for o in ops):
                return resize_region(self.accs, ops, self.output, self.deallocs, self.cfg)
            if not contractions:
                report_error(self.output, "vta-tile: this region has the rank-6 layout of a "
                                          "convolution but no convolution: vta-pack packs "
                                          "element-wise programs of any rank as matrices "
                                          "(rank-4 layout, docs/pipeline.md)")
            if is_pool_op(contractions[0]):
                return pool_region(self.accs, ops, self.output, self.deallocs, self.cfg,
                                   self.position)
            return conv_region(self.accs, ops, self.output, self.deallocs, self.cfg,
                               self.position)
        if len(contractions) > 1:
            report_error(contractions[1], "vta-tile: a VTA region has at most one contraction")
        cfg = self.cfg
        acc_elem = (cfg.batch, cfg.block_out)
        b, o, *_ = _check_layout(self.output, self.accs[0], "accumulator", (None, None),
                                 acc_elem)
        for acc in self.accs[1:]:
            _check_layout(self.output, acc, "accumulator", (b, o), acc_elem)
        weight_rows = weight_store_rows(_maps(self.output)[1], cfg)
        if weight_rows is None:
            _check_layout(self.output, self.output.outputs[0], "output", (b, o), acc_elem)
        elif b % weight_rows:
            report_error(self.output, f"vta-tile: an output stored in the weight layout has "
                                      f"whole weight tiles of rows, {weight_rows} row blocks "
                                      f"each; this one has {b}")
        else:
            _check_layout(self.output, self.output.outputs[0], "output",
                          (b // weight_rows, o), (cfg.block_out, cfg.block_in))
        i = 0
        inits: list[str] = []
        alu = [0, 0]
        stores = 0
        for op in ops:
            if _is_output(op):
                self.check_maps(op, [IDENTITY4, IDENTITY4 if weight_rows is None
                                     else weight_store_map(cfg)])
                if op is not self.output:
                    # A further byte plane of an i32 result (its layout checked above for the
                    # first).
                    _check_layout(op, op.outputs[0], "output", (b, o), acc_elem)
                stores += 1
            elif isinstance(op, linalg.FillOp):
                value = op.inputs[0].owner
                nonzero = not (isinstance(value, arith.ConstantOp)
                               and isinstance(value.value, IntegerAttr)
                               and value.value.value.data == 0)
                inits.append("fill+" if nonzero else "fill")
            elif op in contractions:
                assert isinstance(op, linalg.GenericOp)
                i = self.check_contraction(op, b, o)
            else:
                assert isinstance(op, linalg.GenericOp)
                if op.outputs[0] in op.inputs:
                    self.check_maps(op, [IDENTITY4] * (len(op.inputs) + 1))
                    alu[len(op.inputs) > 1] += 1
                else:
                    inits.append(self.check_init(op))
        return VtaRegion(self.accs, ops, self.output, contractions[0] if contractions else None,
                         RegionShape(b, o, i, tuple(inits), alu[0], alu[1], stores),
                         self.deallocs, self.plain_copies, weight_rows or 0)

    def check_maps(self, op: linalg.GenericOp, maps: list[AffineMap]) -> None:
        if _maps(op) != maps or any(it != "parallel" for it in _iterators(op)):
            report_error(op, "vta-tile: an element-wise op of a VTA region has identity "
                             f"indexing maps and parallel iterators ({_NORMAL_FORM})")
        for v in op.inputs:
            if v not in self.accs:
                report_error(op, "vta-tile: an element-wise op of a VTA region reads only "
                                 "accumulators (an other operand is first copied into one)")

    def check_init(self, op: linalg.GenericOp) -> str:
        """The kind of an initialisation from DRAM (:class:`~.cost.RegionShape`).  Its
        input map is the identity or repeats the source over some of the accumulator's
        dimensions other than the lanes (result ``0``: a bias row over the batch rows, and over
        the batch lanes when the source has a single one)."""
        maps = _maps(op)
        src = op.inputs[0] if len(op.inputs) == 1 else None
        m = maps[0]
        broadcast = m.num_dims == 4 and len(m.results) == 4 and m.results[3] == _D[3] and all(
            e in (_D[k], _ZERO) for k, e in enumerate(m.results))
        if (src is None or not _is_dram(src) or maps[1] != IDENTITY4 or not broadcast
                or src is self.output.outputs[0]):
            report_error(op, "vta-tile: an accumulator is initialised by a fill or by a copy of "
                             "a DRAM operand (identity map, or a map repeating it over the rows "
                             f"such as (b, o, bb, oo) -> (0, o, 0, oo)) ({_NORMAL_FORM})")
        assert src is not None
        shape = _shape(self.accs[0])
        want = tuple(shape[k] if e == _D[k] else 1 for k, e in enumerate(m.results))
        what = "initial value" if m == IDENTITY4 else "broadcast initial value"
        _check_layout(op, src, what, want[:2], (want[2], want[3]))
        t = src.type
        assert isinstance(t, MemRefType)
        if m != IDENTITY4:
            return "bcast"
        if t.element_type != IntegerType(32):
            return "load8"
        body = list(op.body.block.ops)
        if len(body) == 1 and body[0].operands[0] is op.body.block.args[0]:
            self.plain_copies.add(op)
        return "load"

    def check_contraction(self, op: linalg.GenericOp, b: int, o: int) -> int:
        if tuple(_maps(op)) != CONTRACTION_MAPS or _iterators(op) != _CONTRACTION_ITERATORS:
            report_error(op, "vta-tile: a contraction of a VTA region iterates over (b, o, i, "
                             "bb, oo, ii) with maps X(b, i, bb, ii), W(o, i, oo, ii), "
                             "Acc(b, o, bb, oo)")
        x, w = op.inputs
        cfg = self.cfg
        for v, what in ((x, "input"), (w, "weight")):
            if not _is_dram(v, cfg.inp_width if what == "input" else cfg.wgt_width):
                report_error(op, f"vta-tile: the contraction's {what} must be an int8 DRAM "
                                 f"memref, got {v.type}")
            if v is self.output.outputs[0]:
                report_error(op, f"vta-tile: the contraction's {what} is the region's output")
        _, i, *_ = _check_layout(op, x, "contraction input", (b, None),
                                 (cfg.batch, cfg.block_in))
        _check_layout(op, w, "contraction weight", (o, i), (cfg.block_out, cfg.block_in))
        return i


def find_regions(f: Operation) -> list[VtaRegion | ConvRegion | PoolRegion | ResizeRegion]:
    """The VTA regions of function ``f``, in program order."""
    cfg = get_config(f)
    claimed: set[SSAValue] = set()
    regions: list[VtaRegion | ConvRegion | PoolRegion | ResizeRegion] = []
    for op in list(f.walk()):
        if _is_output(op) and op.operands[0] not in claimed:
            output = final_store(op, _is_output)
            assert isinstance(output, linalg.GenericOp)
            region = _Collector(output, cfg, claimed).region()
            claimed.update(region.accs)
            regions.append(region)
    return regions
