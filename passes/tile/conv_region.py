"""Convolution regions at stage 1 (``docs/pipeline.md``), as ``vta-tile`` sees them.

A convolution region has the parts of every VTA region (:mod:`.region`) on the rank-6
layouts of ``docs/isa.md`` §1.6: accumulators ``(N/B, O/BO, OH, OW, B, BO)``, their
initialisation (a fill, a copy or sign-extending copy of a DRAM tensor shaped like the output,
or a per-channel bias broadcast with ``(b, o, h, w, bb, oo) -> (0, o, 0, 0, bb | 0, oo)``), one
convolution ``linalg.generic`` over ``(b, o, oh, ow, i, kh, kw, bb, oo, ii)`` (dims in any
order) reading ``X(b, i, oh*sh + kh, ow*sw + kw, bb, ii)`` and ``W(o, i, kh, kw, oo, ii)``,
element-wise generics in place and the ``trunci`` output.  The convolution's input is either a
packed DRAM tensor or a zero-padded copy of one built with the memref idiom ``vta-pack``
produces::

    %xp = memref.alloc() : memref<1x4x58x58x1x16xi8>
    linalg.fill ins(%c0_i8 : i8) outs(%xp : ...)
    %xi = memref.subview %xp[0, 0, 1, 1, 0, 0] [1, 4, 56, 56, 1, 16] [1, 1, 1, 1, 1, 1] : ...
    memref.copy %x, %xi : ...

which the tiler turns into the padding fields of the input DMAs (``docs/isa.md`` §2.3, §3.3):
the padded tensor is never built.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, MemRefType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap

from vta_mlir.config import VTAConfig
from vta_mlir.ir.diagnostics import report_error

from ..analysis.sram_views import LinearForm, linear_affine_expr
from .byte_planes import is_plane_store
from .padded import is_dram, padded_buffer, shape_of

__all__ = ["ConvGeometry", "ConvRegion", "conv_region", "erase_region", "linear_coefficients"]

_PREFIX = "vta-tile: "


@dataclass(frozen=True)
class ConvGeometry:
    """The shape of a convolution region, in tensor elements (channels in blocks)."""

    nb: int
    ob: int
    ib: int
    h: int
    w: int
    pads: tuple[int, int, int, int]  # top, bottom, left, right
    kh: int
    kw: int
    sh: int
    sw: int
    oh: int
    ow: int
    #: A depthwise convolution (``passes/pack/depthwise.py``): the input channel block of each
    #: output block is that block itself, ``ib`` is 1 (the kernel's one input block per output
    #: block) and the data has ``ob`` channel blocks.
    depthwise: bool = False

    @property
    def data_blocks(self) -> int:
        """The channel blocks of the input tensor."""
        return self.ob if self.depthwise else self.ib


@dataclass(eq=False)
class ConvRegion:
    """One convolution region: accumulators (the output's first), ops in program order."""

    accs: list[SSAValue]
    ops: list[Operation]
    output: linalg.GenericOp
    conv: linalg.GenericOp
    #: The packed, unpadded DRAM input and the weights.
    x: SSAValue
    w: SSAValue
    geo: ConvGeometry
    #: The op initialising each accumulator and its kind: fill, load, load8, bcast (a bias
    #: the epilogue adds) or bcast_acc (a bias the convolution accumulates onto).
    inits: dict[SSAValue, tuple[Operation, str]]
    #: The ops building the padded input (alloc, fill, subview, copy, dealloc).
    padding: list[Operation] = field(default_factory=list[Operation])
    deallocs: list[Operation] = field(default_factory=list[Operation])

    @property
    def acc(self) -> SSAValue:
        """The accumulator the convolution writes."""
        return self.conv.outputs[0]

    def erase(self) -> None:
        """Remove the region's original ops, its DRAM accumulators and the padded input."""
        erase_region(self.ops, self.deallocs, self.accs)
        zero = [f.inputs[0].owner for f in self.padding if isinstance(f, linalg.FillOp)]
        for op in reversed(self.padding):
            op.detach()
            op.erase()
        # The fill's zero constant, when nothing else uses it.
        for const in zero:
            if isinstance(const, arith.ConstantOp) and not const.result.uses:
                const.detach()
                const.erase()


def erase_region(ops: list[Operation], deallocs: list[Operation],
                 accs: list[SSAValue]) -> None:
    """Remove a tiled region's original ops (last first), its deallocs and the allocs of its
    DRAM accumulators (of a contraction region too, :mod:`.region`)."""
    for op in [*reversed(ops), *deallocs]:
        op.detach()
        op.erase()
    for acc in accs:
        owner = acc.owner
        assert isinstance(owner, Operation)
        owner.detach()
        owner.erase()


def linear_coefficients(expr: AffineExpr, num_dims: int) -> tuple[list[int], int] | None:
    """``expr`` as ``sum(c[k] * d_k) + const``, or ``None`` when it is not linear."""
    form = linear_affine_expr(expr, [LinearForm.of(k) for k in range(num_dims)])
    if form is None:
        return None
    return [form.coeff(k) for k in range(num_dims)], form.const


def _maps(op: linalg.GenericOp) -> list[AffineMap]:
    return [m.data for m in op.indexing_maps.data]


_IDENTITY6 = AffineMap.identity(6)
_ZERO = AffineExpr.constant(0)


class _ConvMatcher:
    """Checks the parts of one convolution region (module docstring)."""

    def __init__(self, accs: list[SSAValue], ops: list[Operation], output: linalg.GenericOp,
                 cfg: VTAConfig, position: dict[Operation, int]) -> None:
        self.accs, self.ops, self.output, self.cfg = accs, ops, output, cfg
        self.position = position

    def fail(self, op: Operation, message: str) -> None:
        report_error(op, _PREFIX + message)

    def region(self, deallocs: list[Operation]) -> ConvRegion:
        cfg = self.cfg
        shape = shape_of(self.accs[0])
        elem = (cfg.batch, cfg.block_out)
        if len(shape) != 6 or shape[4:] != elem:
            self.fail(self.output, f"the accumulator has type {self.accs[0].type}, expected "
                                   f"the packed convolution layout ?x?x?x?x{elem[0]}x{elem[1]}")
        for acc in self.accs[1:]:
            if shape_of(acc) != shape:
                self.fail(self.output, f"the accumulator {acc.type} of this convolution region "
                                       f"differs from its output accumulator {self.accs[0].type}")
        if shape_of(self.output.outputs[0]) != shape:
            self.fail(self.output, f"the output has type {self.output.outputs[0].type}, "
                                   f"expected the shape of the accumulator {self.accs[0].type}")
        if _maps(self.output) != [_IDENTITY6, _IDENTITY6]:
            self.fail(self.output, "the output of a convolution region has identity maps")
        convs = [o for o in self.ops if isinstance(o, linalg.GenericOp) and len(o.inputs) == 2
                 and o.outputs[0] not in o.inputs]
        if len(convs) != 1:
            self.fail(self.output if not convs else convs[1],
                      "a convolution region has exactly one convolution")
        conv = convs[0]
        inits: dict[SSAValue, tuple[Operation, str]] = {}
        for op in self.ops:
            if op is self.output or op is conv:
                continue
            if is_plane_store(op, self.output):  # a byte plane of an i32 result
                if _maps(op) != [_IDENTITY6, _IDENTITY6] or shape_of(op.outputs[0]) != shape:
                    self.fail(op, "a byte plane of a convolution region has identity maps and "
                                  "the accumulator's shape")
                continue
            if isinstance(op, linalg.FillOp):
                target = op.outputs[0]
                self.set_init(inits, target, op, "fill")
                continue
            assert isinstance(op, linalg.GenericOp)
            if op.outputs[0] in op.inputs:
                if any(m != _IDENTITY6 for m in _maps(op)):
                    self.fail(op, "an element-wise op of a convolution region has identity "
                                  "indexing maps")
                if any(v not in self.accs for v in op.inputs):
                    self.fail(op, "an element-wise op of a VTA region reads only accumulators "
                                  "(an other operand is first copied into one)")
                continue
            self.set_init(inits, op.outputs[0], op, self.init_kind(op, shape))
        for acc in self.accs:
            if acc not in inits:
                self.fail(self.output, f"the accumulator {acc.type} is never initialised")
        init, kind = inits[conv.outputs[0]]
        if kind == "bcast":
            # The accumulator starts from the bias: a full tile initialised per output tile.
            inits[conv.outputs[0]] = (init, "bcast_acc")
        x, w = conv.inputs
        x, pads, padding = self.padded_input(conv, x)
        geo = self.geometry(conv, x, w, pads, shape)
        return ConvRegion(self.accs, self.ops, self.output, conv, x, w, geo, inits, padding,
                          deallocs)

    def set_init(self, inits: dict[SSAValue, tuple[Operation, str]], acc: SSAValue,
                 op: Operation, kind: str) -> None:
        if acc in inits:
            self.fail(op, "an accumulator of a convolution region is initialised once")
        inits[acc] = (op, kind)

    def init_kind(self, op: linalg.GenericOp, shape: tuple[int, ...]) -> str:
        src = op.inputs[0] if len(op.inputs) == 1 else None
        maps = _maps(op)
        if src is None or not is_dram(src) or maps[1] != _IDENTITY6:
            self.fail(op, "an accumulator of a convolution region is initialised by a fill, a "
                          "copy of a DRAM tensor or a broadcast bias")
        assert src is not None
        m = maps[0]
        if m == _IDENTITY6:
            if shape_of(src) != shape:
                self.fail(op, f"the initial value {src.type} is not shaped like the "
                              "accumulator")
            t = src.type
            assert isinstance(t, MemRefType)
            return "load" if t.element_type == IntegerType(32) else "load8"
        d = [AffineExpr.dimension(k) for k in range(6)]
        src_shape = shape_of(src)
        ok = (m.num_dims == 6 and len(m.results) == 6 and m.results[1] == d[1]
              and m.results[5] == d[5] and all(m.results[k] == _ZERO for k in (0, 2, 3))
              and m.results[4] in (d[4], _ZERO) and src_shape[1] == shape[1]
              and src_shape[0] == src_shape[2] == src_shape[3] == 1
              and src_shape[5] == shape[5]
              and src_shape[4] == (shape[4] if m.results[4] == d[4] else 1))
        if not ok:
            self.fail(op, "a broadcast initial value of a convolution region is a per-channel "
                          "bias read with (b, o, h, w, bb, oo) -> (0, o, 0, 0, bb, oo)")
        return "bcast"

    def padded_input(self, conv: linalg.GenericOp,
                     x: SSAValue) -> tuple[SSAValue, tuple[int, int, int, int], list[Operation]]:
        """The unpadded DRAM input, the padding and the ops building the padded buffer."""
        padded = padded_buffer(conv, x, self.cfg, self.position, self.fail, "convolution")
        if padded is None:
            return x, (0, 0, 0, 0), []
        if padded.value != 0:
            self.fail(conv, "the input of the convolution is a buffer padded with zeros: "
                            "memref.alloc, linalg.fill with 0, memref.copy into a subview")
        return padded.source, padded.pads, padded.ops

    def geometry(self, conv: linalg.GenericOp, x: SSAValue, w: SSAValue,
                 pads: tuple[int, int, int, int], shape: tuple[int, ...]) -> ConvGeometry:
        cfg = self.cfg
        mx, mw, ma = _maps(conv)
        message = ("the convolution iterates over (b, o, oh, ow, i, kh, kw, bb, oo, ii) with "
                   "maps X(b, i, oh * sh + kh, ow * sw + kw, bb, ii), W(o, i, kh, kw, oo, ii), "
                   "Acc(b, o, oh, ow, bb, oo) (X(b, o + i, ...) for a depthwise convolution)")
        n = ma.num_dims
        dims = [r.position if isinstance(r, AffineDimExpr) else -1 for r in ma.results]
        wd = [r.position if isinstance(r, AffineDimExpr) else -1 for r in mw.results]
        xd = [r.position if isinstance(r, AffineDimExpr) else -1 for r in mx.results]
        ok = (n == 10 and len(set(dims)) == 6 and -1 not in dims and -1 not in wd
              and len(set(wd)) == 6 and wd[0] == dims[1] and wd[4] == dims[5]
              and xd[0] == dims[0] and xd[4] == dims[4] and xd[5] == wd[5])
        # A depthwise convolution reads the input channel block o + i (the kernel has one
        # input block per output block, passes/pack/depthwise.py).
        depthwise = ok and xd[1] == -1
        if depthwise:
            channel = linear_coefficients(mx.results[1], n)
            want = [0] * n
            want[dims[1]], want[wd[1]] = 1, 1
            ok = channel == (want, 0)
        elif ok:
            ok = xd[1] == wd[1]
        strides = (0, 0)
        if ok:
            rows = linear_coefficients(mx.results[2], n)
            cols = linear_coefficients(mx.results[3], n)
            ok = rows is not None and cols is not None
            if rows is not None and cols is not None:
                want_r = [0] * n
                want_c = [0] * n
                sh, sw = rows[0][dims[2]], cols[0][dims[3]]
                want_r[dims[2]], want_r[wd[2]] = sh, 1
                want_c[dims[3]], want_c[wd[3]] = sw, 1
                ok = (rows == (want_r, 0) and cols == (want_c, 0) and sh >= 1 and sw >= 1)
                strides = (sh, sw)
        iterators = [str(it.data.value) for it in conv.iterator_types.data]
        reduction = {wd[1], wd[2], wd[3], wd[5]}
        if ok and any((iterators[k] == "reduction") != (k in reduction) for k in range(n)):
            ok = False
        if not ok:
            self.fail(conv, message)
        for v, what, width in ((x, "input", cfg.inp_width), (w, "weight", cfg.wgt_width)):
            if not is_dram(v, width):
                self.fail(conv, f"the convolution's {what} must be an int8 DRAM memref, got "
                                f"{v.type}")
        xs, ws = shape_of(x), shape_of(w)
        nb, ob, oh, ow = shape[:4]
        sh, sw = strides
        blocks = (1, ob) if depthwise else (xs[1] if len(xs) == 6 else -1,) * 2
        if (len(xs) != 6 or xs[0] != nb or xs[4:] != (cfg.batch, cfg.block_in) or len(ws) != 6
                or ws[0] != ob or (ws[1], xs[1]) != blocks
                or ws[4:] != (cfg.block_out, cfg.block_in)):
            self.fail(conv, f"the convolution's input {x.type} and weights {w.type} do not "
                            f"match the packed layouts of the accumulator {self.accs[0].type}")
        kh, kw = ws[2], ws[3]
        h, wd_ = xs[2], xs[3]
        pt, pb, pl, pr = pads
        if (oh - 1) * sh + kh > h + pt + pb or (ow - 1) * sw + kw > wd_ + pl + pr:
            self.fail(conv, "the convolution reads beyond its (padded) input")
        return ConvGeometry(nb, ob, ws[1], h, wd_, pads, kh, kw, sh, sw, oh, ow, depthwise)


def conv_region(accs: list[SSAValue], ops: list[Operation], output: linalg.GenericOp,
                deallocs: list[Operation], cfg: VTAConfig,
                position: dict[Operation, int]) -> ConvRegion:
    """The convolution region of ``output`` (collected by :mod:`.region`), checked."""
    return _ConvMatcher(accs, ops, output, cfg, position).region(deallocs)
