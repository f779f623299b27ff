"""Pooling regions of ``vta-tile`` beyond the window: tensor operands of the epilogue, and sums
over padding of any value.

**Tensor operands.**  Besides its accumulator, a pooling region may hold accumulators its
epilogue reads with the ALU's tensor operand (``linalg.generic ins(%acc, %other)
outs(%acc)``): a DRAM tensor of the output's shape loaded per tile (``load``: an ``i32`` copy,
or ``load8``: a sign-extending copy of ``i8``; the per-position multipliers of an average pool
that does not count its padding, ``docs/onnx.md`` §4.10), a per-channel vector broadcast over
the positions (``bcast``, read with ``(b, c, h, w, bb, cc) -> (0, c, 0, 0, bb, cc)``: wide clip
bounds of a requantization, a per-channel factor), or a copy of the output's accumulator the
epilogue computes (``fill``: reset, then an ``add`` of the accumulator, as for ``HardSwish``'s
``x · h(x)``).  Only the compute module touches them (its loads into the
accumulator SRAM and its ALU instructions run in order), so each has one SRAM tile: the
output's ``(1, tc, th, OW, B, BO)`` or a channel row ``(1, tc, 1, 1, lanes, BO)``.

**Padded sums.**  A sum over data padded with ``v ≠ 0`` (an average pool of data whose zero
point is ``v``) adds ``v`` once for every tap of a window in the padding.  The window offsets
skip the padding (:mod:`.pool`); what they leave out is, per output, ``v·(KH·KW − rows·cols)``
where ``rows`` and ``cols`` count the window's rows and columns inside the image.  Both are
constant on bands of output rows and columns, so the term is one ALU ``add`` of an immediate
per rectangle of equal counts where it is not zero: for a 3×3 window padded by 1, the eight
rectangles around the interior (corners and edges), on the tiles that reach the border.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NoReturn

from xdsl.dialects import memref
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, IntegerType, MemRefType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from vta_mlir.config import ALU_IMM_WIDTH
from vta_mlir.ir.locations import copy_location

from .builder import Index, TileBuilder
from .padded import constant_of, is_dram, shape_of

__all__ = ["PoolOperand", "load_operand", "padded_sum_rectangles", "pool_operands"]

_IDENTITY6 = AffineMap.identity(6)
#: The largest immediate of an ALU instruction (its signed field).
_IMM_MAX = (1 << (ALU_IMM_WIDTH - 1)) - 1
_ZERO = AffineExpr.constant(0)


@dataclass(frozen=True)
class PoolOperand:
    """An accumulator of a pooling region other than its output's: ``init`` loads it from the
    DRAM tensor ``src`` (``kind``: ``load``, ``load8`` or ``bcast``, module doc)."""

    acc: SSAValue
    init: linalg.GenericOp | linalg.FillOp
    kind: str

    @property
    def src(self) -> SSAValue:
        return self.init.inputs[0]

    @property
    def loaded(self) -> bool:
        """Loaded from DRAM (not a ``fill``: a copy of the output's accumulator the region
        computes, VTA having no copy between accumulators)."""
        return self.kind != "fill"


def _maps(op: linalg.GenericOp) -> list[AffineMap]:
    return [m.data for m in op.indexing_maps.data]


def _init_kind(op: linalg.GenericOp, shape: tuple[int, ...]) -> str | None:
    """How ``op`` (a one-input generic writing an accumulator) initialises it, None when it is
    not a load of a DRAM tensor or a broadcast channel vector."""
    if len(op.inputs) != 1 or not is_dram(op.inputs[0]) or _maps(op)[1] != _IDENTITY6:
        return None
    src, m = op.inputs[0], _maps(op)[0]
    src_shape = shape_of(src)
    if m == _IDENTITY6:
        t = src.type
        assert isinstance(t, MemRefType)
        if src_shape != shape:
            return None
        return "load" if t.element_type == IntegerType(32) else "load8"
    d = [AffineExpr.dimension(k) for k in range(6)]
    lanes_kept = m.num_dims == 6 and len(m.results) == 6 and m.results[4] == d[4]
    if (m.num_dims == 6 and len(m.results) == 6 and m.results[1] == d[1]
            and m.results[5] == d[5] and all(m.results[k] == _ZERO for k in (0, 2, 3))
            and m.results[4] in (d[4], _ZERO) and src_shape[1] == shape[1]
            and src_shape[0] == src_shape[2] == src_shape[3] == 1 and src_shape[5] == shape[5]
            and src_shape[4] == (shape[4] if lanes_kept else 1)):
        return "bcast"
    return None


def pool_operands(accs: Sequence[SSAValue], ops: Sequence[Operation], shape: tuple[int, ...],
                  fail: Callable[[Operation, str], NoReturn]) -> list[PoolOperand]:
    """The accumulators of a pooling region after its first (the pooling's), each with the op
    loading it (module doc)."""
    found: list[PoolOperand] = []
    for acc in accs[1:]:
        fills = [op for op in ops if isinstance(op, linalg.FillOp) and op.outputs[0] is acc]
        if len(fills) == 1 and constant_of(fills[0].inputs[0]) is not None:
            found.append(PoolOperand(acc, fills[0], "fill"))
            continue
        inits = [op for op in ops if isinstance(op, linalg.GenericOp) and
                 op.outputs[0] is acc and acc not in op.inputs]
        kind = _init_kind(inits[0], shape) if len(inits) == 1 else None
        if kind is None:
            fail(inits[0] if inits else ops[-1],
                 "an accumulator a pooling region's epilogue reads is filled once with a "
                 "constant (a copy of the output's) or loaded once, from a DRAM tensor shaped "
                 "like the output or a per-channel vector read with (b, c, h, w, bb, cc) -> "
                 "(0, c, 0, 0, bb, cc)")
        found.append(PoolOperand(acc, inits[0], kind))
    return found


def load_operand(builder: TileBuilder, operand: PoolOperand, buf: SSAValue,
                 starts: Sequence[Index], sizes: Sequence[int]) -> None:
    """The DRAM tile ``starts`` / ``sizes`` of ``operand`` copied into its SRAM tile ``buf``:
    a copy of ``i32``, else the region's sign-extending copy on the tiles."""
    src = builder.subview(operand.src, starts, sizes, "operand_tile")
    if operand.kind == "load8":
        new: Operation = operand.init.clone()
        new.operands = [src, buf]
        identity = AffineMapAttr(_IDENTITY6)
        new.properties["indexing_maps"] = ArrayAttr([identity, identity])
    else:
        new = memref.CopyOp(src, buf)
    builder.insert(new)
    copy_location(operand.init, new)


def _inside_counts(lo_pad: int, span: int, hi_pad: int, kernel: int, stride: int,
                   count: int) -> list[int]:
    """For each output ``j < count`` of a tile of ``span`` rows (``lo_pad`` / ``hi_pad`` of
    them padding), how many of its ``kernel`` window rows lie in the image."""
    image = range(lo_pad, span - hi_pad)
    return [sum(1 for k in range(kernel) if j * stride + k in image) for j in range(count)]


def _bands(counts: list[int]) -> list[tuple[int, int, int]]:
    """Runs ``(first, last, value)`` of equal consecutive ``counts``."""
    bands: list[tuple[int, int, int]] = []
    for j, n in enumerate(counts):
        if bands and bands[-1][2] == n:
            bands[-1] = (bands[-1][0], j + 1, n)
        else:
            bands.append((j, j + 1, n))
    return bands


def padded_sum_rectangles(value: int, kernel: tuple[int, int], strides: tuple[int, int],
                          rows: tuple[int, int, int, int], cols: tuple[int, int, int, int]
                          ) -> list[tuple[int, int, int, int, int]]:
    """The additions a sum over padding of ``value`` needs in one tile (module doc):
    ``(r0, r1, c0, c1, immediate)``, an immediate within the ALU's 16 bits (a large term takes
    several rectangles of the same place). ``rows`` and ``cols`` are ``(padding before, tile
    span, padding after, outputs)`` of the tile's data rows and columns."""
    (kh, kw), (sh, sw) = kernel, strides
    row_bands = _bands(_inside_counts(rows[0], rows[1], rows[2], kh, sh, rows[3]))
    col_bands = _bands(_inside_counts(cols[0], cols[1], cols[2], kw, sw, cols[3]))
    found: list[tuple[int, int, int, int, int]] = []
    for r0, r1, nr in row_bands:
        for c0, c1, nc in col_bands:
            term = value * (kh * kw - nr * nc)
            while term:
                step = max(-_IMM_MAX, min(_IMM_MAX, term))
                found.append((r0, r1, c0, c1, step))
                term -= step
    return found
