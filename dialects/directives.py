"""Custom directives for the declarative ``assembly_format`` of the project's ops.

:class:`SingleBlockBody`, ``custom<SingleBlockBody>($body)``: the body of an op with a
single-block region and no terminator (``vta.stage``, ``vta.uop_loop``), printed and parsed as
MLIR does for such ops.  xDSL's plain ``$body`` would print an empty body's block header and
leave ``{}`` without a block, which the single-block region constraint then rejects; MLIR adds
that block, and so does this directive.
"""

from __future__ import annotations

from xdsl.ir import Block
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import (
    CustomDirective,
    ParsingState,
    PrintingState,
    RegionVariable,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

__all__ = ["SingleBlockBody"]


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
