"""A numpy reference evaluator of input-level programs: the semantics ``vta-run --check``
compares the simulator's results with.

It runs a ``func.func`` whose arguments are memrefs on numpy arrays, one whole-array numpy
operation per op, never a Python loop per element::

    from vta_mlir.reference import evaluate
    (y,) = evaluate(text, [x, w])       # the arrays the function reads, in signature order;
                                        # returns the ones it writes, in signature order

What it evaluates:

* ``linalg.generic`` and the structured named ops (``linalg.matmul`` with or without upstream
  ``indexing_maps``, ``linalg.fill``, ``linalg.copy``, ``linalg.transpose``, convolutions
  (``linalg.conv_2d_nchw_fchw_q`` with its zero points), poolings, the element-wise named ops),
  ``linalg.map``, ``linalg.broadcast`` and ``linalg.reduce``: any affine indexing maps
  (projected permutations are strided views, other maps gathers); a body of the integer
  ``arith`` subset, evaluated over the iteration space with numpy broadcasting.  A reduction
  must combine the accumulator with one value (``addi``, ``muli``, ``maxsi``, ...); sums of
  products are contracted with ``numpy.einsum`` — in float64 (BLAS) when every partial sum is
  exactly representable there, in int64 otherwise;
* ``memref.alloc`` / ``alloca`` (zero-filled), ``dealloc``, ``copy``, ``subview`` (views, rank
  reduction included), ``cast``, ``collapse_shape`` / ``expand_shape``, ``get_global``;
* ``arith`` on integers and ``index``, ``affine.apply`` / ``min`` / ``max``, and ``affine.for``
  / ``scf.for`` loops around such ops (host-level loops, each iteration vectorised); scalar
  index arithmetic outside ``linalg`` bodies has the semantics of
  :mod:`vta_mlir.ir.index_arith`, shared with the compiler.

Integer arithmetic is exact: every value is held as int64 sign-extended from its type's width
and wrapped to that width after each op (``addi``, ``muli``, ``shli``, ``trunci``, ...).  Two
cases that are undefined in MLIR get VTA's meaning, because the pipeline's normal form relies on
them: ``arith.shrsi`` by a negative amount shifts left (VTA's SHR), and a shift amount of at
least the width is taken modulo the width (the ALU uses the low bits).  An op reads all its
operands before it writes its outputs.

Anything else — floats, tensors, element-wise ``memref.load`` / ``affine.store``, calls — is a
:class:`~vta_mlir.ir.diagnostics.DiagnosticError` at the op; bad arguments are
:class:`~vta_mlir.errors.VTAError` s.
"""

from __future__ import annotations

from vta_mlir.reference.elementwise import shift_right, wrap
from vta_mlir.reference.program import Argument, arguments, evaluate, find_function, run_function

__all__ = [
    "Argument",
    "arguments",
    "evaluate",
    "find_function",
    "run_function",
    "shift_right",
    "wrap",
]
