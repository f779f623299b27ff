"""Depthwise convolutions for ``vta-pack``'s recognition.

:class:`DepthwiseMatcher` is the part of :class:`~.match.FunctionRecognizer` that recognizes, in
a function on NCHW tensors, a reduction as a :class:`DepthwiseConv` — ``init + dwconv(act,
wgt)``, every channel of NCHW ``i8`` data convolved with its own ``i8`` kernel into the same
channel of the NCHW output (one output channel per input channel: a channel multiplier of 1):

* ``linalg.depthwise_conv_2d_nchw_chw`` (kernel ``C × KH × KW``);
* the equivalent ``linalg.generic``: six loops ``(n, c, oh, ow, kh, kw)`` in any order, ``kh``
  and ``kw`` reduced, maps ``X(n, c, oh*sh + kh, ow*sw + kw)``, ``W(c, kh, kw)`` — or
  ``W(c, 0, kh, kw)`` for a ``C × 1 × KH × KW`` kernel, ONNX's weight of a ``Conv`` with
  ``group = C`` — and ``Y(n, c, oh, ow)``, body ``acc + extsi(x) * extsi(w)``.

Dilation 1, any stride; the data an argument (or an intermediate buffer) or a zero-padded copy
of one (``passes/pack/match_conv.py``'s idiom).  VTA runs it as GEMMs whose weight blocks are
block-diagonal (``passes/pack/depthwise.py``), built at compile time: the kernel must be a
constant (``memref.global``, ``passes/pack/constants.py``); a kernel passed as an argument is
reported at the convolution.  Example::

    %w = memref.get_global @w : memref<32x3x3xi8>
    linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>,
                                       strides = dense<1> : vector<2xi64>}
        ins(%xp, %w : memref<1x32x10x10xi8>, memref<32x3x3xi8>)
        outs(%acc : memref<1x32x8x8xi32>)

gives ``DepthwiseConv(Const 0, %x, %w, strides (1, 1), padding (1, 1, 1, 1))``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NoReturn

from xdsl.dialects.linalg import abstract_ops as linalg_abstract
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import BlockArgument, Operation
from xdsl.ir.affine import AffineMap

from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.index_arith import LinearForm, linear_affine_expr
from vta_mlir.passes.pack.expr import Expr, label, result_dims
from vta_mlir.passes.pack.match_conv import Conv, Padding
from vta_mlir.passes.pack.match_matmul import check_contraction_body, check_contraction_types

if TYPE_CHECKING:
    from vta_mlir.passes.pack.match import FunctionRecognizer

__all__ = ["DepthwiseConv", "DepthwiseMatcher", "is_depthwise"]

_FORM = ("VTA runs depthwise convolutions of NCHW int8 data with a CHW (or C×1×KH×KW) int8 "
         "kernel into NCHW: X(n, c, oh*s + kh, ow*s + kw), W(c, kh, kw), Y(n, c, oh, ow)")


@dataclass(eq=False)
class DepthwiseConv(Conv):
    """``init + dwconv(act, wgt)``: ``act`` NCHW data, ``wgt`` a constant kernel ``C × KH ×
    KW`` (or ``C × 1 × KH × KW``, ``KH × KW × C``), channel ``c`` of the output the convolution
    of channel ``c`` of the data with ``wgt[c]``; ``strides`` and ``padding`` as for
    :class:`Conv`; ``kernel_axes`` the kernel's dimensions of ``c``, ``kh`` and ``kw``."""

    kernel_axes: tuple[int, int, int] = (0, 1, 2)


def is_depthwise(iterators: Sequence[IteratorType]) -> bool:
    """A reduction of a function on NCHW tensors with two reduced loops: the window of a
    depthwise convolution (a dense one also reduces the input channels).  Six loops are a
    depthwise convolution; seven, one with a channel multiplier (reported)."""
    return len(iterators) in (6, 7) and iterators.count(IteratorType.REDUCTION) == 2


def _linear(m: AffineMap, result: int) -> LinearForm | None:
    return linear_affine_expr(m.results[result], [LinearForm.of(d) for d in range(m.num_dims)])


@dataclass(eq=False)
class DepthwiseMatcher:
    """The depthwise convolutions of the function ``recognizer`` walks (module doc)."""

    recognizer: FunctionRecognizer = field(repr=False)

    def is_constant(self, arg: BlockArgument) -> bool:
        """``arg`` stands for a constant of the module: the stand-ins of constants are block
        arguments after the function's own (``passes/pack/constants.py``), and so are those of
        intermediate buffers, which the recognizer knows."""
        rec = self.recognizer
        declared = len(rec.func.function_type.inputs.data)
        return arg.index >= declared and arg not in rec.intermediates

    def convolution(
        self,
        op: linalg_abstract.LinalgStructuredOperation,
        maps: Sequence[AffineMap],
        iterators: Sequence[IteratorType],
    ) -> None:
        """A depthwise convolution of NCHW data into NCHW (module doc)."""
        rec = self.recognizer
        inputs = list(op.inputs)
        if len(iterators) == 7:
            self.multiplier_error(op, maps)
        if len(inputs) != 2:
            report_error(op, f"is a depthwise reduction of {len(inputs)} inputs: {_FORM}")
        out = op.outputs[0]
        types = [rec.check_buffer(op, v, any_rank=True) for v in (*inputs, out)]
        check_contraction_types(op, types)
        check_contraction_body(op)
        data_shape, kernel_shape, out_shape = (tuple(t.get_shape()) for t in types)
        if len(data_shape) != 4 or len(out_shape) != 4 or len(kernel_shape) not in (3, 4):
            report_error(op, f"convolves {types[0]} with {types[1]} into {types[2]}: {_FORM}")
        strides, axes = self.strides(op, maps, iterators, len(kernel_shape))
        n, c, h, w = data_shape
        kc, kh, kw = (kernel_shape[a] for a in axes)
        oh, ow = out_shape[2:]
        if out_shape[:2] != (n, c) or kc != c \
                or (len(kernel_shape) == 4 and kernel_shape[1] != 1) \
                or (oh - 1) * strides[0] + kh > h or (ow - 1) * strides[1] + kw > w:
            self.shape_error(op, types[0].get_shape(), kernel_shape, out_shape)
        init = rec.read(op, out)
        assert isinstance(init, Expr)
        padding: Padding | None = None
        if inputs[0] in rec.conv.padding:
            act, padding = rec.conv.padded_data(op, inputs[0])
        else:
            act = rec.argument_of(op, inputs[0], "data")
        wgt = rec.argument_of(op, inputs[1], "kernel")
        if not self.is_constant(wgt):
            report_error(op, f"reads the kernel {label(inputs[1])} from a function argument: "
                             "VTA runs a depthwise convolution as GEMMs on block-diagonal "
                             "weights, which vta-pack builds at compile time from a constant "
                             "kernel (a memref.global read by memref.get_global)")
        result = DepthwiseConv(op, init, act, False, wgt, False, strides, padding, axes)
        rec.write(op, out, result)

    @staticmethod
    def multiplier_error(op: Operation, maps: Sequence[AffineMap]) -> NoReturn:
        """Seven loops, two reduced: output channel ``c·M + m`` of input channel ``c`` (a
        channel multiplier ``M``), else not a depthwise convolution at all."""
        out = maps[-1]
        channel = _linear(out, 1) if len(out.results) == 4 else None
        factors = sorted(channel.terms.values()) if channel is not None else []
        if channel is not None and not channel.const and len(factors) == 2 \
                and factors[0] == 1 and factors[1] > 1:
            report_error(op, f"computes output channel c*{factors[1]} + m from input channel c "
                             f"(a channel multiplier of {factors[1]}): VTA runs depthwise "
                             "convolutions with one output channel per input channel")
        report_error(op, f"is a reduction of seven loops, two of them reduced: {_FORM}")

    @staticmethod
    def shape_error(op: Operation, data: Sequence[int], kernel: Sequence[int],
                    out: Sequence[int]) -> NoReturn:
        """The shapes are not those of a depthwise convolution: a channel multiplier other
        than 1 is named as such."""
        if len(out) == 4 and len(data) == 4 and out[1] != data[1] and out[1] % data[1] == 0:
            report_error(op, f"has {out[1]} output channels for {data[1]} input channels (a "
                             f"channel multiplier of {out[1] // data[1]}): VTA runs depthwise "
                             "convolutions with one output channel per input channel")
        report_error(op, f"convolves {list(data)} data with a {list(kernel)} kernel into "
                         f"{list(out)}: the shapes do not form a depthwise convolution")

    @staticmethod
    def strides(op: Operation, maps: Sequence[AffineMap], iterators: Sequence[IteratorType],
                kernel_rank: int) -> tuple[tuple[int, int], tuple[int, int, int]]:
        """The strides of maps ``X(n, c, oh*sh + kh, ow*sw + kw)``, ``W(c, [0,] kh, kw)`` (or
        ``W(kh, kw, c)``), ``Y(n, c, oh, ow)`` for some order of the six loops, and the
        kernel's dimensions of ``c``, ``kh`` and ``kw``."""
        not_dw = f"has indexing maps that are not those of a depthwise convolution: {_FORM}"
        out_dims, w_dims = result_dims(maps[2]), result_dims(maps[1])
        axes = (0, 1, 2)
        if kernel_rank == 4:
            if len(w_dims) != 4 or w_dims[1] is not None:
                report_error(op, not_dw)
            w_dims, axes = [w_dims[0], *w_dims[2:]], (0, 2, 3)
        elif len(out_dims) == 4 and len(w_dims) == 3 and w_dims[2] == out_dims[1]:
            w_dims, axes = [w_dims[2], *w_dims[:2]], (2, 0, 1)  # HWC
        loops = [*out_dims, *w_dims[1:]]
        if len(out_dims) != 4 or len(w_dims) != 3 or len(maps[0].results) != 4 \
                or any(d is None or d < 0 for d in loops) or len(set(loops)) != 6 \
                or w_dims[0] != out_dims[1]:
            report_error(op, not_dw)
        nd, cd, ohd, owd, khd, kwd = (d for d in loops if d is not None)
        if any(iterators[d] != IteratorType.PARALLEL for d in (nd, cd, ohd, owd)) \
                or any(iterators[d] != IteratorType.REDUCTION for d in (khd, kwd)):
            report_error(op, not_dw)
        x = [_linear(maps[0], r) for r in range(4)]
        if x[0] != LinearForm.of(nd) or x[1] != LinearForm.of(cd):
            report_error(op, not_dw)
        strides: list[int] = []
        for form, o, k in ((x[2], ohd, khd), (x[3], owd, kwd)):
            if form is None or form.const or set(form.terms) - {o, k} \
                    or form.coeff(o) < 1 or form.coeff(k) < 1:
                report_error(op, not_dw)
            if form.coeff(k) != 1:
                report_error(op, f"has dilation {form.coeff(k)}: VTA convolutions are packed "
                                 "with dilation 1")
            strides.append(form.coeff(o))
        return (strides[0], strides[1]), axes

