"""Split loops read as one loop, and the bounds of a statement's accesses.

A tiled loop is written as two: ``for ko in [0, N) { for ki in [0, c) { ... A[c * ko + ki] } }``.
When every index of a statement that uses ``ko`` or ``ki`` uses them only through ``c * ko +
ki`` (a multiple of it), the pair is one loop ``k = c * ko + ki`` over ``[0, c * N)``: the map
``(ko, ki) -> c * ko + ki`` is a bijection onto that range, and the statement depends on the pair
only through ``k``.  The merged loop's key is :class:`SplitKey` ``(ko, c)``; merging repeats, so
``16 * a + 4 * b + c`` is one loop too.

The dependence check stays exact with such keys: two accesses holding the same key ``(ko, c)``
at one index position both index ``c * ko + x`` with ``x`` in ``[0, c)``, so different
iterations of ``ko`` touch different elements (``dependence.py``'s separation argument), even
when the inner loops are different loops of the same trip count.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, replace

from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.index_arith import LinearForm

from .nest import Access, Loop, Statement, describe, shape_of

__all__ = ["SplitKey", "check_bounds", "merge_split_loops"]


@dataclass(frozen=True)
class SplitKey:
    """The key of the loop ``factor * outer + inner`` (``inner`` in ``[0, factor)``)."""

    outer: Hashable
    factor: int


def _accesses(statement: Statement) -> list[Access]:
    return [statement.store, *statement.loads]


def _merges(outer: Loop, inner: Loop, accesses: list[Access]) -> bool:
    """Whether every index uses ``outer`` and ``inner`` only as a multiple of ``c * outer +
    inner``, ``c`` the trip count of ``inner``, and some index uses them."""
    if (outer.lower, outer.step, inner.lower, inner.step) != (0, 1, 0, 1) \
            or inner.trip_count < 2 or outer.trip_count < 1:
        return False
    factor = inner.trip_count
    used = False
    for access in accesses:
        for form in access.indices:
            a, b = form.coeff(outer.iv), form.coeff(inner.iv)
            if a != factor * b:
                return False
            used = used or b != 0
    return used


def _merge(statement: Statement, outer: Loop, inner: Loop) -> Statement:
    key = SplitKey(outer.iv, inner.trip_count)
    merged = Loop(outer.op, key, 0, inner.trip_count * outer.trip_count, 1)  # type: ignore[arg-type]

    def rewrite(access: Access) -> Access:
        indices = []
        for form in access.indices:
            b = form.coeff(inner.iv)
            indices.append(form.without(outer.iv).without(inner.iv) + LinearForm({key: b})
                           if b else form)
        return replace(access, indices=tuple(indices))

    loops = tuple(merged if loop is outer else loop for loop in statement.loops
                  if loop is not inner)
    return Statement(rewrite(statement.store), loops,
                     [rewrite(load) for load in statement.loads], statement.compute)


def merge_split_loops(statement: Statement) -> Statement:
    """``statement`` with every pair of split loops (see the module docstring) read as one
    loop, repeatedly, the outer loop's position keeping the merged one."""
    changed = True
    while changed:
        changed = False
        loops = statement.loops
        for i, outer in enumerate(loops):
            for inner in loops[i + 1:]:
                if _merges(outer, inner, _accesses(statement)):
                    statement = _merge(statement, outer, inner)
                    changed = True
                    break
            if changed:
                break
    return statement


def _span(loop: Loop) -> tuple[int, int]:
    last = loop.lower + loop.step * (loop.trip_count - 1)
    return min(loop.lower, last), max(loop.lower, last)


def check_bounds(statement: Statement) -> None:
    """Every index of every access stays in its dimension over the loops' iterations; the first
    that does not is an error at its load or store."""
    if any(loop.trip_count == 0 for loop in statement.loops):
        return  # never executed
    spans = {loop.iv: _span(loop) for loop in statement.loops}
    for access in _accesses(statement):
        shape = shape_of(access.memref)
        for p, form in enumerate(access.indices):
            low = high = form.const
            for key, c in form.terms.items():
                lo, hi = spans[key]  # type: ignore[index]
                low += min(c * lo, c * hi)
                high += max(c * lo, c * hi)
            if low < 0 or high >= shape[p]:
                kind = "store" if access is statement.store else "load"
                report_error(access.op,
                             f"out-of-bounds {kind}: index {p} of "
                             f"{describe(access, statement.loops)} ranges over [{low}, {high}] "
                             f"in the loops, outside the dimension of size {shape[p]}")
