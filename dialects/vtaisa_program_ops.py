"""The ops of a linked program in the ``vtaisa`` dialect (:mod:`vta_mlir.dialects.vtaisa`):
``vtaisa.uops`` (a run's micro-op table), ``vtaisa.layer`` (a layer marker), ``vtaisa.run``,
``vtaisa.segment``, ``vtaisa.arg`` and ``vtaisa.program``, which together describe one
:class:`vta_mlir.binary.BinaryModule`.

Their syntax is an ``assembly_format``, with the custom directives of
:mod:`vta_mlir.dialects.vtaisa_directives` for what the declarative format does not express:
addresses in hexadecimal (``phys 0x40000``), segment contents as a hex string, the micro-op
table as ``(dst, src, wgt)`` triples, and (:mod:`vta_mlir.dialects.directives`) a body that is
one block without a terminator.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import numpy as np
from xdsl.dialects.builtin import (
    I64,
    BytesAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
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
from xdsl.traits import HasParent, NoTerminator
from xdsl.utils.exceptions import VerifyException

from vta_mlir.abi import check_name
from vta_mlir.binary_checks import ADDRESS_LIMIT, MAX_XFER_BYTES
from vta_mlir.config import PAGE_BYTES, VTAConfig
from vta_mlir.errors import BinaryFormatError
from vta_mlir.isa import Uop
from vta_mlir.program import Segment

from .directives import SingleBlockBody
from .vta_config_attr import get_config
from .vtaisa_arg import ArgOp
from .vtaisa_directives import U8, Hex, OptionalHex, SegmentData, UopTable
from .vtaisa_insns import FinishInsnOp, InsnOp
from .vtaisa_syntax import as_region, int_attr, int_field

if TYPE_CHECKING:
    from vta_mlir.binary import BinaryModule

__all__ = ["ArgOp", "LayerOp", "ProgramOp", "RunOp", "SegmentOp", "UopsOp"]

_ZERO = IntegerAttr(0, i64)
_INSN_BYTES = 16
_UOP_BYTES = 4

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

    assembly_format = "custom<UopTable>($table) attr-dict"
    custom_directives = (UopTable,)

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
        self.check(get_config(self))

    def check(self, cfg: VTAConfig) -> None:
        """Raise :class:`VerifyException` unless the table is triples of indices that fit the
        micro-op fields of ``cfg``."""
        n = len(self.table)
        if n % 3:
            raise VerifyException(f"the table holds {n} values, not (dst, src, wgt) triples")
        if n // 3 * _UOP_BYTES > MAX_XFER_BYTES:
            raise VerifyException(f"a micro-op image of {n // 3} words is too large (more than "
                                  f"one {MAX_XFER_BYTES}-byte transfer)")
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



@irdl_op_definition
class LayerOp(IRDLOperation):
    """A layer marker: the instructions after it, up to the next marker (in this run or a later
    one), belong to the layer it names (:attr:`vta_mlir.program.Program.layers`)::

        vtaisa.layer "conv1"
    """

    name = "vtaisa.layer"

    layer_name = prop_def(StringAttr, prop_name="name")

    assembly_format = "$name attr-dict"

    traits = lazy_traits_def(lambda: (HasParent(RunOp),))

    def __init__(self, name: str) -> None:
        super().__init__(properties={"name": StringAttr(name)})

    @property
    def layer(self) -> str:
        return self.layer_name.data

    def verify_(self) -> None:
        self.check()

    def check(self) -> None:
        """Raise :class:`VerifyException` unless the name is one a ``.vtab`` can hold."""
        try:
            check_name(self.layer, "layer")
        except BinaryFormatError as e:
            raise VerifyException(str(e)) from None



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

    assembly_format = (
        "custom<OptionalHex>(`uop_base`, $uop_base) attr-dict-with-keyword "
        "custom<SingleBlockBody>($body)"
    )
    custom_directives = (OptionalHex, SingleBlockBody)

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
        self.check()

    def check(self) -> None:
        """Raise :class:`VerifyException` unless the run is a micro-op table (first, if any),
        instructions and layer markers, ends in FINISH and nowhere else, fits one transfer,
        and stages its micro-ops at a 4-byte-aligned non-zero address (0 without any)."""
        ops = list(self.body.block.ops)
        finishes: list[int] = []
        insns = 0
        for i, op in enumerate(ops):
            if isinstance(op, InsnOp):
                if isinstance(op, FinishInsnOp):
                    finishes.append(insns)
                insns += 1
            elif isinstance(op, UopsOp):
                if i != 0:
                    raise VerifyException("vtaisa.uops must be the first op of its vtaisa.run")
            elif not isinstance(op, LayerOp):
                raise VerifyException(
                    f"a vtaisa.run holds a vtaisa.uops table, instructions and vtaisa.layer "
                    f"markers, not {op.name}"
                )
        if ops and isinstance(ops[-1], LayerOp):
            raise VerifyException("a vtaisa.layer marker must be followed by an instruction of "
                                  "its run")
        if not insns:
            raise VerifyException("the run has no instructions (a vtaisa.run must end with "
                                  "vtaisa.finish)")
        if not isinstance(ops[-1], FinishInsnOp):
            raise VerifyException("the run does not end in FINISH (a vtaisa.run must end with "
                                  "vtaisa.finish)")
        if len(finishes) > 1:
            raise VerifyException(
                f"FINISH at instruction {finishes[0]} before the end of the run "
                "(vtaisa.finish must be the last instruction of its run)"
            )
        if insns * _INSN_BYTES > MAX_XFER_BYTES:
            raise VerifyException(f"the run has {insns} instructions, more than one "
                                  f"{MAX_XFER_BYTES}-byte transfer holds")
        base = int_field(self, "uop_base")
        if not self.uop_count:
            if base != 0:
                raise VerifyException(
                    f"micro-op staging address {base:#x} given without micro-op words")
        elif base % _UOP_BYTES or base <= 0:
            raise VerifyException(f"micro-op staging address {base:#x} is not a 4-byte-aligned "
                                  "non-zero address")

    @property
    def uop_count(self) -> int:
        """Number of micro-op words the run stages."""
        table = self.uops_op
        return 0 if table is None else len(table)



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

    assembly_format = (
        "$name `phys` custom<Hex>($phys) `size` $size custom<SegmentData>($data) attr-dict"
    )
    custom_directives = (Hex, SegmentData)

    traits = lazy_traits_def(lambda: (HasParent(ProgramOp),))

    def __init__(self, name: str, phys: int, size: int,
                 data: bytes | np.ndarray | None = None) -> None:
        props: dict[str, Attribute] = {
            "name": StringAttr(name), "phys": int_attr(phys), "size": int_attr(size),
        }
        if data is not None:
            raw = bytes(np.ascontiguousarray(data).tobytes()) if isinstance(data, np.ndarray) \
                else bytes(data)
            props["data"] = DenseIntOrFPElementsAttr(TensorType(U8, [len(raw)]), BytesAttr(raw))
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
        self.check()

    def check(self) -> None:
        """Raise :class:`VerifyException` unless the segment has a valid name, a page-aligned
        address, a positive size inside the 32-bit address space and, if constant, exactly
        that many bytes of contents."""
        name = self.segment_name
        try:
            check_name(name, "segment")
        except BinaryFormatError as e:
            raise VerifyException(str(e)) from None
        phys, size = int_field(self, "phys"), int_field(self, "size")
        if phys % PAGE_BYTES:
            raise VerifyException(f"segment '{name}': address {phys:#x} is not 4 KiB-aligned")
        if size < 1:
            raise VerifyException(f"segment '{name}' has size {size}, must be >= 1")
        if phys + size > ADDRESS_LIMIT:
            raise VerifyException(
                f"segment '{name}': [{phys:#x}, +{size}) exceeds the 32-bit address space"
            )
        if self.data is not None:
            t = self.data.type
            if not isinstance(t, TensorType) or t.element_type != U8 or t.get_num_dims() != 1:
                raise VerifyException(
                    f"segment '{name}' contents must be a 1-D ui8 tensor, got {t}"
                )
            n = len(self.data.data.data)
            if n != size:
                raise VerifyException(
                    f"segment '{name}' has {n} bytes of contents for size {size}"
                )



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

    assembly_format = (
        "`base` custom<Hex>($base) attr-dict-with-keyword custom<SingleBlockBody>($body)"
    )
    custom_directives = (Hex, SingleBlockBody)

    traits = traits_def(NoTerminator())

    def __init__(self, base: int, body: Region | Sequence[Operation] | None = None) -> None:
        super().__init__(properties={"base": int_attr(base)}, regions=[as_region(body)])

    @property
    def base_address(self) -> int:
        return int_field(self, "base")

    def to_binary(self) -> BinaryModule:
        """The :class:`~vta_mlir.binary.BinaryModule` this op serialises to (the op is not
        verified here: :func:`vta_mlir.dialects.vtaisa_serialize.serialize` is the checked
        way)."""
        from .vtaisa_serialize import unchecked_image

        return unchecked_image(self)

    def verify_(self) -> None:
        from .vtaisa_host import HostStepOp
        from .vtaisa_rules import check_program

        for op in self.body.block.ops:
            if not isinstance(op, SegmentOp | ArgOp | RunOp | HostStepOp):
                raise VerifyException(
                    f"a vtaisa.program holds vtaisa.segment, vtaisa.arg, vtaisa.run and "
                    f"vtaisa.host_step ops, not {op.name}"
                )
        check_program(self, get_config(self))
