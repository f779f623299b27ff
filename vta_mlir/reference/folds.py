"""Float reductions in the reference evaluator (:mod:`vta_mlir.reference`): a left fold in
iteration order along the reduction dimensions, vectorised over the parallel ones.

``acc = combine(acc, term)`` runs for each point of the reduction dimensions in the order
MLIR's loops visit them (lexicographic, the lowest dimension outermost), vectorised over the
parallel points, so every output element is what a sequential loop computes (numpy's pairwise
summation, einsum and BLAS would reassociate).  ``ufunc.accumulate``, numpy's left fold
``r[i] = ufunc(r[i - 1], a[i])``, computes it for few parallel points; for many, and for
``term - acc`` and ``term / acc``, which are not such a fold, one numpy operation per step
does.  ``maximumf`` / ``minimumf``
/ ``maxnumf`` / ``minnumf`` are associative and commutative on values, so a whole-array
reduction gives the fold's result and is used instead.

The term is evaluated over the iteration space in windows of at most :data:`WINDOW_ELEMENTS`
points, cut along the reduction dimensions, so that a large contraction (a float matmul)
never holds its whole product space.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np
from xdsl.ir import BlockArgument, Operation, SSAValue

from vta_mlir.reference.floats import FOLDED_COMBINERS, ORDER_FREE_COMBINERS, value_dtype
from vta_mlir.reference.indexing import full_rank

if TYPE_CHECKING:
    from vta_mlir.reference.structured import Body

__all__ = ["COMMUTATIVE", "WINDOW_ELEMENTS", "float_reduction"]

#: Points of the iteration space a window of the term holds (when the parallel points of one
#: reduction step are fewer).
WINDOW_ELEMENTS = 1 << 20

#: Parallel points below which ``accumulate`` (a scalar loop in C) is faster than one numpy
#: operation per step.
ACCUMULATE_BELOW = 128

#: Combiners whose operands may be swapped: ``combine(v, acc)`` is ``combine(acc, v)``.
COMMUTATIVE = (np.add, np.multiply)


def windows(sizes: Sequence[int], reduced: Sequence[int]) -> Iterator[list[range]]:
    """Windows covering the iteration space in the order of the reduction loops: every
    parallel dimension whole; the outer reduction dimensions one index at a time, one cut in
    chunks, the inner ones whole — the fewest outer dimensions that keep a window within
    :data:`WINDOW_ELEMENTS` points."""
    parallel = math.prod(s for d, s in enumerate(sizes) if d not in reduced)
    split = len(reduced) - 1
    for j in range(len(reduced)):
        if parallel * math.prod(sizes[d] for d in reduced[j + 1:]) <= WINDOW_ELEMENTS:
            split = j
            break
    inner = parallel * math.prod(sizes[d] for d in reduced[split + 1:])
    chunk = max(1, WINDOW_ELEMENTS // inner)
    cut = reduced[split]
    outer = reduced[:split]
    for point in itertools.product(*(range(sizes[d]) for d in outer)):
        fixed = dict(zip(outer, point, strict=True))
        for start in range(0, sizes[cut], chunk):
            window = [range(s) for s in sizes]
            for d, i in fixed.items():
                window[d] = range(i, i + 1)
            window[cut] = range(start, min(start + chunk, sizes[cut]))
            yield window


def float_reduction(
    body: Body,
    combine: Operation,
    acc_first: bool,
    term: SSAValue,
    acc: BlockArgument,
    reduced: Sequence[int],
) -> np.ndarray:
    """The output values of the float reduction ``acc = combine(acc, term)`` (``combine(term,
    acc)`` when not ``acc_first``): n-dimensional, extent 1 along the reduced dimensions."""
    sizes = body.sizes
    n = len(sizes)
    dtype = value_dtype(combine, combine.results[0].type)
    keep = [1 if d in reduced else s for d, s in enumerate(sizes)]
    acc_value = np.broadcast_to(full_rank(body.get(acc), n), keep).astype(dtype)
    order_free = ORDER_FREE_COMBINERS.get(type(combine))
    for window in windows(sizes, reduced):
        part = body.restricted(window)
        shape = [len(r) for r in window]
        values = np.broadcast_to(full_rank(part.get(term), n), shape)
        if order_free is not None:
            whole, pairwise = order_free
            acc_value = pairwise(acc_value, whole(values, tuple(reduced)))
        else:
            _fold(FOLDED_COMBINERS[type(combine)], acc_value, values, reduced, acc_first)
    return acc_value


def _fold(
    ufunc: np.ufunc,
    acc: np.ndarray,
    values: np.ndarray,
    reduced: Sequence[int],
    acc_first: bool,
) -> None:
    """``acc = ufunc(acc, v)`` (``ufunc(v, acc)``) in place for each ``v`` of ``values`` along
    the reduced dimensions, in lexicographic order."""
    n = values.ndim
    parallel = [d for d in range(n) if d not in reduced]
    # Reduced dimensions first, in order: C order is then the loops' order.
    steps = values.transpose([*reduced, *parallel])
    steps = steps.reshape((-1, *(values.shape[d] for d in parallel)))
    view = acc.reshape([acc.shape[d] for d in parallel])
    if (acc_first or ufunc in COMMUTATIVE) and view.size < ACCUMULATE_BELOW:
        # ``accumulate`` is the left fold r[i] = ufunc(r[i - 1], a[i]), in the array's type.
        stacked = np.concatenate([view[np.newaxis], steps.astype(view.dtype, copy=False)])
        view[...] = ufunc.accumulate(stacked, axis=0)[-1]
        return
    for step in steps:
        if acc_first:
            ufunc(view, step, out=view)
        else:
            ufunc(step, view, out=view)
