"""Fixes to xDSL 0.74's upstream dialects, so that input written for MLIR parses, verifies and
prints back in MLIR's syntax.

Each fix repairs a defect of the pinned xDSL release; behaviour that belongs to vta-mlir (the
``lower-affine`` pass, diagnostics at the failing op) is the project's own code instead
(``passes/lower_affine.py``, :mod:`vta_mlir.ir.pipeline`).  The fixes patch the stock op
classes (their ``parse``/``print`` methods and the builders of the hidden regions of named
linalg ops) instead of subclassing them: code that matches on
``xdsl.dialects.linalg.ops.MatmulOp`` or ``xdsl.dialects.memref.CopyOp`` — xDSL's own passes
included — keeps recognising the ops.  :func:`apply_upstream_fixes` is idempotent;
:func:`vta_mlir.ir.context.make_context` calls it, after :func:`check_xdsl_version`.

One module per dialect (``linalg``, ``memref``, ``affine``, ``builtin``, ``tensor``), one per group
of ops added to a dialect (``linalg_pooling``, ``linalg_quantized_conv``,
``linalg_depthwise_conv``, ``linalg_map``, ``linalg_batch_matmul``: each
ends with its list of ops and the function adding them), one for the ``dense_resource`` blobs
(``resources``) and one for the lexer.  What is fixed (``tests/test_upstream_fixes.py`` and
``tests/test_tensor_input_ops.py`` exercise each fix, and ``tests/test_xdsl_defects.py``
shows, in a process that imports stock xDSL only, that the defect is still there — when that
test fails, xDSL fixed it and the patch can go):

* ``linalg.matmul``, ``linalg.quantized_matmul``, the ``linalg.conv_*`` ops, ``linalg.fill``
  and ``linalg.copy`` build their hidden body with MLIR's numeric casts (``arith.extsi``,
  ``arith.trunci``, ``arith.sitofp``, ``arith.extf``, ...) from the input element types to the
  output element type, so i8 x i8 -> i32 verifies and lowers to extending arithmetic;
  ``linalg.pooling_nchw_max`` takes the maximum with the accumulator instead of with the window.
* ``linalg.pooling_nchw_sum``, missing from the linalg dialect, is added (``linalg_pooling``);
  so are ``linalg.conv_2d_nchw_fchw_q`` (``linalg_quantized_conv``), the depthwise
  convolutions and ``linalg.conv_2d_ngchw_gfchw_q`` (``linalg_depthwise_conv``) and
  ``linalg.map`` (``linalg_map``), ``linalg.batch_matmul`` (with MLIR's ``indexing_maps``
  prefix) and ``linalg.quantized_batch_matmul`` (``linalg_batch_matmul``).
* ``linalg.matmul`` parses and prints MLIR's ``indexing_maps = [...]`` prefix (transposed
  operands); the stock parser crashes on it and the stock printer drops the maps.
* ``linalg.generic`` parses the parenthesised result types of a generic with several results
  (``-> (tensor<1xf32>, tensor<1xi64>)``, as MLIR prints them: torch-mlir's ``Softmax``);
  the stock parser read them as a function type (``linalg_generic``).
* ``linalg.transpose``/``broadcast``/``reduce`` print ``ins(%a : T)`` with MLIR's spacing.
* ``linalg.transpose`` checks that ``permutation`` is a permutation of the dimensions before
  the stock verifier indexes the shapes with it (which raised ``IndexError``).
* The element-wise named linalg ops (``linalg.copy``, ``linalg.add``, ...) reject a scalar
  operand in their verifier; the stock one asserted while building their indexing maps.
* ``tensor.pad`` checks its result type and that its region yields a value of the result's
  element type; ``tensor.extract_slice`` checks that a static slice lies within its source
  (``tensor``).
* ``memref.copy``, ``memref.cast`` and ``memref.global`` get MLIR's custom syntax.
* ``memref<..., 1>``: an integer memory space prints without the ``: i64`` suffix.
* ``affine.load``/``store``/``vector_load``/``vector_store`` parse SSA ids as map *dims* and
  ``symbol(%x)`` as symbols, as MLIR does (stock xDSL made every id a symbol), and print
  ``symbol(%x)`` back; ``affine.if`` gets MLIR's custom syntax.
* The lexer matches a string literal in linear time: the stock pattern nests ``+`` in ``*``
  and backtracks exponentially on a ``"`` left unclosed before the end of its line.
* ``dense<...>`` prints from its bytes: the stock printer unpacked every element into Python
  objects (twice) even to print a large literal as hex (``dense<"0x...">``).
* ``dense<0xFF800000> : tensor<2xf32>``: a hex element of a float literal is read as the
  float's bit pattern (``-inf``), as MLIR does; the stock parser took the integer's value.
* ``[0, 1]``: the ``i64`` integers and ``f64`` floats of an array attribute print without their
  type (``tensor.collapse_shape``'s ``[[0], [1, 2, 3]]``), as MLIR prints them.
* ``dense_resource<key>`` blobs are bytes in a store of each context (``resources``; the
  context registers the builtin dialect of :func:`~.resources.builtin_dialect`), checked when
  parsed; the stock store of hex strings was shared by the whole process, so a second parse
  renamed the keys and lost the blobs.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata

from vta_mlir.errors import VTAError
from vta_mlir.ir.upstream_fixes.affine import (
    fix_affine_if_syntax,
    fix_affine_syntax,
    parse_affine_map_of_ssa_ids,
    print_affine_expr_of_ssa_ids,
)
from vta_mlir.ir.upstream_fixes.builtin import (
    fix_array_element_types,
    fix_dense_hex_floats,
    fix_dense_printing,
)
from vta_mlir.ir.upstream_fixes.lexer import fix_string_literal_lexing
from vta_mlir.ir.upstream_fixes.linalg import (
    convert_scalar,
    fix_elementwise_verifier,
    fix_linalg_bodies,
    fix_linalg_spacing,
    fix_matmul_syntax,
    fix_transpose_verifier,
    matmul_default_indexing_maps,
)
from vta_mlir.ir.upstream_fixes.linalg_batch_matmul import add_batch_matmul_ops
from vta_mlir.ir.upstream_fixes.linalg_depthwise_conv import add_depthwise_conv_ops
from vta_mlir.ir.upstream_fixes.linalg_generic import fix_generic_results
from vta_mlir.ir.upstream_fixes.linalg_map import add_map_ops
from vta_mlir.ir.upstream_fixes.linalg_pooling import add_pooling_ops
from vta_mlir.ir.upstream_fixes.linalg_quantized_conv import add_quantized_conv_ops
from vta_mlir.ir.upstream_fixes.memref import fix_memory_space_printing, fix_memref_syntax
from vta_mlir.ir.upstream_fixes.resources import fix_resource_parsing
from vta_mlir.ir.upstream_fixes.tensor import fix_tensor_verifiers

__all__ = [
    "FIXES",
    "XDSL_VERSION",
    "apply_upstream_fixes",
    "check_xdsl_version",
    "convert_scalar",
    "matmul_default_indexing_maps",
    "parse_affine_map_of_ssa_ids",
    "print_affine_expr_of_ssa_ids",
]

#: The xDSL release these fixes are written against (the version ``pyproject.toml`` pins).
XDSL_VERSION = "0.74.0"

#: Every fix group, in the order they are applied, with a one-line description.
FIXES: dict[str, tuple[Callable[[], None], str]] = {
    "linalg-bodies": (
        fix_linalg_bodies,
        "named linalg ops cast their inputs to the output element type (i8 x i8 -> i32)",
    ),
    "linalg-pooling-ops": (
        add_pooling_ops,
        "linalg.pooling_nchw_sum, which the linalg dialect lacks",
    ),
    "linalg-quantized-conv-ops": (
        add_quantized_conv_ops,
        "linalg.conv_2d_nchw_fchw_q, which the linalg dialect lacks",
    ),
    "linalg-depthwise-conv-ops": (
        add_depthwise_conv_ops,
        "linalg.depthwise_conv_2d_nchw_chw / _nhwc_hwc(_q) and conv_2d_ngchw_gfchw_q, which the "
        "linalg dialect lacks",
    ),
    "linalg-map-op": (
        add_map_ops,
        "linalg.map, which the linalg dialect lacks",
    ),
    "linalg-batch-matmul-ops": (
        add_batch_matmul_ops,
        "linalg.batch_matmul and linalg.quantized_batch_matmul, which the linalg dialect lacks",
    ),
    "linalg-matmul-syntax": (
        fix_matmul_syntax,
        "linalg.matmul parses and prints `indexing_maps = [...]`",
    ),
    "linalg-generic-results": (
        fix_generic_results,
        "linalg.generic parses `-> (T, U)`, the result types of a generic with several results",
    ),
    "linalg-spacing": (
        fix_linalg_spacing,
        "linalg.transpose/broadcast/reduce print `ins(%a : T)`",
    ),
    "transpose-verifier": (
        fix_transpose_verifier,
        "linalg.transpose rejects an invalid permutation instead of indexing out of range",
    ),
    "elementwise-verifier": (
        fix_elementwise_verifier,
        "element-wise named linalg ops (linalg.copy, ...) reject scalar operands",
    ),
    "tensor-verifiers": (
        fix_tensor_verifiers,
        "tensor.pad yields its result's element type; tensor.extract_slice stays in bounds",
    ),
    "memref-syntax": (
        fix_memref_syntax,
        "memref.copy, memref.cast and memref.global custom syntax",
    ),
    "memory-space": (
        fix_memory_space_printing,
        "integer memref memory spaces print without `: i64`",
    ),
    "affine-syntax": (
        fix_affine_syntax,
        "affine.load/store maps use dims, `symbol(%x)` for symbols",
    ),
    "affine-if-syntax": (
        fix_affine_if_syntax,
        "affine.if custom syntax (integer set, operands, results, else)",
    ),
    "string-literal-lexing": (
        fix_string_literal_lexing,
        "string literals lex in linear time (an unclosed `\"` does not hang the parser)",
    ),
    "dense-printing": (
        fix_dense_printing,
        "dense<...> prints from its bytes, without unpacking every element",
    ),
    "dense-hex-floats": (
        fix_dense_hex_floats,
        "a hex element of a float dense<...> literal is the float's bits",
    ),
    "array-element-types": (
        fix_array_element_types,
        "array elements print without a default i64/f64 type ([0, 1])",
    ),
    "resource-parsing": (
        fix_resource_parsing,
        "a dense_resource key maps to one stored key per parse; malformed blobs reported; "
        "a module's copy reads the module's blobs",
    ),
}

#: Names of the fix groups applied so far (``apply_upstream_fixes`` runs each once).
_applied: set[str] = set()


def check_xdsl_version(version: str | None = None) -> None:
    """Raise :class:`~vta_mlir.errors.VTAError` unless the installed xDSL (or ``version``) is
    the release the fixes are written against: they patch its classes, and another release
    may need other fixes, or none."""
    if version is None:
        try:
            version = metadata.version("xdsl")
        except metadata.PackageNotFoundError:
            version = "(unknown)"
    found = version
    if found != XDSL_VERSION:
        raise VTAError(
            f"vta-mlir needs xDSL {XDSL_VERSION}, but xDSL {found} is installed; "
            f"install it with: pip install 'xdsl=={XDSL_VERSION}'"
        )


def apply_upstream_fixes() -> None:
    """Apply every fix of :data:`FIXES` to the stock xDSL classes; later calls do nothing."""
    check_xdsl_version()
    for name, (fix, _description) in FIXES.items():
        if name not in _applied:
            fix()
            _applied.add(name)
