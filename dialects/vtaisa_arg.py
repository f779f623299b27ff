"""The argument-table op of a linked program, ``vtaisa.arg`` (:mod:`vta_mlir.dialects.vtaisa`):
one :class:`vta_mlir.abi.ArgSpec` with a hand-written syntax (shapes as bracketed lists, the
address in hexadecimal, the optional repeat, window and quantization printed only when
present)."""

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
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent
from xdsl.utils.exceptions import VerifyException

from vta_mlir.abi import DIRECTIONS, DTYPE_CODES, ArgSpec, Quantization
from vta_mlir.errors import BinaryFormatError

from .vtaisa_syntax import int_attr, int_field, parse_int, parse_int_list

__all__ = ["ArgOp"]


def _program_op() -> type[IRDLOperation]:
    from .vtaisa_program_ops import ProgramOp

    return ProgramOp


def _dims_attr(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


def _float_literal(value: float) -> str:
    """``value`` as an MLIR float literal that parses back to the same double (``repr`` is
    exact; MLIR needs a ``.`` in the mantissa: ``1e-05`` is spelt ``1.0e-05``)."""
    text = repr(float(value))
    if "." not in text:
        mantissa, _, exponent = text.partition("e")
        text = f"{mantissa}.0" + (f"e{exponent}" if exponent else "")
    return text


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

    traits = lazy_traits_def(lambda: (HasParent(_program_op()),))

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

    @classmethod
    def parse(cls, parser: Parser) -> ArgOp:
        name = parser.parse_str_literal(" (the argument name)")
        copy_of = ""
        if parser.parse_optional_keyword("copy") is not None:
            parser.parse_keyword("of")
            copy_of = parser.parse_str_literal(" (the name of the copied argument)")
        direction = parser.parse_keyword_in(DIRECTIONS, " (the argument direction)")
        dtype = parser.parse_keyword_in(tuple(DTYPE_CODES), " (the argument dtype)")
        shape = parse_int_list(parser, "shape")
        repeat: list[int] = []
        if parser.parse_optional_keyword("repeat") is not None:
            repeat = parse_int_list(parser, "repeat")
        window: list[int] = []
        if parser.parse_optional_keyword("window") is not None:
            window = parse_int_list(parser, "window")
        quant: Quantization | None = None
        if parser.parse_optional_keyword("quant") is not None:
            parser.parse_keyword("scale")
            scale = parser.parse_float()
            parser.parse_keyword("zero_point")
            zero_point = parse_int(parser, "zero_point")
            try:
                quant = Quantization(scale, zero_point)
            except BinaryFormatError as e:
                parser.raise_error(str(e))
        parser.parse_keyword("padded")
        padded = parse_int_list(parser, "padded")
        parser.parse_keyword("split")
        split = parse_int_list(parser, "split")
        parser.parse_keyword("perm")
        perm = parse_int_list(parser, "perm")
        parser.parse_keyword("packed")
        packed = parser.parse_keyword_in(tuple(DTYPE_CODES), " (the packed dtype)")
        parser.parse_keyword("segment")
        segment = parser.parse_str_literal(" (the segment name)")
        parser.parse_keyword("phys")
        phys = parse_int(parser, "phys")
        op = cls(name, direction, dtype, shape, padded, split, perm, packed, segment, phys,
                 repeat, window, quant, copy_of)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        def dims(a: DenseArrayBase) -> str:
            return "[" + ", ".join(str(v) for v in a.get_values()) + "]"

        printer.print_string(" ")
        printer.print_string_literal(self.sym_name.data)
        if self.copy_of is not None:
            printer.print_string(" copy of ")
            printer.print_string_literal(self.copy_of.data)
        repeat = "" if self.repeat is None else f"repeat {dims(self.repeat)} "
        if self.window is not None:
            repeat += f"window {dims(self.window)} "
        if self.scale is not None and self.zero_point is not None:
            repeat += (f"quant scale {_float_literal(self.scale.value.data)} zero_point "
                       f"{int_field(self, 'zero_point')} ")
        printer.print_string(
            f" {self.direction.data} {self.dtype.data} {dims(self.shape)} {repeat}"
            f"padded {dims(self.padded_shape)} split {dims(self.split_shape)} "
            f"perm {dims(self.perm)} packed {self.packed_dtype.data} segment "
        )
        printer.print_string_literal(self.segment.data)
        printer.print_string(f" phys {int_field(self, 'phys'):#x}")
        if self.attributes:
            printer.print_op_attributes(self.attributes)
