"""Pooling for ``vta-pack``'s recognition: max-pool and sum (global average) pool.

:class:`PoolMatcher` is the part of :class:`~.match.FunctionRecognizer` that recognizes, in a
function on NCHW tensors, a pooling op as a :class:`Pool` — ``init`` combined by ``max`` or
``add`` with every element of a window of NCHW ``i8`` data:

* ``linalg.pooling_nchw_max`` (``max``) and ``linalg.pooling_nchw_sum`` (``add``), any
  window and stride, dilation 1; their second input, a ``memref<KHxKWx..>`` (an uninitialised
  ``memref.alloc`` is fine), only gives the window its shape;
* a reduction ``linalg.generic`` over H and W of the whole image into an N×C×1×1 output (maps
  ``(n, c, h, w) -> (n, c, h, w)`` and ``(n, c, h, w) -> (n, c, 0, 0)``), or into N×C
  (``(n, c, h, w) -> (n, c)``: the region computes N×C×1×1 and stores it as N×C), iterators
  ``[parallel, parallel, reduction, reduction]``), body ``addi(out, extsi(in))`` (a global
  sum, the numerator of a global average pool) or ``maxsi(out, extsi(in))``.

The output is ``i32`` (a buffer an element-wise epilogue then reads) or ``i8`` (an output
truncated at once), initialised by a ``linalg.fill`` with a constant.  Pooling into an ``i8``
buffer computes on ``i8`` values; a maximum stays in range and a sum wraps modulo 256, so it is
the ``trunci`` of the same pooling on ``i32``.  The data is a function argument or a padded copy
of one built with the convolution's idiom (``passes/pack/match_conv.py``), whose fill value may
be any ``i8`` (−128 for quantized data with a zero point of −128): VTA never reads the padding
of a pooling op, it bounds each window offset to the outputs whose element lies in the image
(``passes/tile/pool.py``), and a sum adds the padding value for each padded tap instead.

Example::

    %xp = memref.alloc() : memref<1x64x114x114xi8>
    linalg.fill ins(%cm128 : i8) outs(%xp : memref<1x64x114x114xi8>)
    %xi = memref.subview %xp[0, 0, 1, 1] [1, 64, 112, 112] [1, 1, 1, 1] : ...
    memref.copy %x, %xi : ...
    %win = memref.alloc() : memref<3x3xi8>
    linalg.fill ins(%cm128 : i8) outs(%y : memref<1x64x56x56xi8>)
    linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>,
                             strides = dense<2> : tensor<2xi64>}
        ins(%xp, %win : memref<1x64x114x114xi8>, memref<3x3xi8>)
        outs(%y : memref<1x64x56x56xi8>)

gives the output ``%y = Narrow(Pool(max, Const -128, %x, window (3, 3), strides (2, 2),
padding (1, 1, 1, 1) with -128), truncated)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, MemRefType
from xdsl.dialects.linalg import abstract_ops as linalg_abstract
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineMap

from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.upstream_fixes.linalg_pooling import PoolingNchwSumOp
from vta_mlir.isa import AluKind
from vta_mlir.passes.pack.expr import Const, Expr, Narrow, int_width, label, result_dims
from vta_mlir.passes.pack.match_conv import Padding

if TYPE_CHECKING:
    from vta_mlir.passes.pack.match import FunctionRecognizer

__all__ = ["POOL_KINDS", "Pool", "PoolMatcher", "is_pool"]

#: The arith op combining the accumulator with a window element, per pooling kind.
POOL_KINDS: dict[type[Operation], AluKind] = {arith.MaxSIOp: AluKind.MAX, arith.AddiOp: AluKind.ADD}

_SUPPORTED = ("VTA pools NCHW int8 data by maximum or sum (linalg.pooling_nchw_max, "
              "linalg.pooling_nchw_sum, or a reduction linalg.generic over H and W)")


@dataclass(eq=False)
class Pool(Expr):
    """``init`` combined by ``kind`` (``max`` or ``add``) with the ``window`` (rows, columns)
    of ``act`` at each output position, ``strides`` apart; ``padding`` when the window reads a
    padded copy of ``act`` (its fill value ``padding.value``)."""

    init: Expr
    act: BlockArgument
    kind: AluKind
    window: tuple[int, int]
    strides: tuple[int, int]
    padding: Padding | None = None
    #: The output is N×C (a global pooling without the unit dimensions of N×C×1×1).
    squeezed: bool = False


def _is_window_generic(op: Operation) -> bool:
    """A reduction generic of one input: a pooling (a contraction has two inputs)."""
    return (isinstance(op, linalg.GenericOp) and len(op.inputs) == 1
            and any(it.data == IteratorType.REDUCTION for it in op.iterator_types.data))


def is_pool(op: Operation, rank: int) -> bool:
    """``op`` is a pooling op this module takes (or reports) in a function of buffers of
    ``rank`` (a reduction generic of one input on NCHW tensors)."""
    return op.name.startswith("linalg.pooling") or (rank == 4 and _is_window_generic(op))


@dataclass(eq=False)
class PoolMatcher:
    """The pooling ops of the function ``recognizer`` walks (module doc)."""

    recognizer: FunctionRecognizer = field(repr=False)
    #: The outputs of pooling ops.
    targets: set[SSAValue] = field(default_factory=set[SSAValue])
    #: The ``linalg.fill`` initialising an i8 pooling output, and its value.
    inits: dict[SSAValue, tuple[Operation, int]] = field(
        default_factory=dict[SSAValue, tuple[Operation, int]])

    def find_pools(self, block: Block) -> None:
        """Note the outputs of the pooling ops of ``block``, and the padded buffers they read
        (whose fill may be any value); after the padded buffers are found."""
        for op in block.ops:
            if is_pool(op, self.recognizer.rank) \
                    and isinstance(op, linalg_abstract.LinalgStructuredOperation):
                self.targets.update(op.outputs)
                if op.inputs and op.inputs[0] in self.recognizer.conv.padding:
                    self.recognizer.conv.pooled.add(op.inputs[0])

    def visit(self, op: Operation) -> bool:
        """Take ``op`` when it is a pooling op or the fill of an i8 pooling output; False: it
        is the recognizer's."""
        if isinstance(op, linalg.FillOp) and len(op.outputs) == 1 \
                and op.outputs[0] in self.targets \
                and int_width(op.outputs[0].type.element_type) == 8:  # type: ignore[attr-defined]
            self.fill(op)
            return True
        if is_pool(op, self.recognizer.rank):
            assert isinstance(op, linalg_abstract.LinalgStructuredOperation)
            self.pool(op)
            return True
        return False

    def fill(self, op: linalg.FillOp) -> None:
        out = op.outputs[0]
        self.recognizer.check_buffer(op, out, any_rank=True)  # the pooling checks the rank
        owner = op.inputs[0].owner
        if not (isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr)):
            report_error(op, f"fills {label(out)} with a value that is not a constant: a VTA "
                             "pooling starts from a constant")
        if out in self.inits:
            report_error(op, f"fills {label(out)} a second time")
        self.inits[out] = (op, owner.value.value.data)

    # ---- pooling ops ----------------------------------------------------------------------
    def pool(self, op: linalg_abstract.LinalgStructuredOperation) -> None:
        rec = self.recognizer
        if op.res or len(op.outputs) != 1:
            report_error(op, "is a pooling op on tensors or with several outputs: vta-pack "
                             "pools memrefs into one buffer")
        if isinstance(op, linalg.PoolingNchwMaxOp | PoolingNchwSumOp):
            kind = AluKind.MAX if isinstance(op, linalg.PoolingNchwMaxOp) else AluKind.ADD
            window, strides = self.named_window(op)
        elif isinstance(op, linalg.GenericOp) and _is_window_generic(op):
            kind = self.generic_kind(op)
            window, strides = self.generic_window(op)
        else:
            report_error(op, f"is not supported by vta-pack: {_SUPPORTED}")
        x, out = op.inputs[0], op.outputs[0]
        if rec.rank != 4:
            report_error(op, "pools a buffer that is not a rank-4 NCHW tensor: " + _SUPPORTED)
        # A global pooling may write N×C, an N×C×1×1 result without its unit dimensions.
        squeezed = isinstance(out.type, MemRefType) and out.type.get_num_dims() == 2
        xt, ot = rec.check_buffer(op, x), rec.check_buffer(op, out, any_rank=squeezed)
        if int_width(xt.element_type) != 8:
            report_error(op, f"pools {label(x)} ({xt}): {_SUPPORTED}")
        (n, c, h, w), (on, oc, oh, ow) = xt.get_shape(), (*ot.get_shape(), 1, 1)[:4]
        (kh, kw), (sh, sw) = window, strides
        if (on, oc) != (n, c) or (oh - 1) * sh + kh > h or (ow - 1) * sw + kw > w:
            report_error(op, f"pools {xt} with a {kh}x{kw} window, strides {list(strides)} into "
                             f"{ot}: the shapes do not match")
        if x in rec.conv.padding:
            # A sum over padding of any value: vta-tile adds the value for each padded tap.
            act, padding = rec.conv.padded_data(op, x)
        else:
            act, padding = rec.argument_of(op, x, "data"), None
        result = Pool(op, self.initial_value(op, out), act, kind, window, strides, padding,
                      squeezed)
        rec.write(op, out, Narrow(result, True, op) if int_width(ot.element_type) == 8
                  else result)

    def initial_value(self, op: Operation, out: SSAValue) -> Expr:
        """The constant the output holds before ``op`` pools into it."""
        rec = self.recognizer
        if out in self.inits:
            fill, value = self.inits[out]
            return Const(fill, value)
        if int_width(out.type.element_type) == 8:  # type: ignore[attr-defined]
            report_error(op, f"pools into {label(out)}, which no linalg.fill initialises: a "
                             "VTA pooling starts from a constant")
        if rec.is_argument(out):
            report_error(op, f"pools into {label(out)}, a function argument (an i32 result): "
                             "a VTA pooling accumulates in a buffer of its own, filled with a "
                             "constant; pool into a new buffer and return a copy")
        init = rec.read(op, out)
        if not isinstance(init, Const):
            report_error(op, f"pools into {label(out)}, which holds a computed value: a VTA "
                             "pooling starts from a constant (linalg.fill)")
        return init

    @staticmethod
    def named_window(op: linalg.PoolingNchwMaxOp | PoolingNchwSumOp
                     ) -> tuple[tuple[int, int], tuple[int, int]]:
        window = op.inputs[1].type
        if not isinstance(window, MemRefType) or window.get_num_dims() != 2 \
                or any(d < 0 for d in window.get_shape()):
            report_error(op, f"has the window operand {label(op.inputs[1])} of type {window}: "
                             "the window of a 2-D pooling is a static rank-2 memref")
        dilations = tuple(op.dilations.get_values())
        if any(d != 1 for d in dilations):
            report_error(op, f"has dilations {list(dilations)}: VTA pools with dilation 1")
        strides = tuple(op.strides.get_values())
        if len(strides) != 2 or any(s < 1 for s in strides):
            report_error(op, f"has strides {list(strides)}: a 2-D pooling has two positive "
                             "strides")
        kh, kw = window.get_shape()
        return (kh, kw), (strides[0], strides[1])

    def generic_window(self, op: linalg.GenericOp) -> tuple[tuple[int, int], tuple[int, int]]:
        """The window of a global pooling generic: the whole image."""
        maps: Sequence[AffineMap] = [m.data for m in op.indexing_maps.data]
        iterators = [it.data for it in op.iterator_types.data]
        par, red = IteratorType.PARALLEL, IteratorType.REDUCTION
        out_dims = result_dims(maps[1])
        if iterators != [par, par, red, red] or maps[0] != AffineMap.identity(4) \
                or out_dims not in ([0, 1, None, None], [0, 1]):
            report_error(op, "is a reduction that is not a global pooling: VTA reduces one "
                             "NCHW int8 tensor over H and W with maps (n, c, h, w) -> (n, c, h, "
                             "w), (n, c, h, w) -> (n, c, 0, 0) or (n, c) and iterators "
                             "[parallel, parallel, reduction, reduction]")
        t = op.outputs[0].type
        assert isinstance(t, MemRefType)
        if tuple(t.get_shape()[2:]) not in ((1, 1), ()) or \
                t.get_num_dims() != len(out_dims):
            report_error(op, f"reduces into {t}: a global pooling writes an N×C×1×1 or N×C "
                             "output")
        x = op.inputs[0].type
        assert isinstance(x, MemRefType)
        h, w = x.get_shape()[2:]
        return (h, w), (1, 1)

    @staticmethod
    def generic_kind(op: linalg.GenericOp) -> AluKind:
        """``max`` or ``add`` of the output and the (sign-extended) input element."""
        block = op.body.block
        x, acc = block.args
        ops = list(block.ops)
        yield_ = ops[-1]
        combine = yield_.operands[0].owner if len(yield_.operands) == 1 else None
        kind = POOL_KINDS.get(type(combine)) if isinstance(combine, Operation) else None
        if kind is None or not isinstance(combine, Operation) or acc not in combine.operands:
            report_error(op, f"is a reduction that is not a pooling: {_SUPPORTED}; a body "
                             "combines the output with arith.maxsi or arith.addi")
        term = combine.operands[1] if combine.operands[0] is acc else combine.operands[0]
        ext = term.owner
        direct = term is x and int_width(x.type) == int_width(acc.type)
        extended = isinstance(ext, arith.ExtSIOp) and ext.input is x \
            and int_width(x.type) == 8 and int_width(acc.type) == 32
        if not (direct or extended) or len(ops) != (3 if extended else 2):
            report_error(op, f"is a reduction that is not a pooling: {_SUPPORTED}; the body "
                             "combines the output with the input element (arith.extsi of i8 "
                             "into an i32 output)")
        return kind
