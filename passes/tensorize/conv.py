"""Loop order of convolution contractions for ``vta-tensorize``: one micro-kernel each.

A convolution contraction reads the input at windowed subscripts ``oh * S + kh``.
:func:`conv_schedule` orders its loops for one micro-kernel: the output rows and columns
outermost (the kernel's loop levels), then the micro-op list (the reduction dimensions
``i, kh, kw`` and the output channels ``o`` innermost), whose loops ``vta-tensorize`` marks
with the unit attribute :data:`UOP_LIST_ATTR`.  The order must keep the write-hazard rule,
which :func:`write_hazard_free` checks by enumerating the list and the steps between loop
iterations; ``vta-fold-uop-loops`` checks the same rule for the kernels it folds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from xdsl.ir.affine import AffineDimExpr, AffineExpr

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import WRITE_HAZARD_WINDOW

from ..analysis.sram_views import LinearForm, linear_affine_expr

__all__ = ["UOP_LIST_ATTR", "conv_schedule", "write_hazard_free"]

#: Unit attribute on the ``affine.for`` loops that enumerate a micro-kernel's micro-op list
#: (``vta-fold-uop-loops`` keeps them inside the kernel's innermost ``vta.uop_loop``).
UOP_LIST_ATTR = "vta.uop_list"


# ---------------------------------------------------------------------------------------------
# Convolutions: one micro-kernel per contraction


def write_hazard_free(
    dsts: Sequence[int],
    levels: Sequence[tuple[int, int]],
    window: int = WRITE_HAZARD_WINDOW,
) -> bool:
    """True if a kernel whose micro-op list writes the accumulator elements ``dsts`` (relative
    to one base), run under the ``(extent, dst_factor)`` loop levels ``levels`` (outermost
    first), never writes an element one of the ``window`` micro-ops before it wrote — within the
    list and across loop iterations (the last micro-ops of one iteration followed by the first
    of the next).  An empty list is trivially free."""
    n = len(dsts)
    if not n:
        return True

    def free(seq: Sequence[int]) -> bool:
        return all(seq[i] not in seq[max(0, i - window) : i] for i in range(len(seq)))

    if not free(dsts):
        return False
    # The index steps between consecutive iterations: the inner factor, and at the wrap of the
    # inner level the outer factor minus the inner level's span.  The sequence of steps repeats
    # with the inner extent as period, so its first period (plus a window) holds every run of
    # consecutive steps a window of micro-ops can straddle.
    looped = [(e, f) for e, f in levels if e > 1]
    if not looped:
        return True
    period = looped[-1][0]
    total = math.prod(e for e, _ in looped)
    span = -(-window // n)  # steps a window of micro-ops straddles
    count = min(total - 1, period + span)
    if len(looped) == 1:
        steps = [looped[0][1]] * count
    else:
        (_, fo), (ei, fi) = looped
        wrap = fo - (ei - 1) * fi
        steps = [fi if (t + 1) % ei else wrap for t in range(count)]
    runs = {tuple(steps[t : t + span]) for t in range(len(steps))}
    for run in runs:
        seq = list(dsts)
        base = 0
        for step in run:
            base += step
            seq += [d + base for d in dsts]
        if not free(seq):
            return False
    return True


def conv_schedule(
    leading: Mapping[str, Sequence[AffineExpr]],
    element_dims: Sequence[int],
    extents: Mapping[int, int],
    dst: AffineExpr,
    num_dims: int,
    cfg: VTAConfig,
) -> tuple[list[int], int] | None:
    """The loop order of a 2-D convolution's contraction and how many of its innermost loops
    are the micro-op list, or ``None`` for any other contraction (its loops stay in iteration
    order).

    A convolution reads the input at windowed subscripts ``oh * S + kh``: the output rows and
    columns (dimensions of the accumulator and the input, not the weight, each windowed by a
    reduction dimension) become the kernel's two loop levels, outermost; the reduction
    dimensions (``i, kh, kw``, in the weight's order) and the output channels (``o``) the
    micro-op list inside them, the channels innermost, which keeps the write-hazard rule when
    there are at least three (a depthwise convolution's ``o`` also indexes the input).
    Otherwise the output columns (then the rows, then both) move into the list, innermost.
    A list longer than half the micro-op SRAM (a double-buffered
    kernel comes in two versions) gives its outermost loops to the host, outside the levels.
    Without an order that keeps the write-hazard rule, ``None``.
    """
    used = {k: [e.used_dims() for e in exprs] for k, exprs in leading.items()}
    acc_dims = set().union(*used["acc"])
    wgt_dims = set().union(*used["wgt"])
    inp_dims = set().union(*used["inp"])
    kernel_dims = wgt_dims - acc_dims
    windowed: list[int] = []
    for e in leading["acc"]:
        if not isinstance(e, AffineDimExpr):
            continue
        d = e.position
        if d in inp_dims and d not in wgt_dims and any(
            d in u and u & kernel_dims for u in used["inp"]
        ):
            windowed.append(d)
    if len(windowed) < 2:
        return None
    form = linear_affine_expr(dst, [LinearForm.of(d) for d in range(num_dims)])
    if form is None:
        return None
    looped = [d for d in element_dims if extents[d] > 1]

    def ordered(dims: Iterable[int], exprs: Sequence[AffineExpr]) -> list[int]:
        keys = {
            d: min((j for j, e in enumerate(exprs) if d in e.used_dims()), default=len(exprs))
            for d in dims
        }
        return sorted(keys, key=lambda d: (keys[d], looped.index(d)))

    spatial = [d for d in windowed[-2:] if d in looped]
    reds = ordered((d for d in looped if d not in acc_dims), leading["wgt"])
    # The output channels (of a depthwise convolution too, whose input block is the output
    # block: it is a dimension of the input as well).
    outs = ordered((d for d in looped if d in wgt_dims and d in acc_dims), leading["acc"])
    host = [d for d in looped if d not in (*spatial, *reds, *outs)]
    candidates = [(spatial, [*reds, *outs])]
    if len(spatial) == 2:
        candidates += [
            (spatial[:1], [*reds, *outs, spatial[1]]),
            (spatial[1:], [*reds, *outs, spatial[0]]),
        ]
    if spatial:
        candidates.append(([], [*reds, *outs, *spatial]))
    cap = max(1, cfg.uop_buff_depth // 2)
    for levels, listed in candidates:
        moved: list[int] = []
        while listed and math.prod(extents[d] for d in listed) > cap:
            moved.append(listed[0])
            listed = listed[1:]
        dsts = [0]
        for d in listed:
            c = form.coeff(d)
            dsts = [v + c * k for v in dsts for k in range(extents[d])]
        if write_hazard_free(dsts, [(extents[d], form.coeff(d)) for d in levels]):
            return [*host, *moved, *levels, *listed], len(listed)
    return None
