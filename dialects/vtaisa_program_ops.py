"""The ops of a linked program in the ``vtaisa`` dialect (:mod:`vta_mlir.dialects.vtaisa`):
``vtaisa.uops`` (a run's micro-op table), ``vtaisa.layer`` (a layer marker), ``vtaisa.run``,
``vtaisa.segment``, ``vtaisa.arg`` and ``vtaisa.program``, which together describe one
:class:`vta_mlir.binary.BinaryModule`.

Their syntax is hand-written rather than an ``assembly_format``: addresses print in
hexadecimal (``phys 0x40000``), segment contents as a hex string, shapes as bracketed lists
(``[1, 64]``, not ``array<i64: 1, 64>``) and the micro-op table as ``(dst, src, wgt)`` triples
-- none of which xDSL's declarative format expresses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
from xdsl.dialects.builtin import (
    I64,
    BytesAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    TensorType,
    f64,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, Region
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, NoTerminator
from xdsl.utils.exceptions import VerifyException

from vta_mlir.abi import DIRECTIONS, DTYPE_CODES, ArgSpec, Quantization
from vta_mlir.binary import BinaryModule
from vta_mlir.errors import BinaryFormatError, VTAError
from vta_mlir.isa import (
    Uop,
    encode_uops,
)
from vta_mlir.program import Program, Run, Segment, number_layers

from .vta_config_attr import get_config
from .vtaisa_insns import FinishInsnOp, InsnOp, op_to_insn
from .vtaisa_syntax import (
    as_region,
    int_attr,
    int_field,
    parse_int,
    parse_int_list,
    parse_region,
)

__all__ = ["ArgOp", "LayerOp", "ProgramOp", "RunOp", "SegmentOp", "UopsOp"]

_ZERO = IntegerAttr(0, i64)

# ---------------------------------------------------------------------------------------------
# The micro-op table


@irdl_op_definition
class UopsOp(IRDLOperation):
    """A run's micro-op staging image (docs/isa.md §2.7, §4.5), as ``(dst, src, wgt)`` index
    triples in DRAM order; it must be the first op of its ``vtaisa.run``::

        vtaisa.uops [(0, 0, 0), (1, 0, 16)]
    """

    name = "vtaisa.uops"

    table = prop_def(DenseArrayBase.constr(i32))

    traits = lazy_traits_def(lambda: (HasParent(RunOp),))

    def __init__(self, uops: Sequence[Uop] | Sequence[tuple[int, int, int]]) -> None:
        flat: list[int] = []
        for u in uops:
            if isinstance(u, Uop):
                flat += [u.dst_idx, u.src_idx, u.wgt_idx]
            else:
                flat += [int(u[0]), int(u[1]), int(u[2])]
        super().__init__(properties={"table": DenseArrayBase.from_list(i32, flat)})

    @property
    def uops(self) -> list[Uop]:
        """The micro-op records."""
        values = cast(tuple[int, ...], self.table.get_values())
        return [Uop(*values[i:i + 3]) for i in range(0, len(values), 3)]

    def __len__(self) -> int:
        return len(self.table) // 3

    def verify_(self) -> None:
        n = len(self.table)
        if n % 3:
            raise VerifyException(f"the table holds {n} values, not (dst, src, wgt) triples")
        cfg = get_config(self)
        values = cast(tuple[int, ...], self.table.get_values())
        for i in range(0, n, 3):
            for j, name in enumerate(("dst_idx", "src_idx", "wgt_idx")):
                f = cfg.uop_fields[name]
                v = values[i + j]
                if not 0 <= v <= f.mask:
                    raise VerifyException(
                        f"micro-op {i // 3}: {name} = {v} does not fit its {f.width}-bit field "
                        f"(0..{f.mask})"
                    )

    @classmethod
    def parse(cls, parser: Parser) -> UopsOp:
        def triple() -> tuple[int, int, int]:
            v = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, lambda: parse_int(parser, "a micro-op index")
            )
            if len(v) != 3:
                parser.raise_error("a micro-op is (dst, src, wgt)")
            return v[0], v[1], v[2]

        uops = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, triple)
        op = cls(uops)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        values = cast(tuple[int, ...], self.table.get_values())
        text = ", ".join(
            f"({values[i]}, {values[i + 1]}, {values[i + 2]})" for i in range(0, len(values), 3)
        )
        printer.print_string(f" [{text}]")
        if self.attributes:
            printer.print_op_attributes(self.attributes)


@irdl_op_definition
class LayerOp(IRDLOperation):
    """A layer marker: the instructions after it, up to the next marker (in this run or a later
    one), belong to the layer it names (:attr:`vta_mlir.program.Program.layers`)::

        vtaisa.layer "conv1"
    """

    name = "vtaisa.layer"

    layer_name = prop_def(StringAttr, prop_name="name")

    traits = lazy_traits_def(lambda: (HasParent(RunOp),))

    def __init__(self, name: str) -> None:
        super().__init__(properties={"name": StringAttr(name)})

    @property
    def layer(self) -> str:
        return self.layer_name.data

    @classmethod
    def parse(cls, parser: Parser) -> LayerOp:
        op = cls(parser.parse_str_literal("a layer name"))
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.layer_name)
        if self.attributes:
            printer.print_op_attributes(self.attributes)


# ---------------------------------------------------------------------------------------------
# Runs, segments, arguments and the program


@irdl_op_definition
class RunOp(IRDLOperation):
    """One device run (:class:`vta_mlir.program.Run`): the micro-op table its ``LOAD UOP``
    instructions read at physical byte address ``uop_base``, then the instructions, the last
    one ``vtaisa.finish`` (docs/isa.md §3.2, §4.7)::

        vtaisa.run uop_base 0x41000 {
          vtaisa.uops [(0, 0, 0)]
          vtaisa.load uop sram 0 dram 0x10400 y 1 x 1 stride 1
          ...
          vtaisa.finish
        }
    """

    name = "vtaisa.run"

    uop_base = prop_def(IntegerAttr[I64], default_value=_ZERO)
    body = region_def("single_block")

    traits = lazy_traits_def(lambda: (NoTerminator(), HasParent(ProgramOp)))

    def __init__(self, body: Region | Sequence[Operation] | None = None,
                 uop_base: int = 0) -> None:
        super().__init__(properties={"uop_base": int_attr(uop_base)}, regions=[as_region(body)])

    @property
    def uops_op(self) -> UopsOp | None:
        first = self.body.block.first_op
        return first if isinstance(first, UopsOp) else None

    @property
    def instructions(self) -> list[InsnOp]:
        return [op for op in self.body.block.ops if isinstance(op, InsnOp)]

    def verify_(self) -> None:
        ops = list(self.body.block.ops)
        for i, op in enumerate(ops):
            if isinstance(op, UopsOp):
                if i != 0:
                    raise VerifyException("vtaisa.uops must be the first op of its vtaisa.run")
            elif not isinstance(op, InsnOp | LayerOp):
                raise VerifyException(
                    f"a vtaisa.run holds a vtaisa.uops table, instructions and vtaisa.layer "
                    f"markers, not {op.name}"
                )
        if isinstance(ops[-1] if ops else None, LayerOp):
            raise VerifyException("a vtaisa.layer marker must be followed by an instruction of "
                                  "its run")
        insns = [op for op in ops if isinstance(op, InsnOp)]
        if not insns or not isinstance(insns[-1], FinishInsnOp):
            raise VerifyException("a vtaisa.run must end with vtaisa.finish")
        if any(isinstance(op, FinishInsnOp) for op in insns[:-1]):
            raise VerifyException("vtaisa.finish must be the last instruction of its run")

    @classmethod
    def parse(cls, parser: Parser) -> RunOp:
        uop_base = 0
        if parser.parse_optional_keyword("uop_base") is not None:
            uop_base = parse_int(parser, "uop_base")
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(parse_region(parser), uop_base)
        if attrs is not None:
            op.attributes.update(attrs.data)
        return op

    def print(self, printer: Printer) -> None:
        base = int_field(self, "uop_base")
        if base:
            printer.print_string(f" uop_base {base:#x}")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


_U8 = IntegerType(8, Signedness.UNSIGNED)


@irdl_op_definition
class SegmentOp(IRDLOperation):
    """A DRAM segment (:class:`vta_mlir.program.Segment`): name, physical byte address, size and,
    for constants, the initial bytes (a ``ui8`` tensor, printed in hex)::

        vtaisa.segment "w" phys 0x41000 size 4 data "0x01020304"
        vtaisa.segment "scratch" phys 0x42000 size 8192
    """

    name = "vtaisa.segment"

    sym_name = prop_def(StringAttr, prop_name="name")
    phys = prop_def(IntegerAttr[I64])
    size = prop_def(IntegerAttr[I64])
    data = opt_prop_def(DenseIntOrFPElementsAttr)

    traits = lazy_traits_def(lambda: (HasParent(ProgramOp),))

    def __init__(self, name: str, phys: int, size: int,
                 data: bytes | np.ndarray | None = None) -> None:
        props: dict[str, Attribute] = {
            "name": StringAttr(name), "phys": int_attr(phys), "size": int_attr(size),
        }
        if data is not None:
            raw = bytes(np.ascontiguousarray(data).tobytes()) if isinstance(data, np.ndarray) \
                else bytes(data)
            props["data"] = DenseIntOrFPElementsAttr(TensorType(_U8, [len(raw)]), BytesAttr(raw))
        super().__init__(properties=props)

    @property
    def segment_name(self) -> str:
        return self.sym_name.data

    @property
    def contents(self) -> bytes | None:
        """The initial bytes, ``None`` for an uninitialized segment."""
        return None if self.data is None else self.data.data.data

    def to_segment(self) -> Segment:
        raw = self.contents
        return Segment(
            self.segment_name,
            int_field(self, "phys"),
            int_field(self, "size"),
            None if raw is None else np.frombuffer(raw, dtype=np.uint8).copy(),
        )

    def verify_(self) -> None:
        size = int_field(self, "size")
        if size < 1:
            raise VerifyException(f"segment '{self.segment_name}' has size {size}, must be >= 1")
        if self.data is not None:
            t = self.data.type
            if not isinstance(t, TensorType) or t.element_type != _U8 or t.get_num_dims() != 1:
                raise VerifyException(
                    f"segment '{self.segment_name}' contents must be a 1-D ui8 tensor, got {t}"
                )
            n = len(self.data.data.data)
            if n != size:
                raise VerifyException(
                    f"segment '{self.segment_name}' has {n} bytes of contents for size {size}"
                )

    @classmethod
    def parse(cls, parser: Parser) -> SegmentOp:
        name = parser.parse_str_literal(" (the segment name)")
        parser.parse_keyword("phys")
        phys = parse_int(parser, "phys")
        parser.parse_keyword("size")
        size = parse_int(parser, "size")
        data = None
        if parser.parse_optional_keyword("data") is not None:
            pos = parser.pos
            text = parser.parse_str_literal(" (hex contents \"0x...\")")
            try:
                if not text.startswith("0x"):
                    raise ValueError
                data = bytes.fromhex(text[2:])
            except ValueError:
                parser.raise_error("segment contents must be a hex string \"0x...\"", pos)
        op = cls(name, phys, size, data)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.segment_name)
        printer.print_string(f" phys {int_field(self, 'phys'):#x} size {int_field(self, 'size')}")
        raw = self.contents
        if raw is not None:
            printer.print_string(f' data "0x{raw.hex().upper()}"')
        if self.attributes:
            printer.print_op_attributes(self.attributes)


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

    traits = lazy_traits_def(lambda: (HasParent(ProgramOp),))

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


@irdl_op_definition
class ProgramOp(IRDLOperation):
    """One linked program (:class:`vta_mlir.binary.BinaryModule` without its configuration,
    which is the ``vta.config`` attribute of an enclosing op): base physical address, then
    segments, arguments (in signature order) and runs.  The verifier applies every consistency
    check of the ``.vtab`` format (segments, argument buffers, DRAM ranges, staging images)::

        vtaisa.program base 0x40000 {
          vtaisa.segment ...
          vtaisa.arg ...
          vtaisa.run ... { ... }
        }
    """

    name = "vtaisa.program"

    base = prop_def(IntegerAttr[I64])
    body = region_def("single_block")

    traits = traits_def(NoTerminator())

    def __init__(self, base: int, body: Region | Sequence[Operation] | None = None) -> None:
        super().__init__(properties={"base": int_attr(base)}, regions=[as_region(body)])

    @property
    def base_address(self) -> int:
        return int_field(self, "base")

    def to_binary(self) -> BinaryModule:
        """The :class:`~vta_mlir.binary.BinaryModule` this op describes (not validated)."""
        cfg = get_config(self)
        segments: list[Segment] = []
        args: list[ArgSpec] = []
        copies: list[ArgSpec] = []
        runs: list[Run] = []
        names: dict[str, int] = {}
        layer = -1
        for op in self.body.block.ops:
            if isinstance(op, SegmentOp):
                segments.append(op.to_segment())
            elif isinstance(op, ArgOp):
                spec = op.to_spec()
                (copies if spec.copy_of else args).append(spec)
            elif isinstance(op, RunOp):
                table = op.uops_op
                words = encode_uops(table.uops, cfg) if table is not None and len(table) \
                    else np.zeros(0, dtype=np.uint32)
                insns, tags = [], []
                for inner in op.body.block.ops:
                    if isinstance(inner, LayerOp):
                        layer = names.setdefault(inner.layer, len(names))
                    elif isinstance(inner, InsnOp):
                        insns.append(op_to_insn(inner))
                        tags.append(layer)
                runs.append(Run(insns, np.asarray(words, dtype=np.uint32),
                                int_field(op, "uop_base"), np.asarray(tags, dtype=np.int32)))
        layers = number_layers(runs, list(names))
        return BinaryModule(cfg, Program(runs, segments, layers), args, self.base_address,
                            copies)

    def verify_(self) -> None:
        for op in self.body.block.ops:
            if not isinstance(op, SegmentOp | ArgOp | RunOp):
                raise VerifyException(
                    f"a vtaisa.program holds vtaisa.segment, vtaisa.arg and vtaisa.run ops, not "
                    f"{op.name}"
                )
        try:
            self.to_binary().validate()
        except VTAError as e:
            raise VerifyException(str(e)) from None

    @classmethod
    def parse(cls, parser: Parser) -> ProgramOp:
        parser.parse_keyword("base")
        base = parse_int(parser, "base")
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(base, parse_region(parser))
        if attrs is not None:
            op.attributes.update(attrs.data)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" base {self.base_address:#x}")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)
