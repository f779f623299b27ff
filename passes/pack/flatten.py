"""Element-wise regions of any rank as matrices: the host transform that flattens them.

VTA's element-wise pipeline (``vta-tile`` on, ``vta-tensorize``, ...) works on the packed matrix
layout ``(R/B, C/BO, B, BO)`` of an ``R × C`` accumulator (B = BATCH, BO = BLOCK_OUT).  An
element-wise region without a contraction does not care which logical element sits where, as
long as every operand uses the same arrangement, so ``vta-pack`` gives a region of any rank a
:class:`MatrixView`: the ``vta.arg`` transform of each argument (``vta_mlir.abi.ArgSpec``: pad,
reshape, transpose) lays the logical tensor out as such a matrix, and the rest of the pipeline
is the one of 2-D programs.  Two arrangements:

* **flat** (no broadcast operand): the whole tensor, in C order, is one column block of
  ``L/BO`` rows, ``L`` the element count after zero-padding the one dimension that makes it a
  whole number of ``B × BO`` elements with the least padding.  ``3x1x5x1`` on the default
  configuration pads dimension 2 to 16: ``padded_shape (3, 1, 16, 1)``, memref
  ``memref<3x1x1x16>``; ``1x64x1x16`` needs no padding: ``memref<64x1x1x16>``.
* **split** (operands broadcast along the same result dimensions ``K``, e.g. a bias
  ``(d0, d1, d2) -> (d2)``): the columns are the dimensions ``K``, the rows the others; one row
  dimension is split into its BATCH lanes and one column dimension into its BLOCK_OUT lanes
  (each the dimension needing the least padding), and ``perm`` gathers the row parts, then the
  column parts, then the two lanes.  A broadcast operand is one row of that matrix, repeated
  over the BATCH lanes (``repeat``) as a per-column bias is: memref ``1 × C/BO × B × BO``.

The packed memref of a flattened argument has the matrix's rank-4 shape; its ``vta.arg``
``split_shape`` and ``perm`` may have more axes (the transform only fixes the element order).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from vta_mlir.config import VTAConfig

from .normal_form import Packing

__all__ = ["MatrixView"]


def _round_up(n: int, block: int) -> int:
    return -(-n // block) * block


def _least_padding(shape: Sequence[int], dims: Sequence[int], block: int) -> int:
    """The dimension of ``dims`` whose rounding up to a multiple of ``block`` pads the product
    of ``shape[dims]`` least (the innermost of equals)."""
    total = math.prod(shape[d] for d in dims)

    def padded(d: int) -> int:
        return total // shape[d] * _round_up(shape[d], block)

    return min(reversed(dims), key=padded)


@dataclass(frozen=True)
class MatrixView:
    """How one element-wise region of logical ``shape`` is laid out as a packed matrix (module
    doc): ``cols`` the dimensions a broadcast operand varies along (empty: flat)."""

    shape: tuple[int, ...]
    cols: tuple[int, ...]
    padded: tuple[int, ...]
    #: The dimension split into BATCH lanes and the one split into BLOCK_OUT lanes (split
    #: arrangement only).
    row_lane: int | None
    col_lane: int | None
    batch: int
    block: int

    @classmethod
    def choose(cls, shape: Sequence[int], cols: Sequence[int], cfg: VTAConfig) -> MatrixView:
        shape, cols = tuple(shape), tuple(cols)
        b, bo = cfg.batch, cfg.block_out
        if not cols:
            # Pad the one dimension that makes the element count a whole number of tensor
            # elements with the least padding.
            total, lanes = math.prod(shape), b * bo

            def padded_total(d: int) -> int:
                rest = total // shape[d]
                step = lanes // math.gcd(rest, lanes)
                return rest * _round_up(shape[d], step)

            d = min(reversed(range(len(shape))), key=padded_total)
            step = lanes // math.gcd(total // shape[d], lanes)
            padded = tuple(_round_up(n, step) if k == d else n for k, n in enumerate(shape))
            return cls(shape, cols, padded, None, None, b, bo)
        rows = tuple(d for d in range(len(shape)) if d not in cols)
        row_lane = _least_padding(shape, rows, b)
        col_lane = _least_padding(shape, cols, bo)
        padded = tuple(
            _round_up(n, b) if k == row_lane else _round_up(n, bo) if k == col_lane else n
            for k, n in enumerate(shape)
        )
        return cls(shape, cols, padded, row_lane, col_lane, b, bo)

    @classmethod
    def tensor_layout(cls, shape: Sequence[int], cfg: VTAConfig) -> MatrixView:
        """The view of an NCHW region whose packed bytes are the convolution tensor layout
        ``(N/B, C/BO, H, W, B, BO)``: rows N, columns (C, H, W), the BATCH lanes split off N
        and the BLOCK_OUT lanes off C.  An element-wise layer on buffers other layers read or
        write as tensors (a residual add of two activations) uses it."""
        n, c, h, w = shape
        padded = (_round_up(n, cfg.batch), _round_up(c, cfg.block_out), h, w)
        return cls(tuple(shape), (1, 2, 3), padded, 0, 1, cfg.batch, cfg.block_out)

    @property
    def matrix(self) -> tuple[int, int]:
        """The padded ``rows × columns`` of the matrix (whole blocks)."""
        if not self.cols:
            return math.prod(self.padded) // self.block, self.block
        rows = math.prod(n for k, n in enumerate(self.padded) if k not in self.cols)
        return rows, math.prod(self.padded[k] for k in self.cols)

    @property
    def memref_shape(self) -> tuple[int, int, int, int]:
        rows, cols = self.matrix
        return rows // self.batch, cols // self.block, self.batch, self.block

    def packing(self, dtype: str) -> Packing:
        """The transform of an argument shaped like the region's result."""
        if not self.cols:
            return Packing(self.shape, dtype, self.padded, self.memref_shape, (0, 1, 2, 3))
        split: list[int] = []
        outer: dict[int, int] = {}
        lanes: dict[int, int] = {}
        for k, n in enumerate(self.padded):
            outer[k] = len(split)
            lane = self.batch if k == self.row_lane else self.block if k == self.col_lane else None
            if lane is None:
                split.append(n)
            else:
                lanes[k] = len(split) + 1
                split += [n // lane, lane]
        rows = [d for d in range(len(self.shape)) if d not in self.cols]
        assert self.row_lane is not None and self.col_lane is not None
        perm = (
            [outer[d] for d in rows]
            + [outer[d] for d in self.cols]
            + [lanes[self.row_lane], lanes[self.col_lane]]
        )
        return Packing(
            self.shape,
            dtype,
            self.padded,
            tuple(split),
            tuple(perm),
            memref_shape=self.memref_shape,
        )

    def bias_packing(self, shape: Sequence[int], dims: Sequence[int | None], dtype: str) -> Packing:
        """The transform of a broadcast operand of logical ``shape`` whose axes are the result
        dimensions ``dims`` (``None``: a unit axis): one row of the matrix, repeated over the
        BATCH lanes."""
        assert self.col_lane is not None
        shape = tuple(shape)
        padded = tuple(
            self.padded[d] if d is not None else n for d, n in zip(dims, shape, strict=True)
        )
        # The repeated lanes are axis 0 of the split; the operand's axes follow.
        split: list[int] = [self.batch]
        outer: list[int] = []
        lane = 0
        for d, n in zip(dims, padded, strict=True):
            outer.append(len(split))
            if d == self.col_lane:
                lane = len(split) + 1
                split += [n // self.block, self.block]
            else:
                split.append(n)
        perm = (*outer, 0, lane)
        return Packing(
            shape,
            dtype,
            padded,
            tuple(split),
            perm,
            repeat=(self.batch,),
            memref_shape=(1, self.memref_shape[1], self.batch, self.block),
        )
