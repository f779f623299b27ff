"""Matrix contractions for ``vta-pack``: a product of two ``i8`` matrices into ``i32``.

:class:`MatmulMatcher` is the part of :class:`~.match.FunctionRecognizer` that recognizes a
reduction over three loops (``linalg.matmul``, its transposed forms, or the equivalent
``linalg.generic``) as a :class:`~.expr.Gemm` ``init + act · wgt`` of two ``i8`` arguments,
whatever their orientation.  The checks every contraction shares — the convolutions
(``passes/pack/match_conv.py``), depthwise convolutions (``passes/pack/match_depthwise.py``)
and batched products (``passes/pack/match_batch.py``) too — are
:func:`check_contraction_types` (``i8 × i8 → i32``) and :func:`check_contraction_body`
(``acc + extsi(a) * extsi(b)``).  Everything else is reported at the op (``report_error``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NoReturn

from xdsl.dialects import arith
from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.linalg import abstract_ops as linalg_abstract
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineMap

from vta_mlir.ir.diagnostics import report_error
from vta_mlir.passes.pack.expr import Expr, Gemm, int_width, result_dims

if TYPE_CHECKING:
    from vta_mlir.passes.pack.match import FunctionRecognizer

__all__ = ["MatmulMatcher", "check_contraction_body", "check_contraction_types"]


def check_contraction_types(op: Operation, types: Sequence[MemRefType]) -> None:
    """The operands are i8 × i8 → i32."""
    widths = [int_width(t.element_type) for t in types]
    if widths[0] == 32 and widths[1] == 32:
        report_error(op, "is a contraction of i32 operands: VTA's GEMM core multiplies int8 "
                         "operands into int32 accumulators (i8 × i8 → i32)")
    if widths != [8, 8, 32]:
        report_error(op, f"is a contraction of {types[0].element_type} × "
                         f"{types[1].element_type} into {types[2].element_type}: VTA "
                         "computes i8 × i8 → i32")


def check_contraction_body(op: linalg_abstract.LinalgStructuredOperation) -> None:
    """The body is ``out + extsi(a) * extsi(b)`` (any operand order)."""
    block = op.body.block
    a, b, acc = block.args

    def owner(v: SSAValue, kind: type[Operation]) -> Operation | None:
        o = v.owner
        return o if isinstance(o, kind) and o.parent_block() is block else None

    def fail() -> NoReturn:
        report_error(op, "is a reduction that is not an int8 matrix contraction: VTA "
                         "accumulates only `acc + extsi(a) * extsi(b)`")

    yield_ = block.last_op
    if not isinstance(yield_, linalg.YieldOp) or len(yield_.operands) != 1:
        fail()
    add = owner(yield_.operands[0], arith.AddiOp)
    if add is None or acc not in add.operands:
        fail()
    product = add.operands[1] if add.operands[0] is acc else add.operands[0]
    mul = owner(product, arith.MuliOp)
    if mul is None:
        fail()
    sources = []
    for v in mul.operands:
        ext = owner(v, arith.ExtSIOp)
        if ext is None:
            fail()
        sources.append(ext.operands[0])
    if sorted(s.index for s in sources if isinstance(s, BlockArgument)
              and s.block is block) != [a.index, b.index]:
        fail()
    if len(list(block.ops)) != 5:
        fail()


@dataclass(eq=False)
class MatmulMatcher:
    """The matrix contractions of the function ``recognizer`` walks (module doc);
    ``recognizer`` holds the buffers' values and checks them."""

    recognizer: FunctionRecognizer = field(repr=False)

    def contraction(
        self,
        op: linalg_abstract.LinalgStructuredOperation,
        maps: Sequence[AffineMap],
        iterators: Sequence[IteratorType],
    ) -> None:
        """A product of two int8 matrices into an int32 one (module doc)."""
        rec = self.recognizer
        inputs = list(op.inputs)
        reduced = iterators.count(IteratorType.REDUCTION)
        if len(inputs) != 2 or len(iterators) != 3 or reduced != 1:
            report_error(op, "is a reduction that is not a matrix contraction: VTA reduces only "
                             "sums of products of two int8 matrices (loops m, n parallel, k "
                             f"reduced); here {len(iterators)} loops, {reduced} reduced, "
                             f"{len(inputs)} inputs")
        out = op.outputs[0]
        types = [rec.check_buffer(op, v) for v in (*inputs, out)]
        check_contraction_types(op, types)
        check_contraction_body(op)

        k = iterators.index(IteratorType.REDUCTION)
        out_dims = result_dims(maps[2])
        not_product = "has indexing maps that are not those of a matrix product"
        if sorted(d for d in out_dims if d is not None) != sorted({0, 1, 2} - {k}) \
                or len(out_dims) != 2:
            report_error(op, not_product)
        m, n = out_dims
        roles: dict[str, tuple[SSAValue, bool, int]] = {}
        for i, (value, imap) in enumerate(zip(inputs, maps[:2], strict=True)):
            dims = result_dims(imap)
            if dims == [m, k] or dims == [k, m]:
                roles["act"] = (value, dims == [k, m], i)
            elif dims == [n, k] or dims == [k, n]:
                roles["wgt"] = (value, dims == [k, n], i)
        if set(roles) != {"act", "wgt"}:
            report_error(op, not_product)
        act, act_t, ai = roles["act"]
        wgt, wgt_t, wi = roles["wgt"]
        rows, red = types[ai].get_shape()[::-1] if act_t else types[ai].get_shape()
        cols, red2 = types[wi].get_shape()[::-1] if wgt_t else types[wi].get_shape()
        if red != red2 or (rows, cols) != tuple(types[2].get_shape()):
            report_error(op, f"multiplies {types[ai]} by {types[wi]} into {types[2]}: the "
                             "shapes do not form a matrix product")
        init = rec.read(op, out)
        assert isinstance(init, Expr)
        result = Gemm(op, init, rec.argument_of(op, act, "activation"), act_t,
                      rec.argument_of(op, wgt, "weight"), wgt_t)
        rec.write(op, out, result)
