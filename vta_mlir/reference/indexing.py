"""Iteration spaces and indexing maps of the reference evaluator
(:mod:`vta_mlir.reference`): loop sizes, and gathers and scatters through affine maps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.ir import Operation
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)

from vta_mlir.ir.diagnostics import report_error
from vta_mlir.reference.elementwise import affine_value


def full_rank(value: np.ndarray, n: int) -> np.ndarray:
    value = np.asarray(value)
    if value.ndim < n:
        value = value.reshape((1,) * (n - value.ndim) + value.shape)
    return value


def uses_dims(m: AffineMap, dims: Sequence[int]) -> bool:
    def used(expr: AffineExpr) -> bool:
        if isinstance(expr, AffineDimExpr):
            return expr.position in dims
        if isinstance(expr, AffineBinaryOpExpr):
            return used(expr.lhs) or used(expr.rhs)
        return False

    return any(used(r) for r in m.results)


def loop_sizes(
    op: Operation, maps: Sequence[AffineMap], arrays: Sequence[np.ndarray]
) -> list[int]:
    """Loop extents, read off the operands' shapes where a map result is a bare dimension."""
    n = maps[0].num_dims if maps else 0
    sizes: list[int | None] = [None] * n
    for k, (m, a) in enumerate(zip(maps, arrays, strict=True)):
        if m.num_dims != n:
            report_error(op, "indexing maps do not agree on the number of loop dimensions")
        if a.ndim != len(m.results):
            report_error(op, f"operand #{k} has rank {a.ndim} but its indexing map has "
                             f"{len(m.results)} results")
        for axis, r in enumerate(m.results):
            if isinstance(r, AffineDimExpr):
                extent = a.shape[axis]
                if sizes[r.position] is None:
                    sizes[r.position] = extent
                elif sizes[r.position] != extent:
                    report_error(op, f"operands disagree on the extent of loop dimension "
                                     f"d{r.position} ({sizes[r.position]} and {extent})")
    missing = [d for d, s in enumerate(sizes) if s is None]
    if missing:
        report_error(op, f"cannot infer the extent of loop dimension d{missing[0]} from the "
                         "operand shapes")
    return [int(s) for s in sizes if s is not None]


def _grid(sizes: Sequence[int]) -> list[np.ndarray]:
    n = len(sizes)
    grids = []
    for d, s in enumerate(sizes):
        shape = [1] * n
        shape[d] = s
        grids.append(np.arange(s, dtype=np.int64).reshape(shape))
    return grids


def _projected(m: AffineMap) -> bool:
    """Whether every result is a distinct dimension or a constant (a strided view)."""
    dims = [r.position for r in m.results if isinstance(r, AffineDimExpr)]
    return len(set(dims)) == len(dims) and all(
        isinstance(r, AffineDimExpr | AffineConstantExpr) for r in m.results
    )


def _check_index(op: Operation, index: Any, extent: int, axis: int) -> None:
    index = np.asarray(index)
    if index.size and (int(index.min()) < 0 or int(index.max()) >= extent):
        report_error(op, f"an indexing map reaches [{int(index.min())}, {int(index.max())}] "
                         f"along axis {axis} of extent {extent}")


def _projected_index(
    op: Operation, m: AffineMap, shape: tuple[int, ...]
) -> tuple[list[Any], list[int]]:
    """The numpy index of a projected-permutation map's results (constants picked, dims
    sliced) over an array of ``shape``, and the iteration dims the sliced axes follow."""
    index: list[Any] = []
    dims: list[int] = []
    for axis, r in enumerate(m.results):
        if isinstance(r, AffineConstantExpr):
            _check_index(op, r.value, shape[axis], axis)
            index.append(r.value)
        else:
            assert isinstance(r, AffineDimExpr)
            index.append(slice(None))
            dims.append(r.position)
    return index, dims


def gather(op: Operation, array: np.ndarray, m: AffineMap, sizes: Sequence[int]) -> np.ndarray:
    """The operand's element at each point of the iteration space, as an array broadcastable
    to ``sizes`` (a view when the map is a projected permutation)."""
    n = len(sizes)
    if array.ndim == 0:
        return array.reshape((1,) * n)
    if _projected(m):
        index, dims = _projected_index(op, m, array.shape)
        view = array[tuple(index)]
        order = sorted(range(len(dims)), key=lambda i: dims[i])
        view = view.transpose(order)
        shape = [1] * n
        for d in dims:
            shape[d] = sizes[d]
        return view.reshape(shape)
    grids = _grid(sizes)
    indices = []
    for axis, r in enumerate(m.results):
        idx = affine_value(op, r, grids, ())
        _check_index(op, idx, array.shape[axis], axis)
        indices.append(np.asarray(idx, dtype=np.int64))
    return full_rank(array[tuple(indices)], n)


def scatter(
    op: Operation,
    out: np.ndarray,
    m: AffineMap,
    value: np.ndarray,
    sizes: Sequence[int],
    reduced: Sequence[int],
) -> None:
    """Write ``value`` (over the iteration space, extent 1 along reduced dimensions) through
    the output map ``m``."""
    n = len(sizes)
    shape = [1 if d in reduced else sizes[d] for d in range(n)]
    value = np.broadcast_to(full_rank(value, n), shape)
    used = {r.position for r in m.results if isinstance(r, AffineDimExpr)}
    if not all(isinstance(r, AffineDimExpr | AffineConstantExpr) for r in m.results):
        used = {d for d in range(n) if uses_dims(m, [d])}
    lost = [d for d in range(n) if d not in reduced and d not in used and sizes[d] > 1]
    if lost:
        report_error(op, f"the output map {m} does not depend on parallel dimension d{lost[0]}, "
                         "so several iterations write one element")
    if out.ndim == 0:
        out[()] = value.reshape(-1)[0]
        return
    if _projected(m):
        index, dims = _projected_index(op, m, out.shape)
        picked = value[tuple(slice(None) if d in dims else 0 for d in range(n))]
        ordered = sorted(dims)
        out[tuple(index)] = picked.transpose([ordered.index(d) for d in dims])
        return
    grids = _grid(shape)
    indices = []
    for axis, r in enumerate(m.results):
        idx = np.broadcast_to(np.asarray(affine_value(op, r, grids, ()), dtype=np.int64), shape)
        _check_index(op, idx, out.shape[axis], axis)
        indices.append(idx)
    flat = np.ravel_multi_index(tuple(indices), out.shape)
    if np.unique(flat).size != flat.size:
        report_error(op, f"the output map {m} writes some elements more than once")
    out[tuple(indices)] = value
