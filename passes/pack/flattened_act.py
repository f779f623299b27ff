"""Dense layers reading a flattened N×C×H×W intermediate (``H·W > 1``): the VGG / LeNet head.

``torch.flatten`` / ONNX ``Flatten`` before a ``Gemm`` reads the features in C order, column
``k = c·H·W + h·W + w``.  The device holds them in the tensor layout of the layer writing them,
``(N/B, C/BO, H, W, B, BO)``, whose bytes are, with the channel blocks, rows and columns merged,
an activation matrix ``(N/B, C/BO·H·W, B, BI)`` (``BI = BO``) — of another column order:
``k' = ((cb·H + h)·W + w)·BO + cc`` for the channel ``c = cb·BO + cc``.  So nothing moves on
VTA: the dense layer reads the buffer through a ``memref.collapse_shape``, and its weights are
permuted at compile time (or by the host, for an argument) into that column order, the rows of
padded channels zero.

Both are plain packings (the ``vta.arg`` transform of ``vta_mlir.abi.ArgSpec``): padding ``K``
from ``C·H·W`` to ``C'·H·W`` (``C'`` the channels rounded up to whole blocks) pads the channels,
as C order puts them outermost, and the split ``(C'/BO, BO, H, W)`` of the padded ``K`` with a
transpose gathers ``(cb, h, w)`` outside the block lanes ``cc``.  The activation's packing is
then the tensor packing of the buffer element for element (``same_element_order``), which is
what lets ``vta-pack`` read the buffer through the collapsed view.

For ``1×24×3×3`` features and 10 outputs on the default configuration (``BO = 16``): the
activation ``memref<1x18x1x16xi8>`` (``2·3·3`` blocks), the ``216×10`` K×N weights padded to
``288×16``, split ``(2, 16, 3, 3, 1, 16)``, ``perm (4, 0, 2, 3, 5, 1)``, packed
``memref<1x18x16x16xi8>``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import BlockArgument

from vta_mlir.config import VTAConfig
from vta_mlir.passes.pack.expr import Gemm
from vta_mlir.passes.pack.intermediates import Intermediate
from vta_mlir.passes.pack.normal_form import Packing

__all__ = ["flattened_packings"]


def _blocks(n: int, block: int) -> int:
    return -(-n // block)


def _features(g: Gemm, intermediates: Collection[BlockArgument]) -> tuple[int, ...] | None:
    """The N×C×H×W shape (``H·W > 1``) of the buffer the activations of ``g`` are a collapsed
    view of; None when they are not such a view."""
    if g.act_transposed or not isinstance(intermediates, Mapping):
        return None
    inter = intermediates.get(g.act)
    if not isinstance(inter, Intermediate) or inter.source is None:
        return None
    t = inter.source.type
    if not isinstance(t, MemRefType) or t.get_num_dims() != 4:
        return None
    shape = tuple(t.get_shape())
    return shape if shape[2] * shape[3] > 1 else None


def flattened_packings(g: Gemm, intermediates: Collection[BlockArgument],
                       cfg: VTAConfig) -> tuple[Packing, Packing] | None:
    """The packings of the activations and weights of ``g`` when its activations are the
    flattened view of an N×C×H×W intermediate with ``H·W > 1`` (module doc); None otherwise,
    and when the view is not the flattening N×C×H×W → N×(C·H·W)."""
    features = _features(g, intermediates)
    if features is None:
        return None
    n, c, h, w = features
    act_t, wgt_t = g.act.type, g.wgt.type
    assert isinstance(act_t, MemRefType) and isinstance(wgt_t, MemRefType)
    if tuple(act_t.get_shape()) != (n, c * h * w):
        return None
    b, bo = cfg.batch, cfg.block_out
    nb, cb = _blocks(n, b), _blocks(c, bo)
    k_padded = cb * bo * h * w
    act = Packing((n, c * h * w), f"int{act_t.element_type.width.data}",  # type: ignore[attr-defined]
                  (nb * b, k_padded), (nb, b, cb, bo, h, w), (0, 2, 4, 5, 1, 3),
                  memref_shape=(nb, cb * h * w, b, bo))
    wgt_shape = tuple(wgt_t.get_shape())
    cols = wgt_shape[1] if g.wgt_transposed else wgt_shape[0]
    ob = _blocks(cols, bo)
    dtype = f"int{wgt_t.element_type.width.data}"  # type: ignore[attr-defined]
    if g.wgt_transposed:  # K×N
        wgt = Packing(wgt_shape, dtype, (k_padded, ob * bo), (cb, bo, h, w, ob, bo),
                      (4, 0, 2, 3, 5, 1), memref_shape=(ob, cb * h * w, bo, bo))
    else:  # N×K
        wgt = Packing(wgt_shape, dtype, (ob * bo, k_padded), (ob, bo, cb, bo, h, w),
                      (0, 2, 4, 5, 1, 3), memref_shape=(ob, cb * h * w, bo, bo))
    return act, wgt
