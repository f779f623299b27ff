"""Right operands of matrix products that the device computes (``vta-pack``).

VTA's GEMM reads its right operand from the weight SRAM, in the weight layout of
``docs/isa.md`` §1.6: for a product ``A · B`` with ``B`` logically ``K × N``, the weight tile
``(n / BLOCK_OUT, k / BLOCK_IN)`` holds ``B[k][n]`` at row ``n % BLOCK_OUT``, column
``k % BLOCK_IN``.  A constant or an argument is packed so by the compiler or the host.  An
int8 buffer an earlier layer of the function writes (attention's ``K`` in ``Q · Kᵀ``) lives in
device DRAM in the layout its layer stores, so that layer must store it in the weight layout
itself.

That is possible when the product reads the buffer ``X`` (``N × K``) as ``Xᵀ``, through the map
``(m, n, k) -> (n, k)`` (``Q · Kᵀ``; ``passes/pack/transpose_operand.py`` puts the other
spellings in that form): row ``n`` of a weight tile is then row ``n`` of ``X``, and each output
vector of ``X``'s layer — ``BATCH`` rows × ``BLOCK_OUT`` columns, one accumulator element — is
``BATCH`` consecutive rows of one weight tile when ``BATCH`` divides ``BLOCK_OUT`` and
``BLOCK_IN == BLOCK_OUT``.  The layer's ``trunci`` store then writes its output element
``(r, c)`` (row block ``r``, column block ``c``) at weight tile ``(r / R, c)``, rows
``(r mod R) · BATCH`` onwards, ``R = BLOCK_OUT / BATCH``: in stage 1 the store's output map is
``(r, c, b, o) -> (r floordiv R, c, (r mod R) · BATCH + b, o)`` into the weight-layout buffer
(:func:`weight_store_map`), which ``vta-tile`` turns into one strided store per row block.

A buffer read as ``K × N`` weights (``A · V``: the map ``(m, n, k) -> (k, n)``) would need its
layer to store each output vector transposed, which a store cannot.  Such a product reads
``Vᵀ`` instead, computed on the device by a product with the identity
(``passes/pack/transpose_operand.py``).

The same holds per batch for a batched product (``passes/pack/match_batch.py``: the buffer is
stored batch by batch in weight tiles) and for a head's columns of a matrix (a column slice:
the whole matrix is stored in weight tiles, and the product reads the K-blocks of its head).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from xdsl.ir import BlockArgument
from xdsl.ir.affine import AffineExpr, AffineMap

from vta_mlir.config import VTAConfig
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.passes.pack.expr import (
    Alu,
    Expr,
    Gemm,
    HostStepBuffers,
    Narrow,
    Output,
    error_with_note,
    label,
)
from vta_mlir.passes.pack.match_batch import BatchGemm

__all__ = ["check_weight_layout_config", "check_weight_store", "weight_layout_buffers",
           "weight_store_map", "weight_store_rows"]


def _gemms(e: Expr | Narrow) -> list[Gemm]:
    if isinstance(e, Narrow):
        return _gemms(e.value)
    found: list[Gemm] = []
    if isinstance(e, Gemm):
        found.append(e)
        found += _gemms(e.init)
    elif isinstance(e, Alu):
        found += _gemms(e.lhs) + _gemms(e.rhs)
    return found


def check_weight_layout_config(gemm: Gemm, cfg: VTAConfig) -> None:
    """A layer's output vectors are whole rows of weight tiles: ``BLOCK_IN == BLOCK_OUT`` and
    ``BATCH`` divides ``BLOCK_OUT`` (module doc); else one error at the product."""
    if cfg.block_in != cfg.block_out or cfg.block_out % cfg.batch:
        report_error(gemm.op, f"reads {label(gemm.wgt)}, which an earlier layer computes, as "
                              "its weights: a layer stores its output vectors (BATCH × "
                              "BLOCK_OUT) as rows of weight tiles (BLOCK_OUT × BLOCK_IN) only "
                              f"when BLOCK_IN == BLOCK_OUT and BATCH divides BLOCK_OUT; this "
                              f"configuration has BATCH {cfg.batch}, BLOCK_IN {cfg.block_in}, "
                              f"BLOCK_OUT {cfg.block_out}")


def weight_layout_buffers(outputs: Sequence[Output | HostStepBuffers],
                          computed: Collection[BlockArgument], cfg: VTAConfig,
                          slices: Mapping[BlockArgument, BlockArgument] | None = None,
                          ) -> dict[BlockArgument, Gemm]:
    """The buffers of ``computed`` (the outputs of layers) that a matrix
    product reads as its right operand, each with the first such product; checked (module
    doc): read as ``N × K``, on a configuration whose stores can write weight tiles, in whole
    blocks (the padding of a computed operand would be computed values, not zeros).  A
    product reading a column slice of a matrix (``slices``: each slice's matrix, one head's
    columns) makes the whole matrix be stored in weight tiles."""
    slices = slices or {}
    found: dict[BlockArgument, Gemm] = {}
    for out in outputs:
        if not isinstance(out, Output):
            continue
        for g in _gemms(out.value):
            # A batched product reads one matrix per batch (passes/pack/match_batch.py).
            whole = slices.get(g.wgt, g.wgt)
            batched = isinstance(g, BatchGemm) and g.wgt_batched
            if whole not in computed or not (type(g) is Gemm or batched):
                continue
            if g.wgt_transposed:
                report_error(g.op, f"reads {label(g.wgt)}, which an earlier layer computes, "
                                   "as K×N weights: a layer cannot store its output vectors "
                                   "transposed into weight tiles, and vta-pack transposes on the "
                                   "device only an int8 matrix the function allocates")
            check_weight_layout_config(g, cfg)
            rows, cols = g.wgt.type.get_shape()[-2:]  # type: ignore[attr-defined]
            if rows % cfg.block_out or cols % cfg.block_in:
                report_error(g.op, f"reads {label(g.wgt)} ({g.wgt.type}), which an earlier "
                                   "layer computes, as its weights: its rows must be whole "
                                   f"blocks of BLOCK_OUT ({cfg.block_out}) and its columns "
                                   f"whole blocks of BLOCK_IN ({cfg.block_in}), since the "
                                   "padding of a computed operand holds computed values, not "
                                   "zeros")
            found.setdefault(whole, g)
    return found


def check_weight_store(out: Output, acc_shape: object, view: object, reader: Gemm) -> None:
    """The layer writing ``out``, which ``reader`` reads as its weights, is a matrix layer:
    its accumulator ``acc_shape`` has two dimensions and no flattened ``view``."""
    shape = getattr(acc_shape, "shape", acc_shape)
    if len(shape) != 2 or view is not None:  # type: ignore[arg-type]
        error_with_note(out.writer, f"writes {label(out.arg)}, which a later product reads as "
                                    "its weights: only a matrix layer (a matrix product or an "
                                    "element-wise layer on matrices) stores its output in the "
                                    "weight layout", reader.op, "read as weights here")


def weight_store_map(cfg: VTAConfig) -> AffineMap:
    """``(r, c, b, o) -> (r floordiv R, c, (r mod R) · BATCH + b, o)``, ``R = BLOCK_OUT /
    BATCH``: where a layer's output element ``(r, c)`` lies in the weight layout."""
    rows = cfg.block_out // cfg.batch
    r, c, b, o = (AffineExpr.dimension(k) for k in range(4))
    return AffineMap(4, 0, (r // rows, c, (r % rows) * cfg.batch + b, o))


def weight_store_rows(m: AffineMap, cfg: VTAConfig) -> int | None:
    """``R`` when ``m`` is :func:`weight_store_map`'s map for ``cfg``, else None."""
    if cfg.block_in != cfg.block_out or cfg.block_out % cfg.batch:
        return None
    return cfg.block_out // cfg.batch if m == weight_store_map(cfg) else None
