"""Builders of the input-level MLIR text the end-to-end tests compile: memref types and affine
maps, element-wise ``linalg.generic`` ops of any rank (the epilogue of a contraction among
them), the multiply-accumulate region of a contraction, and the requantization epilogue (a
bias add, ``>> s``, a clip, the ``trunci`` to i8) that most layers end with.

The numpy side of these programs is in ``tests/numerics.py``; GEMM programs with their own
reference are in ``tests/gemm_programs.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

from vta_mlir.frontend.mlir_text import memref_type

#: The dimension names of the generated affine maps.
DIMS = "abcdefgh"


#: ``memref<AxBx...xelement>``.
memref = memref_type


def amap(rank: int, results: Sequence[int | None]) -> str:
    """An affine map of ``rank`` dimensions to ``results``: a dimension's position, or None for
    the constant 0 (a unit dimension of a broadcast operand)."""
    dims = ", ".join(DIMS[:rank])
    out = ", ".join("0" if r is None else DIMS[r] for r in results)
    return f"affine_map<({dims}) -> ({out})>"


#: An operand of :func:`generic`: name, shape, element type, and the result dimension each of
#: its dimensions is indexed by (None: a unit dimension).
Operand = tuple[str, Sequence[int], str, Sequence[int | None]]


def generic(
    shape: Sequence[int],
    inputs: Sequence[Operand],
    body: str,
    out: str = "y",
    out_element: str = "i8",
) -> str:
    """One ``linalg.generic`` over ``shape`` reading ``inputs`` into the output ``out``;
    ``body`` computes ``%r : i32`` from the block arguments ``%in0``, ``%in1``, ..., truncated
    when the output is i8."""
    rank = len(shape)
    maps = [amap(rank, axes) for _, _, _, axes in inputs] + [amap(rank, range(rank))]
    names = ", ".join(f"%{n}" for n, _, _, _ in inputs)
    types = ", ".join(memref(s, e) for _, s, e, _ in inputs)
    args = ", ".join(f"%in{k}: {e}" for k, (_, _, e, _) in enumerate(inputs))
    iterators = ", ".join(['"parallel"'] * rank)
    yield_ = (
        "%t = arith.trunci %r : i32 to i8\n    linalg.yield %t : i8"
        if out_element == "i8"
        else "linalg.yield %r : i32"
    )
    return f"""
  linalg.generic {{indexing_maps = [{", ".join(maps)}], iterator_types = [{iterators}]}}
      ins({names} : {types}) outs(%{out} : {memref(shape, out_element)}) {{
  ^bb0({args}, %o: {out_element}):
{body}
    {yield_}
  }}"""


def function(name: str, params: Sequence[tuple[str, Sequence[int], str]], ops: str) -> str:
    """``func.func @name`` with memref parameters (name, shape, element type) and ``ops``."""
    sig = ", ".join(f"%{n}: {memref(s, e)}" for n, s, e in params)
    return f"func.func @{name}({sig}) {{{ops}\n  return\n}}\n"


def mac_region(x: str = "%a", w: str = "%b", acc: str = "%s", indent: str = "  ") -> str:
    """The region of a contraction: ``acc + extsi(x) * extsi(w)`` on i8 operands into i32."""
    lines = [
        f"^bb0({x}: i8, {w}: i8, {acc}: i32):",
        f"  {x}e = arith.extsi {x} : i8 to i32",
        f"  {w}e = arith.extsi {w} : i8 to i32",
        f"  %p = arith.muli {x}e, {w}e : i32",
        f"  %r = arith.addi {acc}, %p : i32",
        "  linalg.yield %r : i32",
    ]
    return "\n".join(indent + line for line in lines)


#: One step of an i32 epilogue: ``arith.<op>`` of the running value and an operand, an
#: ``int`` (an ``arith.constant``) or an SSA value such as a bias's block argument.
Step = tuple[str, int | str]


def requantize(steps: Sequence[Step], value: str = "%in0") -> str:
    """The body lines applying ``steps`` in turn to ``value``; the last result is ``%r`` (the
    value :func:`generic` truncates)."""
    lines = []
    for k, (op, operand) in enumerate(steps):
        if isinstance(operand, int):
            lines.append(f"    %k{k} = arith.constant {operand} : i32")
            operand = f"%k{k}"
        result = "%r" if k == len(steps) - 1 else f"%e{k}"
        lines.append(f"    {result} = arith.{op} {value}, {operand} : i32")
        value = result
    return "\n".join(lines)


def clip(lo: int, hi: int) -> list[Step]:
    """``min(max(v, lo), hi)``."""
    return [("maxsi", lo), ("minsi", hi)]


def i32_product(m: int, k: int, n: int) -> str:
    """``@mm``: ``y = x · w`` with ``linalg.matmul``, an ``m×k`` times a ``k×n`` i8 matrix into
    the ``m×n`` i32 output (its accumulators leave the device whole)."""
    return f"""func.func @mm(%x: memref<{m}x{k}xi8>, %w: memref<{k}x{n}xi8>,
               %y: memref<{m}x{n}xi32>) {{
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%y : memref<{m}x{n}xi32>)
  linalg.matmul ins(%x, %w : memref<{m}x{k}xi8>, memref<{k}x{n}xi8>)
      outs(%y : memref<{m}x{n}xi32>)
  return
}}
"""


def matmul_nk(m: int, k: int, n: int, x: str = "%x", w: str = "%w", acc: str = "%acc") -> str:
    """``acc[i, j] += Σ x[i, l] · w[j, l]``: an ``m×k`` i8 matrix times the transpose of an
    ``n×k`` one (weights output-major) into an ``m×n`` i32 buffer, as a ``linalg.generic``."""
    x_t, w_t, acc_t = memref((m, k), "i8"), memref((n, k), "i8"), memref((m, n), "i32")
    return f"""
  linalg.generic {{indexing_maps = [affine_map<(i, j, l) -> (i, l)>,
                                   affine_map<(i, j, l) -> (j, l)>,
                                   affine_map<(i, j, l) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}}
      ins({x}, {w} : {x_t}, {w_t}) outs({acc} : {acc_t}) {{
{mac_region()}
  }}"""


#: The bias's block argument in the region of :func:`bias_epilogue`.
BIAS = "%in1"


def bias_epilogue(
    shape: Sequence[int],
    steps: Sequence[Step],
    axis: int = 1,
    acc: str = "acc",
    bias: str = "bias",
    out: str = "y",
) -> str:
    """``out = trunci(steps(acc))`` over ``shape``, with an i32 bias per index of dimension
    ``axis`` (a per-column or per-channel bias) readable as :data:`BIAS` by the steps."""
    full = tuple(range(len(shape)))
    inputs: list[Operand] = [(acc, shape, "i32", full), (bias, (shape[axis],), "i32", (axis,))]
    return generic(shape, inputs, requantize(steps), out=out)
