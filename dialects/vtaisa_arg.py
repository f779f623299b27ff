"""The argument-table op of a linked program, ``vtaisa.arg`` (:mod:`vta_mlir.dialects.vtaisa`):
one :class:`vta_mlir.abi.ArgSpec`, its syntax an ``assembly_format`` (shapes as bracketed
lists; the custom directives of :mod:`vta_mlir.dialects.vtaisa_directives` for the address in
hexadecimal, the direction and dtype keywords and the quantization; the optional repeat, window
and quantization printed only when present)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    f64,
    i64,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    prop_def,
)
from xdsl.traits import HasParent
from xdsl.utils.exceptions import VerifyException

from vta_mlir.abi import ArgSpec, Quantization
from vta_mlir.errors import BinaryFormatError

from .vtaisa_directives import Direction, Dtype, Hex, Quant
from .vtaisa_syntax import int_attr, int_field

__all__ = ["ArgOp"]


def _program_op() -> type[IRDLOperation]:
    from .vtaisa_program_ops import ProgramOp

    return ProgramOp


def _host_step_op() -> type[IRDLOperation]:
    from .vtaisa_host import HostStepOp

    return HostStepOp


def _dims_attr(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


@irdl_op_definition
class ArgOp(IRDLOperation):
    """An entry of the argument table (:class:`vta_mlir.abi.ArgSpec`): name, direction
    (``in``/``out``/``inout``), dtype, logical shape, the repeat dimensions it is broadcast over
    (printed only when there are any), its window (likewise; the convolution patches replace
    the array, ``vta_mlir.abi.window_patches``), padded shape, the split shape and permutation
    that pack it, the packed dtype, and the segment and address of its buffer; a quantized
    argument (a float edge, :class:`vta_mlir.abi.Quantization`) shows its scale and zero point
    after them (``quant scale 0.0078125 zero_point -3``).  A *copy*, a further packed image
    of an argument the program reads in two layouts, names the argument after its own name
    (``copy of "x"``; :attr:`vta_mlir.abi.ArgSpec.copy_of`)::

        vtaisa.arg "x" in int8 [1, 1024] padded [1, 1024] split [1, 1, 64, 16]
            perm [0, 2, 1, 3] packed int8 segment "x" phys 0x40000
        vtaisa.arg "bias" in int32 [48] repeat [2] padded [48] split [1, 2, 3, 16]
            perm [0, 2, 1, 3] packed int32 segment "bias" phys 0x42000
        vtaisa.arg "x_1" copy of "x" in int8 [1, 1024] padded [1024] split [64, 1, 1, 16]
            perm [0, 1, 2, 3] packed int8 segment "x_1" phys 0x43000
    """

    name = "vtaisa.arg"

    sym_name = prop_def(StringAttr, prop_name="name")
    direction = prop_def(StringAttr)
    dtype = prop_def(StringAttr)
    shape = prop_def(DenseArrayBase.constr(i64))
    padded_shape = prop_def(DenseArrayBase.constr(i64))
    split_shape = prop_def(DenseArrayBase.constr(i64))
    perm = prop_def(DenseArrayBase.constr(i64))
    packed_dtype = prop_def(StringAttr)
    segment = prop_def(StringAttr)
    phys = prop_def(IntegerAttr[I64])
    repeat = opt_prop_def(DenseArrayBase.constr(i64))
    window = opt_prop_def(DenseArrayBase.constr(i64))
    scale = opt_prop_def(FloatAttr[Float64Type])
    zero_point = opt_prop_def(IntegerAttr[I64])
    copy_of = opt_prop_def(StringAttr)

    assembly_format = (
        "$name (`copy` `of` $copy_of^)? custom<Direction>($direction) custom<Dtype>($dtype) "
        "$shape (`repeat` $repeat^)? (`window` $window^)? custom<Quant>($scale, $zero_point) "
        "`padded` $padded_shape `split` $split_shape `perm` $perm `packed` "
        "custom<Dtype>($packed_dtype) `segment` $segment `phys` custom<Hex>($phys) attr-dict"
    )
    custom_directives = (Direction, Dtype, Quant, Hex)

    traits = lazy_traits_def(lambda: (HasParent(_program_op(), _host_step_op()),))

    def __init__(
        self,
        name: str,
        direction: str,
        dtype: str,
        shape: Sequence[int],
        padded_shape: Sequence[int],
        split_shape: Sequence[int],
        perm: Sequence[int],
        packed_dtype: str,
        segment: str,
        phys: int,
        repeat: Sequence[int] = (),
        window: Sequence[int] = (),
        quant: Quantization | None = None,
        copy_of: str = "",
    ) -> None:
        props: dict[str, Attribute] = {
            "name": StringAttr(name),
            "direction": StringAttr(direction),
            "dtype": StringAttr(dtype),
            "shape": _dims_attr(shape),
            "padded_shape": _dims_attr(padded_shape),
            "split_shape": _dims_attr(split_shape),
            "perm": _dims_attr(perm),
            "packed_dtype": StringAttr(packed_dtype),
            "segment": StringAttr(segment),
            "phys": int_attr(phys),
        }
        # Left out when empty: most arguments are not repeated, and their ops stay minimal.
        if repeat:
            props["repeat"] = _dims_attr(repeat)
        if window:
            props["window"] = _dims_attr(window)
        if quant is not None:
            props["scale"] = FloatAttr(quant.scale, f64)
            props["zero_point"] = int_attr(quant.zero_point)
        if copy_of:
            props["copy_of"] = StringAttr(copy_of)
        super().__init__(properties=props)

    @classmethod
    def from_spec(cls, spec: ArgSpec) -> ArgOp:
        """The op of an :class:`~vta_mlir.abi.ArgSpec`."""
        return cls(spec.name, spec.direction, spec.dtype, spec.shape, spec.padded_shape,
                   spec.split_shape, spec.perm, spec.packed_dtype, spec.segment, spec.phys,
                   spec.repeat, spec.window, spec.quant, spec.copy_of)

    def to_spec(self) -> ArgSpec:
        """The :class:`~vta_mlir.abi.ArgSpec` (raises ``BinaryFormatError`` if inconsistent)."""

        def dims(a: DenseArrayBase) -> tuple[int, ...]:
            return cast(tuple[int, ...], a.get_values())

        return ArgSpec(
            self.sym_name.data, self.direction.data, self.dtype.data, dims(self.shape),
            dims(self.padded_shape), dims(self.split_shape), dims(self.perm),
            self.packed_dtype.data, self.segment.data, int_field(self, "phys"),
            () if self.repeat is None else dims(self.repeat),
            () if self.window is None else dims(self.window),
            self.quantization(),
            "" if self.copy_of is None else self.copy_of.data,
        )

    def quantization(self) -> Quantization | None:
        """The argument's quantization (raises ``BinaryFormatError`` for half of one)."""
        if self.scale is None and self.zero_point is None:
            return None
        if self.scale is None or self.zero_point is None:
            raise BinaryFormatError(
                f"argument '{self.sym_name.data}': a quantization needs both a scale and a "
                "zero point"
            )
        return Quantization(self.scale.value.data, int_field(self, "zero_point"))

    def verify_(self) -> None:
        try:
            self.to_spec()
        except (BinaryFormatError, TypeError, ValueError) as e:
            raise VerifyException(str(e)) from None
