"""Custom directives for the declarative ``assembly_format`` of the project's ops.

:class:`SingleBlockBody`, ``custom<SingleBlockBody>($body)``: the body of an op with a
single-block region and no terminator (``vta.stage``, ``vta.uop_loop``), printed and parsed as
MLIR does for such ops.  xDSL's plain ``$body`` would print an empty body's block header and
leave ``{}`` without a block, which the single-block region constraint then rejects; MLIR adds
that block, and so does this directive.

:class:`BufferPosition`, ``custom<BufferPosition>($acc_index, $acc_offset)``: a buffer position
``[%i + 4]`` of a micro-op operand (``vta.gemm``, ``vta.gemm_reset``).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, IntegerAttr, i64
from xdsl.ir import Block
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    OptionalOperandVariable,
    ParsingState,
    PrintingState,
    RegionVariable,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from .vta_positions import parse_position, print_position

__all__ = ["BufferPosition", "SingleBlockBody"]


@irdl_custom_directive
class SingleBlockBody(CustomDirective):
    """``{ ops }``: a region holding one block without arguments (an empty ``{}`` included)."""

    body: RegionVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        self.body.set(state, region)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_region(
            self.body.get(op), print_entry_block_args=False, print_empty_block=False
        )


@irdl_custom_directive
class BufferPosition(CustomDirective):
    """``[%i + 4]``, ``[%i - 4]``, ``[%i]`` or ``[4]``, right after its buffer operand: a
    position of a micro-op operand (:func:`vta_mlir.dialects.vta_positions.parse_position`),
    an optional ``index`` operand plus an ``i64`` constant property."""

    index: OptionalOperandVariable
    offset: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        operand, offset = parse_position(parser)
        self.index.set(state, operand)
        if operand is not None:
            self.index.set_types(state, (IndexType(),))
        self.offset.set(state, IntegerAttr(offset, i64))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        # No space: the position is glued to its buffer, ``%acc[0]``.
        offset = self.offset.get(op)
        assert isinstance(offset, IntegerAttr)
        print_position(printer, self.index.get(op), int(offset.value.data))
        state.should_emit_space = True
        state.last_was_punctuation = False
