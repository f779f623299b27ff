"""Convolutions for ``vta-pack``'s recognition: 2-D convolutions and their zero-padded data.

:class:`ConvMatcher` is the part of :class:`~.match.FunctionRecognizer` that
recognizes, in a function on NCHW tensors, a reduction as a :class:`Conv` —
``init + conv2d(act, wgt)`` of NCHW ``i8`` data and an FCHW ``i8`` kernel into NFHW
(``linalg.conv_2d_nchw_fchw`` or the equivalent ``linalg.generic``), dilation 1, any stride, the
data an argument or a zero-padded copy of one (:class:`Padding`).  The body must be the
contraction ``acc + extsi(a) * extsi(b)`` that matrix products use too.

Padding is the usual memref idiom: a buffer ``%xp`` allocated with the padded shape, filled
with 0, the argument copied into its interior view, the view read by nothing else and the buffer
by one convolution only::

    %xp = memref.alloc() : memref<1x64x58x58xi8>
    linalg.fill ins(%c0_i8 : i8) outs(%xp : memref<1x64x58x58xi8>)
    %xi = memref.subview %xp[0, 0, 1, 1] [1, 64, 56, 56] [1, 1, 1, 1] : ... to ...
    memref.copy %x, %xi : ...                 // or linalg.copy ins(%x) outs(%xi)
    linalg.conv_2d_nchw_fchw ... ins(%xp, %w ...) outs(%acc ...)

gives ``Conv(..., act=%x, padding=Padding(pads=(1, 1, 1, 1)))``.  Only H and W are padded, by at
most 15 on each side (the 4-bit ``y_pad`` / ``x_pad`` fields of a DMA load).  Any other use of
the buffer or of its interior view is reported at the op responsible.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NoReturn

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.linalg import abstract_ops as linalg_abstract
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineMap

from vta_mlir.config import MEMOP_PAD_WIDTH
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.passes.pack.expr import (
    Const,
    Expr,
    Gemm,
    Load,
    Narrow,
    Value,
    error_with_note,
    int_width,
    label,
    result_dims,
)
from vta_mlir.passes.pack.match_matmul import check_contraction_body, check_contraction_types

if TYPE_CHECKING:
    from vta_mlir.passes.pack.match import FunctionRecognizer

__all__ = ["PAD_MAX", "Conv", "ConvMatcher", "Padding"]

#: The largest zero padding of one side of a DMA load (4-bit ``y_pad`` / ``x_pad`` fields).
PAD_MAX = (1 << MEMOP_PAD_WIDTH) - 1


@dataclass(eq=False)
class Padding:
    """A zero-padded copy of an NCHW ``i8`` argument (module doc): the buffer ``alloc`` filled
    with 0 by ``fill``, the argument ``arg`` copied by ``copy`` into the interior ``view``,
    ``pads`` rows and columns of zeros around it (top, bottom, left, right).  ``reader`` is the
    convolution reading the buffer, ``dealloc`` the op freeing it (None: not yet seen)."""

    alloc: Operation
    view: memref.SubviewOp | None = None
    fill: Operation | None = None
    copy: Operation | None = None
    arg: BlockArgument | None = None
    pads: tuple[int, int, int, int] = (0, 0, 0, 0)
    #: The fill value: 0, or any i8 for the data of a pooling op (``passes/pack/match_pool.py``).
    value: int = 0
    reader: Operation | None = None
    dealloc: memref.DeallocOp | None = None

    @property
    def buffer(self) -> SSAValue:
        return self.alloc.results[0]


@dataclass(eq=False)
class Conv(Gemm):
    """``init + conv2d(act, wgt)``: ``act`` NCHW data, ``wgt`` an FCHW (OIHW) kernel, the
    output NFHW; ``strides`` along H and W (dilation is 1); ``padding`` when the convolution
    reads a zero-padded copy of ``act``."""

    strides: tuple[int, int] = (1, 1)
    padding: Padding | None = None


def _coefficients(m: AffineMap, result: int) -> list[int] | None:
    """The dimension coefficients of result ``result`` of ``m`` when it is a linear form of the
    dimensions without constant term (None otherwise)."""
    n = m.num_dims

    def at(point: Sequence[int]) -> int:
        return m.eval(point, [0] * m.num_symbols)[result]

    if at([0] * n) != 0:
        return None
    coeffs = [at([int(i == d) for i in range(n)]) for d in range(n)]
    # Two more points rule out floordiv / mod / ceildiv forms that agree on the unit vectors.
    for point in ([i + 2 for i in range(n)], [7 * i + 3 for i in range(n)]):
        if at(point) != sum(c * v for c, v in zip(coeffs, point, strict=True)):
            return None
    return coeffs


def _unit(n: int, terms: dict[int, int]) -> list[int]:
    return [terms.get(d, 0) for d in range(n)]


@dataclass(eq=False)
class ConvMatcher:
    """The convolutions and zero-padded buffers of the function ``recognizer`` walks (module
    doc); ``recognizer`` holds the buffers' values and checks them."""

    recognizer: FunctionRecognizer = field(repr=False)
    #: The zero-padded buffers (allocations a subview is taken of), by buffer.
    padding: dict[SSAValue, Padding] = field(default_factory=dict[SSAValue, Padding])
    #: The interior view of each zero-padded buffer, to its buffer.
    views: dict[SSAValue, SSAValue] = field(default_factory=dict[SSAValue, SSAValue])
    #: The padded buffers a pooling op reads: their fill may be any i8 (a pooling op's padding
    #: is never read by the hardware, ``passes/pack/match_pool.py``).
    pooled: set[SSAValue] = field(default_factory=set[SSAValue])

    def find_padding(self, block: Block) -> None:
        """Every i8 allocation of ``block`` a subview is taken of is a zero-padded buffer."""
        for op in block.ops:
            if isinstance(op, memref.SubviewOp) \
                    and isinstance(op.source.owner, memref.AllocOp | memref.AllocaOp) \
                    and op.source.owner.parent_block() is block \
                    and int_width(op.source.owner.memref.type.element_type) == 8:
                self.padding.setdefault(op.source, Padding(op.source.owner))

    def visit(self, op: Operation) -> bool:
        """Take ``op`` when it belongs to the padding idiom (a dealloc, a subview, a copy into
        an interior view); False: ``op`` is the recognizer's."""
        match op:
            case memref.DeallocOp():
                pad = self.padding.get(op.memref)
                if pad is not None:
                    pad.dealloc = op
            case memref.SubviewOp():
                self.subview(op)
            case memref.CopyOp() if op.destination in self.views:
                self.pad_copy(op, op.source, op.destination)
            case linalg.CopyOp() if len(op.outputs) == 1 and op.outputs[0] in self.views:
                if len(op.inputs) != 1 or op.res:
                    report_error(op, "copies into the interior of a zero-padded buffer with "
                                     "other than one memref input: copy one function argument")
                self.pad_copy(op, op.inputs[0], op.outputs[0])
            case _:
                return False
        return True

    # ---- zero padding ---------------------------------------------------------------------
    def subview(self, op: memref.SubviewOp) -> None:
        """The interior view of a zero-padded buffer: static, unit strides, offset along H
        and W only, at most ``PAD_MAX`` rows or columns of padding on each side."""
        base = op.source
        pad = self.padding.get(base)
        if pad is None:
            report_error(op, f"takes a view of {label(base)}: vta-pack accepts memref.subview "
                             "only as the interior of a zero-padded buffer (a memref.alloc "
                             "filled with 0) that a convolution reads")
        if pad.view is not None:
            error_with_note(op, f"takes a second view of the zero-padded buffer {label(base)}: "
                                "a function argument is copied into one interior view",
                            pad.view, "first view here")
        if self.recognizer.rank != 4:
            report_error(op, f"takes a view of {label(base)}: vta-pack zero-pads only the "
                             "NCHW data of a convolution")
        t = self.recognizer.check_buffer(op, base)
        if int_width(t.element_type) != 8:
            report_error(op, f"pads {label(base)} ({t}): vta-pack zero-pads only the int8 data "
                             "of a convolution")
        if op.offsets or op.sizes or op.strides:
            report_error(op, "has dynamic offsets, sizes or strides: the padding of a "
                             "convolution is static")
        offsets, sizes, strides = (tuple(a.get_values()) for a in (
            op.static_offsets, op.static_sizes, op.static_strides))
        shape = tuple(t.get_shape())
        result = op.result.type
        if not isinstance(result, MemRefType) or result.get_num_dims() != 4 \
                or len(offsets) != 4 or tuple(result.get_shape()) != sizes:
            report_error(op, f"is not a rank-4 view of {label(base)}: the interior of a padded "
                             "NCHW buffer keeps its four dimensions")
        if any(s != 1 for s in strides):
            report_error(op, f"has strides {list(strides)}: the interior of a zero-padded "
                             "buffer has unit strides")
        if any(o < 0 or o + n > d for o, n, d in zip(offsets, sizes, shape, strict=True)):
            report_error(op, f"reaches outside {label(base)} ({t})")
        if offsets[:2] != (0, 0) or sizes[:2] != shape[:2]:
            report_error(op, f"pads the batch or channel dimension of {label(base)} (offsets "
                             f"{list(offsets)}, sizes {list(sizes)} of {t}): VTA pads only H and "
                             "W; channel counts are padded to whole blocks by the host")
        pads = (offsets[2], shape[2] - offsets[2] - sizes[2],
                offsets[3], shape[3] - offsets[3] - sizes[3])
        for side, amount in zip(("top", "bottom", "left", "right"), pads, strict=True):
            if amount > PAD_MAX:
                report_error(op, f"pads {label(base)} by {amount} on the {side}: a VTA load "
                                 f"pads each side by at most {PAD_MAX} (4-bit pad fields)")
        pad.view, pad.pads = op, pads
        self.views[op.result] = base

    def pad_fill(self, op: Operation, pad: Padding, value: Value) -> None:
        """``op`` writes the zero-padded buffer: only its ``linalg.fill`` with 0 may."""
        name = label(pad.buffer)
        # An unnamed allocation is "a buffer": say "the zero-padded buffer" alone.
        buffer = "the zero-padded buffer" + ("" if name == "a buffer" else f" {name}")
        if pad.copy is not None:
            error_with_note(op, f"writes {buffer} after its interior was "
                                "copied: a convolution reads it as it is after the copy",
                            pad.copy, "copied here")
        if pad.fill is not None:
            error_with_note(op, f"writes {buffer} a second time: it is "
                                "filled with 0 once", pad.fill, "filled here")
        if not isinstance(op, linalg.FillOp):
            report_error(op, f"writes {buffer}: it may only be filled with "
                             "0 (linalg.fill) and receive a function argument in its interior "
                             "(memref.copy or linalg.copy into its subview)")
        fill = value.value if isinstance(value, Narrow) else value
        if isinstance(fill, Const) and pad.buffer in self.pooled:
            pad.fill, pad.value = op, fill.value
            return
        if not isinstance(fill, Const) or fill.value != 0:
            shown = fill.value if isinstance(fill, Const) else "a computed value"
            report_error(op, f"fills the zero-padded buffer {name} with {shown}: VTA pads "
                             "convolution data with zeros only")
        pad.fill = op

    def pad_copy(self, op: Operation, src: SSAValue, dst: SSAValue) -> None:
        """``op`` copies ``src`` into the interior view ``dst`` of a zero-padded buffer."""
        base = self.views[dst]
        pad = self.padding[base]
        if pad.copy is not None:
            error_with_note(op, f"copies into the interior of {label(base)} a second time: a "
                                "zero-padded buffer holds one function argument", pad.copy,
                            "first copied here")
        if pad.fill is None:
            report_error(op, f"copies into the interior of {label(base)} before the buffer is "
                             "filled: fill the zero-padded buffer with 0 (linalg.fill) first")
        ts = self.recognizer.check_buffer(op, src)
        tv = dst.type
        assert isinstance(tv, MemRefType)
        if ts.get_shape() != tv.get_shape() or ts.element_type != tv.element_type:
            report_error(op, f"copies {ts} into {tv}: the interior of a zero-padded buffer "
                             "receives a whole argument of its shape")
        held = self.recognizer.read(op, src)
        if not (isinstance(held, Narrow) and not held.truncated
                and isinstance(held.value, Load) and not held.value.broadcast):
            report_error(op, f"copies {label(src)}, a computed buffer, into the interior of "
                             f"{label(base)}: the padded data of a convolution is a function "
                             "argument")
        pad.copy, pad.arg = op, held.value.arg
        self.recognizer.stored_by[base] = op

    def padded_data(self, op: Operation, value: SSAValue) -> tuple[BlockArgument, Padding]:
        """The argument and padding of the zero-padded buffer ``value`` that the convolution
        ``op`` reads as its data."""
        pad = self.padding[value]
        name = label(value)
        if pad.reader is not None:
            error_with_note(op, f"reads the zero-padded buffer {name}, which another "
                                "convolution reads: it is the data of one convolution only",
                            pad.reader, "first read here")
        if pad.copy is None or pad.arg is None:
            report_error(op, f"reads the zero-padded buffer {name} before a function argument "
                             "is copied into its interior (memref.copy into its subview)")
        if pad.dealloc is not None:
            error_with_note(op, f"reads {name} after it is deallocated", pad.dealloc,
                            "deallocated here")
        pad.reader = op
        return pad.arg, pad

    def padded_read_error(self, op: Operation, value: SSAValue) -> NoReturn:
        pad = self.padding[value]
        message = (f"reads the zero-padded buffer {label(value)}: only the data operand of one "
                   "convolution may read it")
        if pad.reader is not None:
            error_with_note(op, message, pad.reader, "a convolution reads it here")
        if pad.copy is not None:
            error_with_note(op, message, pad.copy, "its data is copied here")
        report_error(op, message)

    def padded_view_error(self, op: Operation, view: SSAValue) -> NoReturn:
        report_error(op, f"uses {label(view)}, the interior of the zero-padded buffer "
                         f"{label(self.views[view])}: the interior only receives a function "
                         "argument (memref.copy or linalg.copy)")

    # ---- convolutions ---------------------------------------------------------------------
    def convolution(
        self,
        op: linalg_abstract.LinalgStructuredOperation,
        maps: Sequence[AffineMap],
        iterators: Sequence[IteratorType],
    ) -> None:
        """A 2-D convolution of NCHW data with an FCHW kernel into NFHW (module doc)."""
        rec = self.recognizer
        inputs = list(op.inputs)
        reduced = iterators.count(IteratorType.REDUCTION)
        if len(inputs) != 2 or len(iterators) != 7 or reduced != 3:
            report_error(op, "is a reduction that is not a 2-D convolution: on NCHW tensors VTA "
                             "reduces NCHW int8 data with an FCHW int8 kernel over (c, kh, kw); "
                             f"here {len(iterators)} loops, {reduced} reduced, {len(inputs)} "
                             "inputs")
        out = op.outputs[0]
        types = [rec.check_buffer(op, v) for v in (*inputs, out)]
        check_contraction_types(op, types)
        check_contraction_body(op)
        strides = self.convolution_strides(op, maps, iterators)
        (n, c, h, w), (f, c2, kh, kw), out_shape = (t.get_shape() for t in types)
        oh, ow = out_shape[2:]
        if c != c2 or tuple(out_shape[:2]) != (n, f) \
                or (oh - 1) * strides[0] + kh > h or (ow - 1) * strides[1] + kw > w:
            report_error(op, f"convolves {types[0]} with {types[1]} into {types[2]}: the shapes "
                             "do not form a convolution")
        init = rec.read(op, out)
        assert isinstance(init, Expr)
        padding: Padding | None = None
        if inputs[0] in self.padding:
            act, padding = self.padded_data(op, inputs[0])
        else:
            act = rec.argument_of(op, inputs[0], "data")
        result = Conv(op, init, act, False, rec.argument_of(op, inputs[1], "kernel"), False,
                      strides, padding)
        rec.write(op, out, result)

    @staticmethod
    def convolution_strides(
        op: Operation, maps: Sequence[AffineMap], iterators: Sequence[IteratorType]
    ) -> tuple[int, int]:
        """The strides of a convolution whose maps are ``X(n, c, oh*sh + kh, ow*sw + kw)``,
        ``W(f, c, kh, kw)``, ``Y(n, f, oh, ow)`` for some order of the seven loops."""
        not_conv = ("has indexing maps that are not those of a 2-D convolution of NCHW data "
                    "with an FCHW kernel: X(n, c, oh*s + kh, ow*s + kw), W(f, c, kh, kw), "
                    "Y(n, f, oh, ow)")
        out_dims, w_dims = result_dims(maps[2]), result_dims(maps[1])
        loops = [*out_dims, *w_dims[1:]]
        if len(out_dims) != 4 or len(w_dims) != 4 or len(maps[0].results) != 4 \
                or any(d is None or d < 0 for d in loops) or len(set(loops)) != 7 \
                or w_dims[0] != out_dims[1]:
            report_error(op, not_conv)
        nd, fd, ohd, owd, cd, khd, kwd = (d for d in loops if d is not None)
        if any(iterators[d] != IteratorType.PARALLEL for d in (nd, fd, ohd, owd)) \
                or any(iterators[d] != IteratorType.REDUCTION for d in (cd, khd, kwd)):
            report_error(op, not_conv)
        x = [_coefficients(maps[0], r) for r in range(4)]
        if x[0] != _unit(7, {nd: 1}) or x[1] != _unit(7, {cd: 1}):
            report_error(op, not_conv)
        strides: list[int] = []
        for coeffs, o, k in ((x[2], ohd, khd), (x[3], owd, kwd)):
            if coeffs is None or any(v for d, v in enumerate(coeffs) if d not in (o, k)) \
                    or coeffs[o] < 1 or coeffs[k] < 1:
                report_error(op, not_conv)
            if coeffs[k] != 1:
                report_error(op, f"has dilation {coeffs[k]}: VTA convolutions are packed with "
                                 "dilation 1")
            strides.append(coeffs[o])
        return strides[0], strides[1]
