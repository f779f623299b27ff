"""``vta-raise-loops``: loop nests with constant bounds raised to the structured ops the
pipeline takes.

Each outermost ``affine.for`` / ``scf.for`` of a function is read as statements (``nest.py``),
their accesses checked to stay in bounds, split loops (``c * ko + ki``) read as one loop
(``split.py``), checked for exactness (``dependence.py``: distributing the nest into one
computation per statement keeps every dependence; a statement reads the buffer it writes only
at the element it stores), recognised (``recognize.py``: a fill, an element-wise or a
contraction / convolution ``linalg.generic``, a copy into a padded buffer's interior) and
replaced by the structured ops (``emit.py``), in statement order.  A nest that is not one of
these is an error at its loop (or at the access out of bounds), saying what was found and why
it is not raised; the module is unchanged then.  See ``docs/pipeline.md`` ("Input forms: loop
nests").

Input::

    scf.for %m = %c0 to %c1 step %c1 {
      scf.for %n = %c0 to %c256 step %c1 {
        memref.store %zero, %acc[%m, %n] : memref<1x256xi32>
        scf.for %k = %c0 to %c256 step %c1 {
          %x = memref.load %a[%m, %k] ...  %w = memref.load %b[%n, %k] ...
          %sum = memref.load %acc[%m, %n] ... (extsi, extsi, muli, addi)
          memref.store %s, %acc[%m, %n] : memref<1x256xi32>
    }}}

Output::

    linalg.fill ins(%zero : i32) outs(%acc : memref<1x256xi32>)
    linalg.generic {maps (m, k), (n, k), (m, n); [parallel, parallel, reduction]}
        ins(%a, %b) outs(%acc) { extsi, extsi, muli, addi }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from vta_mlir.ir.diagnostics import report_error, verify_op

from .dependence import check_distribution, check_statement
from .nest import LOOP_OPS, NestReader
from .recognize import Computation, recognize
from .split import check_bounds, merge_split_loops

__all__ = ["RaiseLoopsPass", "has_loops", "raise_nest"]


def has_loops(module: Operation) -> bool:
    """Whether a function of ``module`` holds a loop this pass raises."""
    return any(isinstance(op, LOOP_OPS) for f in module.walk() if isinstance(f, func.FuncOp)
               for op in f.body.walk())


def raise_nest(nest: Operation) -> list[Computation]:
    """The computations of one nest, checked (see the module docstring)."""
    statements = NestReader(nest).read()
    if not statements:
        report_error(nest, "this loop nest stores nothing: there is no computation to raise")
    for statement in statements:
        check_bounds(statement)
    # Split (tiled) loops as one loop each, before the checks and the recognition.
    statements = [merge_split_loops(statement) for statement in statements]
    for statement in statements:
        check_statement(statement)
    check_distribution(statements)
    return [recognize(statement) for statement in statements]


@dataclass(frozen=True)
class RaiseLoopsPass(ModulePass):
    """The pass ``vta-raise-loops``; see the module docstring."""

    name = "vta-raise-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from .emit import emit

        nests = [loop for f in op.walk() if isinstance(f, func.FuncOp)
                 for loop in f.body.walk() if isinstance(loop, LOOP_OPS)
                 and not isinstance(loop.parent_op(), LOOP_OPS)]
        # Everything is recognised before anything changes: a refused nest leaves the module
        # as it was.
        raised = [(nest, raise_nest(nest)) for nest in nests]
        for nest, computations in raised:
            emit(computations, nest)
        if raised:
            verify_op(op)
