"""Fixes to xDSL 0.74's ``tensor`` dialect: verifier checks MLIR makes and the stock verifiers
lack, so that a malformed op is an error at the op instead of a wrong program or a confusing
error of a later pass.

* ``tensor.pad``: the result has the source's element type and, where static, its shape plus
  the pads; the region's arguments are indices; the region yields one value of the result's
  element type (the stock verifier took an i8 tensor padded with an i32 value).
* ``tensor.extract_slice``: a static slice lies within the source (the stock verifier took a
  slice past the end of a dimension, which bufferization then turned into a subview past the
  end of its buffer).
"""

from __future__ import annotations

from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

__all__ = ["fix_tensor_verifiers"]


def _verify_pad(op: tensor.PadOp) -> None:
    source = op.source.type
    result = op.result.type
    assert isinstance(source, TensorType) and isinstance(result, TensorType)  # IRDL
    element = result.get_element_type()
    if element != source.get_element_type():
        raise VerifyException(
            f"result element type {element} does not match the source's "
            f"{source.get_element_type()}"
        )
    shape = zip(source.get_shape(), op.static_low.get_values(), op.static_high.get_values(),
                result.get_shape(), strict=True)  # lengths checked by the stock verifier
    for dim, (size, low, high, got) in enumerate(shape):
        if DYNAMIC_INDEX not in (size, low, high, got) and got != size + low + high:
            raise VerifyException(
                f"result dimension {dim} has size {got}, but the source's {size} padded by "
                f"{low} and {high} is {size + low + high}"
            )
    block = op.region.block
    for index, arg in enumerate(block.args):
        if not isinstance(arg.type, IndexType):
            raise VerifyException(f"region argument #{index} must be an index, got {arg.type}")
    terminator = block.last_op
    if isinstance(terminator, tensor.YieldOp):
        types: list[Attribute] = [value.type for value in terminator.operands]
        if types != [element]:
            shown = ", ".join(map(str, types)) or "nothing"
            raise VerifyException(
                f"the padding value must have the result's element type {element}, but the "
                f"region yields {shown}"
            )


def _verify_extract_slice(op: tensor.ExtractSliceOp) -> None:
    source = op.source.type
    assert isinstance(source, TensorType)  # IRDL
    offsets = op.static_offsets.get_values()
    sizes = op.static_sizes.get_values()
    strides = op.static_strides.get_values()
    shape = source.get_shape()
    if not len(offsets) == len(sizes) == len(strides) == len(shape):
        raise VerifyException(
            f"expected {len(shape)} offsets, sizes and strides (the source's rank), got "
            f"{len(offsets)}, {len(sizes)} and {len(strides)}"
        )
    for dim, (offset, size, stride, extent) in enumerate(
            zip(offsets, sizes, strides, shape, strict=True)):
        if DYNAMIC_INDEX in (offset, size, stride, extent):
            continue
        if offset < 0 or size < 0:
            raise VerifyException(
                f"slice along dimension {dim} has offset {offset} and size {size}; neither may "
                "be negative"
            )
        if size == 0:
            continue
        last = offset + (size - 1) * stride
        if offset >= extent or not 0 <= last < extent:
            raise VerifyException(
                f"slice along dimension {dim} runs past the end of the dimension: offset "
                f"{offset}, size {size} and stride {stride} reach index {last}, but the "
                f"dimension has size {extent}"
            )


def fix_tensor_verifiers() -> None:
    """Add the checks of :func:`_verify_pad` and :func:`_verify_extract_slice` after the stock
    verifiers of ``tensor.pad`` and ``tensor.extract_slice``."""
    stock_pad = tensor.PadOp.verify_
    stock_slice = tensor.ExtractSliceOp.verify_

    def verify_pad(self: tensor.PadOp) -> None:
        stock_pad(self)
        _verify_pad(self)

    def verify_slice(self: tensor.ExtractSliceOp) -> None:
        stock_slice(self)
        _verify_extract_slice(self)

    tensor.PadOp.verify_ = verify_pad  # type: ignore[method-assign]
    tensor.ExtractSliceOp.verify_ = verify_slice  # type: ignore[method-assign]
