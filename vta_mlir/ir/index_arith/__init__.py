"""Host index arithmetic: which ops it is, what they compute, and their linear forms.

Host index values are the ``arith`` / ``affine`` values on ``index`` and integer types a host
program computes: DMA offsets, positions of ``vta.gemm`` / ``vta.alu`` micro-ops, loop bounds.
Every component that classifies or evaluates them uses this module, so the dependence analysis,
the host compiler and the reference evaluator cannot disagree on a position:

* **Which ops** (:func:`is_index_op`): ``arith.constant`` of an integer, the integer binary ops,
  ``cmpi``, ``select``, the integer casts, and ``affine.apply`` / ``affine.min`` /
  ``affine.max``, all on ``index`` or integer types.
* **Semantics** on Python ints, exactly as MLIR defines them.  A value of an ``iN`` type is held
  sign-extended (in ``[-2^(N-1), 2^(N-1))``; an ``i1`` true is ``-1``); unsigned ops read their
  operands modulo ``2^N``.  ``index`` is 64 bits wide (:data:`INDEX_WIDTH`, MLIR's width on the
  64-bit hosts this targets) and wraps like ``i64``: every result is wrapped to its type's
  width.  ``divsi`` rounds toward zero, ``floordivsi`` / ``ceildivsi`` toward −∞ / +∞, ``remsi``
  has the dividend's sign; affine ``floordiv`` / ``ceildiv`` / ``mod`` need a positive divisor
  (``lower-affine`` rejects others) and round toward −∞ / +∞, ``mod`` non-negative.  What MLIR
  leaves undefined (poison or undefined behaviour) is an :class:`IndexArithError`: a division by
  zero, a signed division overflowing (``MIN / -1``), a shift by a negative amount or by the
  width or more, an affine division by a non-positive value.
* **Two back-ends** derived from one op table: :func:`evaluate` interprets an op on ints (and
  :func:`compiled_map` an affine map, for analyses that evaluate it per loop iteration), and
  :func:`source` writes an op as a Python expression (:class:`Code`) for the host compiler.  A
  :class:`Code` carries the range of the values it can take, so the plain Python operator
  (``a + b``, ``a // b``, ...) is written wherever the range shows it agrees with MLIR (no
  wrap-around, non-negative operands of unsigned ops, positive divisors), and a call of the
  interpreter's own function (:data:`HELPERS`) everywhere else.
* **Linear forms** (:class:`LinearForm`): a value as ``const + Σ coeff·key`` over loop induction
  variables and opaque values; :func:`linear_form_of_op` is the one rule for which ops are
  looked through (constants, ``addi`` / ``subi`` / ``muli`` by a constant and ``affine.apply``
  on ``index``, value-preserving casts), :func:`linear_affine_expr` / :func:`affine_of_form`
  convert from and to affine expressions.  Forms are exact modulo ``2^64`` (the index width);
  they are not taken through ring ops of narrower types, which wrap earlier.
"""

from .backends import (
    Code,
    HostValue,
    combine,
    compiled_map,
    evaluate,
    evaluate_map,
    exact,
    source,
    source_map,
)
from .linear import (
    AtomRule,
    LinearForm,
    affine_of_form,
    affine_of_op,
    linear_affine_expr,
    linear_form_of_op,
)
from .ops import (
    AFFINE_INDEX_OPS,
    CMPI_PREDICATES,
    HELPERS,
    INDEX_WIDTH,
    IndexArithError,
    constant_value,
    is_index_op,
    signed_range,
    type_width,
    unsigned,
    wrap,
)

__all__ = [
    "AFFINE_INDEX_OPS",
    "CMPI_PREDICATES",
    "HELPERS",
    "INDEX_WIDTH",
    "AtomRule",
    "Code",
    "HostValue",
    "IndexArithError",
    "LinearForm",
    "affine_of_form",
    "affine_of_op",
    "combine",
    "compiled_map",
    "constant_value",
    "evaluate",
    "evaluate_map",
    "exact",
    "is_index_op",
    "linear_affine_expr",
    "linear_form_of_op",
    "signed_range",
    "source",
    "source_map",
    "type_width",
    "unsigned",
    "wrap",
]
