"""Operands of an NCHW region broadcast over the batch and the channels: ``(n, c, h, w) ->
(h, w)``.

A value per output position, the same for every image and channel — the per-position
multipliers of an average pool that divides by the taps inside the image (``docs/onnx.md``
§4.10) — is written in the input as an ``OH × OW`` operand read with a projection onto the
spatial dimensions.  The tensor layout keeps the channels inside each element, so VTA reads
such an operand as a whole tensor of the region's shape: its packing repeats the ``OH × OW``
array over the (padded) batch and channels (the ``repeat`` of ``vta_mlir.abi.ArgSpec``), then
lays it out like the accumulator, ``(N/B, C/BO, OH, OW, B, BO)``.  At stage 1 it initialises an
accumulator with the identity map, like a residual; the host (an argument) or ``vta-pack``
(a constant) builds the repeated image, ``N'·C'`` times the array.
"""

from __future__ import annotations

from vta_mlir.config import VTAConfig
from vta_mlir.passes.pack.expr import Load
from vta_mlir.passes.pack.normal_form import Packing

__all__ = ["spatial_packing"]


def _blocks(n: int, block: int) -> int:
    return -(-n // block)


def spatial_packing(load: Load, shape: tuple[int, ...], cfg: VTAConfig) -> Packing | None:
    """The packing of ``load``, an operand of an ``N × C × OH × OW`` region (``shape``) varying
    along its rows and columns only (module doc); None for any other operand."""
    if len(shape) != 4 or not load.broadcast or load.kept != (2, 3):
        return None
    t = load.arg.type
    arg_shape = tuple(t.get_shape())  # type: ignore[attr-defined]
    expected = tuple(1 if axis is None else shape[axis] for axis in load.axes)
    if arg_shape != expected:
        return None
    n, c, oh, ow = shape
    b, bo = cfg.batch, cfg.block_out
    nb, cb = _blocks(n, b), _blocks(c, bo)
    dtype = f"int{t.element_type.width.data}"  # type: ignore[attr-defined]
    return Packing(arg_shape, dtype, arg_shape, (nb, b, cb, bo, oh, ow), (0, 2, 4, 5, 1, 3),
                   repeat=(nb * b, cb * bo))
