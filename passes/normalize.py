"""``vta-normalize``: the integer forms frontends write for a clamp or a negation, rewritten
into the ops ``vta-pack`` recognises as VTA ALU operations.

* A clamp written as a comparison and a select (torch-mlir's ``aten.clamp`` / ``relu`` on
  integers) becomes ``arith.maxsi`` / ``arith.minsi``::

      %c = arith.cmpi slt, %x, %lo : i32        →   %y = arith.maxsi %x, %lo : i32
      %y = arith.select %c, %lo, %x : i32

  ``select(a > b, a, b)`` and ``select(a < b, b, a)`` are ``max(a, b)``; ``select(a < b, a,
  b)`` and ``select(a > b, b, a)`` are ``min(a, b)``; ``sge`` / ``sle`` as ``sgt`` / ``slt``
  (they differ only when ``a == b``, where both picks are equal).  The comparison goes when
  nothing else uses it.
* ``c - x`` of a constant ``c`` and a tensor ``x`` — the negation ``0 - x`` in particular —
  becomes ``x * -1`` (then ``+ c`` unless ``c`` is 0): VTA's ALU has no subtraction, and
  ``vta-pack`` takes ``arith.subi`` only with a constant on the right (an ``add`` of its
  negation), but it takes a ``mul`` and an ``add`` by immediates.  Both forms wrap alike on
  every integer width, so the rewrite is exact.

Only signless integer scalars are rewritten (the bodies of ``linalg`` element-wise ops); index
arithmetic of loops and unsigned comparisons are left alone.  A program without these forms is
not changed at all.  ``vta-to-isa`` runs the pass after its prepasses, before ``vta-pack``
(``docs/pipeline.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, Signedness
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from vta_mlir.ir.locations import copy_location

__all__ = ["NegationToMultiply", "NormalizePass", "SelectClampToMinMax"]

#: ``arith.cmpi`` predicates (MLIR's numbering) whose true side is the greater operand.
_GREATER = {4, 5}  # sgt, sge
#: Those whose true side is the smaller operand.
_LESS = {2, 3}  # slt, sle


def _signless_int(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.signedness.data == Signedness.SIGNLESS


def _constant(value: SSAValue) -> int | None:
    """The integer ``value`` holds when an ``arith.constant`` defines it."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


class SelectClampToMinMax(RewritePattern):
    """``select(cmpi(a, b), a, b)`` → ``maxsi`` / ``minsi`` of ``a`` and ``b``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SelectOp, rewriter: PatternRewriter) -> None:
        compare = op.cond.owner
        if not isinstance(compare, arith.CmpiOp) or not _signless_int(op.result.type):
            return
        a, b = compare.lhs, compare.rhs
        predicate = compare.predicate.value.data
        if predicate not in _GREATER | _LESS:
            return
        if (op.lhs, op.rhs) == (a, b):
            picks_greater = predicate in _GREATER
        elif (op.lhs, op.rhs) == (b, a):
            picks_greater = predicate in _LESS
        else:
            return
        new = arith.MaxSIOp(a, b) if picks_greater else arith.MinSIOp(a, b)
        copy_location(op, new)
        rewriter.replace(op, new)
        if not compare.result.uses:
            rewriter.erase(compare)


class NegationToMultiply(RewritePattern):
    """``c - x`` (``c`` a constant, ``x`` not) → ``x * -1``, plus ``c`` unless it is 0."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SubiOp, rewriter: PatternRewriter) -> None:
        t = op.result.type
        if not _signless_int(t) or _constant(op.rhs) is not None:
            return
        c = _constant(op.lhs)
        if c is None:
            return
        assert isinstance(t, IntegerType)
        minus_one = arith.ConstantOp(IntegerAttr(-1, t))
        minus_one.result.name_hint = "minus_one"
        product = arith.MuliOp(op.rhs, minus_one.result)
        new: list[Operation] = [minus_one, product]
        if c != 0:
            new.append(arith.AddiOp(product.result, op.lhs))
        for created in new:
            copy_location(op, created)
        rewriter.replace(op, new, [new[-1].results[0]])


@dataclass(frozen=True)
class NormalizePass(ModulePass):
    """``vta-normalize``; see the module docstring."""

    name = "vta-normalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Without dead-code elimination: ops the patterns do not match stay exactly as they
        # are, so a program without these forms compiles to the same bytes as before.
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [SelectClampToMinMax(), NegationToMultiply()], dce_enabled=False
            ),
            apply_recursively=False,
        ).rewrite_module(op)
