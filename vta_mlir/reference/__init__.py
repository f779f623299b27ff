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
  (projected permutations are strided views, other maps gathers); a body of ``arith`` and
  ``math`` ops, evaluated over the iteration space with numpy broadcasting.  A reduction must
  combine the accumulator with one value (``addi``, ``muli``, ``maxsi``, ..., ``addf``,
  ``mulf``, ``maximumf``, ...);
* ``memref.alloc`` / ``alloca`` (zero-filled), ``dealloc``, ``copy``, ``subview`` (views, rank
  reduction included), ``cast``, ``collapse_shape`` / ``expand_shape``, ``get_global``, and
  element loads and stores (``memref`` / ``affine``, bounds checked) of loop nests;
* ``arith`` and ``math`` on scalars, ``affine.apply`` / ``min`` / ``max``, and ``affine.for`` /
  ``scf.for`` loops around such ops (host-level loops, each iteration vectorised); scalar
  index arithmetic outside ``linalg`` bodies has the semantics of
  :mod:`vta_mlir.ir.index_arith`, shared with the compiler.

Integer arithmetic is exact: every value is held as int64 sign-extended from its type's width
and wrapped to that width after each op (``addi``, ``muli``, ``shli``, ``trunci``, ...).  Two
cases that are undefined in MLIR get VTA's meaning, because the pipeline's normal form relies on
them: ``arith.shrsi`` by a negative amount shifts left (VTA's SHR), and a shift amount of at
least the width is taken modulo the width (the ALU uses the low bits).  Integer sums of
products are contracted with ``numpy.einsum`` — in float64 (BLAS) when every partial sum is
exactly representable there, in int64 otherwise.  An op reads all its operands before it
writes its outputs.

Float arithmetic (``f16``, ``f32``, ``f64``; ``bf16`` is an error, numpy having no such type)
is deterministic, each op rounded once to its result type, to nearest even (``docs/reference.md``
§2 sets it out):

* a value is a numpy array of its type and stays one: no op computes in float64 and carries
  the extra precision on (``f32 + f32`` is numpy's float32 addition), nor fuses a multiply and
  an add; fast-math flags are ignored;
* ``addf subf mulf divf negf``, ``math.sqrt absf copysign floor ceil trunc round roundeven``
  are IEEE 754's operations in the type; ``math.rsqrt`` is ``1 / sqrt(x)`` (two of them, as
  MLIR lowers it); ``math.fma`` is rounded once;
* the other ``math`` functions (``exp exp2 expm1 log log2 log10 log1p tanh erf powf sin cos``,
  ...) are computed in float64 and rounded once to ``f16`` / ``f32`` — numpy's float32
  versions differ by a few ulps depending on the CPU; ``f64`` uses numpy's float64 functions
  (``erf``: the C library's, through Python's ``math``);
* ``maximumf`` / ``minimumf`` propagate NaN, ``maxnumf`` / ``minnumf`` return the other
  operand; all four order -0.0 below +0.0; ``cmpf`` has MLIR's 16 predicates, ordered ones
  false and unordered ones true on NaN;
* ``sitofp`` / ``uitofp``, ``extf`` / ``truncf`` round to nearest even; ``fptosi`` /
  ``fptoui`` round toward zero and, where MLIR has poison, saturate: a value out of range gives
  the type's minimum or maximum and NaN gives 0; ``bitcast`` reinterprets the bits;
* a reduction with ``addf`` / ``subf`` / ``mulf`` / ``divf`` is a left fold in iteration order
  along the reduction dimensions (MLIR's loop order), vectorised over the parallel ones — what
  a sequential loop computes, not numpy's pairwise summation nor BLAS (float ``linalg.matmul``
  included); ``maximumf`` / ``minimumf`` / ``maxnumf`` / ``minnumf`` reductions are
  order-free, so a whole-array reduction gives the same;
* the payload of a NaN result is unspecified, and a constant's is not kept.

Anything else — tensors, ``bf16``, calls, ``math`` ops on integers — is a
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
