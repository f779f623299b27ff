"""How many byte planes an i32 result of ``vta-pack`` needs: as many as its values' range.

An i32 result leaves VTA as byte planes (``passes/pack/wide_outputs.py``), at most
``ACC_WIDTH / OUT_WIDTH`` of them.  When every value the result can hold fits fewer
``OUT_WIDTH``-bit planes as a two's complement integer, the region stores only those (the
host extends the last plane's sign, ``vta_mlir.abi.ArgSpec.parts``): each plane spared is one
store and one shift per output vector.

The range is known for a sum of matrix products of int8 operands onto a constant (a
``linalg.fill``): a :class:`~.expr.Gemm` or :class:`~.match_batch.BatchGemm` of depth ``K``
adds at most ``K · 2^(a-1) · 2^(w-1)`` in magnitude (``a``, ``w``: the operands' widths, the
product of two most negative values), and with a constant right operand at most
``2^(a-1) · max_n Σ_k |w[k, n]|`` (a constant left operand likewise, over its rows).  A
result of magnitude at most ``bound`` needs ``bit_length(bound) + 1`` bits with the sign, so
``ceil((bit_length(bound) + 1) / OUT_WIDTH)`` planes, and at least two: a value that fits one
plane is an int8 result, which a program states as such.  Every other value — an element-wise
i32 program, a product accumulated onto a loaded bias, a convolution — keeps all planes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import BlockArgument

from vta_mlir.config import VTAConfig
from vta_mlir.passes.pack.expr import Const, Expr, Gemm, int_width
from vta_mlir.passes.pack.match_batch import BatchGemm

__all__ = ["ConstantValues", "max_planes", "no_constant_values", "planes_for_bound",
           "result_planes", "value_bound"]

#: The values of a constant operand (a stand-in of a ``memref.global``), None for any other
#: buffer (``passes/pack/constants.py``).
ConstantValues = Callable[[BlockArgument], "np.ndarray | None"]



def no_constant_values(arg: BlockArgument) -> np.ndarray | None:
    """:data:`ConstantValues` of a function without constants."""
    return None


#: The fewest planes of a result split into parts (module doc).
MIN_PLANES = 2


def max_planes(cfg: VTAConfig) -> int:
    """The planes of a whole accumulator element: ``ACC_WIDTH / OUT_WIDTH``."""
    return cfg.acc_width // cfg.out_width


def planes_for_bound(bound: int | None, cfg: VTAConfig) -> int:
    """The planes holding every value of magnitude at most ``bound`` (None: unknown, all)."""
    most = max_planes(cfg)
    if bound is None:
        return most
    bits = bound.bit_length() + 1
    return min(max(-(-bits // cfg.out_width), MIN_PLANES), most)


def _magnitude(arg: BlockArgument) -> int:
    """The largest magnitude of an element of ``arg``: that of its most negative value."""
    t = arg.type
    assert isinstance(t, MemRefType)
    width = int_width(t.element_type)
    assert width is not None  # a contraction's operands are i8 (match_matmul.py)
    return 1 << (width - 1)


def _sum_bound(values: np.ndarray, depth_axis: int, other: BlockArgument) -> int:
    """The product's bound from a constant operand: the largest ``Σ_k |v|`` along the depth
    axis, times the largest magnitude of the other operand."""
    sums = np.abs(values.astype(np.int64)).sum(axis=depth_axis)
    return int(sums.max(initial=0)) * _magnitude(other)


def _product_bound(g: Gemm, constants: ConstantValues) -> int:
    """The largest magnitude the product of ``g`` (without its init) reaches (module doc)."""
    act_t = g.act.type
    assert isinstance(act_t, MemRefType)
    act_axis = -2 if g.act_transposed else -1
    wgt_axis = -2 if g.wgt_transposed else -1
    depth = act_t.get_shape()[act_axis]
    bounds = [depth * _magnitude(g.act) * _magnitude(g.wgt)]
    if (w := constants(g.wgt)) is not None:
        bounds.append(_sum_bound(w, wgt_axis, g.act))
    if (a := constants(g.act)) is not None:
        bounds.append(_sum_bound(a, act_axis, g.wgt))
    return min(bounds)


def value_bound(e: Expr, constants: ConstantValues) -> int | None:
    """The largest magnitude of ``e``: a constant, or products of int8 operands onto one;
    None for any other value (module doc)."""
    if isinstance(e, Const):
        return abs(e.value)
    if type(e) in (Gemm, BatchGemm):
        assert isinstance(e, Gemm)
        init = value_bound(e.init, constants)
        return None if init is None else init + _product_bound(e, constants)
    return None


def result_planes(e: Expr, cfg: VTAConfig, constants: ConstantValues) -> int:
    """The planes of the i32 result holding ``e`` (module doc)."""
    return planes_for_bound(value_bound(e, constants), cfg)
